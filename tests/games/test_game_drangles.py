"""'Drangles, Hyper Drangles and Sumo Drangles: two free moves a turn, entry through the head node."""

import pytest
import scenario
from scenario import names

from companion.games.catalogue import find
from companion.games.engine import IllegalAction
from companion.rules.space import mask_of

DRANGLES, HYPER, SUMO = find("drangles"), find("hyper-drangles"), find("sumo-drangles")


def play(script, cls=DRANGLES):
    return scenario.play(cls(), script)


def test_second_level_quadrangle_wins_two_points():
    game = play(
        "0 0-G   0 0-R   G-GG 0   R-RR RR-RRR   0-G G-GR   0 0-R   0 0-G   R-RY RRR-RRRR "
        "G-GY 0   RY-RYY RYY-RYYY   0-G G-GB"
    )
    assert game.over and game.winner == 0 and game.scores == (2, 0)
    assert [g.names() for g in game.grybs] == [["GG", "GR", "GY", "GB"]]


def test_two_moves_a_turn_then_the_other_player():
    game = play("0")
    assert (game.to_move, game.moves_left) == (0, 1)
    game.apply("0-G")
    assert (game.to_move, game.moves_left) == (1, 2)


def test_first_move_may_pass_through_an_occupied_node_and_must_land_free_with_the_second():
    game = play("0 0-G 0 0-Y 0 G-GG 0")  # player 1 enters onto player 0's stone on the head node
    assert game.transit == 0
    assert names(game.legal_actions()) == {"0-G", "0-R", "0-B"}
    with pytest.raises(IllegalAction, match="the stone passing through 0 must move on to a free node"):
        game.apply("Y-YG")
    game.apply("0-R")
    assert game.transit is None and game.owner(game.space.parse("0")) == 0
    assert game.owner(game.space.parse("R")) == 1


def test_a_stone_passing_through_lands_past_it_not_back_where_it_started():
    """000: "an unoccupied node to land on past it": going over and back would be a turn that changes
    nothing, a pass the game does not have."""
    game = play("0 0-G 0 0-R")
    game.apply("G-R")  # through player 1's stone on R
    assert game.transit == game.space.parse("R")
    # The state shows the stone on its way, which ``stones`` (one a node) cannot: R shows player 1's.
    state = game.state_dict()
    assert state["through"] == {"node": "R", "player": 0, "kind": "stone"} and "G" not in state["stones"]
    assert state["stones"]["R"] == {"player": 1, "kind": "stone"}
    assert names(game.legal_actions()) == {"R-Y", "R-RG", "R-RR", "R-RY", "R-RB"}
    with pytest.raises(IllegalAction, match="must land past it, not back on G"):
        game.apply("R-G")
    assert game.transit == game.space.parse("R") and game.owner(game.space.parse("G")) is None


def test_no_passing_through_where_the_only_free_node_beyond_is_the_one_left():
    game = DRANGLES(depth=2)
    space = game.space
    game.set_stones(0, mask_of(space.parse_many(["G"])))
    game.set_stones(1, mask_of(space.parse_many(["R", "Y", "RG", "RR", "RY", "RB"])))
    assert "G-R" not in names(game.legal_actions())  # R's only free neighbour is G itself
    game.set_stones(1, mask_of(space.parse_many(["R", "Y", "RG", "RR", "RY"])))
    assert "G-R" in names(game.legal_actions())  # RB is free past it


def test_second_move_may_not_land_on_a_stone():
    game = play("0 0-G 0 0-Y 0")
    with pytest.raises(IllegalAction, match="only the first move of a turn may pass through"):
        game.apply("0-Y")


def test_moves_are_down_or_sideways_only():
    game = play("0 0-G 0 0-Y G-GG")
    with pytest.raises(IllegalAction, match="GG to GGGG is not one move"):
        game.apply("GG-GGGG")
    with pytest.raises(IllegalAction, match="GG to G is not one move"):
        game.apply("GG-G")
    with pytest.raises(IllegalAction, match="new stones enter through the head node"):
        game.apply("R")


def test_hyperspace_is_legal_in_hyper_drangles_only():
    script = "0 0-G 0 0-Y G-GR 0 Y-YG YG-YGG"
    assert "GR-RR" not in names(play(script).legal_actions())
    hyper = play(script, HYPER)
    assert "GR-RR" in names(hyper.legal_actions()) and "GR-BR" in names(hyper.legal_actions())


def integrated_position(cls):
    game = cls()
    space = game.space
    game.set_stones(0, mask_of(space.parse_many(["GR", "RY", "YB", "B"])))
    game.set_stones(1, mask_of(space.parse_many(["GGGG", "RRRR"])))
    return game


def test_integrated_gryb_wins_in_sumo_drangles_with_every_level_scored():
    game = integrated_position(SUMO)
    game.apply("B-BG")  # GRYB A: GR, RY, YB, BG integrates levels 1 and 2
    assert game.over and game.winner == 0 and game.scores == (3, 0)


def test_integrated_gryb_does_not_win_plain_drangles():
    game = integrated_position(DRANGLES)
    game.apply("B-BG")
    assert not game.over


def test_no_stones_left_and_turn_limit_draw():
    game = DRANGLES(stones=4, turn_limit=10)
    assert game.settings["turn_limit"] == 10
    import random

    rng = random.Random(1)
    while not game.over:
        game.apply(rng.choice(game.legal_actions()))
    assert game.in_hand[0] >= 0 and game.turn <= 20
    if not game.winners:
        assert game.turn == 20 and game.state_dict()["winner"] is None
