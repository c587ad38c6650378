"""What a computation said (its warnings), collected for the caller that ran it, without touching the process-wide
warnings state per call.

microagg's own warnings are said with :func:`say`: inside a collector (:func:`caught`, :func:`heard`) the text goes
straight to it, never through the ``warnings`` module, so no other thread's ``catch_warnings`` (pandas opens one on
many calls) can redirect or silence it, and no filter applies to it; outside one it is a warning as usual. Other
libraries' warnings reach the collector through a hook, as far as the process-wide state lets them:
``warnings.catch_warnings`` swaps the process-wide filters and ``warnings.showwarning`` while it runs, so with several
threads computing at once (the dashboard's sessions) it can mix, silence or lose their messages. :func:`install`
replaces ``warnings.showwarning`` by a hook that hands each warning to the collector of the running call (a
:class:`contextvars.ContextVar`, so one per thread); outside a collector a warning goes where it went before (the
terminal). The filters are never changed: what a caller silences stays silent outside the collector.

Work handed to other threads or processes (blocks, Dask workers) collects what it said with :func:`heard` and the
caller says it again with :func:`again`, in the order of the work, each as it was said (its category, microagg's or
another library's).
"""

from __future__ import annotations

import os
import sys
import threading
import warnings
from contextvars import ContextVar
from typing import NamedTuple


class Said(NamedTuple):
    """One warning said during a call."""

    text: str
    category: type[Warning]
    own: bool  # said by microagg (:func:`say`), not by another library

_COLLECTOR: ContextVar[list | None] = ContextVar("said", default=None)
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # microagg's folder
_INSTALL = threading.Lock()
_original = None


def _show(message, category, filename, lineno, file=None, line=None):
    collector = _COLLECTOR.get()
    if collector is None:
        _original(message, category, filename, lineno, file, line)
    else:
        collector.append(Said(str(message), category, False))


def install() -> None:
    """Route warnings to the collector of the running call. Process-wide, once: the hook is installed again only if
    something replaced it since (a ``catch_warnings`` that began before and ended after)."""
    global _original
    with _INSTALL:
        if warnings.showwarning is not _show:
            _original = warnings.showwarning
            warnings.showwarning = _show


def say(message: str, category: type[Warning] = UserWarning) -> None:
    """Say ``message``: to the collector of the running call if there is one, else ``warnings.warn(message,
    category)`` at the line of the code outside microagg that called into it (a notebook cell, a script), not at
    microagg's own line, however deep the call that says it."""
    collector = _COLLECTOR.get()
    if collector is None:
        warnings.warn(message, category, stacklevel=_outside())
    else:
        collector.append(Said(message, category, True))


def _outside() -> int:
    """The ``stacklevel`` of ``warnings.warn`` called in :func:`say` that names the first frame outside the package."""
    level, frame = 2, sys._getframe(2)  # (level 2 and frame 2: say's caller; 0 is this function, 1 say)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        level, frame = level + 1, frame.f_back
    return level


def heard(call, *args, **kwargs):
    """``call(*args, **kwargs)`` and what it said in this thread (:class:`Said`), once each, in order."""
    install()
    token = _COLLECTOR.set([])
    try:
        out = call(*args, **kwargs)
        seen = _COLLECTOR.get()
    finally:
        _COLLECTOR.reset(token)
    return out, tuple(dict.fromkeys(seen))


def again(notes, stacklevel: int = 1) -> None:
    """Say ``notes`` (:func:`heard`'s) again, each as it was said: microagg's with :func:`say`, another library's as
    its warning; ``stacklevel`` counted from the caller."""
    for note in notes:
        if note.own:
            say(note.text, note.category)
        else:
            warnings.warn(note.text, note.category, stacklevel=stacklevel + 1)


def caught(call, *args, own: bool = False, **kwargs):
    """``call(*args, **kwargs)`` and the texts of the warnings it said in this thread, once each, in order; with
    ``own``, microagg's only (what a page shows: other libraries' warnings go to the terminal)."""
    out, seen = heard(call, *args, **kwargs)
    kept = tuple(dict.fromkeys(note.text for note in seen if note.own or not own))
    if own:
        again([note for note in seen if not note.own], 2)
    return out, kept
