from microagg.lab.reproduce import published


def test_rounding_to_the_printed_precision():
    assert published.printed_rounding("28.6100") == 2 and published.printed_rounding("33.2540") == 3
    assert published.rounds_to(28.6087, "28.6100") and not published.rounds_to(28.6049, "28.6100")
    assert published.rounds_to(38.67247, "38.6720") and not published.rounds_to(38.6726, "38.6720")


def test_published_tables_have_one_value_per_k():
    for table in published.MORTAZAVI_SL_MDAV.values():
        assert all(len(v) == len(published.K_MORTAZAVI) for v in table.values())
    assert all(len(v) == len(published.K_CHETTRI) for v in published.CHETTRI_DLD.values())
    assert all(len(v) == len(published.K_OOMMEN) for v in published.OOMMEN_TABLE3_MDAV.values())


def test_abidi_tables_agree_with_themselves_except_the_noted_slips():
    """HM-pfsom forms floor(smallest class / k) groups (the loop stops when a class has fewer than k left), MDAV
    floor(n / k); classes add up to their sub-microdata; HM-pfsom's minimal SSE_i is at least MDAV's."""
    slips = published.ABIDI_PRINTED_SLIPS
    for name, split in published.ABIDI_SPLIT.items():
        assert sum(int(size) for size, _ in split.values()) == {"census": 1080, "eia": 4092}[name]
        for sub, (size, classes) in split.items():
            assert (sum(map(int, classes)) == int(size)) != ((name, sub, "classes") in slips)
            for k, values in published.ABIDI_TABLES[name][sub].items():
                row = dict(zip(published.ABIDI_COLUMNS, values))
                assert int(row["groups HM"]) == min(map(int, classes)) // k
                assert int(row["min size MDAV"]) == k
                sound = int(row["groups MDAV"]) == int(size) // k and \
                    float(row["SSE_i HM"]) >= float(row["SSE_i MDAV"])
                assert sound != ((name, sub, k) in slips)
