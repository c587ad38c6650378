"""Limits the threads of a split pass share, for ``engine.py``: read and tightened atomically, in any order.

A pass split over threads (``engine._pass_parallel``) gives each thread a share of the cells. Alone, a thread's
limits (the k-th smallest distance it has seen, the largest) tighten only on its own cells, so on many threads each
reads much that one thread would have skipped. Every thread's k-th smallest is at least the k-th smallest of all the
records, and its largest at most the largest of all, so the smallest k-th and the largest seen by any thread are
valid limits for every thread: :func:`tighten_min` / :func:`tighten_max` publish a thread's value, :func:`current`
reads what all have published so far. A stale read is only a looser limit, so the answer never depends on the
timing; only the work does.

The values are non-negative float64 (squared distances, or +inf), or -inf for "none yet" of a maximum. Their bit
patterns as signed 64-bit integers order as the values do, so one atomic integer min or max (LLVM's ``atomicrmw``,
relaxed ordering: no other memory is ordered by it) publishes a value; numba has no atomics of its own.
"""

from __future__ import annotations

from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic


def _slot(context, builder, sig, args):
    """The address of ``a[i]`` (``a`` a 1-d contiguous float64 array) as a pointer to a 64-bit integer."""
    a, i = args[0], args[1]
    data = context.make_array(sig.args[0])(context, builder, a).data
    return builder.bitcast(builder.gep(data, [i]), ir.IntType(64).as_pointer())


def _ok(a, i):
    return (isinstance(a, types.Array) and a.dtype == types.float64 and a.ndim == 1 and a.layout == "C"
            and a.mutable and isinstance(i, types.Integer) and i.bitwidth == 64)


def _rmw(op):
    def codegen(context, builder, sig, args):
        bits = builder.bitcast(args[2], ir.IntType(64))
        builder.atomic_rmw(op, _slot(context, builder, sig, args), bits, "monotonic")
        return context.get_dummy_value()
    return codegen


@intrinsic
def current(typingctx, a, i):
    """``a[i]``, read atomically (relaxed): the value some thread published last, never a torn one."""
    def codegen(context, builder, sig, args):
        bits = builder.load_atomic(_slot(context, builder, sig, args), "monotonic", 8)
        return builder.bitcast(bits, ir.DoubleType())
    return (types.float64(a, i), codegen) if _ok(a, i) else None


@intrinsic
def tighten_min(typingctx, a, i, v):
    """``a[i] = min(a[i], v)`` atomically, for ``v`` >= 0 (or +inf) and ``a[i]`` non-negative."""
    ok = _ok(a, i) and v == types.float64
    return (types.void(a, i, v), _rmw("min")) if ok else None


@intrinsic
def tighten_max(typingctx, a, i, v):
    """``a[i] = max(a[i], v)`` atomically, for ``v`` >= 0 and ``a[i]`` non-negative or -inf."""
    ok = _ok(a, i) and v == types.float64
    return (types.void(a, i, v), _rmw("max")) if ok else None
