"""Small, obviously correct references for V-MDAV, IAMAT, CV-MDAV, MD and optimal univariate grouping.

Plain numpy over the list of unassigned records, written from docs/methods.md §2.5-2.11
without any pruning, with the engines' documented arithmetic: squared distances
accumulated attribute by attribute, lowest row index wins ties, centroids of the
remaining records as a running sum with members subtracted in ascending order.
"""

import itertools

import numpy as np

from .reference import farthest, nearest, running_sum, sqdist, to_nearest_centroid


def member_mean(Z, members):
    c = np.zeros(Z.shape[1])
    for m in members:
        c = c + Z[m]
    return c / len(members)


def dist(a, b):
    return np.sqrt(sqdist(a[None], np.array([0]), b)[0])


def reference_vmdav(Z, k, gamma=0.2, centroid="fixed"):
    Z = np.asarray(Z, dtype=np.float64)
    n = Z.shape[0]
    labels = np.full(n, -1)
    rem = np.arange(n)
    S = running_sum(Z)
    fixed = S / n
    g = 0
    while len(rem) >= k:
        e = farthest(Z, rem, fixed if centroid == "fixed" else S / len(rem))
        G = list(nearest(Z, rem, Z[e], k))
        rem = np.setdiff1d(rem, G)
        while len(G) < 2 * k - 1 and len(rem) > 0:
            to_group = np.min([sqdist(Z, rem, Z[m]) for m in G], axis=0)
            j = np.lexsort((rem, to_group))[0]
            e_min = rem[j]
            others = rem[rem != e_min]
            d_out = np.sqrt(sqdist(Z, others, Z[e_min]).min()) if len(others) else np.inf
            if not np.sqrt(to_group[j]) < gamma * d_out:
                break
            G.append(e_min)
            rem = others
        for i in sorted(G):
            labels[i] = g
            S = S - Z[i]
        g += 1
    if len(rem):
        to_nearest_centroid(Z, labels, rem, g)
    return labels


def reference_iamat(Z, k):
    """Literal Algorithm 1 of Oommen & Fayyoumi 2010 in log domain: the summed squared distances to the members."""
    Z = np.asarray(Z, dtype=np.float64)
    n = Z.shape[0]
    labels = np.full(n, -1)
    rem = np.arange(n)
    mu = running_sum(Z) / n
    g = 0
    while len(rem) >= k:
        r = farthest(Z, rem, mu)
        s = nearest(Z, rem[rem != r], Z[r], 1)[0]
        G = [r, s]
        rem = np.setdiff1d(rem, G)
        while len(G) < k:
            score = np.zeros(len(rem))
            for m in G:
                score = score + sqdist(Z, rem, Z[m])  # = -alpha log eta_p
            p = rem[np.lexsort((rem, score))[0]]
            G.append(p)
            rem = rem[rem != p]
        labels[G] = g
        g += 1
    labels[rem] = g - 1
    return labels


def product_iamat(Z, k, dtype):
    """Algorithm 1 computed as written, with products of associations in ``dtype`` (to show the underflow)."""
    Z = np.asarray(Z, dtype=np.float64)
    n = Z.shape[0]
    mu = Z.mean(axis=0)
    alpha = np.sqrt(n) / (((Z - mu) ** 2).sum(axis=1).mean())
    assoc = lambda rows, i: np.exp(-((Z[rows] - Z[i]) ** 2).sum(axis=1) / alpha).astype(dtype)  # noqa: E731
    labels = np.full(n, -1)
    rem = np.arange(n)
    a_mu = np.exp(-((Z - mu) ** 2).sum(axis=1) / alpha).astype(dtype)
    g = 0
    while len(rem) >= k:
        r = rem[np.argmin(a_mu[rem])]
        rem = rem[rem != r]
        s = rem[np.argmax(assoc(rem, r))]
        rem = rem[rem != s]
        G = [r, s]
        while len(G) < k:
            eta = np.ones(len(rem), dtype=dtype)
            for i in G:
                eta = eta * assoc(rem, i)
            p = rem[np.argmax(eta)]
            G.append(p)
            rem = rem[rem != p]
        labels[G] = g
        g += 1
    labels[rem] = g - 1
    return labels


