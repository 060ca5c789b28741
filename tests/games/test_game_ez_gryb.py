"""EZ GRYB scenarios: scripted games with the rolls written out, as a referee would check them."""

import pytest
import scenario
from scenario import refused

from companion.games.catalogue import find
from companion.games.engine import IllegalAction

EZ = find("ez-gryb")


def play(script, game=None):
    return scenario.play(game or EZ(), script)


def test_top_quadrangle_gryb_wins_one_point():
    # The opponent has no stone and rolls a taken colour each time: forced passes.
    game = play("roll:G G roll:G pass roll:R R roll:R pass roll:Y Y roll:Y pass roll:B B")
    assert game.over and game.winner == 0
    assert game.scores == (1, 0)
    assert [g.names() for g in game.grybs] == [["G", "R", "Y", "B"]]


def test_second_level_gryb_wins_two_points_and_moves_go_down_onto_the_rolled_colour():
    game = play(
        "roll:G G roll:B B "
        "roll:G G-GG roll:B B-BB "
        "roll:G G roll:B B "
        "roll:R G-GR roll:R B-BR "
        "roll:G G roll:B B "
        "roll:Y G-GY roll:Y B-BY "
        "roll:G G roll:B B "
        "roll:B G-GB"
    )
    assert game.over and game.winner == 0 and game.scores == (2, 0)
    assert game.state_dict()["grybs"] == [{"nodes": ["GG", "GR", "GY", "GB"], "levels": [2], "points": 2}]


def test_sideways_move_captures_and_the_stone_goes_back_to_its_owner():
    game = play("roll:G G roll:R R roll:R G-R")
    assert game.owner(game.space.parse("R")) == 0 and game.owner(game.space.parse("G")) is None
    assert game.in_hand == (29, 30) and game.captured == (1, 0)


@pytest.mark.parametrize(
    "script, bad, reason",
    [
        ("roll:G", "R", "you rolled G: move onto a green node, and R is not one"),
        ("roll:G", "GG", "new stones enter on the top quadrangle"),
        ("roll:G G roll:R R roll:Y", "G-R", "you rolled Y: move onto a yellow node, and R is not one"),
        ("roll:G G roll:G pass roll:R", "G-R", "sideways moves are only to capture an opponent's stone"),
        ("roll:G G roll:G pass roll:Y", "G-GG", "you rolled Y: move onto a yellow node, and GG is not one"),
        ("roll:G G roll:G pass roll:G G-GG roll:Y Y roll:G G roll:B Y-YB roll:G", "G-GG", "GG is occupied"),
        ("roll:G G roll:R R roll:G", "G", "G is occupied"),
        ("roll:G G roll:R R roll:Y", "R-RY", "the stone on R is not yours"),
        ("", "G", "roll the die first"),
        ("roll:G", "roll:R", "the die has been rolled this turn"),
        ("roll:G G roll:B", "pass", "you may not pass"),
    ],
)
def test_illegal_moves_are_refused_with_the_reason(script, bad, reason):
    refused(play(script), bad, reason)


def test_forced_pass_is_the_only_action_when_nothing_fits_the_roll():
    game = play("roll:G G roll:G")
    assert [str(a) for a in game.legal_actions()] == ["pass"]


def test_out_of_stones_no_new_moves():
    game = play("roll:G G roll:R R", EZ(stones=4))
    assert game.in_hand == (3, 3)
    game.in_hand = (0, 3)  # as if every stone were on the board
    game.apply("roll:Y")
    assert [str(a) for a in game.legal_actions()] == ["G-GY"]
    with pytest.raises(IllegalAction, match="no stones left"):
        game.apply("Y")


def test_giant_board_option():
    game = EZ(depth=5)
    assert len(game.space.nodes) == 1364  # Giant GRYB, headless as 001's Quick & Easy GRYB says


def test_game_over_refuses_everything():
    game = play("roll:G G roll:G pass roll:R R roll:R pass roll:Y Y roll:Y pass roll:B B")
    assert game.legal_actions() == []
    with pytest.raises(IllegalAction, match="the game is over"):
        game.apply("roll:G")


def test_a_position_where_nobody_can_ever_move_is_a_draw_at_once():
    from companion.rules.space import mask_of

    game = EZ(stones=4)
    space = game.space
    game.set_stones(0, mask_of(space.parse_many(["GGGG", "RRRR"])))
    game.set_stones(1, mask_of(space.parse_many(["YYYY", "BBBB"])))
    game.in_hand = (0, 0)
    game.apply("roll:G")
    game.apply("pass")
    assert game.over and game.winners == () and game.state_dict()["winner"] is None
    assert game.state_dict()["draw"] == "nobody can ever move again, whatever the die shows"


def test_a_stuck_player_alone_is_not_a_draw():
    from companion.rules.space import mask_of

    game = EZ(stones=4)
    game.set_stones(0, mask_of(game.space.parse_many(["GGGG"])))
    game.set_stones(1, mask_of(game.space.parse_many(["GGGR"])))  # beside GGGG: a capture is possible
    game.in_hand = (0, 0)
    game.apply("roll:Y")
    game.apply("pass")
    assert not game.over
