"""A small, obviously correct MDAV used to check the fast engine (docs/methods.md §2.1-2.4).

Plain numpy over the list of remaining records. Distances are accumulated
attribute by attribute (the engine's documented arithmetic); the centroid is the
running sum of the remaining records divided by their number, with each group's
members subtracted in ascending order.
"""

import numpy as np


def sqdist(Z, rows, q):
    acc = np.zeros(len(rows))
    for t in range(Z.shape[1]):
        acc += (Z[rows, t] - q[t]) ** 2
    return acc


def farthest(Z, rows, q):
    dist = sqdist(Z, rows, q)
    return rows[int(np.argmax(dist))]  # first maximum: rows are ascending


def nearest(Z, rows, q, k):
    dist = sqdist(Z, rows, q)
    order = np.lexsort((rows, dist))  # by distance, then row index
    return rows[order[:k]]


def running_sum(Z):
    """Column sums of Z added row by row, as the engines start their running sum."""
    S = np.zeros(Z.shape[1])
    for i in range(Z.shape[0]):
        S += Z[i]
    return S


def to_nearest_centroid(Z, labels, rest, m):
    """Each of ``rest`` joins the nearest centroid of the groups 0..m-1 (lowest group among ties)."""
    C = np.array([Z[np.flatnonzero(labels == j)].sum(axis=0) / np.sum(labels == j) for j in range(m)])
    for i in rest:
        labels[i] = int(np.argmin(sqdist(C, np.arange(m), Z[i])))


def reference_mdav(Z, k, variant="generic"):
    Z = np.asarray(Z, dtype=np.float64)
    n = Z.shape[0]
    labels = np.full(n, -1)
    remaining = np.arange(n)
    S = running_sum(Z)
    g = 0

    def emit(members):
        nonlocal remaining, g, S
        for i in sorted(members):
            labels[i] = g
            S = S - Z[i]
        remaining = np.setdiff1d(remaining, members)
        g += 1

    loop_min = 3 * k if variant == "generic" else 2 * k
    while len(remaining) >= loop_min:
        c = S / len(remaining)
        r = farthest(Z, remaining, c)
        s = farthest(Z, remaining, Z[r])
        emit(nearest(Z, remaining, Z[r], k))
        if variant == "single":
            continue
        if s not in remaining:
            s = farthest(Z, remaining, Z[r])
        emit(nearest(Z, remaining, Z[s], k))
    if (variant == "generic" and len(remaining) >= 2 * k) or (variant == "mdav1" and len(remaining) >= k):
        c = S / len(remaining)
        r = farthest(Z, remaining, c)
        emit(nearest(Z, remaining, Z[r], k))
    if len(remaining) >= k:
        emit(remaining.copy())
    if len(remaining):
        to_nearest_centroid(Z, labels, remaining, g)
    return labels
