"""Block partitioning: any partitioner run inside blocks of at most B records (the scale-out plan).

Exact MDAV is sequential and O(n^2 d / k); past a few million records it is replaced by a
space-partitioning tree cut at medians: a node of more than B records is split into its
floor(m/2) lowest and ceil(m/2) highest records along its first principal axis (standardized
data; ``geometry.principal_axis``), equal projections in row order. The leaves are the blocks,
numbered in tree order (left first). The principal axis cuts fewer natural groups than the
attribute of largest variance (``benchmarks/README.md``, "bench_scale.py").

Size invariant: with B >= 2k, a node of m > B records has m >= 2k + 1, so both halves have
floor(m/2) >= k records; a leaf is the root (n <= B records) or half of a node of more
than B, so every block holds between min(n, floor((B + 1) / 2)) >= k and B records.

Inside each block (its records in row order) the chosen method's kernel runs on the globally
standardized values; labels are made global as block offset + local label, the offset
being the number of groups of the earlier blocks. With B >= n there is one block and the
labels are exactly the method's. Blocks run in parallel on Python threads (on one where threads cannot
start, as in a browser), one numba thread each: the compiled partitioners release the GIL (``threads.run``).

The price is information loss: no group crosses a block boundary (measured in
``benchmarks/bench_scale.py``; README "Scaling out").
"""

from __future__ import annotations

import contextvars
import os
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import numpy as np

from ..base.advice import threads_available
from ..base.checks import check_int, check_k
from ..base.errors import MicroaggError
from ..base.registry import get_method, partition_input
from ..base.said import again, heard
from . import kernels
from .geometry import principal_axis
from .igd import check_refine, refined

DEFAULT_BLOCK_SIZE = 50_000  # chosen from benchmarks/bench_scale.py (benchmarks/README.md, "bench_scale.py")


def check_block_size(block_size, k: int) -> int:
    """``block_size`` B must be an integer >= 2k (then every split leaves both halves >= k records)."""
    return check_int(block_size, 2 * k, "block_size must be an integer >= 2k", lambda B: (
        f"block_size B = {B} is smaller than 2k = {2 * k}: a block of more than B records can be split into two "
        f"halves of at least k = {k} records only when B >= 2k. Use block_size >= {2 * k}."))


def split_blocks(Z, k: int, block_size: int = DEFAULT_BLOCK_SIZE, blocks=None, split_on=None) -> np.ndarray:
    """Block id (0..b-1, in tree order) of every record: the leaves of the median tree (module docstring).

    ``blocks`` starts from a given assignment (one id per record, e.g. routed by ``microagg.release.scale``):
    the given blocks are taken in increasing id order and any of more than B records is split further
    by the tree; each must hold at least k records. ``split_on`` restricts the split attributes
    (column positions; default all).
    """
    Z, k = partition_input(Z, k)
    return tree_blocks(Z, k, check_block_size(block_size, k), blocks,
                  np.arange(Z.shape[1]) if split_on is None else np.asarray(split_on, dtype=np.int64))


def tree_blocks(Z: np.ndarray, k: int, B: int, blocks, cols: np.ndarray) -> np.ndarray:
    """:func:`split_blocks` on validated input: ``B`` checked, ``cols`` the split attributes."""
    if len(cols) == 0:
        raise MicroaggError("no attribute to split the blocks on: at least one column must be a quasi-identifier.")
    roots = [np.arange(len(Z))] if blocks is None else _given_blocks(blocks, len(Z), k)
    out = np.empty(len(Z), dtype=np.int64)
    b = 0
    for root in roots:
        stack = [root]
        while stack:
            idx = stack.pop()
            if len(idx) <= B:
                out[idx] = b
                b += 1
                continue
            values = Z[np.ix_(idx, cols)]
            axis = principal_axis(values)
            values -= values.mean(axis=0)
            order = np.argsort(values @ axis, kind="stable")  # idx ascending: ties in row order
            half = len(idx) // 2
            stack.append(np.sort(idx[order[half:]]))
            stack.append(np.sort(idx[order[:half]]))  # popped first: the lower half comes first
    return out


def _given_blocks(blocks, n: int, k: int) -> list[np.ndarray]:
    """Rows of every given block, in increasing block id; each block must hold >= k records."""
    ids = np.asarray(blocks)
    if ids.shape != (n,):
        raise MicroaggError(f"blocks must give one block id per record ({n}); got shape {ids.shape}.")
    if not np.issubdtype(ids.dtype, np.integer):
        raise MicroaggError(f"blocks must be integer block ids; got dtype {ids.dtype}.")
    uniq, inverse, counts = np.unique(ids, return_inverse=True, return_counts=True)
    if counts.min() < k:
        small = uniq[counts < k]
        raise MicroaggError(f"block {small[0]} has {counts.min()} < k = {k} records ({len(small)} such block(s)): "
                            "merge it with a neighbouring block.")
    order = np.argsort(inverse, kind="stable")
    return np.split(order, np.cumsum(counts)[:-1])


