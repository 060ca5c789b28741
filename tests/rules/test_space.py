import pytest
from tables import read_table

from companion.rules import node as nd
from companion.rules.formation import block_targets, change_reach
from companion.rules.space import GameSpace, MoveKind, space

BOARD = space(4)


@pytest.mark.parametrize("kind, start, target, legal, source", read_table("traversal-examples.tsv"))
def test_every_example_of_the_manuals(kind, start, target, legal, source):
    reached = BOARD.target_mask(kind, BOARD.parse(start)) >> BOARD.parse(target) & 1
    assert bool(reached) == (legal == "yes"), source


def names(kind, start, board=BOARD):
    return sorted(board.names(board.target_mask(kind, board.parse(start))))


def test_down_and_up_are_inverse_on_every_node():
    for n in BOARD.nodes:
        for child in BOARD.targets("down", n):
            assert BOARD.targets("up", child) == (n,)


def test_head_and_bottom_limits_of_ordinary_space():
    assert names("down", "0") == ["B", "G", "R", "Y"]
    assert names("up", "0") == []
    assert names("down", "GGGG") == []
    assert names("up", "G") == ["0"]
    assert names("interjection", "0") == [] and names("sideways", "0") == []
    assert names("interjection", "GGGG") == []
    assert names("excision", "G") == []


def test_every_kind_is_symmetric_with_its_inverse():
    for forward, backward in [
        (MoveKind.DOWN, MoveKind.UP),
        (MoveKind.INTERJECTION, MoveKind.EXCISION),
        (MoveKind.LIMITED_INTERJECTION, MoveKind.LIMITED_EXCISION),
        (MoveKind.SIDEWAYS, MoveKind.SIDEWAYS),
        (MoveKind.HYPERSPACE, MoveKind.HYPERSPACE),
        (MoveKind.LIMITED_HYPERSPACE, MoveKind.LIMITED_HYPERSPACE),
    ]:
        for n in BOARD.nodes:
            for t in BOARD.targets(forward, n):
                assert n in BOARD.targets(backward, t), (forward, nd.name(n), nd.name(t))


def test_lateral_moves_stay_on_the_level_and_change_one_locus_one_step():
    cycle = "GRYB"
    for n in BOARD.nodes:
        for kind in (MoveKind.SIDEWAYS, MoveKind.HYPERSPACE, MoveKind.LIMITED_HYPERSPACE):
            for t in BOARD.targets(kind, n):
                a, b = nd.loci(n), nd.loci(t)
                assert len(a) == len(b)
                diffs = [i for i in range(len(a)) if a[i] != b[i]]
                assert len(diffs) == 1
                i = diffs[0]
                assert (cycle.index(a[i]) - cycle.index(b[i])) % 4 in (1, 3)


def test_target_counts_per_kind_on_a_bottom_node():
    n = BOARD.parse("GRYB")
    assert len(BOARD.targets("sideways", n)) == 2
    assert len(BOARD.targets("hyperspace", n)) == 6  # three loci above the focus, two sides each
    assert len(BOARD.targets("limited-hyperspace", n)) == 2
    assert len(BOARD.targets("excision", n)) == 3
    assert len(BOARD.targets("limited-excision", n)) == 1


def test_interjection_targets_are_deduplicated():
    # Interjecting R before or after the R of RG gives the same node RRG once.
    assert names("interjection", "RG") == ["BRG", "GRG", "RBG", "RGG", "RRG", "RYG", "YRG"]


def test_periodic_wraps():
    periodic = space(4, periodic=True)
    assert names("down", "BGRY", periodic) == ["B", "G", "R", "Y"]
    up_from_r = periodic.target_mask("up", periodic.parse("R"))
    assert up_from_r >> periodic.parse("BGRY") & 1
    assert bin(up_from_r).count("1") == 257  # the head node and the 256 bottom-level nodes
    assert names("down", "BGRY") == []  # not in ordinary space


def test_headless_board():
    headless = space(4, headless=True)
    assert len(headless.nodes) == 340
    assert names("up", "G", headless) == []
    periodic_headless = space(4, headless=True, periodic=True)
    assert bin(periodic_headless.target_mask("up", periodic_headless.parse("G"))).count("1") == 256


@pytest.mark.parametrize("nodes, contiguous, source", read_table("shapes.tsv"))
def test_lines_and_shapes_of_the_manual(nodes, contiguous, source):
    assert BOARD.is_contiguous(BOARD.parse_many(nodes.split())) == (contiguous == "yes"), source


def test_contiguity_with_limited_hyperspace():
    a, b = BOARD.parse("GBY"), BOARD.parse("GGY")
    assert not BOARD.contiguous(a, b)
    assert BOARD.contiguous(a, b, hyperspace=True)
    # Only the penultimate locus: a node whose top locus differs is not linked (full hyperspace would).
    c = BOARD.parse("RBY")
    assert not BOARD.contiguous(a, c, hyperspace=True)
    assert not BOARD.neighbours(a, hyperspace=True) >> c & 1


def test_groups_split_a_position_into_blobs():
    stones = [BOARD.parse(x) for x in ("G", "GG", "GGG", "Y", "YB", "BBBB")]
    groups = BOARD.groups(sum(1 << s for s in stones))
    assert [BOARD.names(g) for g in groups] == [["G", "GG", "GGG"], ["Y", "YB"], ["BBBB"]]


def test_periodic_wraps_are_not_contiguity():
    periodic = space(4, periodic=True)
    assert not periodic.contiguous(periodic.parse("G"), periodic.parse("BBBB"))


def test_tables_are_shared_and_bad_depths_refused():
    assert space(4) is space(4)
    with pytest.raises(ValueError, match="depth must be"):
        GameSpace(7)
    with pytest.raises(ValueError, match="depth must be"):
        GameSpace(0)


@pytest.mark.parametrize("depth", [1, 5, 6])
def test_other_depths_have_consistent_tables(depth):
    board = space(depth)
    assert len(board.nodes) == nd.count(depth)
    bottom = nd.first_of_level(depth)
    assert board.targets("down", bottom) == ()
    assert len(board.targets("hyperspace", nd.count(depth) - 1)) == (2 * (depth - 1) if depth > 1 else 2)


def test_unknown_move_kind_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown move kind 'diagonal'"):
        BOARD.target_mask("diagonal", 1)
    assert BOARD.target_mask("down", 0) == BOARD.target_mask(MoveKind.DOWN, 0)


@pytest.mark.parametrize("how, before, after, legal, source", read_table("formation-moves.tsv"))
def test_moves_of_lines_and_shapes_of_the_manual(how, before, after, legal, source):
    before, after = before.split(), after.split()
    block = tuple(BOARD.parse(n) for n in before)
    if how == "block":
        moved = {frozenset(targets) for targets, _ in block_targets(BOARD.depth, block, False)}
        assert (frozenset(BOARD.parse(n) for n in after) in moved) == (legal == "yes"), source
        return
    # A change moves exactly one end stone, and the formation it leaves must still be contiguous.
    (gone,), (came,) = set(before) - set(after), set(after) - set(before)
    mine = sum(1 << s for s in block)
    reach = change_reach(BOARD.contiguity, BOARD.parse(gone), mine)
    ok = bool(reach >> BOARD.parse(came) & 1) and BOARD.is_contiguous(BOARD.parse_many(after))
    assert ok == (legal == "yes"), source
