"""Blobs: node-die placement, pieces, lines and shapes, blobs that ooze and devour, who can still win."""

import random

import pytest
from scenario import names, play

from companion.games.catalogue import find
from companion.games.die import Die
from companion.games.engine import IllegalAction, OptionError
from companion.rules.space import mask_of

BLOBS = find("blobs")


def nodes(game, *names_):
    return mask_of(game.space.parse_many(names_))


def position(p0, p1, **options):
    """A phase-two position with these pieces, player 0 to move."""
    game = BLOBS(2, **options)
    game.set_stones(0, nodes(game, *p0))
    game.set_stones(1, nodes(game, *p1))
    game.phase, game.in_hand, game.since = "move", (0, 0), game.turn
    return game


FAR = ["YYYY", "YBYB", "BBBB", "RBRB", "BYBY"]  # lone pieces of player 1 out of everyone's way
TOWER = ["G", "GG", "GGG", "GGGG"]  # a blob of four in a vertical chain: G and GGGG are its edges


def test_phase_one_places_fifteen_each_on_the_nodes_the_die_picks():
    game = BLOBS()
    assert game.is_chance and len(game.legal_actions()) == 341  # the whole board, head node included
    game.apply("roll:@GGBY")
    assert names(game.legal_actions()) == {"GGBY"}
    with pytest.raises(IllegalAction, match="the die chose GGBY: place your piece there"):
        game.apply("R")
    game.apply("GGBY")
    assert game.in_hand == (14, 15) and game.to_move == 1
    with pytest.raises(IllegalAction, match="the die cannot show @GGBY now"):
        game.apply("roll:@GGBY")  # an occupied node is rolled again: it is not a face
    die = Die(5)
    while game.phase == "place":
        face = die.roll(game)
        game.apply(face)
        game.apply(str(face)[6:])  # place on the node rolled
    assert game.in_hand == (0, 0) and [s.bit_count() for s in game.stones] == [15, 15]
    assert not game.is_chance and game.to_move == 0  # phase two: no die, the first player moves
    with pytest.raises(IllegalAction, match="every piece is placed: move a piece, line, shape or blob"):
        game.apply("0")


def test_a_scripted_game_a_blob_devours_until_the_opponent_cannot_win():
    # A small board: 21 nodes, four pieces each. Player 0 fills the quadrangle under G (a blob of four);
    # player 1 places G, RR, YY and BB, lone pieces all.
    game = play(
        BLOBS(depth=2, stones=4),
        "roll:@GG GG roll:@G G roll:@GR GR roll:@RR RR roll:@GY GY roll:@YY YY roll:@GB GB roll:@BB BB",
    )
    assert game.phase == "move" and game.to_move == 0 and game.stone_kind(game.space.parse("GG")) == "blob"
    assert "GG-G" in names(game.legal_actions())
    game.apply("GG-G")  # GG leaves the edge and lands on G, linked to GR below it: G is devoured
    assert game.captured == (1, 0) and game.scores == (1, 0)
    assert game.stones == (nodes(game, "G", "GR", "GY", "GB"), nodes(game, "RR", "YY", "BB"))
    # Three pieces can never form a blob, so player 1 cannot win: the victory is decisive.
    assert game.over and game.winners == (0,)


def test_a_blob_oozes_from_an_edge_to_a_node_linked_to_the_rest():
    game = position(TOWER, FAR)
    oozes = {str(a) for a in game.legal_actions() if str(a).startswith(("G-", "GGGG-"))}
    assert {"G-GR", "G-GGR", "GGGG-R", "GGGG-0"} <= oozes
    assert not any(str(a).startswith(("GG-", "GGG-")) for a in game.legal_actions())
    with pytest.raises(IllegalAction, match="GG is not on an edge of its blob: taking it away would break"):
        game.apply("GG-GR")
    with pytest.raises(
        IllegalAction,
        match="a blob oozes: the piece from G must land on a node linked up, "
        "down or sideways to the rest of its blob",
    ):
        game.apply("G-R")  # R is next to G itself, not to the rest of the blob
    with pytest.raises(IllegalAction, match="a blob oozes"):
        game.apply("G-GYYY")  # a blob has no more hyperspace, interjection or excision
    with pytest.raises(IllegalAction, match="^GGG is occupied$"):
        game.apply("GGGG-GGG")
    game.apply("GGGG-R")
    assert game.stones[0] == nodes(game, "G", "GG", "GGG", "R") and not game.over


def test_pieces_of_a_blob_move_only_by_oozing():
    game = position(TOWER, FAR)
    with pytest.raises(IllegalAction, match="the pieces of a blob move only by oozing, one piece at a time"):
        game.apply("GGG,GGGG-GRG,GRGG")


def test_a_blob_devours_a_lone_piece_it_oozes_onto():
    game = position(TOWER, ["GGR"] + FAR)
    game.apply("G-GGR")
    assert game.stones[0] == nodes(game, "GG", "GGG", "GGGG", "GGR")
    assert (
        game.stones[1] == nodes(game, *FAR)
        and game.captured == (1, 0)
        and game.last[-1] == game.space.parse("GGR")
    )
    assert not game.over and game.to_move == 1


