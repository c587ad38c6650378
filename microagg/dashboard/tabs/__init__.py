"""The tabs of the page, one module each: a function ``tab_<name>(s: Setup, r: Result)`` drawing it, and the
fragments that re-run a part of it alone. ``common`` holds what several tabs use."""
