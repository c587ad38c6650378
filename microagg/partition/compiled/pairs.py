"""Squared grid distances two attributes at a time, for the passes of ``engine.py`` over its integer copy.

The copy stores the attributes in pairs, interleaved (attributes 2p and 2p + 1 of a record side by side, int16). For
LANES records at once, :func:`pair_set` / :func:`pair_add` subtract the query's pair in 16 bits, square, add each
record's two squares in 32 bits and store (or add) the sums. LLVM compiles this to one multiply-add of 16-bit pairs
into 32-bit sums where the processor has it (``pmaddwd`` on x86), in place of a widening, a 32-bit multiply and an
add per attribute; from numba's loops over one attribute at a time it does not find that instruction. The functions
are written as LLVM instructions because numba has no vector types; they are generic instructions, which compile on
every target.

Exact while every difference of a pair fits in 16 bits and every sum of squares in 31 (``engine._grid_step`` chooses
the grid so).
"""

from __future__ import annotations

from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

LANES = 16  # records of one step (16 32-bit sums: one 512-bit register where the processor has them)


def _short(builder, x):
    """An integer value as 16 bits."""
    return x if x.type.width == 16 else builder.trunc(x, ir.IntType(16))


def _codegen(add):
    """The instructions of :func:`pair_set` (``add`` False) or :func:`pair_add`."""
    def codegen(context, builder, sig, args):
        row, loc, j, qa, qb = args
        src = context.make_array(sig.args[0])(context, builder, row).data
        dst = context.make_array(sig.args[1])(context, builder, loc).data
        i16, i32 = ir.IntType(16), ir.IntType(32)
        pairs, wide, sums = ir.VectorType(i16, 2 * LANES), ir.VectorType(i32, 2 * LANES), ir.VectorType(i32, LANES)
        v = builder.load(builder.bitcast(builder.gep(src, [builder.add(j, j)]), pairs.as_pointer()), align=2)
        q = builder.insert_element(ir.Constant(pairs, ir.Undefined), _short(builder, qa), ir.Constant(i32, 0))
        q = builder.insert_element(q, _short(builder, qb), ir.Constant(i32, 1))
        alternate = ir.Constant(wide, [i % 2 for i in range(2 * LANES)])  # (qa, qb, qa, qb, ...)
        q = builder.shuffle_vector(q, ir.Constant(pairs, ir.Undefined), alternate)
        e = builder.sext(builder.sub(v, q), wide)
        sq = builder.mul(e, e)
        none = ir.Constant(wide, ir.Undefined)
        s = builder.add(builder.shuffle_vector(sq, none, ir.Constant(sums, list(range(0, 2 * LANES, 2)))),
                        builder.shuffle_vector(sq, none, ir.Constant(sums, list(range(1, 2 * LANES, 2)))))
        out = builder.bitcast(builder.gep(dst, [j]), sums.as_pointer())
        if add:
            s = builder.add(builder.load(out, align=4), s)
        builder.store(s, out, align=4)
        return context.get_dummy_value()
    return codegen


def _typed(row, loc, j, qa, qb, add):
    """The signature and instructions, for the arguments they are written for (else none: numba's typing error)."""
    ok = (isinstance(row, types.Array) and row.dtype == types.int16 and row.ndim == 1 and row.layout == "C"
          and isinstance(loc, types.Array) and loc.dtype == types.int32 and loc.ndim == 1 and loc.layout == "C"
          and loc.mutable and all(isinstance(x, types.Integer) and x.bitwidth >= 16 for x in (j, qa, qb))
          and j.bitwidth == 64 and j.signed)
    return (types.void(row, loc, j, qa, qb), _codegen(add)) if ok else None


@intrinsic
def pair_set(typingctx, row, loc, j, qa, qb):
    """loc[j + i] = (row[2(j + i)] - qa)^2 + (row[2(j + i) + 1] - qb)^2 for i < LANES (row int16, loc int32, 1-d
    contiguous; j an int64, qa and qb integers of the grid)."""
    return _typed(row, loc, j, qa, qb, False)


@intrinsic
def pair_add(typingctx, row, loc, j, qa, qb):
    """As :func:`pair_set`, adding to loc."""
    return _typed(row, loc, j, qa, qb, True)
