from microagg import published
from microagg.cli import main, reproduce_partition


def test_reproduce_partition_table():
    table = reproduce_partition()
    assert len(table) == 3 * 4 * 3 + 2 * 3  # MDAV-1, V-MDAV, CV-MDAV on 3 data sets; IAMAT on 2
    by_row = table.groupby("row")["match"]
    assert by_row.all()[["MDAV-1", "V-MDAV", "IAMAT"]].all()
    assert not by_row.any()["CV-MDAV"]
    unmatched = table[~table["match"]]
    assert (unmatched["note"] == published.CHETTRI_CVMDAV_NOTE).all()
    vm = table[(table.row == "V-MDAV") & (table.data == "census")]
    assert list(vm["ours"]) == [5.6619, 7.514, 9.007, 14.073]


def test_reproduce_partition_prints_the_comparison(capsys):
    assert main(["reproduce", "partition"]) == 0
    out = capsys.readouterr().out
    assert "IAMAT" in out and "CV-MDAV" in out and "30 of 42 published values reproduced" in out


def test_run_with_a_new_method(capsys):
    assert main(["run", "--dataset", "tarragona", "--k", "3", "--method", "vmdav", "--param", "gamma=0.2"]) == 0
    assert "16.96" in capsys.readouterr().out
    assert main(["run", "--dataset", "census", "--k", "3", "--method", "cvmdav", "--param", "zself=yes"]) == 0
    assert main(["run", "--dataset", "census", "--k", "3", "--method", "vmdav", "--param", "gamma=x"]) == 2
    assert "gamma must be a number" in capsys.readouterr().err
