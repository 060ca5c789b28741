"""25 Men's GRYB scenarios: scripted games as a referee would check them (the game uses no die)."""

import random
from collections import Counter

import pytest
import scenario
from scenario import names, refused

from companion.games.catalogue import find
from companion.games.engine import IllegalAction, OptionError

MENS = find("25-mens-gryb")


def play(script, game=None):
    return scenario.play(game or MENS(), script)


def arranged(p0, p1, to_move=0, **options):
    game = MENS(**options)
    game.arrange((p0, p1), to_move)
    return game


# Phase one of a six-man game: player 0 forms the top GRYB with its seventh placement, removes GGGG, and
# both finish placing; player 0 then moves B out of the GRYB and back to form it again (002 and 000: "A GRYB
# may be repeated by simply moving a game piece out of and back into formation").
SIX_MEN_PHASE_ONE = "G GGGG R RRRR Y YYYY B xGGGG BBBB RG GGGR RR GGGY"


def test_placing_fills_any_free_node_then_phase_two_moves():
    game = MENS()
    assert game.phase == "place" and len(game.legal_actions()) == 341  # the head node is a node too
    play("0 GGBY", game)
    assert game.in_hand == (24, 24) and game.to_move == 0 and len(game.legal_actions()) == 339
    headless = MENS(headless=True)
    assert len(headless.legal_actions()) == 340


def test_a_top_gryb_removes_one_man_of_the_players_choice_and_the_turn_then_passes():
    game = play("G GGGG R RRRR Y YYYY B")
    assert [g.names() for g in game.grybs] == [["G", "R", "Y", "B"]]
    assert game.pending == 1 and game.to_move == 0
    assert names(game.legal_actions()) == {"xGGGG", "xRRRR", "xYYYY"}
    play("xRRRR", game)
    assert game.pending == 0 and game.to_move == 1 and game.captured == (1, 0) and game.scores == (0, 0)
    assert game.owner(game.space.parse("RRRR")) is None
    assert game.men(1) == 24  # removed men stay out of the game: 2 on the board, 22 still to place


@pytest.mark.parametrize(
    "quad, removed", [("GG GR GY GB", 2), ("GGG GGR GGY GGB", 3), ("GGGG GGGR GGGY GGGB", 4)]
)
def test_deeper_grybs_remove_as_many_men_as_their_level(quad, removed):
    mine = ["BBBB", "BBBY"] + quad.split()
    theirs = "RRRR RRRY RRRG YYYY YYYR".split()
    script = " ".join(f"{a} {b}" for a, b in zip(mine, theirs)) + " " + mine[-1]
    game = play(script)  # the fourth man of the quadrangle forms the GRYB
    assert game.pending == removed and game.to_move == 0 and game.grybs[0].level == removed
    for victim in theirs[:removed]:
        game.apply("x" + victim)
    assert game.pending == 0 and game.captured == (removed, 0) and game.to_move == 1
    assert game.men(1) == 25 - removed


@pytest.mark.parametrize("depth", [3, 5, 6])
def test_a_bottom_gryb_removes_as_many_men_as_its_level_on_any_depth(depth):
    # "the bottom level is worth 4" is the standard board's fourth level: a depth-3 bottom removes 3.
    above = "G" * (depth - 2)
    theirs = ["B" + a + b + "B" * (depth - 3) for a in "RYB" for b in "GRYB"]
    game = arranged([above + "GG", above + "GR", above + "GY", above[:-1] + "RGB"], theirs, depth=depth)
    game.apply(f"{above[:-1]}RGB-{above}GB")  # a side-step (hyperspace) completes the quadrangle
    assert game.grybs[0].level == depth and game.pending == depth


def test_removals_stop_when_the_opponent_has_no_man_on_the_board():
    game = MENS()
    play(
        "GGGG RRRR GGGR RRRY GGGY RRRG GGGB", game
    )  # a bottom GRYB is worth 4, the opponent has 3 on the board
    assert game.pending == 3
    play("xRRRR xRRRY xRRRG", game)
    assert game.pending == 0 and game.to_move == 1 and game.stones[1] == 0 and game.men(1) == 22


def test_a_repeated_gryb_in_phase_two_reduces_the_opponent_to_three_men_and_wins():
    game = play(SIX_MEN_PHASE_ONE, MENS(stones=6))
    assert game.phase == "move" and game.to_move == 0 and game.men(1) == 5
    play("B-BG GGGR-GGGG BG-B", game)
    assert game.pending == 1 and [g.names() for g in game.grybs] == [["G", "R", "Y", "B"]]
    play("xGGGG", game)
    assert game.men(1) == 4 and not game.over
    play("RRRR-RRRG B-BG YYYY-YYYR BG-B xRRRG", game)
    assert (
        game.over
        and game.winner == 0
        and game.men(1) == 3
        and game.captured == (3, 0)
        and game.scores == (1, 0)
    )
    assert game.legal_actions() == []


def test_the_side_step_moves_of_002_and_up_down_sideways():
    # From GRYY: up to GRY, sideways to GRYR or GRYB, and a side-step on any one level above the focus:
    # "GRRY ... RRYY or BRYY, GYYY or GGYY, or to GRBY" (002).
    game = arranged(["GRYY"], ["BBBB"])
    assert names(game.legal_actions()) == {
        "GRYY-" + t for t in "GRY GRYR GRYB GRRY GRBY GGYY GYYY RRYY BRYY".split()
    }
    limited = arranged(["GRYY"], ["BBBB"], hyperspace="limited")
    assert names(limited.legal_actions()) == {"GRYY-" + t for t in "GRY GRYR GRYB GRRY GRBY".split()}
    top = arranged(["G"], ["BBBB"])
    assert names(top.legal_actions()) == {"G-" + t for t in "0 GG GR GY GB R B".split()}
    assert "G-0" not in names(arranged(["G"], ["BBBB"], headless=True).legal_actions())


