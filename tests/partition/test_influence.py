"""Influence microaggregation (docs/methods.md §2.23): inside each CLARA cluster, the attribute on which its medoid
is largest."""

import numpy as np

import microagg as ma
from microagg.partition.clusters import clara
from microagg.partition.simple import consecutive_groups

from .test_clustpca import blobs


def test_each_cluster_is_sorted_by_its_medoids_largest_attribute():
    Z = blobs(3)
    clusters, medoids = clara(Z, 3, 0)
    parts = []
    for c, medoid in enumerate(medoids):
        rows = np.flatnonzero(clusters == c)
        parts.append(rows[np.argsort(Z[rows, int(np.argmax(Z[medoid]))], kind="stable")])  # small clusters too
    labels = ma.partition.influence(Z, 3, nc=3)
    assert np.array_equal(labels, consecutive_groups(np.concatenate(parts), 3))
    # the blobs' medoids are largest on different attributes: first attribute at +8, second in the small cluster
    assert {int(np.argmax(Z[m])) for m in medoids} >= {0, 1}


def test_influence_release_is_k_anonymous():
    rel = ma.microaggregate(ma.load_dataset("eia"), 5, method="influence", seed=0)
    assert rel.anonymity["k_anonymous"] and rel.report().set_index("metric")["value"]["smallest group"] >= 5
