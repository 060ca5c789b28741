"""The Borg: node-die placement, pieces, lines and shapes, collectives that ooze and assimilate."""

import pytest
from scenario import names, play

from companion.games.catalogue import find
from companion.games.die import Die
from companion.games.engine import IllegalAction
from companion.rules.space import mask_of

BORG = find("the-borg")


def nodes(game, *names_):
    return mask_of(game.space.parse_many(names_))


def position(p0, p1, **options):
    """A phase-two position with these pieces, player 0 to move."""
    game = BORG(2, **options)
    game.set_stones(0, nodes(game, *p0))
    game.set_stones(1, nodes(game, *p1))
    game.phase, game.in_hand, game.since = "move", (0, 0), game.turn
    return game


FAR = ["YYYY", "YBYB", "BBBB", "RBRB"]  # lone pieces of player 1 out of everyone's way
TOWER = ["G", "GG", "GGG", "GGGG"]  # a collective of four in a vertical chain: G and GGGG are its edges


def test_thirty_pieces_are_placed_where_the_die_says_then_the_first_player_moves():
    game = BORG()
    die = Die(11)
    placed = 0
    while game.phase == "place":
        face = die.roll(game)
        game.apply(face)
        with pytest.raises(IllegalAction, match="place your piece there"):
            game.apply("0" if face.target != 0 else "G")
        game.apply(str(face)[6:])
        placed += 1
        assert game.occupied >> face.target & 1
    assert placed == 30 and [s.bit_count() for s in game.stones] == [15, 15]
    assert not game.is_chance and game.to_move == 0 and not game.over


def test_a_collective_assimilates_every_piece_next_to_where_it_lands():
    game = position(TOWER + ["BBBG"], ["GGY", "GGRG", "GGRR"] + FAR)
    game.apply("GGGG-GGR")  # next to GGY (sideways) and the line GGRG-GGRR (below)
    assert game.stones[0] == nodes(game, "G", "GG", "GGG", "GGR", "GGY", "GGRG", "GGRR", "BBBG")
    assert game.stones[1] == nodes(game, *FAR)
    assert sum(s.bit_count() for s in game.stones) == 12  # the pieces change colour, none leave
    assert game.captured == (3, 0) and game.scores == (3, 0)
    assert set(game.last) >= set(game.space.parse_many(["GGGG", "GGR", "GGY", "GGRG", "GGRR"]))
    assert not game.over and game.to_move == 1


def test_a_collective_lands_only_on_free_nodes():
    game = position(TOWER, ["GGR"] + FAR)
    assert "G-GGR" not in names(game.legal_actions())
    with pytest.raises(
        IllegalAction, match="GGR is occupied: a collective lands on a free node and assimilates"
    ):
        game.apply("G-GGR")


def test_only_smaller_collectives_are_assimilated():
    equal = position(TOWER, ["GR", "GRG", "GRGG", "GRGR"] + FAR)
    equal.apply("GGGG-GY")  # next to GR, but GR is in a collective of four, as big as the mover's
    assert equal.stones[1] == nodes(equal, "GR", "GRG", "GRGG", "GRGR", *FAR) and equal.captured == (0, 0)
    bigger = position(TOWER + ["GGGR"], ["GR", "GRG", "GRGG", "GRGR"] + FAR)
    bigger.apply("GGGR-GY")
    assert bigger.stones[1] == nodes(bigger, "GRG", "GRGG", "GRGR", *FAR) and bigger.captured == (1, 0)
    assert bigger.owner(bigger.space.parse("GR")) == 0


def test_lone_pieces_lines_and_shapes_do_not_assimilate():
    game = position(["RGY", "G", "GR", "BBBB"], ["RGG", "YYYY", "YYYB", "RBRB", "GBGB"])
    assert {"RGY-RGYG", "RGY-GGY", "RGY-GY", "RGY-RGGY", "G-GRB"} <= names(game.legal_actions())
    game.apply("RGY-RGB")  # sideways, next to RGG: nothing happens
    assert game.owner(game.space.parse("RGG")) == 1 and game.captured == (0, 0)
    with pytest.raises(IllegalAction, match="only a collective can assimilate: a piece, line or shape moves"):
        game.apply("YYYY-BBBB")


def test_the_pieces_of_a_collective_only_ooze():
    game = position(TOWER, FAR)
    with pytest.raises(IllegalAction, match="GGG is not on an edge of its collective"):
        game.apply("GGG-GGR")
    with pytest.raises(
        IllegalAction, match="a collective oozes: the piece from GGGG must land on a node linked"
    ):
        game.apply("GGGG-RGGG")  # a hyperspace move: not for a collective
    with pytest.raises(IllegalAction, match="the pieces of a collective move only by oozing"):
        game.apply("GGG,GGGG-RGG,RGGG")


def test_assimilating_the_opponent_below_four_pieces_wins():
    game = position(TOWER + ["BBBG"], ["GGY", "GGRG", "GGRR", "YYYY", "BBBB", "RRRR"])
    game.apply("GGGG-GGR")
    assert game.stones[1].bit_count() == 3
    assert game.over and game.winners == (0,) and game.captured == (3, 0)


def test_a_whole_collective_bigger_than_all_the_opponents_pieces_wins():
    game = position(TOWER, ["GGY", "GGRG", "GGRR"] + FAR)
    game.apply("GGGG-GGR")  # seven pieces in one collective; the opponent's four can never beat it
    assert game.over and game.winners == (0,)


def test_one_equal_collective_each_is_a_draw_and_a_stall_too():
    game = position(TOWER, ["YY", "YYY", "YYYY", "YYRR"])
    play(game, "GGGG-GGR YYRR-YYYR")
    assert game.over and game.winners == ()
    assert game.draw_reason() == "one collective each, of the same size: neither can assimilate the other"
    stalled = position(TOWER, FAR, stall=1)
    play(stalled, "GGGG-GGR YYYY-YYYR")
    assert stalled.over and stalled.winners == ()
    assert stalled.draw_reason() == "1 turns each without a piece assimilated"


def test_the_stall_counts_from_the_turn_after_an_assimilation():
    # stall=1: one quiet turn each. The second player's quiet turn after the assimilation is not enough:
    # the first player has not had theirs.
    game = position(TOWER + ["BBBG"], ["GGY", "GGRG", "GGRR"] + FAR, stall=1)
    play(game, "GGGG-GGR YYYY-YYYR")
    assert not game.over and game.captured == (3, 0)
    game.apply("BBBG-BBBR")
    assert game.over and game.winners == () and game.scores == (3, 0)


def test_giant_board():
    game = BORG(depth=6, stones=4)
    assert len(game.legal_actions()) == 5461
    game.apply("roll:@GGGGGG")
    game.apply("GGGGGG")
    assert game.owner(game.space.parse("GGGGGG")) == 0
