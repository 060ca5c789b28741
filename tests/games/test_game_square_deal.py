"""Square Deal: node-die placement, GRYBs of anybody's stones captured whole, stone/line/shape moves."""

import pytest
from scenario import names, play

from companion.games.catalogue import find
from companion.games.engine import IllegalAction
from companion.rules.space import mask_of

DEAL = find("square-deal")


def position(p0, p1, **options):
    """A phase-two position with these stones, player 0 to move."""
    game = DEAL(2, **options)
    game.set_stones(0, mask_of(game.space.parse_many(p0)))
    game.set_stones(1, mask_of(game.space.parse_many(p1)))
    # As if the last stone had been placed the turn before: every turn from now on is a quiet one.
    game.phase, game.in_hand, game.since = "move", (0, 0), game.turn - 1
    return game


def test_phase_one_places_on_the_node_the_die_rolled():
    game = DEAL()
    assert game.is_chance and len(game.legal_actions()) == 341  # the whole board, head node included
    game.apply("roll:@GGBY")
    assert names(game.legal_actions()) == {"GGBY"}
    with pytest.raises(IllegalAction, match="the die chose GGBY: place your stone there"):
        game.apply("R")
    game.apply("GGBY")
    assert game.in_hand == (19, 20) and game.to_move == 1
    assert len(game.legal_actions()) == 340  # an occupied node is rolled again: it is not a face
    with pytest.raises(IllegalAction, match="the die cannot show @GGBY now"):
        game.apply("roll:@GGBY")


def test_a_gryb_of_both_players_stones_goes_to_the_completer_and_leaves_the_board():
    game = play(DEAL(stones=3), "roll:@G G roll:@R R roll:@Y Y roll:@B B")
    assert game.occupied == 0 and [g.names() for g in game.grybs] == [["G", "R", "Y", "B"]]
    assert game.captured == (0, 2) and game.own_captured == (0, 2) and game.scores == (0, 2)
    play(game, "roll:@GG GG roll:@RR RR")
    # Only two stones are left after phase one: too few for a GRYB, so the game ends on the piles.
    assert game.over and game.winners == (1,) and game.scores == (0, 2)


def test_an_integrated_gryb_counts_whatever_its_level():
    game = position(["GG", "BBB"], ["RR", "YY", "GGGG"])
    game.apply("BBB-BB")  # GG, RR, YY, BB integrate levels one and two
    assert [g.names() for g in game.grybs] == [["GG", "RR", "YY", "BB"]]
    assert game.captured == (2, 0) and game.own_captured == (2, 0)
    assert game.stones == (0, mask_of(game.space.parse_many(["GGGG"])))
    assert game.over and game.winners == (0,)  # one stone left: the game is over


def test_completing_a_gryb_of_your_own_stones_scores_nothing():
    game = position(["GG", "GR", "GY", "GBB", "RRRR"], ["YYYY", "BBBB", "BBBR", "BBBY"], stall=1)
    game.apply("GBB-GB")
    assert game.own_captured == (4, 0) and game.captured == (0, 0) and not game.over


def test_single_stones_move_by_every_kind_to_free_nodes():
    game = position(["RGY"], ["RG"])
    targets = names(game.legal_actions())
    assert {"RGY-RGYG", "RGY-RGR", "RGY-RGB", "RGY-GGY", "RGY-RRY", "RGY-GY", "RGY-RY", "RGY-RGGY"} <= targets
    assert "RGY-RG" not in targets
    with pytest.raises(IllegalAction, match="RG is occupied"):
        game.apply("RGY-RG")
    easy = position(["RGY"], ["RG"], easy=True)
    assert "RGY-GY" not in names(easy.legal_actions())  # excision is not in the easier version
    with pytest.raises(IllegalAction, match=r"RGY to GY is not one move \(up, down, sideways, hyperspace\)$"):
        easy.apply("RGY-GY")


def test_a_line_moves_in_formation_by_hyperspace_excision_and_interjection():
    game = position(["BRY", "BRR"], ["GGGG"])
    legal = names(game.legal_actions())
    assert {"BRR,BRY-BGR,BGY", "BRR,BRY-RR,RY", "BRR,BRY-BRGR,BRGY"} <= legal
    game.apply("BRY,BRR-BGY,BGR")  # the manual's example, written in its own order
    assert game.stones[0] == mask_of(game.space.parse_many(["BGY", "BGR"]))
    line = position(["R", "RG"], ["GGGG"])
    assert "R,RG-BR,BRG" in names(line.legal_actions())
    easy = position(["BRY", "BRR"], ["GGGG"], easy=True)
    assert "BRR,BRY-RR,RY" not in names(easy.legal_actions())
    with pytest.raises(IllegalAction, match="moves in formation via hyperspace"):
        easy.apply("BRY,BRR-RY,RR")


def test_a_line_with_the_head_node_moves_down_by_a_first_locus():
    game = position(["0", "G"], ["YYYY"])
    assert {"0,G-R,RG", "0,G-B,BG"} <= names(game.legal_actions())
    assert "0,G-R,RG" not in names(position(["0", "G"], ["YYYY"], easy=True).legal_actions())