def block_partition(Z, k: int, method: str = "mdav", block_size: int = DEFAULT_BLOCK_SIZE,
                    n_jobs: int | None = None, blocks=None, confidential=None, refine: str = "none",
                    **params) -> np.ndarray:
    """Global labels of ``method`` run inside the blocks of :func:`split_blocks` (module docstring).

    ``params`` go to ``method`` (validated against its registration); ``n_jobs`` threads run the
    blocks (default: all cores), each block's compiled kernel on one thread (numba's threads compete
    badly with other busy threads: exact MDAV on 10^5 records took 28 s on 2 threads and 2.5 s on one
    on a loaded 2-core machine); a single block (B >= n) runs exactly as ``method`` alone. A method
    registered with ``uses_roles`` gets ``confidential`` (column positions of ``Z``), which never
    drive the split. Per-attribute methods (individual ranking) get one offset per attribute. Every
    group has at least k records. ``Z``, ``k`` and ``params`` are validated once, as ``method`` validates
    them, and the blocks go to its kernel (:func:`partition_blocks`). ``refine="igd"`` refines the partition of
    every block by IGD (``igd.py``; refused after a method whose guarantee it would break), so no group crosses a
    block.
    """
    part = get_method("partition", method)
    refine = check_refine(refine, part)
    conf = [] if confidential is None else [int(c) for c in confidential]
    if conf and not part.caps.uses_roles:
        raise MicroaggError(f"method '{method}' does not read confidential columns; leave 'confidential' out.")
    roles = {"confidential": conf} if part.caps.uses_roles else {}
    Z, k, params = part.check(Z, check_k(k), **roles, **params)  # k >= 2 also for a method that accepts k = 1
    Z = np.ascontiguousarray(Z)  # the kernels' input (a method's own check may keep another memory order)
    quasi = np.array([j for j in range(Z.shape[1]) if j not in conf], dtype=np.int64)
    ids = tree_blocks(Z, k, check_block_size(block_size, k), blocks, quasi)
    return partition_blocks(Z, k, part, params, ids, n_jobs, refine, quasi)


def partition_blocks(Z: np.ndarray, k: int, part, params: dict, ids: np.ndarray, n_jobs: int | None = None,
                     refine: str = "none", quasi: np.ndarray | None = None) -> np.ndarray:
    """:func:`block_partition` on validated input: the kernel of ``part`` (a registered partitioner, ``params``
    resolved) inside every block of ``ids`` (each of at least k records), refined by ``refine`` on the columns
    ``quasi`` (default all), the labels made global."""
    if part.caps.whole_table and ids.max() > 0:
        raise MicroaggError(f"method '{part.name}' guarantees its property against the whole table, not inside "
                            f"{ids.max() + 1} blocks or strata: use the memory engine without strata.")
    quasi = np.arange(Z.shape[1]) if quasi is None else quasi
    order = np.argsort(ids, kind="stable")
    rows = np.split(order, np.cumsum(np.bincount(ids))[:-1])
    n_jobs = (os.cpu_count() or 1) if n_jobs is None else int(n_jobs)
    if n_jobs < 1:
        raise MicroaggError(f"n_jobs must be >= 1 (threads running blocks); got {n_jobs}.")

    def block(r):
        with kernels.sized(len(Z)):  # (every block as the run on all records: compiled above the crossover)
            labels = np.asarray(part.kernel(Z[r], k, **params))
            return labels if refine == "none" else refined(np.ascontiguousarray(Z[r][:, quasi]), labels, k)

    run = partial(heard, block)  # the labels and what the block said, said again below in the order of the blocks

    numba = kernels.numba_for(len(Z))  # None: every block runs on the numpy kernels
    one = (lambda: None) if numba is None else (lambda: numba.set_num_threads(1))
    if len(rows) == 1:
        local = [run(rows[0])]
    elif n_jobs == 1 or not threads_available():
        before = None if numba is None else numba.get_num_threads()  # thread-local
        one()
        try:
            local = [run(r) for r in rows]
        finally:
            if numba is not None:
                numba.set_num_threads(before)
    else:
        caller = contextvars.copy_context()  # (the caller's names of the columns, for the blocks' messages)
        with ThreadPoolExecutor(min(n_jobs, len(rows)), initializer=one) as pool:
            local = list(pool.map(lambda r: caller.copy().run(run, r), rows))
    again(dict.fromkeys(note for _, notes in local for note in notes), 3)  # to the caller's collector, if any
    local = [lab for lab, _ in local]
    labels = np.empty((len(Z),) + local[0].shape[1:], dtype=np.int64)
    offset = np.zeros(local[0].shape[1:], dtype=np.int64)
    for r, lab in zip(rows, local):
        labels[r] = lab + offset
        offset = offset + lab.max(axis=0) + 1
    return labels
