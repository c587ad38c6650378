import re
from pathlib import Path

import microagg
from microagg.base import rows

PACKAGE = Path(microagg.__file__).resolve().parent


def test_report_rows_have_one_shape():
    row = rows.report_row("IL", 1.5, "%", rows.LOWER, "docs/metrics.md §4.1", attribute="age")
    assert row == {"metric": "IL", "attribute": "age", "value": 1.5, "unit": "%", "direction": "lower is better",
                   "source": "docs/metrics.md §4.1"}


def test_a_direction_is_spelled_in_one_place():
    spelled = re.compile(r"""["'](lower|higher) is better["']""")
    found = [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py") if spelled.search(p.read_text())]
    assert found == ["base/rows.py"]

