"""The Dask engine on a 2-worker LocalCluster (threads, so it starts in about a second)."""

import re

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from distributed import Client, LocalCluster

import microagg as ma
from microagg.cli import main
from microagg.release.scale import build_plan, microaggregate_dask

COLS = ["a", "b", "c", "d"]
pytestmark = pytest.mark.filterwarnings("ignore:The inplace keyword:DeprecationWarning")  # inside dask's reader


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster, \
            Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    df = pd.DataFrame(rng.standard_normal((3000, 4)) * [1, 10, 100, 1e4] + [0, 5, -50, 1e6], columns=COLS)
    df.insert(0, "id", np.arange(len(df)))
    df["region"] = rng.choice(["north", "south"], len(df))
    return df


def write(df, folder, kind="parquet", parts=3):
    folder.mkdir(exist_ok=True)
    for i, chunk in enumerate(np.array_split(np.arange(len(df)), parts)):
        piece = df.iloc[chunk]
        if kind == "parquet":
            piece.to_parquet(folder / f"part{i}.parquet", index=False)
        else:
            piece.to_csv(folder / f"part{i}.csv", index=False)
    return str(folder / f"*.{kind}")


def released(rel):
    return rel.protected.compute().sort_values("id").reset_index(drop=True)


def summary(rel):
    table = rel.report()
    return table[table["attribute"] == "all"].set_index("metric")["value"]


def same_partition(a, b):
    pairs = pd.DataFrame({"a": a, "b": b}).drop_duplicates()
    return len(pairs) == len(np.unique(a)) == len(np.unique(b))


@pytest.mark.parametrize("sample_size", [200_000, 500])
def test_dask_release_equals_the_block_engine_on_the_same_blocks(client, data, tmp_path, sample_size):
    pattern = write(data, tmp_path / "in")
    rel = ma.microaggregate(pattern, 3, engine=ma.engines.Dask(tmp_path / "out", client, block_size=200),
                            columns=COLS, keep=["id", "region"]) if sample_size == 200_000 else \
        microaggregate_dask(pattern, 3, scheduler=client, out=tmp_path / "out", block_size=200, columns=COLS,
                            keep=["id", "region"], sample_size=sample_size)
    got = released(rel)
    blocks = rel.plan.assign(data[COLS].to_numpy())
    ref = ma.microaggregate(data, 3, engine=ma.engines.Blocks(200, blocks=blocks), columns=COLS,
                            keep=["id", "region"])
    want = ref.in_input_order()
    assert list(got.columns) == ["id", "a", "b", "c", "d", "region"]
    assert got["id"].tolist() == want["id"].tolist() and got["region"].tolist() == want["region"].tolist()
    dask_groups = pd.factorize(pd.MultiIndex.from_frame(got[COLS]))[0]
    assert same_partition(dask_groups, ref.labels)
    np.testing.assert_allclose(got[COLS].to_numpy(), want[COLS].to_numpy(), rtol=1e-12, atol=0)
    # the reductions agree with the in-process report
    mine, theirs = summary(rel), summary(ref)
    for metric in ("IL", "SSE", "SST"):
        assert mine[metric] == pytest.approx(theirs[metric], rel=1e-9)
    for metric in ("groups", "smallest group", "largest group", "groups larger than 2k-1", "blocks"):
        assert mine[metric] == theirs[metric], metric
    assert mine["k-anonymous"] and mine["smallest equivalence class"] >= 3
    assert 100 <= mine["smallest block"] and mine["largest block"] <= 200


def test_routing_by_a_small_sample_still_gives_blocks_between_k_and_b(client, data, tmp_path):
    rel = microaggregate_dask(data[COLS], 4, scheduler=client, out=tmp_path / "out", block_size=150,
                              sample_size=60, seed=5)
    rep = summary(rel)
    assert rep["smallest group"] >= 4 and rep["smallest block"] >= 4 and rep["largest block"] <= 150
    assert int(rep["records"]) == 3000 and len(released_values(rel)) == 3000


def released_values(rel):
    return rel.protected.compute()


def test_b_at_least_n_gives_the_single_machine_mdav(client, data, tmp_path):
    rel = microaggregate_dask(data[COLS + ["id"]], 3, scheduler=client, out=tmp_path / "out", block_size=10_000,
                              columns=COLS, keep=["id"])
    got = released(rel)
    one = ma.microaggregate(data, 3, columns=COLS)
    assert same_partition(pd.factorize(pd.MultiIndex.from_frame(got[COLS]))[0], one.labels)
    np.testing.assert_allclose(got[COLS].to_numpy(), one.in_input_order()[COLS].to_numpy(), rtol=1e-12)
    assert summary(rel)["blocks"] == 1


