"""Interrupt and Smack Down: chains built down from the top, sideways captures, pushes down and off the
board."""

import pytest
import scenario
from scenario import names, refused

from companion.games.catalogue import find
from companion.games.engine import IllegalAction
from companion.rules.space import mask_of

INTERRUPT, SMACK = find("interrupt"), find("smack-down")


def play(script, game=None):
    return scenario.play(game or INTERRUPT(), script)


def position(cls, p0, p1, to_move=0, **options):
    game = cls(**options)
    game.set_stones(0, mask_of(game.space.parse_many(p0)))
    game.set_stones(1, mask_of(game.space.parse_many(p1)))
    game.to_move = to_move
    return game


def stones(game, player):
    return sorted(game.space.names(game.stones[player]))


# -- Interrupt ------------------------------------------------------------------------------------------


def test_top_quadrangle_gryb_wins_one_point():
    # The opponent rolls a colour already taken each time and has nothing else: forced passes.
    game = play("roll:G G roll:G pass roll:R R roll:R pass roll:Y Y roll:Y pass roll:B B")
    assert game.over and game.winner == 0 and game.scores == (1, 0)
    assert [g.names() for g in game.grybs] == [["G", "R", "Y", "B"]]


def test_building_down_a_chain_to_a_second_level_gryb():
    game = play("roll:G G roll:B B roll:G GG roll:B BB roll:R")
    # On red: the free top node, or under one's own chain at any depth; never under the opponent's B.
    assert names(game.legal_actions()) == {"R", "GR", "GGR"}
    play("GR roll:R BR roll:Y GY roll:Y BY roll:B GB", game)
    assert game.over and game.winner == 0 and game.scores == (2, 0)
    assert [g.names() for g in game.grybs] == [["GG", "GR", "GY", "GB"]]


def test_a_sideways_capture_interrupts_the_chain_and_the_captured_stone_goes_home():
    game = play("roll:G G roll:R R roll:G GG roll:G R-G")
    assert stones(game, 0) == ["GG"] and stones(game, 1) == ["G"]
    assert game.in_hand == (29, 29) and game.captured == (0, 1)
    # The capturing stone left R, so that node is free again.
    assert game.owner(game.space.parse("R")) is None
    game.apply("roll:R")
    with pytest.raises(IllegalAction, match="the chain to GR is broken at G"):
        game.apply("GR")
    assert "GR" not in names(game.legal_actions()) and "R" in names(game.legal_actions())


def test_a_deeper_chain_is_broken_for_every_level_below_the_gap():
    game = position(INTERRUPT, ["G", "GR", "GRY"], ["B"], to_move=1)
    play("roll:G B-G roll:B", game)
    with pytest.raises(IllegalAction, match="the chain to GRYB is broken at G"):
        game.apply("GRYB")


def test_the_lost_space_is_reclaimed_by_a_sideways_capture_and_building_resumes():
    game = play("roll:G G roll:R R roll:B B roll:G R-G roll:G B-G")
    assert stones(game, 0) == ["G"] and game.captured == (1, 1)
    play("roll:Y Y roll:R GR", game)  # the chain under G is whole again
    assert "GR" in stones(game, 0)


def test_only_the_interrupting_move_is_sideways():
    game = play("roll:G G roll:B")
    assert names(game.legal_actions()) == {"B"}
    play("B roll:R", game)
    with pytest.raises(IllegalAction, match="sideways moves are only to capture an opponent's stone"):
        game.apply("G-R")
    with pytest.raises(IllegalAction, match="G to GY is not one move .sideways."):
        game.apply("G-GY")


@pytest.mark.parametrize(
    "script, bad, reason",
    [
        ("roll:G", "R", "you rolled G: move onto a green node, and R is not one"),
        ("roll:G G roll:G", "G", "G is occupied"),
        ("roll:G G roll:R R roll:B", "R-B", "the stone on R is not yours"),
        ("roll:G G roll:Y Y roll:R", "G-R", "sideways moves are only to capture"),
        ("roll:G G roll:R R roll:G GG roll:G", "R,RG-G,GG", "one stone moves at a time"),
        ("roll:G", "roll:R", "the die has been rolled this turn"),
        ("roll:G G roll:B", "pass", "you may not pass"),
    ],
)
def test_illegal_moves_are_refused_with_the_reason(script, bad, reason):
    refused(play(script), bad, reason)


def test_out_of_stones_no_new_stones():
    game = INTERRUPT(stones=4)
    game.in_hand = (0, 4)
    game.apply("roll:G")
    assert names(game.legal_actions()) == {"pass"}
    with pytest.raises(IllegalAction, match="no stones left to enter"):
        game.apply("G")


def test_a_board_nobody_can_ever_change_is_a_draw_at_once():
    game = position(INTERRUPT, ["GGGG", "RRRR"], ["YYYY", "BBBB"], stones=4)
    game.in_hand = (0, 0)
    play("roll:G pass", game)
    assert game.over and game.winners == ()


def test_a_stuck_player_with_a_capture_on_some_roll_is_not_a_draw():
    game = position(INTERRUPT, ["GGGG"], ["GGGR"], stones=4)
    game.in_hand = (0, 0)
    play("roll:Y pass", game)
    assert not game.over


