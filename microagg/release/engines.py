"""Where a partition is computed: engines as small objects, ``microaggregate(..., engine=Blocks(50_000))``.

* :class:`Memory` (the default, ``engine="memory"``): the method runs on all records at once, or on all the
  records of each stratum;
* :class:`Blocks` (``engine="blocks"``): the method runs inside blocks of at most ``block_size`` records, cut
  by the median tree of ``microagg.partition.blocks`` on the standardized masked columns (inside each
  stratum), on ``n_jobs`` threads; ``blocks`` gives the blocks instead (one id per record; larger ones are
  split further);
* :class:`Dask`: block by block on a Dask cluster from files to Parquet files (``microagg.release.scale``; README
  "Scaling out"); it runs the whole release itself, so it has no ``partition``.

An engine checks its own settings when it is made and those that depend on k in ``info``; ``accepts`` declares the
release options it takes (``release.spec.OPTIONS`` and "labels"; None: every one; the specification refuses the
others, naming them), and ``check_methods`` the capabilities it needs of the methods. ``partition`` gets input the
release has validated and calls the method's kernel, never its validating function.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..base.checks import check_int
from ..base.errors import MicroaggError
from ..base.registry import Method
from ..partition.blocks import DEFAULT_BLOCK_SIZE, check_block_size, partition_blocks, tree_blocks
from ..partition.igd import refined
from ..privacy.safety import class_ids


@dataclass(frozen=True)
class Memory:
    """All records at once; with strata, every stratum is one block run whole."""

    name = "memory"
    accepts = None  # every option
    refuses = ""

    def info(self, k: int) -> dict:
        """What the release records about this engine."""
        return {"engine": self.name}

    def check_methods(self, part: Method, agg: Method) -> None:
        """Every registered method runs in memory."""

    def call(self) -> str:
        return "'memory'"

    def argv(self) -> list[str]:
        return []

    def partition(self, part: Method, Z: np.ndarray, k: int, params: dict, stratum: np.ndarray | None,
                  split: np.ndarray, refine: str = "none") -> tuple[np.ndarray, dict]:
        """Labels of ``part``'s kernel on ``Z`` (validated; its columns ``split`` are the masked ones), refined by
        ``refine`` (checked against ``part``) inside every stratum, and what to record."""
        if stratum is None:
            labels = np.asarray(part.kernel(Z, k, **params))
            if refine != "none":
                labels = refined(np.ascontiguousarray(Z[:, split]), labels, k)
            return labels, self.info(k)
        return partition_blocks(Z, k, part, params, stratum, refine=refine, quasi=split), self.info(k)


@dataclass(frozen=True)
class Blocks:
    """Blocks of at most ``block_size`` records (default ``DEFAULT_BLOCK_SIZE``), ``n_jobs`` threads (default
    all cores), or the given ``blocks`` (one id per record)."""

    block_size: int | None = None
    n_jobs: int | None = None
    blocks: Any = field(default=None, compare=False, repr=False)

    name = "blocks"
    accepts = None  # every option
    refuses = ""

    def __post_init__(self):
        if self.n_jobs is not None:
            check_int(self.n_jobs, 1, "n_jobs must be an integer >= 1 (threads running blocks)")

    def size(self, k: int) -> int:
        return check_block_size(DEFAULT_BLOCK_SIZE if self.block_size is None else self.block_size, k)

    def info(self, k: int) -> dict:
        return {"engine": self.name, "block_size": self.size(k)}

    def check_methods(self, part: Method, agg: Method) -> None:
        """Every registered method runs inside blocks (one whose guarantee is relative to the whole table is
        refused when there is more than one block: ``partition.blocks.partition_blocks``)."""

    def call(self) -> str:
        return f"ma.engines.Blocks(block_size={self.block_size!r})"

    def argv(self) -> list[str]:
        return ["--engine", self.name] + ([] if self.block_size is None else ["--block-size", str(self.block_size)])

    def partition(self, part: Method, Z: np.ndarray, k: int, params: dict, stratum: np.ndarray | None,
                  split: np.ndarray, refine: str = "none") -> tuple[np.ndarray, dict]:
        B = self.size(k)
        outer = self.blocks if stratum is None or self.blocks is None else \
            class_ids(np.column_stack([self.blocks, stratum]))
        blocks = tree_blocks(Z, k, B, stratum if outer is None else outer, split)
        labels = partition_blocks(Z, k, part, params, blocks, self.n_jobs, refine, split)
        return labels, {"engine": self.name, "block_size": B, "blocks": int(blocks.max()) + 1}


@dataclass(frozen=True)
class Dask:
    """Block by block on Dask (``microagg.release.scale.microaggregate_dask``): the release is written as Parquet
    files to the directory ``out``; ``scheduler`` None (a LocalCluster), an address or a ``distributed.Client``; the
    other settings are those of ``microaggregate_dask``."""

    out: Any
    scheduler: Any = None
    block_size: int | None = None
    sample_size: int | None = None
    dld_sample: int | None = None
    progress: bool = False
    force: bool = False
    encoding: str | None = None

    name = "dask"
    accepts = frozenset({"columns", "keep", "confidential", "identifiers", "keys", "strata", "shuffle", "seed"})
    refuses = ("it computes its own blocks and partition on the whole file's z-scores, writes no index, cannot "
               "renormalize or refine, and takes neither categorical quasi-identifiers, sampling weights nor a "
               "missing-value option (docs/methods.md §8).")

    def __post_init__(self):
        if self.out is None:
            raise MicroaggError("engine='dask' writes the release as Parquet files: give out='a new directory'.")
        for name, value, low in (("sample_size", 1 if self.sample_size is None else self.sample_size, 1),
                                 ("dld_sample", 0 if self.dld_sample is None else self.dld_sample, 0)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
                raise MicroaggError(f"{name} must be an integer >= {low}; got {value!r}.")

    def size(self, k: int) -> int:
        return check_block_size(DEFAULT_BLOCK_SIZE if self.block_size is None else self.block_size, k)

    def info(self, k: int) -> dict:
        return {"engine": self.name, "block_size": self.size(k)}

    def check_methods(self, part: Method, agg: Method) -> None:
        """A method that works on the whole table, in the data's own units or per attribute, and an aggregation
        that is not group-local, cannot run block by block on z-scores (docs/methods.md §7)."""
        if part.caps.whole_table:
            raise MicroaggError(f"method '{part.name}' guarantees its property against the whole table: it cannot run "
                                "block by block on Dask; use the memory engine.")
        if part.caps.units == "original" or agg.caps.units == "original":
            raise MicroaggError(f"'{part.name}' with '{agg.name}' works in the data's own units on the whole table; "
                                "the Dask engine partitions z-scores block by block: use the memory engine.")
        if not part.record_level:
            raise MicroaggError(f"method '{part.name}' groups each attribute separately; the Dask engine releases "
                                "k-anonymous records only: choose a method with one group per record.")
        if not agg.caps.group_local:
            raise MicroaggError(f"aggregation '{agg.name}' is not group-local (it solves one problem over all groups), "
                                "so it cannot run block by block; use engine='blocks' or aggregation 'mean' or "
                                "'median'.")

    def call(self) -> str:
        return f"ma.engines.Dask(out={self.out!r}, block_size={self.block_size!r})"

    def argv(self) -> list[str]:
        return ["--engine", self.name] + ([] if self.block_size is None else ["--block-size", str(self.block_size)])


MEMORY = Memory()
NAMES = {"memory": Memory, "blocks": Blocks}
ENGINES = ("memory", "blocks", "dask")  # the names a command line offers


def engine_of(engine) -> Memory | Blocks | Dask:
    """An engine object from ``engine``: one already made, or the name of one that needs no settings."""
    if isinstance(engine, (Memory, Blocks, Dask)):
        return engine
    if engine == "dask":
        raise MicroaggError("the Dask engine writes the release to files: pass engine=microagg.engines.Dask(out="
                            "'a new directory') (README, Scaling out).")
    if isinstance(engine, str) and engine in NAMES:
        return NAMES[engine]()
    raise MicroaggError(f"unknown engine {engine!r}; choose 'memory', 'blocks' or an engine of microagg.engines "
                        "(Memory(), Blocks(block_size, n_jobs, blocks), Dask(out, ...)).")