def test_a_blob_devours_only_smaller_blobs():
    equal = position(TOWER, ["R", "RR", "RRR", "RRRR"] + FAR)
    with pytest.raises(IllegalAction, match="the piece on R is in a blob of 4, not smaller than yours of 4"):
        equal.apply("GGGG-R")
    bigger = position(TOWER + ["GGGR"], ["R", "RR", "RRR", "RRRR"] + FAR)
    bigger.apply("GGGR-R")  # five devours four, one piece at a time
    assert bigger.stones[1] == nodes(bigger, "RR", "RRR", "RRRR", *FAR)
    assert bigger.stone_kind(bigger.space.parse("RR")) == "stone"  # gobbled below four: no longer a blob
    assert not bigger.over


def test_pieces_lines_and_shapes_move_by_every_kind_but_cannot_devour():
    game = position(["RGY", "G", "GR"], ["RG"] + FAR)
    legal = names(game.legal_actions())
    # down, sideways, hyperspace, hyperspace, excision, interjection:
    assert {"RGY-RGYG", "RGY-RGR", "RGY-GGY", "RGY-RRY", "RGY-GY", "RGY-RGGY"} <= legal
    assert "G-GRB" in legal  # changing the line [G, GR] to [GR, GRB]
    assert "G,GR-RG,RGR" not in legal
    with pytest.raises(
        IllegalAction, match="only a blob can devour: a piece, line or shape moves to free nodes"
    ):
        game.apply("RGY-RG")
    with pytest.raises(IllegalAction, match="only a blob can devour: a line or shape"):
        game.apply("G,GR-RG,RGR")
    line = position(["BRY", "BRR"], FAR)
    assert {"BRR,BRY-BGR,BGY", "BRR,BRY-RR,RY", "BRR,BRY-BRGR,BRGY"} <= names(line.legal_actions())
    line.apply("BRY,BRR-BGY,BGR")  # the manual's example, in its own order
    assert line.stones[0] == nodes(line, "BGY", "BGR")


def test_a_whole_blob_bigger_than_all_the_opponents_pieces_wins():
    game = position(TOWER + ["GGGR"], ["GGR", "YYYY", "BBBB", "RBRB", "BYBY"])
    game.apply("G-GGR")  # five pieces, all one blob; the opponent is down to four and can never bite it
    assert game.over and game.winners == (0,) and game.captured == (1, 0)


def test_one_equal_blob_each_is_a_draw():
    game = position(TOWER, ["YY", "YYY", "YYYY", "YYRR"])
    game.apply("GGGG-GGR")
    assert not game.over
    game.apply("YYRR-YYYR")  # hyperspace: now each side is one blob of four, and neither can ever devour
    assert game.over and game.winners == ()
    assert game.state_dict()["draw"] == "one blob each, of the same size: neither can devour the other"


def test_a_stall_without_a_devour_is_a_draw():
    game = position(TOWER, FAR, stall=1)
    game.apply("GGGG-GGR")
    assert not game.over
    game.apply("YYYY-YYYR")
    assert game.over and game.winners == () and game.scores == (0, 0)
    assert game.state_dict()["draw"] == "1 turns each without a piece devoured"
    game.undo()
    assert game.state_dict()["draw"] is None and not game.over  # undo takes the reason back with the end


def test_the_stall_gives_each_player_their_full_count_of_turns():
    # stall=1: one turn each without a devour, counted from the first turn of phase two. The first player's
    # quiet turn alone must not end the game: the second player has not had theirs.
    game = play(
        BLOBS(depth=2, stones=4, stall=1),
        "roll:@GG GG roll:@RR RR roll:@GR GR roll:@YY YY roll:@GY GY roll:@BB BB roll:@GB GB roll:@RY RY",
    )
    assert game.phase == "move" and game.to_move == 0
    game.apply("GG-G")  # an ooze onto a free node: nothing devoured
    assert not game.over and game.to_move == 1
    game.apply("RR-R")
    assert game.over and game.winners == ()
    # And counted from the last devour: the devour's own turn is not a quiet one.
    game = position(TOWER, ["GGR"] + FAR, stall=1)
    game.apply("G-GGR")
    game.apply("YYYY-YYYR")
    assert not game.over and game.to_move == 0
    game.apply("GGGG-GGB")
    assert game.over and game.winners == () and game.scores == (1, 0)


def test_depth_and_headless_options():
    giant = BLOBS(depth=5)
    assert len(giant.legal_actions()) == 1365
    assert len(BLOBS(headless=True).legal_actions()) == 340
    # A line excised onto the head node: a move of the standard board, none of the headless one.
    assert "G,GG-0,G" in names(position(["G", "GG"], FAR).legal_actions())
    assert not any("0" in n for n in names(position(["G", "GG"], FAR, headless=True).legal_actions()))
    with pytest.raises(OptionError, match="2 x 15 pieces do not fit on a board of 21 nodes"):
        BLOBS(depth=2)
    rng = random.Random(3)
    game = BLOBS(depth=5, stones=6, stall=3)
    while not game.over:
        game.apply(game.random_action(rng))
    assert game.phase == "move" and max(len(n) for n in game.state_dict()["stones"]) <= 5


def test_the_computer_player_likes_devouring():
    game = position(TOWER, ["GGR"] + FAR)
    before = game.evaluate()
    game.apply("G-GGR")
    assert game.evaluate()[0] > 0.5 > before[0]


def test_playouts_pick_every_legal_action_and_nothing_else():
    game = position(["G", "GG", "GGG", "GB", "RR", "RRR"], ["GGR", "YYY"], depth=3)
    legal = names(game.legal_actions())
    rng = random.Random(8)
    picked = {str(game.random_action(rng)) for _ in range(40 * len(legal))}
    assert picked == legal and any("," in a for a in legal)  # block moves of the line RR, RRR too