def test_csv_input_gives_the_parquet_release(client, data, tmp_path):
    kw = dict(columns=COLS, keep=["id"], aggregation="median")
    a = released(ma.microaggregate(write(data, tmp_path / "pq"), 3,
                                   engine=ma.engines.Dask(tmp_path / "o1", client, 300), **kw))
    b = released(ma.microaggregate(write(data, tmp_path / "csv", "csv"), 3,
                                   engine=ma.engines.Dask(tmp_path / "o2", client, 300), **kw))
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize("kind", ["csv", "parquet", "dask"])
def test_a_single_file_gets_the_memory_engines_identifier_decisions(client, data, tmp_path, kind):
    rows = data[COLS].assign(record=np.random.default_rng(9).permutation(len(data)) + 1)  # record numbers, no ID name
    path = tmp_path / f"one.{kind}"
    if kind == "csv":
        rows.to_csv(path, index=False)
    else:
        rows.to_parquet(path.with_suffix(".parquet"), index=False)
    path = str(path if kind == "csv" else path.with_suffix(".parquet"))
    if kind == "dask":
        path = dd.read_parquet(path)
    memory = ma.microaggregate(rows, 3)
    dask = microaggregate_dask(path, 3, scheduler=client, out=tmp_path / "out")
    withheld = dask.report().set_index("metric").loc["identifiers (not released)", "value"]
    assert memory.identifiers and withheld == "; ".join(f"{c} ({why})" for c, why in memory.identifiers.items())
    assert list(dask.protected.columns) == list(memory.protected.columns)


def test_dld_runs_on_a_sample_and_the_report_says_so(client, data, tmp_path):
    rel = microaggregate_dask(data[COLS], 3, scheduler=client, out=tmp_path / "out", block_size=200,
                              dld_sample=500)
    row = rel.report().set_index("metric").loc["DLD"]
    assert "SAMPLE of" in row["source"] and 0 < row["value"] < 100
    full = microaggregate_dask(data[COLS], 3, scheduler=client, out=tmp_path / "o2", block_size=200)
    assert "all records" in full.report().set_index("metric").loc["DLD", "source"]


def test_plan_merges_leaves_smaller_than_k():
    X = np.arange(20.0)[:, None]
    plan = build_plan(X, ma.Standardizer.fit(X), 20, 5)  # 20 -> 10 + 10 -> four leaves of 5
    assert plan.n_leaves == 4
    assert np.array_equal(plan.leaves(np.array([[0.0], [4.0], [5.0], [19.0]])), [0, 0, 1, 3])
    # a leaf < k joins the next one; the trailing leaves (< k together) join the block before
    assert np.array_equal(plan.merged(np.array([4, 1, 3, 0]), 3).block_of_leaf, [0, 1, 1, 1])
    assert np.array_equal(plan.merged(np.array([3, 3, 3, 3]), 3).block_of_leaf, [0, 1, 2, 3])


def test_cli_runs_on_the_given_scheduler(client, data, tmp_path, capsys):
    pattern = write(data, tmp_path / "in")
    code = main(["run", "--engine", "dask", "--input", pattern, "--k", "3", "--columns", "a,b,c,d", "--out",
                 str(tmp_path / "out"), "--block-size", "400", "--scheduler", client.scheduler.address])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "k-anonymous" in out.out and "Completed" in out.err and "release written" in out.err
    assert len(list((tmp_path / "out").glob("part-*.parquet"))) >= 2


# --- bad input -------------------------------------------------------------------------------------------------


def test_block_size_below_2k(tmp_path, capsys):
    with pytest.raises(ma.MicroaggError, match="smaller than 2k"):
        microaggregate_dask("whatever.parquet", 5, out=tmp_path / "o", block_size=9)
    assert main(["run", "--engine", "dask", "--input", "x.parquet", "--k", "5", "--block-size", "9", "--out",
                 str(tmp_path / "o")]) == 2
    assert "smaller than 2k = 10" in capsys.readouterr().err


