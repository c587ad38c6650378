"""The dashboard (``streamlit run app.py``): UI only. Every computation is a call into ``microagg``, every figure
comes from ``microagg.figures.plots``, and every widget of a method parameter is built from the registry (label,
unit, range, help).

Its rooms, from the ground up: ``state`` (widget values kept across runs), ``cache`` (the cached stages, the
release shown, the kernel warm-up) and ``serve`` (several server processes behind one address, for a class);
``widgets`` (a parameter's widget, k); ``sidebar`` (its sections and the ``Setup`` they fill); ``tabs`` (one module
per tab); ``page`` (the headline, the caveats and the table of tabs).
One function per sidebar section and per tab; the tabs run lazily (only the open one), and the widgets local to a
tab are fragments that re-run alone.
"""