def test_headless_the_die_and_the_blocks_leave_out_the_head_node():
    """001's Headless GRYB: 340 nodes for the die to choose from, and no block moves onto the head node."""
    game = DEAL(headless=True)
    assert (
        game.is_chance and len(game.legal_actions()) == 340 and "roll:@0" not in names(game.legal_actions())
    )
    with pytest.raises(IllegalAction, match="head node"):
        game.apply("roll:@0")
    up = position(["Y", "YG", "YR"], ["BBBB"])
    assert "Y,YG,YR-0,G,R" in names(up.legal_actions())  # the shared first locus excised, onto the head node
    headless = position(["Y", "YG", "YR"], ["BBBB"], headless=True)
    legal = names(headless.legal_actions())
    assert (
        not any("0" in move for move in legal) and "Y,YG,YR-RY,RYG,RYR" in legal
    )  # interjected: still there
    assert DEAL.describe()["options"][1] == {
        "name": "headless",
        "default": False,
        "help": "play without the head node (001 'headless': 340 nodes)",
    }


def test_a_shape_moves_as_a_block_and_blocks_must_be_contiguous_and_free():
    game = position(["GR", "GRY", "GRYY"], ["RGGG"])
    assert "GR,GRY,GRYY-R,RY,RYY" in names(game.legal_actions())  # the manual's excision example
    # A shape round a corner whose middle stone comes last in node order: GG and GY are not linked.
    corner = position(["GG", "GY", "GB"], ["YYYY"])
    assert "GG,GY,GB-RG,RY,RB" in names(corner.legal_actions())
    with pytest.raises(IllegalAction, match="2 or 3 of your stones on contiguous nodes"):
        game.apply("GR,GRYY-R,RYY")
    blocked = position(["GR", "GRY", "GRYY"], ["RY"])
    with pytest.raises(IllegalAction, match="RY is occupied"):
        blocked.apply("GR,GRY,GRYY-R,RY,RYY")


def test_a_line_on_the_bottom_of_a_super_giant_board_moves_without_going_deeper():
    game = position(["GGGGGG", "GGGGGR"], ["YYYYYY"], depth=6)  # six loci: nothing can be interjected
    legal = names(game.legal_actions())
    assert "GGGGGG,GGGGGR-RGGGGG,RGGGGR" in legal and "GGGGGG,GGGGGR-GGGGG,GGGGR" in legal


def test_changing_a_line_and_hopping_over_a_shape():
    game = position(["G", "GR"], ["YYYY"])
    assert "G-GRB" in names(game.legal_actions())  # [G, GR] to [GR, GRB]
    shape = position(["R", "Y", "YG"], ["GGGG"])
    assert "R-YB" in names(shape.legal_actions())  # [R, Y, YG] to [Y, YG, YB]
    # YB is also linked to Y, the stone R stays joined to; GGGR is linked only to the far end GGG.
    tower = position(["G", "GG", "GGG"], ["YYYY"])
    assert "G-GGGR" in names(tower.legal_actions())  # [G, GG, GGG] to [GG, GGG, GGGR]
    easy = position(["G", "GR"], ["YYYY"], easy=True)
    assert "G-GRB" not in names(easy.legal_actions())


def test_a_stalled_game_is_conceded_and_scored_on_the_piles():
    game = position(["GGGG", "RRRR"], ["YYYY", "BBBB"], stall=1)
    game.captured = game.scores = (0, 3)
    play(game, "GGGG-GGGR YYYY-YYYR")
    assert game.over and game.winners == (1,) and game.scores == (0, 3)


def test_equal_piles_are_a_draw():
    game = position(["GGGG", "RRRR"], ["YYYY", "BBBB"], stall=1)
    play(game, "GGGG-GGGR YYYY-YYYR")
    assert game.over and game.winners == ()
    assert game.draw_reason() == "1 turns each without a GRYB, and the capture piles are equal"


def test_a_boxed_in_player_must_pass():
    # The head node's stone has no free node to reach: up does not exist, down and interjections are full.
    game = position(["0"], ["G", "R", "Y", "B"], depth=2)
    assert names(game.legal_actions()) == {"pass"}


def test_phase_one_is_refused_a_move():
    game = play(DEAL(), "roll:@G")
    with pytest.raises(IllegalAction, match="place yours on G"):
        game.apply("G-GG")


def test_phase_two_follows_the_last_placement_without_the_die():
    game = play(DEAL(stones=2, stall=1), "roll:@GGGG GGGG roll:@RRRR RRRR roll:@GGGY GGGY roll:@RRRY RRRY")
    assert game.phase == "move" and not game.is_chance and game.to_move == 0
    with pytest.raises(IllegalAction, match="every stone is placed"):
        game.apply("G")
    play(game, "GGGG-GGGR")
    assert not game.over
    play(game, "RRRR-RRRG")
    assert game.over and game.winners == () and game.scores == (0, 0)
