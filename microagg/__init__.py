"""microagg: a microaggregation lab for statistical disclosure control.

The package is grouped into wings, one folder per floor (README, "Architecture"): ``base`` (errors, checks, the
method registry), ``data`` (files, data sets, standardization, categories), ``figures`` (plots, tables),
``privacy`` (identifiers, column roles, privacy wishes, bounds), ``partition`` and ``aggregate`` (the methods;
``partition/compiled`` the numba runtime), ``metrics``, ``release`` (the release and its stages and engines) and
``lab`` (sweeps, attacks, the course, the HTML report). This face exports the public API.
"""

from . import aggregate, metrics, partition
from .base import registry
from .base.errors import MicroaggError
from .data import datasets
from .data.datasets import list_datasets, load_dataset
from .data.datasets import roles as dataset_roles
from .data.io import read_csv
from .data.preprocess import Standardizer, destandardize, renormalize, standardize
from .lab import baselines
from .lab.html_report import html_report
from .metrics import evaluate
from .privacy.safety import identifiers
from .release import engines
from .release.pipeline import microaggregate
from .release.release import Release

__all__ = ["aggregate", "baselines", "datasets", "engines", "metrics", "partition", "registry", "list_datasets",
           "load_dataset", "dataset_roles", "MicroaggError", "html_report", "read_csv", "evaluate", "Standardizer",
           "destandardize", "renormalize", "standardize", "Release", "microaggregate", "identifiers"]
__version__ = "0.1.0"
