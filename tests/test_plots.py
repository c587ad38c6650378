import numpy as np

from microagg import plots


def test_group_sizes_counts_every_attribute_of_per_attribute_labels():
    labels = np.column_stack([[0, 0, 0, 1, 1, 1, 1], [0, 0, 1, 1, 2, 2, 2]])
    fig = plots.group_sizes(labels, 2)
    bars = dict(zip(fig.data[0].x, fig.data[0].y))
    assert bars == {2: 2, 3: 2, 4: 1}  # attribute 0: sizes 3, 4; attribute 1: sizes 2, 2, 3
    assert "every attribute" in fig.layout.title.text


def test_group_sizes_of_record_labels():
    fig = plots.group_sizes(np.array([0, 0, 1, 1, 1]), 2)
    assert dict(zip(fig.data[0].x, fig.data[0].y)) == {2: 1, 3: 1} and fig.layout.title.text == "Group sizes"