def reference_cvmdav(Z, k, gamma=1.1, cap="2k", last="2k-1", step4=">", zself=False):
    Z = np.asarray(Z, dtype=np.float64)
    n = Z.shape[0]
    size_cap = 2 * k if cap == "2k" else 2 * k - 1
    j_last = 2 * k - 1 if last == "2k-1" else 2 * k
    labels = np.full(n, -1)
    rem = np.arange(n)
    S = running_sum(Z)
    g = 0

    def emit(G):
        nonlocal S, g, rem
        for i in sorted(G):
            labels[i] = g
            S = S - Z[i]
        rem = np.setdiff1d(rem, G)
        g += 1

    while len(rem) >= 3 * k:
        r = farthest(Z, rem, S / len(rem))
        y = nearest(Z, rem[rem != r], Z[r], 2 * k)
        G = [r] + list(y[:k - 1])
        R = np.setdiff1d(rem, G)
        for j in range(k, j_last + 1):
            if len(G) >= size_cap:
                break
            yj = y[j - 1]
            z = nearest(Z, R if zself else R[R != yj], Z[yj], k)
            if dist(member_mean(Z, G), Z[yj]) < gamma * dist(member_mean(Z, z), Z[yj]):
                G.append(yj)
                R = R[R != yj]
        emit(G)
    if len(rem) > 2 * k or (step4 == ">=" and len(rem) == 2 * k):
        r = farthest(Z, rem, S / len(rem))
        emit(list(nearest(Z, rem, Z[r], k)))
    if len(rem):
        emit(list(rem))
    return labels


def reference_md(Z, k, tail="generic"):
    Z = np.asarray(Z, dtype=np.float64)
    n, d = Z.shape
    labels = np.full(n, -1)
    rem = np.arange(n)
    g = 0

    def emit(G):
        nonlocal g, rem
        labels[G] = g
        rem = np.setdiff1d(rem, G)
        g += 1

    def farthest_pair():
        D = np.zeros((len(rem), len(rem)))
        for t in range(d):
            D += (Z[rem, t][:, None] - Z[rem, t][None, :]) ** 2
        i, j = np.triu_indices(len(rem), 1)  # row-major: lexicographic (i, j)
        best = int(np.argmax(D[i, j]))
        return rem[i[best]], rem[j[best]]

    loop_min = 3 * k if tail == "generic" else 2 * k
    while len(rem) >= loop_min:
        r, s = farthest_pair()
        emit(nearest(Z, rem, Z[r], k))
        if s not in rem:
            s = farthest(Z, rem, Z[r])
        emit(nearest(Z, rem, Z[s], k))
    if tail == "generic" and len(rem) >= 2 * k:
        r, _ = farthest_pair()
        emit(nearest(Z, rem, Z[r], k))
    if len(rem) >= k:
        emit(rem.copy())
    if len(rem):
        to_nearest_centroid(Z, labels, rem, g)
    return labels


# --- optimal univariate: brute force --------------------------------------------------------------------


def block_sse(values):
    return float(((values - values.mean()) ** 2).sum())


def best_contiguous_sse(x, k):
    """Minimum SSE over every split of the sorted values into consecutive blocks of >= k (any size)."""
    xs = np.sort(x)
    n = len(xs)
    best = np.inf
    for cuts in range(n // k):
        for inner in itertools.combinations(range(k, n - k + 1), cuts):
            bounds = (0, *inner, n)
            if all(b - a >= k for a, b in zip(bounds, bounds[1:])):
                best = min(best, sum(block_sse(xs[a:b]) for a, b in zip(bounds, bounds[1:])))
    return best


def best_partition_sse(x, k):
    """Minimum SSE over EVERY partition of the values into groups of >= k (subset dynamic programming)."""
    n = len(x)
    full = (1 << n) - 1
    sse = {}
    for mask in range(1, full + 1):
        members = [i for i in range(n) if mask >> i & 1]
        if len(members) >= k:
            sse[mask] = block_sse(x[members])
    best = {0: 0.0}
    for mask in range(1, full + 1):
        low = mask & -mask
        rest = mask ^ low
        value = np.inf
        sub = rest
        while True:  # every group containing the lowest member of mask
            group = sub | low
            if group in sse and (mask ^ group) in best:
                value = min(value, sse[group] + best[mask ^ group])
            if sub == 0:
                break
            sub = (sub - 1) & rest
        if value < np.inf:
            best[mask] = value
    return best[full]
