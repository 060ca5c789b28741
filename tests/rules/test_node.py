import pytest

from companion.rules import node as nd
from companion.rules.node import NodeError


@pytest.mark.parametrize("depth, total", [(1, 5), (2, 21), (3, 85), (4, 341), (5, 1365), (6, 5461)])
def test_node_counts_match_the_manuals(depth, total):
    assert len(nd.nodes(depth)) == total
    assert len(nd.nodes(depth, headless=True)) == total - 1


def test_names_round_trip_and_follow_the_manuals_notation():
    assert nd.name(0) == "0"
    assert [nd.name(n) for n in nd.children(0)] == ["G", "R", "Y", "B"]
    assert [nd.name(n) for n in nd.children(nd.parse("R"))] == ["RG", "RR", "RY", "RB"]
    for depth in (4, 6):
        for n in nd.nodes(depth):
            assert nd.parse(nd.name(n), depth) == n


def test_level_parent_children_quadrangle_focus():
    gbby = nd.parse("GGBY")
    assert nd.level(gbby) == 4
    assert nd.focus(gbby) == "Y"
    assert nd.name(nd.parent(gbby)) == "GGB"
    assert nd.parent(0) is None and nd.focus(0) is None
    assert [nd.name(n) for n in nd.quadrangle(gbby)] == ["GGBG", "GGBR", "GGBY", "GGBB"]
    assert nd.quadrangle(0) is None
    for n in nd.nodes(4):
        for child in nd.children(n) if nd.level(n) < 4 else ():
            assert nd.parent(child) == n and nd.level(child) == nd.level(n) + 1


@pytest.mark.parametrize(
    "text, message",
    [
        ("GX", "'X' is not one of the colours"),
        ("gr", "capital letters"),
        ("", "empty node name"),
        ("GGGGG", "only 4 levels deep"),
        ("G R", "' ' is not one of the colours"),
        ("00", "'0' is not one of the colours"),
    ],
)
def test_bad_names_raise_one_error_type_naming_the_problem(text, message):
    with pytest.raises(NodeError, match=message):
        nd.parse(text)


def test_head_node_is_not_on_a_headless_board():
    with pytest.raises(NodeError, match="headless"):
        nd.parse("0", headless=True)
    assert nd.parse("G", headless=True) == 1


def test_node_error_is_a_value_error():
    assert issubclass(NodeError, ValueError)
    with pytest.raises(NodeError, match="must be text"):
        nd.parse(7)


def test_standard_board_positions_are_distinct_points_of_a_31x31_grid():
    points = {nd.position(n) for n in nd.nodes(4)}
    assert len(points) == 341
    assert all(-15 <= x <= 15 and -15 <= y <= 15 for x, y in points)


def test_positions_by_level_follow_the_architecture():
    assert nd.position(0) == (0, 0)
    assert nd.position(nd.parse("G")) == (-8, -8)
    assert nd.position(nd.parse("Y")) == (8, 8)
    for n in nd.nodes(4):
        x, y = nd.position(n)
        lvl = nd.level(n)
        if lvl == 4:
            assert x % 2 == 1 and y % 2 == 1
        elif lvl == 3:
            assert x % 4 == 2 and y % 4 == 2
        elif lvl == 2:
            assert x % 8 == 4 and y % 8 == 4
        elif lvl == 1:
            assert abs(x) == 8 and abs(y) == 8


def test_a_quadrangle_encircles_its_parent_with_g_top_left_and_y_bottom_right():
    for parent in nd.nodes(3):
        px, py = nd.position(parent)
        g, r, y, b = (nd.position(c) for c in nd.children(parent))
        assert g[0] < px < r[0] and g[1] < py < b[1]
        assert y[0] > px and y[1] > py
        assert (g[0] + y[0]) / 2 == px and (g[1] + y[1]) / 2 == py


@pytest.mark.parametrize("depth", [1, 2, 3, 5, 6])
def test_positions_are_distinct_on_every_depth(depth):
    assert len({nd.position(n, depth) for n in nd.nodes(depth)}) == nd.count(depth)


def test_a_board_one_level_deep_is_said_in_the_singular():
    with pytest.raises(NodeError, match=r"^node GG has 2 loci but this board is only 1 level deep$"):
        nd.parse("GG", 1)


def test_a_runaway_name_is_quoted_by_its_start_not_echoed_whole():
    with pytest.raises(NodeError) as long_one:
        nd.parse("G" * 1_000_000)
    assert (
        str(long_one.value)
        == "node GGGGGGGGGGGGGGGGGGG… has 1000000 loci but this board is only 4 levels deep"
    )
    with pytest.raises(NodeError) as bad_one:
        nd.parse("R" * 50_000 + "x")
    assert (
        str(bad_one.value) == "bad node name 'RRRRRRRRRRRRRRRRRRR…': 'x' is not one of the colours G, R, Y, B"
    )
    # The cut is at 24 letters: a 24-letter name is quoted whole, a 25-letter one by its start.
    with pytest.raises(NodeError, match=r"^node G{24} has 24 loci"):
        nd.parse("G" * 24)
    with pytest.raises(NodeError, match=r"^node G{19}… has 25 loci"):
        nd.parse("G" * 25)