def test_giant_board_option_scores_deeper_grybs_more():
    game = position(INTERRUPT, ["G", "GG", "GGG", "GGGG", "GGGGG", "GGGGR", "GGGGY"], ["R"], depth=5)
    play("roll:B GGGGB", game)
    assert game.over and game.winner == 0 and game.scores == (16, 0)


# -- Smack Down -----------------------------------------------------------------------------------------


def test_rolling_the_opponents_top_colour_pushes_their_stone_down_to_a_node_of_your_choice():
    game = play("roll:G G roll:G", SMACK())
    assert names(game.legal_actions()) == {"G-GG", "G-GR", "G-GY", "G-GB"}
    with pytest.raises(IllegalAction, match=r"G is occupied: push its stone down .*G-GG"):
        game.apply("G")
    game.apply("G-GY")
    assert stones(game, 0) == ["GY"] and stones(game, 1) == ["G"]
    assert game.in_hand == (29, 29) and game.to_move == 0 and game.pushing is None


def test_a_push_onto_the_opponents_stone_pushes_that_one_on_down_and_off_the_bottom():
    game = position(SMACK, ["G", "GR", "GRY", "GRYB"], [], to_move=1)
    play("roll:G G-GR", game)
    assert game.pushing[0] == game.space.parse("GR") and game.to_move == 1 and not game.is_chance
    assert names(game.legal_actions()) == {"GR-GRG", "GR-GRR", "GR-GRY", "GR-GRB"}
    with pytest.raises(IllegalAction, match="finish the push: the stone on GR goes down"):
        game.apply("R")
    with pytest.raises(IllegalAction, match="a pushed stone goes down to one of the four nodes under GR"):
        game.apply("GR-GY")
    play("GR-GRY GRY-GRYB", game)  # onto GRYB, a bottom node: the stone there is pushed off the board
    assert stones(game, 0) == ["GR", "GRY", "GRYB"] and stones(game, 1) == ["G"]
    assert game.in_hand == (31, 29) and game.captured == (0, 1)
    assert game.pushing is None and game.to_move == 0


def test_a_push_never_lands_on_the_pushers_own_stone():
    game = position(SMACK, ["G"], ["GG", "GR"], to_move=1)
    game.apply("roll:G")
    assert names(game.legal_actions()) >= {"G-GY", "G-GB"} and "G-GG" not in names(game.legal_actions())
    with pytest.raises(IllegalAction, match="GG is your own stone: a push goes onto a free node"):
        game.apply("G-GG")


def test_a_push_needs_the_colour_of_the_top_node_and_a_stone_in_hand():
    game = position(SMACK, ["G"], [], to_move=1)
    game.apply("roll:R")
    with pytest.raises(IllegalAction, match="you rolled R: only a stone on the red entry node can be pushed"):
        game.apply("G-GG")
    out = position(SMACK, ["G"], [], to_move=1)
    out.in_hand = (30, 0)
    out.apply("roll:G")
    with pytest.raises(IllegalAction, match="no stones left to take its place"):
        out.apply("G-GG")


def test_no_sideways_moves_on_the_top_level_in_smack_down_only():
    plain = position(INTERRUPT, ["G"], ["R"], to_move=1)
    plain.apply("roll:G")
    assert "R-G" in names(plain.legal_actions())
    smack = position(SMACK, ["G"], ["R"], to_move=1)
    smack.apply("roll:G")
    assert "R-G" not in names(smack.legal_actions())
    with pytest.raises(IllegalAction, match="sideways moves are not permitted on the top level"):
        smack.apply("R-G")
    low = position(SMACK, ["RG"], ["RR"], to_move=1)  # below the top level a capture is fine
    low.apply("roll:G")
    assert "RR-RG" in names(low.legal_actions())


def test_smack_down_captures_sideways_on_every_level_below_the_top_of_a_giant_board():
    for depth in (5, 6):
        deep = "G" * depth
        game = position(SMACK, [deep], [deep[:-1] + "R"], to_move=1, depth=depth)
        game.apply("roll:G")
        assert f"{deep[:-1]}R-{deep}" in names(game.legal_actions())


def test_the_pushers_top_quadrangle_wins():
    game = position(SMACK, ["G"], ["R", "Y", "B"], to_move=1)
    play("roll:G G-GB", game)
    assert game.over and game.winner == 1 and game.scores == (0, 1)


def test_a_push_that_completes_the_opponents_quadrangle_wins_for_them():
    game = position(SMACK, ["G", "GG", "GR", "GY"], ["R"], to_move=1)
    play("roll:G G-GB", game)
    assert game.over and game.winner == 0 and game.scores == (2, 0)
    assert [g.names() for g in game.grybs] == [["GG", "GR", "GY", "GB"]]


def test_undo_walks_back_through_a_push_step_by_step():
    game = position(SMACK, ["G", "GR"], [], to_move=1)
    start = game.state_key()
    play("roll:G G-GR GR-GRR", game)
    end = game.state_key()
    for _ in range(3):
        game.undo()
    assert game.state_key() == start
    for _ in range(3):
        game.redo()
    assert game.state_key() == end


def test_evaluate_is_a_share_per_player_that_favours_the_nearer_quadrangle():
    game = position(INTERRUPT, ["G", "GG", "GR", "GY"], ["R"])
    values = game.evaluate()
    assert len(values) == 2 and abs(sum(values) - 1) < 1e-9 and values[0] > values[1]