def test_a_blocked_player_loses_or_passes_as_the_option_says():
    game = arranged(["G", "R", "Y", "B", "GGGG"], ["0"])
    game.apply("GGGG-GGGR")  # the man on the head node has nowhere to go
    assert game.over and game.winner == 0
    passing = arranged(["G", "R", "Y", "B", "GGGG"], ["0"], blocked="passes")
    passing.apply("GGGG-GGGR")
    assert not passing.over and names(passing.legal_actions()) == {"pass"}
    play("pass GGGR-GGGG", passing)
    assert passing.to_move == 1 and not passing.over


def test_a_full_board_is_a_draw_when_blocked_players_pass():
    game = MENS(depth=3, blocked="passes")
    every = [game.space.name(n) for n in game.space.nodes]
    game.arrange((every[::2], every[1::2]))
    assert names(game.legal_actions()) == {"pass"}
    game.apply("pass")
    assert game.over and game.winners == () and game.draw_reason() == "nobody can ever move again"


@pytest.mark.parametrize(
    "script, bad, reason",
    [
        ("G", "G-GG", "no man moves until all men are in play"),
        ("G", "G", "G is occupied"),
        ("G", "xG", "men are removed only after forming a GRYB"),
        (
            "G GGGG R RRRR Y YYYY B",
            "RR",
            "you formed a GRYB: first remove one of your opponent's men (xNODE)",
        ),
        ("G GGGG R RRRR Y YYYY B", "xG", "not one of your own"),
        ("G GGGG R RRRR Y YYYY B", "xRR", "there is no stone on RR"),
        ("G GGGG R RRRR Y YYYY B", "pass", "you formed a GRYB"),
        ("G", "pass", "you may not pass"),
    ],
)
def test_illegal_actions_in_phase_one_are_refused_with_the_reason(script, bad, reason):
    refused(play(script), bad, reason)


@pytest.mark.parametrize(
    "bad, reason",
    [
        ("RB", "every man is in play: move one of yours"),
        ("G-GGG", "G to GGG is not one move (up, down, sideways, hyperspace)"),
        ("G-R", "R is occupied"),
        ("RRRR-RRRG", "the stone on RRRR is not yours"),
        ("GG-GGG", "there is no stone on GG"),
        ("G,R-GG,RB", "one man moves at a time"),
        ("xRRRR", "men are removed only after forming a GRYB"),
    ],
)
def test_illegal_moves_in_phase_two_are_refused_with_the_reason(bad, reason):
    game = play(SIX_MEN_PHASE_ONE, MENS(stones=6))
    before = game.state_key()
    with pytest.raises(IllegalAction) as err:
        game.apply(bad)
    assert reason in err.value.reason
    assert game.state_key() == before


def test_options_that_do_not_fit_the_board_are_refused():
    with pytest.raises(OptionError, match="this board has 85"):
        MENS(depth=3, stones=43)
    assert MENS(depth=3, stones=42).in_hand == (42, 42)
    with pytest.raises(OptionError, match="this board has 84"):
        MENS(depth=3, headless=True, stones=42)
    with pytest.raises(OptionError):
        MENS(blocked="sometimes")


def test_the_evaluation_favours_more_men_and_gryb_threats():
    even = arranged(["GGGG", "RRRR"], ["YYYY", "BBBB"])
    assert even.evaluate() == pytest.approx([0.5, 0.5])
    ahead = arranged(["GGGG", "RRRR", "YYYG"], ["YYYY", "BBBB"])
    threat = arranged(["GGGG", "GGGR", "GGGY"], ["YYYY", "BBBB", "BBBY"])
    for game in (ahead, threat):
        value = game.evaluate()
        assert value[0] > 0.5 and sum(value) == pytest.approx(1.0)
    assert threat.evaluate()[0] > arranged(["GGGG", "GGGR", "RRRY"], ["YYYY", "BBBB", "BBBY"]).evaluate()[0]


def uniformity(game, samples=20000, seed=3):
    legal = game.legal_actions()
    rng = random.Random(seed)
    counts = Counter(game.random_action(rng) for _ in range(samples))
    return legal, counts


@pytest.mark.parametrize("stage", ["place", "remove", "move"])
def test_playout_moves_are_uniform_over_the_legal_actions(stage):
    if stage == "place":
        game = play("G GGGG R RRRR")
    elif stage == "remove":
        game = play("G GGGG R RRRR Y YYYY B")
    else:
        game = play(SIX_MEN_PHASE_ONE, MENS(stones=6))
    legal, counts = uniformity(game)
    assert set(counts) == set(legal)
    expected = 20000 / len(legal)
    # Five standard deviations either side: a biased sampler fails, a fair one practically never does.
    spread = 5 * (expected * (1 - 1 / len(legal))) ** 0.5
    assert all(abs(c - expected) < spread for c in counts.values())


def test_arranging_a_node_twice_is_refused():
    with pytest.raises(ValueError, match="GG is given twice"):
        MENS().arrange((["GG"], ["GG"]))
