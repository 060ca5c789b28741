"""Squirrel Race: nuts placed by the node die, squirrels entered by the colour die, gathering by points."""

import pytest
import scenario
from scenario import names

from companion.games.catalogue import find
from companion.games.die import Die
from companion.games.engine import IllegalAction
from companion.rules.space import mask_of

SQUIRREL = find("squirrel-race")

# Four nuts: player 0's on GGGG and RRRR, player 1's on GGGR and YYYY.
NUTS = "roll:@GGGG GGGG roll:@GGGR GGGR roll:@RRRR RRRR roll:@YYYY YYYY"


def play(script, game=None):
    return scenario.play(game or SQUIRREL(nuts=4), script)


def test_phase_one_places_each_players_own_nuts_where_the_node_die_says():
    game = SQUIRREL()
    assert game.in_hand == (30, 30) and len(game.legal_actions()) == 256
    game.apply("roll:@GGBY")
    with pytest.raises(IllegalAction, match="the die chose GGBY: place your nut there"):
        game.apply("GGBB")
    play("GGBY roll:@RRRR RRRR", game)
    assert game.stones == tuple(mask_of(game.space.parse_many([n])) for n in ("GGBY", "RRRR"))
    assert game.state_dict()["stones"]["GGBY"] == {"player": 0, "kind": "nut"}
    assert len(game.legal_actions()) == 254 and game.in_hand == (29, 29)


def test_sixty_nuts_from_a_seeded_die_then_the_squirrels_enter_on_the_colour_rolled():
    die = Die(seed=2)
    game = SQUIRREL()
    while game.phase == "nuts":
        game.apply(die.roll(game))
        game.apply(game.legal_actions()[0])
    assert [m.bit_count() for m in game.stones] == [30, 30] and game.to_move == 0
    assert game.is_chance and names(game.legal_actions()) == {"roll:G", "roll:R", "roll:Y", "roll:B"}
    game.apply("roll:B")
    entries = names(game.legal_actions())
    assert len(entries) == 16 and all(len(e) == 3 and e.endswith("B") for e in entries)


def test_an_odd_number_of_nuts_gives_player_0_the_extra_one_and_player_1_the_first_squirrel():
    # Turns keep alternating from the nuts to the squirrels: player 0 places the last nut, so player 1 enters.
    game = play("roll:@GGGG GGGG roll:@RRRR RRRR roll:@YYYY YYYY", SQUIRREL(nuts=3))
    assert [m.bit_count() for m in game.stones] == [2, 1] and game.phase == "squirrels"
    assert game.to_move == 1 and game.is_chance
    play("roll:Y YYY roll:G GGG", game)
    assert game.squirrels == tuple(game.space.parse(n) for n in ("GGG", "YYY")) and game.phase == "race"
    assert game.to_move == 1  # then the race alternates on: player 1, who entered first, moves first


def test_a_whole_game_gathering_the_nuts_under_the_squirrel():
    game = play(NUTS + " roll:G GGG")
    # GGG gathers the quadrangle under it: its own nut GGGG (2 points) and player 1's GGGR (1 point).
    assert game.scores == (3, 0) and game.captured == (2, 0)
    assert game.state_dict()["stones"]["GGG"] == {"player": 0, "kind": "squirrel"}
    play("roll:Y YYY", game)  # player 1 enters over its own nut YYYY: 2 points
    assert game.scores == (3, 2) and game.phase == "race" and not game.is_chance
    assert names(game.legal_actions()) == {"GGG-GGR", "GGG-GGB", "GGG-RGG", "GGG-BGG", "GGG-GRG", "GGG-GBG"}
    play("GGG-RGG YYY-YYR RGG-RRG YYR-YYG", game)
    assert not game.over
    game.apply("RRG-RRR")  # the last nut, RRRR, is player 0's own: 2 more points, and the game is over
    assert game.over and game.winner == 0 and game.scores == (5, 2) and game.captured == (3, 1)