def test_unreadable_and_missing_files(client, data, tmp_path):
    with pytest.raises(ma.MicroaggError, match="no input file matches"):
        microaggregate_dask(str(tmp_path / "nothing*.parquet"), 3, out=tmp_path / "o", scheduler=client)
    pattern = write(data, tmp_path / "in")
    (tmp_path / "in" / "part9.parquet").write_bytes(b"not a parquet file")
    with pytest.raises(ma.MicroaggError, match=r"cannot read .*part9\.parquet"):
        microaggregate_dask(pattern, 3, out=tmp_path / "o", scheduler=client, columns=COLS)
    (tmp_path / "in" / "part9.parquet").unlink()
    (tmp_path / "in" / "notes.txt").write_text("x")
    with pytest.raises(ma.MicroaggError, match=r"cannot tell the format of .*notes\.txt"):
        microaggregate_dask(str(tmp_path / "in" / "*"), 3, out=tmp_path / "o", scheduler=client)


def test_an_output_where_the_next_run_would_read_it_as_input_is_refused(client, data, tmp_path):
    """A release written inside an input folder (or a folder a glob pattern of the input matches) would be read by
    the next run on the same input as more records: refused, before anything is computed."""
    folder = tmp_path / "in"
    pattern = write(data[COLS], folder)
    for given in (str(folder), [str(folder)], str(folder / "**"), str(tmp_path / "**" / "*.parquet")):
        with pytest.raises(ma.MicroaggError, match="lies inside the input"):
            microaggregate_dask(given, 3, out=folder / "release", scheduler=client)
        assert not (folder / "release").exists()
    rel = microaggregate_dask(pattern, 3, out=folder / "release", scheduler=client)  # in/*.parquet: not below in/
    assert len(released_rows(rel)) == len(data)
    again = microaggregate_dask(pattern, 3, out=tmp_path / "second", scheduler=client)
    assert len(released_rows(again)) == len(data)


def released_rows(rel):
    return rel.protected.compute()


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_a_column_missing_in_some_files(client, data, tmp_path, kind):
    folder = tmp_path / "in"
    pattern = write(data, folder, kind)
    damaged = data.iloc[:10].drop(columns="c")
    damaged.to_parquet(folder / "part1.parquet", index=False) if kind == "parquet" else \
        damaged.to_csv(folder / "part1.csv", index=False)
    with pytest.raises(ma.MicroaggError, match=rf"column 'c' is missing in 1 of 3 input files .*part1\.{kind}"):
        microaggregate_dask(pattern, 3, out=tmp_path / "o", scheduler=client, columns=COLS)


def test_missing_values_and_text_columns(client, data, tmp_path):
    bad = data.copy()
    bad.loc[17, "b"] = np.nan
    with pytest.raises(ma.MicroaggError, match=r"column 'b' has 1 non-finite value"):
        microaggregate_dask(bad[COLS], 3, out=tmp_path / "o1", scheduler=client)
    with pytest.raises(ma.MicroaggError, match="'region'.*not numeric"):
        microaggregate_dask(data, 3, out=tmp_path / "o2", scheduler=client, columns=COLS + ["region"])
    folder = tmp_path / "csv"
    pattern = write(data[COLS], folder, "csv")
    text = data[COLS].iloc[:5].astype({"d": str})
    text.loc[text.index[2], "d"] = "unknown"
    text.to_csv(folder / "part2.csv", index=False)
    with pytest.raises(ma.MicroaggError, match=r"column 'd' is not numeric in partition 2"):
        microaggregate_dask(pattern, 3, out=tmp_path / "o3", scheduler=client)


def test_refusals(client, data, tmp_path):
    with pytest.raises(ma.MicroaggError, match="not group-local"):
        microaggregate_dask(data[COLS], 3, aggregation="p3m", out=tmp_path / "o", scheduler=client)
    with pytest.raises(ma.MicroaggError, match="each attribute separately"):
        microaggregate_dask(data[COLS], 3, method="individual_ranking", out=tmp_path / "o", scheduler=client)
    with pytest.raises(ma.MicroaggError, match="give out="):
        microaggregate_dask(data[COLS], 3, scheduler=client)
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "x").write_text("x")
    with pytest.raises(ma.MicroaggError, match="exists and is not empty"):
        microaggregate_dask(data[COLS], 3, out=tmp_path / "used", scheduler=client)
    with pytest.raises(ma.MicroaggError, match="records but k = 5"):
        microaggregate_dask(data[COLS].iloc[:4], 5, out=tmp_path / "o", scheduler=client)
    with pytest.raises(ma.MicroaggError, match="labels"):
        ma.microaggregate(data[COLS], 3, engine=ma.engines.Dask(tmp_path / "o"), labels=np.zeros(3000, int))


