"""The dashboard with an uploaded survey file (AppTest): missing cells are microaggregated (or refused, on
request), a sampling-weight column is chosen in the column roles, and the Release tab shows the survey report;
the bundled survey example with weights, missing cells and categorical quasi-identifiers together."""

import numpy as np
import pandas as pd

from tests.dashboard.test_sidebar import messages, upload


def survey_csv(weight: str = "weight") -> bytes:
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(50, 10, size=(40, 3)).round(1), columns=["income", "age", "tax"])
    df = df.mask(rng.random(df.shape) < 0.1)
    df[weight] = rng.uniform(1, 9, 40).round(2)
    return df.to_csv(index=False).encode()


def test_missing_cells_and_a_weight_role_give_a_survey_release():
    expr = "ma.read_csv('mine.csv').data"
    at = upload(survey_csv())
    assert not at.error, messages(at, "error")
    assert at.selectbox(key=f"weight:{expr}").value == "weight"  # named like a sampling weight: proposed
    assert at.multiselect(key=f"columns:{expr}").value == ["income", "age", "tax"]  # and not masked
    assert "**weight** is named like a sampling weight" in " ".join(str(c.value) for c in at.caption)
    assert not at.exception and not at.error, messages(at, "error")
    release = at.dataframe[0].value
    assert "weight" not in release.columns and release.isna().to_numpy().any()  # missing cells stay missing
    text = " ".join(str(c.value) for c in at.code)
    assert "sampling_weights='weight'" in text and "--sampling-weights weight" in text
    assert [m.value for m in at.metric][-1] == "yes"  # k-anonymous, missing matching only missing
    at.multiselect(key=f"columns:{expr}").set_value(["income", "age", "weight"]).run()
    assert "sampling-weight column: never masked" in " ".join(str(c.value) for c in at.caption)
    at.radio(key="missing").set_value("refuse").run()
    assert "non-finite" in messages(at, "error")


def test_only_a_sampling_weight_is_proposed():
    from tests.dashboard.test_sidebar import APP, AppTest

    at = AppTest.from_file(APP, default_timeout=180)
    at.session_state["tab"] = "Release"
    at.run()
    assert at.selectbox(key="weight:ma.load_dataset('census')").value is None  # AFNLWGT: the benchmark's QI
    at = upload(survey_csv("weight_kg"))  # a body weight
    assert at.selectbox(key="weight:ma.read_csv('mine.csv').data").value is None
    assert "weight_kg" in at.multiselect(key="columns:ma.read_csv('mine.csv').data").value


def test_the_survey_example_releases_with_weights_missing_cells_and_categories():
    from tests.dashboard.test_sidebar import APP, AppTest

    expr = "ma.load_dataset('survey')"
    at = AppTest.from_file(APP, default_timeout=180)
    at.session_state["tab"] = "Release"
    at.run()
    at.selectbox(key="dataset").set_value("survey").run()
    at.selectbox(key=f"weight:{expr}").set_value("weight").run()
    at.multiselect(key=f"cats:{expr}").set_value(["region", "education"]).run()
    at.radio(key=f"kind:{expr}:education").set_value("ordinal").run()
    at.text_input(key=f"order:{expr}:education").set_value(
        "none < primary < lower secondary < upper secondary < tertiary").run()
    for missing in ("keep", "impute"):
        at.radio(key="missing").set_value(missing).run()
        assert not at.exception and not at.error, messages(at, "error")
        release = at.dataframe[0].value
        assert list(release.columns) == ["region", "age", "education", "household_size", "income"]
        assert release.isna().to_numpy().any() == (missing == "keep")
        assert [m.value for m in at.metric][-1] == "yes"  # k-anonymous on every released column
        code = " ".join(str(c.value) for c in at.code)
        assert "--sampling-weights weight" in code and "--nominal region" in code
        assert ("--missing impute" in code) == (missing == "impute")  # "keep" is the default
