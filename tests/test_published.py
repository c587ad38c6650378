from microagg import published


def test_rounding_to_the_printed_precision():
    assert published.printed_rounding("28.6100") == 2 and published.printed_rounding("33.2540") == 3
    assert published.rounds_to(28.6087, "28.6100") and not published.rounds_to(28.6049, "28.6100")
    assert published.rounds_to(38.67247, "38.6720") and not published.rounds_to(38.6726, "38.6720")


def test_published_tables_have_one_value_per_k():
    for table in published.SEED000_SL_MDAV.values():
        assert all(len(v) == len(published.K_SEED000) for v in table.values())
    assert all(len(v) == len(published.K_SEED003) for v in published.SEED003_DLD.values())
    assert all(len(v) == len(published.K_SEED004) for v in published.SEED004_TABLE3_MDAV.values())
