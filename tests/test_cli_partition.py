from microagg.cli import main


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
