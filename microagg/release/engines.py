"""Where a partition is computed: engines as small objects, ``microaggregate(..., engine=Blocks(50_000))``.

* :class:`Memory` (the default, ``engine="memory"``): the method runs on all records at once, or on all the
  records of each stratum;
* :class:`Blocks` (``engine="blocks"``): the method runs inside blocks of at most ``block_size`` records, cut
  by the median tree of ``microagg.partition.blocks`` on the standardized masked columns (inside each
  stratum), on ``n_jobs`` threads; ``blocks`` gives the blocks instead (one id per record; larger ones are
  split further);
* :class:`Dask`: block by block on a Dask cluster from files to Parquet files (``microagg.release.scale``; README
  "Scaling out"); it runs the whole release itself, so it has no ``partition``.

An engine checks its own settings when it is made and those that depend on k in ``info``; ``partition`` gets
input that the release has already validated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..base.checks import check_int
from ..base.errors import MicroaggError
from ..base.registry import Method
from ..partition.blocks import DEFAULT_BLOCK_SIZE, block_partition, check_block_size, split_blocks
from ..partition.igd import refined
from ..privacy.safety import class_ids


@dataclass(frozen=True)
class Memory:
    """All records at once; with strata, every stratum is one block run whole."""

    name = "memory"

    def info(self, k: int) -> dict:
        """What the release records about this engine."""
        return {"engine": self.name}

    def partition(self, part: Method, Z: np.ndarray, k: int, params: dict, stratum: np.ndarray | None,
                  split: np.ndarray, refine: str = "none") -> tuple[np.ndarray, dict]:
        """Labels of ``part`` on ``Z`` (its columns ``split`` are the masked ones), refined by ``refine`` (checked
        against ``part``: ``partition.igd.check_refine``) inside every stratum, and what to record."""
        if stratum is None:
            labels = part.func(Z, k, **params)
            if refine != "none":
                labels = refined(np.ascontiguousarray(Z[:, split]), np.asarray(labels), k)
            return labels, self.info(k)
        size = max(2 * k, int(np.bincount(stratum).max()))
        return block_partition(Z, k, part.name, block_size=size, blocks=stratum, refine=refine, **params), \
            self.info(k)


@dataclass(frozen=True)
class Blocks:
    """Blocks of at most ``block_size`` records (default ``DEFAULT_BLOCK_SIZE``), ``n_jobs`` threads (default
    all cores), or the given ``blocks`` (one id per record)."""

    block_size: int | None = None
    n_jobs: int | None = None
    blocks: Any = field(default=None, compare=False, repr=False)

    name = "blocks"

    def __post_init__(self):
        if self.n_jobs is not None:
            check_int(self.n_jobs, 1, "n_jobs must be an integer >= 1 (threads running blocks)")

    def size(self, k: int) -> int:
        return check_block_size(DEFAULT_BLOCK_SIZE if self.block_size is None else self.block_size, k)

    def info(self, k: int) -> dict:
        return {"engine": self.name, "block_size": self.size(k)}

    def partition(self, part: Method, Z: np.ndarray, k: int, params: dict, stratum: np.ndarray | None,
                  split: np.ndarray, refine: str = "none") -> tuple[np.ndarray, dict]:
        B = self.size(k)
        outer = self.blocks if stratum is None or self.blocks is None else \
            class_ids(np.column_stack([self.blocks, stratum]))
        blocks = split_blocks(Z[:, split], k, B, blocks=stratum if outer is None else outer)
        labels = block_partition(Z, k, part.name, block_size=B, n_jobs=self.n_jobs, blocks=blocks, refine=refine,
                                 **params)
        return labels, {**self.info(k), "blocks": int(blocks.max()) + 1}


@dataclass(frozen=True)
class Dask:
    """Block by block on Dask (``microagg.release.scale.microaggregate_dask``): the release is written as Parquet
    files to
    the directory ``out``; ``scheduler`` None (a LocalCluster), an address or a ``distributed.Client``; the other
    settings are those of ``microaggregate_dask``."""

    out: Any
    scheduler: Any = None
    block_size: int | None = None
    sample_size: int | None = None
    dld_sample: int | None = None
    progress: bool = False
    force: bool = False
    encoding: str | None = None

    name = "dask"

    def options(self) -> dict:
        """The keyword arguments of ``microaggregate_dask`` this engine sets."""
        out = {"out": self.out, "scheduler": self.scheduler, "block_size": self.block_size,
               "sample_size": self.sample_size, "progress": self.progress, "force": self.force,
               "encoding": self.encoding}
        return out if self.dld_sample is None else {**out, "dld_sample": self.dld_sample}


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