def test_default_local_cluster_through_the_cli(data, tmp_path, capsys):
    # no --scheduler: a LocalCluster of worker processes on this machine
    pattern = write(data[COLS], tmp_path / "in", parts=2)
    assert main(["run", "--engine", "dask", "--input", pattern, "--k", "5", "--out", str(tmp_path / "out")]) == 0
    report = capsys.readouterr().out  # the compact report: metric, value, unit
    assert re.search(r"^k-anonymous\s+yes\s*$", report, re.M)
    files = sorted((tmp_path / "out").glob("part-*.parquet"))
    written = re.search(r"^partitions written\s+(\d+)\s+files\s*$", report, re.M)
    assert files and written and int(written.group(1)) == len(files)
    assert len(pd.concat([pd.read_parquet(f) for f in files])) == len(data)


def test_identifiers_are_withheld_rows_shuffled_and_keys_refused(client, data, tmp_path):
    kw = dict(scheduler=client, block_size=300, keep=["region"])
    rel = microaggregate_dask(data, 3, out=tmp_path / "s", **kw)
    plain = microaggregate_dask(data, 3, out=tmp_path / "p", shuffle=False, **kw)
    assert rel.masked == COLS and "id" not in rel.protected.columns
    assert summary(rel)["identifiers (not released)"].startswith("id (")
    for a, b in zip(rel.files, plain.files):
        mine, theirs = pd.read_parquet(a), pd.read_parquet(b)
        assert not mine.equals(theirs)  # the same rows in another order
        pd.testing.assert_frame_equal(mine.sort_values([*COLS, "region"]).reset_index(drop=True),
                                      theirs.sort_values([*COLS, "region"]).reset_index(drop=True))
    assert isinstance(rel.params["shuffle_seed"], int) and plain.params["shuffle_seed"] is None
    again = [microaggregate_dask(data, 3, out=tmp_path / f"seed{i}", seed=3, **kw) for i in range(2)]
    for a, b in zip(again[0].files, again[1].files):
        pd.testing.assert_frame_equal(pd.read_parquet(a), pd.read_parquet(b))
    with pytest.raises(ma.MicroaggError, match="every key column must also be a stratum"):
        microaggregate_dask(data, 3, out=tmp_path / "k", keys=["region"], **kw)


def test_strata_are_the_blocks_and_keys_stay_k_anonymous(client, data, tmp_path):
    small = data.iloc[:900]
    rel = microaggregate_dask(small, 3, scheduler=client, out=tmp_path / "s", block_size=800, columns=COLS,
                              keys=["region"], strata=["region"])
    got = rel.protected.compute()
    assert got.groupby(["region", *COLS]).size().min() >= 3 and summary(rel)["k-anonymous"]
    assert sorted(got["region"]) == sorted(small["region"]) and summary(rel)["strata (one block each)"] == 2
    ref = ma.microaggregate(small, 3, engine=ma.engines.Blocks(800), columns=COLS, keys=["region"],
                            strata=["region"], shuffle=False)
    np.testing.assert_allclose(np.sort(got[COLS].to_numpy(), axis=0), np.sort(ref.protected[COLS].to_numpy(), axis=0),
                               rtol=1e-12)
    with pytest.raises(ma.MicroaggError, match=r"stratum region=north has \d+ records, more than block_size B = 300"):
        microaggregate_dask(small, 3, scheduler=client, out=tmp_path / "b", block_size=300, columns=COLS,
                            keys=["region"], strata=["region"])
    tiny = small.iloc[:40].assign(region=["north"] * 38 + ["south"] * 2)
    with pytest.raises(ma.MicroaggError, match="stratum region=south has 2 records, fewer than k = 3"):
        microaggregate_dask(tiny, 3, scheduler=client, out=tmp_path / "t", columns=COLS, strata=["region"])


def test_what_a_workers_kernel_says_is_said_by_the_release(client, tmp_path):
    """HM-pfsom's note on sub-microdata that cannot be diverse, said inside a worker's block, is said again by the
    release on the driver, once, as the memory engine says it."""
    df = pd.DataFrame(np.random.default_rng(1).normal(size=(40, 3)), columns=["a", "b", "conf"])
    with pytest.warns(UserWarning, match="HM-pfsom: 1 of 1 sub-microdata have a single confidential class") as said:
        microaggregate_dask(df, 5, method="hmpfsom", method_params={"c": 1, "cs": 2}, confidential=["conf"],
                            out=tmp_path / "o", scheduler=client, block_size=10)
    assert len([w for w in said if "HM-pfsom" in str(w.message)]) == 1
