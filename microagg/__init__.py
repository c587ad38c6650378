"""microagg: a microaggregation lab for statistical disclosure control."""

from . import aggregate, baselines, engines, kernel_cache, metrics, partition, registry
from .datasets import list_datasets, load_dataset
from .datasets import roles as dataset_roles
from .errors import MicroaggError
from .html_report import html_report
from .io import read_csv
from .metrics import evaluate
from .pipeline import microaggregate
from .preprocess import Standardizer, destandardize, renormalize, standardize
from .release import Release
from .safety import identifiers

kernel_cache.lock_cache_files()  # before any kernel compiles or loads
kernel_cache.refresh()  # every kernel module is imported now, none has run: drop kernels compiled from other sources

__all__ = ["aggregate", "baselines", "engines", "metrics", "partition", "registry", "list_datasets", "load_dataset",
           "dataset_roles", "MicroaggError", "html_report", "read_csv", "evaluate", "Standardizer", "destandardize",
           "renormalize", "standardize", "Release", "microaggregate", "identifiers"]
__version__ = "0.1.0"
