"""The Fourth Level: node-die placement on the bottom level, then sideways and hyperspace moves to a GRYB."""

import random

import pytest
import scenario
from scenario import names

from companion.games.catalogue import find
from companion.games.die import Die
from companion.games.engine import IllegalAction
from companion.rules.space import mask_of

FOURTH = find("fourth-level")


def play(script, game=None):
    return scenario.play(game or FOURTH(), script)


def position(p0, p1, **options):
    """A phase-two position, player 0 to move."""
    game = FOURTH(**options)
    game.set_stones(0, mask_of(game.space.parse_many(p0)))
    game.set_stones(1, mask_of(game.space.parse_many(p1)))
    game.phase, game.in_hand = "move", (0, 0)
    return game


def test_phase_one_places_on_the_bottom_node_the_die_rolled():
    game = FOURTH()
    faces = game.legal_actions()
    assert (
        game.is_chance
        and len(faces) == 256
        and all(str(f).startswith("roll:@") and len(str(f)) == 10 for f in faces)
    )
    with pytest.raises(IllegalAction, match="the die cannot show @GGB now"):
        game.apply("roll:@GGB")
    game.apply("roll:@GGBY")
    assert names(game.legal_actions()) == {"GGBY"}
    with pytest.raises(IllegalAction, match="the die chose GGBY: place your stone there"):
        game.apply("GGBB")
    with pytest.raises(IllegalAction, match="every stone is placed first: place yours on GGBY"):
        game.apply("GGBY-GGBB")
    game.apply("GGBY")
    assert game.to_move == 1 and game.in_hand == (7, 8)
    assert len(game.legal_actions()) == 255  # an occupied node is rolled again: it is not a face


def test_sixteen_placements_from_a_seeded_die_then_phase_two_without_the_die():
    die = Die(seed=4)
    game = FOURTH()
    for _ in range(16):
        game.apply(die.roll(game))
        game.apply(game.legal_actions()[0])
    assert game.phase == "move" and game.to_move == 0 and not game.is_chance
    assert [m.bit_count() for m in game.stones] == [8, 8]
    assert not game.stones[0] & ~game.space.bottom and not game.stones[1] & ~game.space.bottom
    with pytest.raises(IllegalAction, match="every stone is placed: move one sideways or via hyperspace"):
        game.apply("GGGG")


def test_a_stone_moves_sideways_or_via_hyperspace_to_a_free_node_and_never_leaves_the_level():
    game = position(["RGYB"], ["RGYG"])
    # Sideways: RGYG (taken), RGYY; hyperspace on loci 1-3: G/Y for R, R/B for G, R/B for Y.
    assert names(game.legal_actions()) == {
        "RGYB-RGYY",
        "RGYB-GGYB",
        "RGYB-YGYB",
        "RGYB-RRYB",
        "RGYB-RBYB",
        "RGYB-RGRB",
        "RGYB-RGBB",
    }
    with pytest.raises(IllegalAction, match="RGYG is occupied"):
        game.apply("RGYB-RGYG")
    with pytest.raises(IllegalAction, match="RGYB to RGY is not one move .sideways or via hyperspace."):
        game.apply("RGYB-RGY")
    with pytest.raises(IllegalAction, match="the stone on RGYG is not yours"):
        game.apply("RGYG-RGYR")


def test_covering_a_fourth_level_quadrangle_wins_one_point_counted_from_the_bottom():
    """The game starts on the bottom level, so its points count from there (001 "Scoring GRYB", "Big &
    Little Endians"; the conflict with 000's table: docs/rules/fourth-level.md)."""
    game = position(["GGGG", "GGGR", "GGGY", "RGGB"], ["YYYY"])
    game.apply("RGGB-GGGB")  # via hyperspace: the first locus steps from R to G
    assert game.over and game.winner == 0 and game.scores == (1, 0)
    assert [g.names() for g in game.grybs] == [["GGGG", "GGGR", "GGGY", "GGGB"]]
    assert game.state_dict()["grybs"][0]["points"] == 1


def test_a_placement_in_phase_one_can_already_win():
    game = play(
        "roll:@GGGG GGGG roll:@RRRR RRRR roll:@GGGR GGGR roll:@RRRG RRRG "
        "roll:@GGGY GGGY roll:@RRRY RRRY roll:@GGGB GGGB"
    )
    assert game.over and game.winner == 0 and game.scores == (1, 0)


def test_integrated_grybs_win_only_with_the_option():
    stones = (["GRYR", "RGBG", "YBGB", "BYRB"], ["GGGG"])
    plain = position(*stones)
    plain.apply("BYRB-BYRY")  # GRYB "K" of 001, all four levels
    assert not plain.over
    game = position(*stones, integrated=True)
    game.apply("BYRB-BYRY")
    assert game.over and game.winner == 0 and game.scores == (15, 0)
    assert game.grybs[0].levels == (1, 2, 3, 4)
    # Levels 1 and 2 only (as 001's GRYB "A", on the fourth level): 8 for the level furthest from the
    # bottom and 4 for the next (000's table would give 1 and 2).
    game = position(["GGGG", "RRGG", "YYGG", "BYGG"], ["YYYY"], integrated=True)
    game.apply("BYGG-BBGG")  # via hyperspace
    assert game.over and [g.levels for g in game.grybs] == [(1, 2)] and game.scores == (12, 0)


def test_a_long_game_is_a_draw_at_the_turn_limit():
    game = position(["GGGG"], ["YYYY"], turn_limit=10)
    rng = random.Random(3)
    while not game.over:
        game.apply(rng.choice(game.legal_actions()))
    assert game.turn == 20 and game.winners == () and game.scores == (0, 0)


def test_evaluate_favours_the_player_closer_to_a_quadrangle():
    game = position(["GGGG", "GGGR", "GGGY", "RGGB"], ["YYYY", "BBBB"])
    values = game.evaluate()
    assert abs(sum(values) - 1) < 1e-9 and values[0] > 0.9
    blocked = position(["GGGG", "GGGR", "GGGY", "RGGB"], ["GGGB", "BBBB"])  # that quadrangle is spoilt
    assert blocked.evaluate()[0] < values[0]