def test_equal_points_are_a_draw():
    game = play(NUTS + " roll:G GGG roll:R RRR")
    assert game.scores == (3, 1)
    play("GGG-GGR RRR-RRY GGR-GGY RRY-RYY GGY-GGB", game)
    game.apply("RYY-YYY")
    assert game.over and game.winners == () and game.scores == (3, 3)
    assert game.draw_reason() == "every nut is gathered, and the points are equal"


def test_squirrels_stay_on_the_third_level_and_never_share_a_node():
    game = play(NUTS + " roll:G")
    with pytest.raises(IllegalAction, match="squirrels stay on the third level"):
        game.apply("GG")
    with pytest.raises(IllegalAction, match="you rolled G: move onto a green node, and GGR is not one"):
        game.apply("GGR")
    play("GGG roll:G RGG", game)
    with pytest.raises(IllegalAction, match="RGG is occupied"):  # the other squirrel
        game.apply("GGG-RGG")
    with pytest.raises(IllegalAction, match="GGG to GG is neither a sideways nor a hyperspace move"):
        game.apply("GGG-GG")
    with pytest.raises(IllegalAction, match="your squirrel is on the board"):
        game.apply("BBB")
    with pytest.raises(IllegalAction, match="the stone on RGG is not yours"):
        game.apply("RGG-RGR")


def test_nuts_do_not_move():
    game = play("roll:@GGGG GGGG roll:@BBBB BBBB roll:@RRRR RRRR roll:@YYYY YYYY roll:Y YYY roll:B BBB")
    with pytest.raises(IllegalAction, match="nuts do not move: move your squirrel"):
        game.apply("RRRR-RRRY")


def test_with_dice_moves_every_move_ends_on_the_colour_rolled():
    game = play(NUTS + " roll:G GGG roll:Y YYY", SQUIRREL(nuts=4, dice_moves=True))
    assert game.is_chance
    game.apply("roll:G")  # the squirrel's own colour: only hyperspace moves keep it
    assert names(game.legal_actions()) == {"GGG-RGG", "GGG-BGG", "GGG-GRG", "GGG-GBG"}
    with pytest.raises(IllegalAction, match="you rolled G: move onto a green node, and GGR is not one"):
        game.apply("GGG-GGR")
    play("GGG-RGG roll:G", game)
    assert names(game.legal_actions()) == {"pass"}  # the opposite colour of YYY: no move


def test_the_turn_limit_ends_the_race_on_the_points():
    game = play(NUTS + " roll:G GGG roll:Y YYY", SQUIRREL(nuts=4, turn_limit=10))
    assert game.turn == 6 and game.scores == (3, 2)  # four nuts placed, two squirrels entered
    for _ in range(3):
        play("GGG-GGR YYY-YYR GGR-GGG YYR-YYY", game)  # nowhere near the last nut, RRRR
    assert game.turn == 18 and not game.over
    play("GGG-GGR YYY-YYR", game)
    assert game.over and game.turn == 20 and game.winner == 0 and game.scores == (3, 2)


def test_evaluate_favours_the_player_with_more_points_and_more_to_come():
    game = play(NUTS + " roll:G GGG roll:Y YYY")
    values = game.evaluate()
    assert abs(sum(values) - 1) < 1e-9 and values[0] > values[1]
    assert SQUIRREL().evaluate() == [0.5, 0.5]


def test_no_action_ever_names_the_head_node():
    """docs/rules/game-space.md, "The head node's colour": the head node matches every colour rolled, which
    changes nothing here, as no squirrel or nut reaches it (random games, every action looked at)."""
    import random

    for seed in range(3):
        game, rng = SQUIRREL(), random.Random(seed)
        while not game.over:
            if not game.is_chance:
                assert all(0 not in a.targets + a.sources for a in game.legal_actions())
            game.push_legal(game.random_action(rng))
