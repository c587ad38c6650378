import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import microagg as ma
from microagg.base import said
from microagg.partition import block_partition, split_blocks
from microagg.partition.mdav import mdav_kernel


def normal(n, d=4, seed=0):
    return ma.standardize(np.random.default_rng(seed).standard_normal((n, d)))


def assert_groups_inside_blocks(labels, ids, k):
    """Every group has >= k records and lies in one block; labels are 0..m-1."""
    sizes = np.bincount(labels)
    assert sizes.min() >= k
    for g in range(len(sizes)):
        assert len(np.unique(ids[labels == g])) == 1


# --- the split: sizes, order, determinism -------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 400), k=st.integers(2, 6), extra=st.integers(0, 60), d=st.integers(1, 3),
       ties=st.booleans(), seed=st.integers(0, 1000))
def test_every_block_holds_between_half_of_b_and_b_records(n, k, extra, d, ties, seed):
    n = max(n, k)
    B = 2 * k + extra
    rng = np.random.default_rng(seed)
    Z = rng.integers(0, 3, (n, d)).astype(float) if ties else rng.standard_normal((n, d))
    ids = split_blocks(Z, k, B)
    sizes = np.bincount(ids)
    assert sizes.max() <= B
    assert sizes.min() >= (min(n, (B + 1) // 2))
    assert sizes.min() >= k
    assert np.array_equal(ids, split_blocks(Z, k, B))  # deterministic


def test_blocks_follow_the_tree_left_to_right():
    Z = np.column_stack([np.arange(40.0), np.zeros(40)])[::-1].copy()  # only column 0 varies
    ids = split_blocks(Z, 2, 10)
    # four blocks of 10, numbered by increasing value of the widest attribute
    assert np.array_equal(np.bincount(ids), [10, 10, 10, 10])
    assert np.array_equal(ids, np.repeat([3, 2, 1, 0], 10))


def test_equal_values_split_in_row_order():
    Z = np.zeros((9, 2))  # nothing varies: the first floor(m/2) rows go left (9 -> 4 + 5 -> 4 + 2 + 3)
    assert np.array_equal(split_blocks(Z, 2, 4), [0, 0, 0, 0, 1, 1, 2, 2, 2])


def test_given_blocks_are_kept_and_large_ones_split_further():
    Z = normal(100)
    given = np.r_[np.full(30, 7), np.full(70, 3)]  # ids need not be 0..b-1
    ids = split_blocks(Z, 3, 40, blocks=given)
    assert np.array_equal(np.unique(ids[30:]), [0, 1])  # block 3 (70 records, > B) comes first, in two halves
    assert np.array_equal(np.bincount(ids), [35, 35, 30])
    assert np.array_equal(np.unique(ids[:30]), [2])


# --- labels ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["generic", "classic"])
def test_b_at_least_n_gives_exactly_mdav(variant):
    Z = normal(3000)
    for B in (3000, 10**6):
        assert np.array_equal(block_partition(Z, 3, block_size=B, variant=variant), ma.partition.mdav(Z, 3, variant))


def test_labels_are_unique_across_blocks_and_groups_at_least_k():
    Z = normal(5000, 5)
    ids = split_blocks(Z, 4, 600)
    labels = block_partition(Z, 4, block_size=600)
    assert np.bincount(ids).size > 8
    assert_groups_inside_blocks(labels, ids, 4)
    assert labels.max() + 1 == len(np.unique(labels))  # contiguous group ids


def test_labels_are_block_offset_plus_mdav_in_the_block():
    Z = normal(2000)
    ids = split_blocks(Z, 3, 500)
    labels = block_partition(Z, 3, block_size=500)
    offset = 0
    for b in range(ids.max() + 1):
        rows = np.flatnonzero(ids == b)
        assert np.array_equal(labels[rows], ma.partition.mdav(Z[rows], 3) + offset)
        offset = labels[rows].max() + 1


def test_threads_give_the_same_labels(backend):
    Z = normal(20000, 6)
    assert np.array_equal(block_partition(Z, 3, block_size=2000, n_jobs=2),
                          block_partition(Z, 3, block_size=2000, n_jobs=1))


def test_kernel_calls_from_threads_on_both_paths(compiled):
    # below parallel_min the kernels run without the lock (nogil); at parallel_min=0 every pass may thread
    # and the calls serialize on the engine lock: both give the serial labels
    Zs = [normal(1500, 3, seed=s) for s in range(6)]
    want = [ma.partition.mdav(Z, 3) for Z in Zs]
    for pmin in (0, 1 << 40):
        with ThreadPoolExecutor(3) as pool:
            got = list(pool.map(lambda Z, p=pmin: compiled.threads.run(mdav_kernel.compiled(), Z, 3, 0, False,
                                                                       parallel_min=p)[0], Zs))
        assert all(np.array_equal(a, b) for a, b in zip(got, want))


@pytest.mark.parametrize("method,params", [("vmdav", {}), ("cvmdav", {}), ("md", {}), ("iamat", {}),
                                           ("projection", {"axis": "pca", "grouping": "optimal"})])
def test_any_registered_partitioner_runs_inside_blocks(method, params):
    Z = normal(600, 3)
    ids = split_blocks(Z, 3, 150)
    assert_groups_inside_blocks(block_partition(Z, 3, method, block_size=150, **params), ids, 3)


def test_per_attribute_methods_get_one_offset_per_attribute():
    Z = normal(400, 3)
    ids = split_blocks(Z, 3, 100)
    labels = block_partition(Z, 3, "individual_ranking", block_size=100)
    assert labels.shape == (400, 3)
    for t in range(3):
        assert_groups_inside_blocks(labels[:, t], ids, 3)


@pytest.mark.filterwarnings("ignore:HM-pfsom")
def test_roles_methods_split_on_the_quasi_identifiers_only():
    Z = normal(300, 4)
    Z[:, 3] *= 100  # a confidential column that would dominate the split
    labels = block_partition(Z, 2, "hmpfsom", block_size=150, confidential=[3])
    assert_groups_inside_blocks(labels, split_blocks(Z, 2, 150, split_on=[0, 1, 2]), 2)


# --- through microaggregate -----------------------------------------------------------------------------------


def test_block_engine_with_b_at_least_n_is_the_single_machine_release():
    df = ma.load_dataset("census")
    one = ma.microaggregate(df, 5)
    blocks = ma.microaggregate(df, 5, engine=ma.engines.Blocks(len(df)))
    assert np.array_equal(one.labels, blocks.labels)
    assert one.in_input_order().equals(blocks.in_input_order())
    report = blocks.report().set_index("metric")["value"]
    assert report["engine"] == "blocks" and report["blocks"] == 1 and report["block size B"] == len(df)


def test_block_engine_release_is_k_anonymous_and_costs_some_il():
    df = ma.load_dataset("eia")

    def summary(rel):
        table = rel.report()
        return table[table["attribute"] == "all"].set_index("metric")["value"]

    exact = summary(ma.microaggregate(df, 3, identifiers=[]))  # all 11 attributes, UTILITYID included
    rep = summary(ma.microaggregate(df, 3, identifiers=[], engine=ma.engines.Blocks(500)))
    assert rep["k-anonymous"] and rep["smallest group"] >= 3
    assert rep["blocks"] == 16  # 4092 records: 16 blocks of 255-256
    assert rep["IL"] > exact["IL"]


# --- bad input ------------------------------------------------------------------------------------------------


def test_block_size_below_2k_is_refused():
    Z = normal(100)
    with pytest.raises(ma.MicroaggError, match=r"block_size B = 9 is smaller than 2k = 10"):
        block_partition(Z, 5, block_size=9)
    with pytest.raises(ma.MicroaggError, match="smaller than 2k"):
        ma.microaggregate(ma.load_dataset("census"), 5, engine=ma.engines.Blocks(8))
    with pytest.raises(ma.MicroaggError, match="integer"):
        split_blocks(Z, 2, 10.5)


def test_given_blocks_smaller_than_k_are_refused():
    with pytest.raises(ma.MicroaggError, match=r"block 1 has 2 < k = 3 records"):
        split_blocks(normal(20), 3, 10, blocks=np.r_[np.zeros(18, int), [1, 1]])
    with pytest.raises(ma.MicroaggError, match="one block id per record"):
        split_blocks(normal(20), 3, 10, blocks=[0, 1])


def test_engine_options_belong_to_their_engine():
    df = ma.load_dataset("census")
    with pytest.raises(ma.MicroaggError, match=r"settings of an engine.*engines.Blocks\(block_size"):
        ma.microaggregate(df, 3, block_size=100)
    with pytest.raises(ma.MicroaggError, match="unknown engine"):
        ma.microaggregate(df, 3, engine="spark")
    with pytest.raises(ma.MicroaggError, match=r"engines.Dask\(out"):
        ma.microaggregate(df, 3, engine="blocks", out="x")
    with pytest.raises(ma.MicroaggError, match=r"engines.Dask\(out="):
        ma.microaggregate(df, 3, engine="dask")
    with pytest.raises(ma.MicroaggError, match="n_jobs must be an integer >= 1"):
        ma.engines.Blocks(n_jobs=0)


@pytest.mark.parametrize("args,kwargs", [
    ((normal(20), 1), {}), ((normal(20), 2.5), {}), ((normal(20), "3"), {}), ((normal(5), 6), {}),
    ((np.where(np.eye(20, 4) > 0, np.nan, normal(20)), 3), {}), ((normal(20)[:0], 3), {}),
    ((normal(20), 3), {"method": "vmdav", "gamma": -1.0}), ((normal(20), 3), {"method": "mdav", "variant": "x"}),
])
def test_bad_input_is_refused_as_the_method_refuses_it(args, kwargs):
    method = kwargs.pop("method", "mdav")
    with pytest.raises(ma.MicroaggError) as alone:
        getattr(ma.partition, method)(*args, **kwargs)
    with pytest.raises(ma.MicroaggError) as blocked:
        block_partition(*args, method=method, block_size=10, **kwargs)
    assert str(blocked.value) == str(alone.value)


def test_input_and_parameters_are_checked_once_and_every_block_goes_to_the_kernel(monkeypatch):
    from dataclasses import replace

    from microagg.base import registry

    Z = normal(400, 3)
    calls, blocks = [], []
    method = registry.get_method("partition", "vmdav")

    def kernel(Zb, k, **params):
        blocks.append((Zb.flags.c_contiguous and Zb.dtype == np.float64, type(k), params))
        return method.kernel(Zb, k, **params)

    def inputs(Z, k):
        calls.append("inputs")
        return (*registry.partition_input(Z, k), {})

    resolve = registry.Method.resolve
    monkeypatch.setattr(registry.Method, "resolve", lambda self, p: calls.append("resolve") or resolve(self, p))
    monkeypatch.setitem(registry._REGISTRY["partition"], "vmdav", replace(method, kernel=kernel, inputs=inputs))
    labels = block_partition(Z, 3, "vmdav", block_size=100, gamma=1.1)
    assert calls == ["resolve", "inputs"] and len(blocks) == np.bincount(split_blocks(Z, 3, 100)).size
    assert all(b == (True, int, {"gamma": 1.1, "centroid": "fixed"}) for b in blocks)
    monkeypatch.undo()
    assert np.array_equal(labels, block_partition(Z, 3, "vmdav", block_size=100, gamma=1.1))


def test_what_a_block_says_in_a_worker_thread_reaches_the_callers_collector():
    """Blocks run in worker threads: a kernel's warning (HM-pfsom's sub-microdata that cannot be diverse) reaches the
    collector of the call that started them (the dashboard's session), not the terminal."""
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(18, 3))
    blocks = np.repeat([0, 1], 9)
    with warnings.catch_warnings(record=True) as terminal:
        warnings.simplefilter("always")
        labels, notes = said.caught(block_partition, Z, 5, "hmpfsom", block_size=10, n_jobs=2, blocks=blocks,
                                    confidential=[2], c=1, cs=2)
    assert_groups_inside_blocks(labels, blocks, 5)
    assert [n for n in notes if n.startswith("HM-pfsom:")] and not terminal


def test_a_blocks_refusal_names_the_column_as_the_memory_engines_does():
    """The names of the masked columns reach the blocks' threads (their messages say "column 'age'", not its
    position)."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"income": rng.uniform(0, 10, 3000), "age": rng.uniform(5, 9, 3000)})
    for engine in (ma.engines.Memory(), ma.engines.Blocks(1000, n_jobs=2)):
        with pytest.raises(ma.MicroaggError, match="column 'age' has"):
            ma.microaggregate(df, 5, method="insensitive_mdav", bounds=[(0, 10), (5, 1)], engine=engine)
