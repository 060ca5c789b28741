from itertools import combinations, permutations, product

import pytest
from tables import read_table

from companion.rules import gryb
from companion.rules import node as nd
from companion.rules.space import mask_of, space

BOARD = space(4)
INDEX = gryb.index(BOARD)


def parse(names):
    return BOARD.parse_many(names.split())


@pytest.mark.parametrize("names, valid, levels, points, source", read_table("gryb-examples.tsv"))
def test_every_gryb_of_the_manuals_and_every_misprint(names, valid, levels, points, source):
    found = gryb.check(parse(names))
    if valid == "no":
        assert found is None, source
        return
    assert found is not None, source
    assert list(found.levels) == [int(x) for x in levels.split(",")], source
    assert found.points(4) == int(points), source


@pytest.mark.parametrize("names", ["GRYR RGBG YBGB BYRY", "GBR RGG YRB BYY", "G R Y B"])
def test_order_of_the_four_nodes_does_not_matter(names):
    nodes = parse(names)
    expected = gryb.check(nodes)
    for order in permutations(nodes):
        assert gryb.check(order) == expected


def test_big_endian_reverses_the_points():
    assert gryb.check(parse("G R Y B")).points(4, big_endian=True) == 8
    assert gryb.check(parse("YBRG YBRR YBRY YBRB")).points(4, big_endian=True) == 1
    # GRYB E integrates levels 2 and 4: 4 + 1 from the bottom up.
    assert gryb.check(parse("YGRR YRRY YYRB YBRG")).points(4, big_endian=True) == 5
    assert gryb.check(parse("GRYR RGBG YBGB BYRY")).points(4, big_endian=True) == 15


def test_quadrangle_flag_only_for_the_four_nodes_of_one_quadrangle():
    assert gryb.check(parse("RG RR RY RB")).quadrangle
    assert not gryb.check(parse("GGBR GRBR GYBR GBBR")).quadrangle  # L: 2nd level only, on the bottom level
    for parent in BOARD.nodes:
        if nd.level(parent) < 4:
            quad = gryb.check(nd.children(parent))
            assert quad.quadrangle and quad == INDEX.quadrangle(parent)


def test_the_head_node_is_in_no_gryb():
    assert gryb.check(parse("0 G R Y")) is None


@pytest.mark.parametrize("level", [1, 2, 3])
def test_index_agrees_with_brute_force_on_every_set_of_a_level(level):
    lvl = [n for n in BOARD.nodes if nd.level(n) == level]
    brute = {g.mask for g in map(gryb.check, combinations(lvl, 4)) if g}
    indexed = {g.mask for g in INDEX.find_all(BOARD.level_masks[level])}
    assert brute == indexed
    assert len(brute) == (12**level - 4**level) // 8


@pytest.mark.parametrize("depth, total", [(1, 1), (2, 17), (3, 225), (4, 2785)])
def test_count_formula_matches_enumeration(depth, total):
    board = space(depth)
    index = gryb.index(board)
    assert len(index.find_all(board.all)) == total == gryb.count(depth)


def test_every_node_is_in_the_expected_number_of_grybs():
    for n in BOARD.nodes:
        k = nd.level(n)
        assert len(INDEX.through(n)) == (3**k - 1) // 2


def test_completed_by_finds_exactly_the_grybs_the_new_stone_finishes():
    stones = mask_of(parse("GRYR RGBG YBGB GGBR GRBR GBBR"))
    done = INDEX.completed_by(BOARD.parse("BYRY"), stones)
    assert [g.names() for g in done] == [["GRYR", "RGBG", "YBGB", "BYRY"]]
    done = INDEX.completed_by(BOARD.parse("GYBR"), stones)
    assert [(g.levels, g.points(4)) for g in done] == [((2,), 2)]
    assert INDEX.completed_by(BOARD.parse("GGGG"), stones) == []


def test_quadrangle_only_games_see_only_quadrangles():
    stones = mask_of(parse("GG RR YY BB GR GY GB"))
    found = INDEX.completed_by(BOARD.parse("GG"), stones)
    assert {g.quadrangle for g in found} == {True, False}
    assert [g.names() for g in INDEX.completed_by(BOARD.parse("GG"), stones, quadrangle_only=True)] == [
        ["GG", "GR", "GY", "GB"]
    ]


def test_full_scan_matches_pairwise_incremental_queries():
    import random

    rng = random.Random(4)
    for _ in range(20):
        stones = mask_of(rng.sample(BOARD.nodes, 170))
        full = {g.mask for g in INDEX.find_all(stones)}
        incremental = {g.mask for n in BOARD.nodes if stones >> n & 1 for g in INDEX.completed_by(n, stones)}
        assert full == incremental


def test_giant_boards_have_grybs_through_their_deepest_nodes():
    giant = space(6)
    index = gryb.index(giant)
    deepest = nd.count(6) - 1
    assert len(index.through(deepest)) == (3**6 - 1) // 2
    for _, g in index.through(deepest):
        assert gryb.check(g.nodes) == g


def test_the_stepping_columns_are_exactly_the_printed_gryb_equivalents():
    # 001 "EQUIVALENTS to GRYB": the only orders in which a level's column may spell the four colours.
    equivalents = {"GRYB", "RYBG", "YBGR", "BGRY", "GBYR", "BYRG", "YRGB", "RGBY"}
    for column in product(nd.COLOURS, repeat=4):
        word = "".join(column)
        step = gryb._column_step(tuple(nd.COLOURS.index(c) for c in column))
        expected = 0 if len(set(word)) == 1 else 1 if word in equivalents else None
        assert step == expected, word


def test_full_scan_of_quadrangles_only():
    stones = mask_of(parse("GG GR GY GB RR YY BB RG RY RB"))
    everything = INDEX.find_all(stones)
    quadrangles = INDEX.find_all(stones, quadrangle_only=True)
    assert sorted(sorted(g.names()) for g in quadrangles) == [
        ["GB", "GG", "GR", "GY"],
        ["RB", "RG", "RR", "RY"],
    ]
    assert {g.mask for g in quadrangles} == {g.mask for g in everything if g.quadrangle}
    assert any(g.integrated for g in everything)  # [GG, RR, YY, BB] among them, which the filter drops
