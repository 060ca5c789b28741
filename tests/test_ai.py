"""Computer players: the search picks legal actions, finds wins, leaves the game alone, handles chance."""

import random
import subprocess
import sys
import json

import pytest

from companion import ai
from companion.engine import catalogue, find
from companion.space import mask_of

# Bounded by iterations, not time, so the tests decide the same way on any machine.
STEADY = ai.Level("test", iterations=400, seconds=60.0, playout=12)


@pytest.mark.parametrize("cls", sorted(catalogue(), key=lambda c: c.id), ids=lambda c: c.id)
def test_every_game_gets_legal_choices_and_the_game_is_untouched(cls):
    rng = random.Random(1)
    game = cls(cls.max_players)
    quick = ai.Level("quick", iterations=30, seconds=60.0, playout=6)
    for _ in range(30):
        if game.over:
            break
        if game.is_chance:
            game.push_legal(game.random_action(rng))
            continue
        key, history = game.state_key(), list(game.history)
        result = ai.search(game, quick, rng)
        assert game.state_key() == key and game.history == history
        assert result.action in game.legal_actions()
        game.apply(result.action)


def test_takes_a_winning_move_in_ez_gryb():
    game = find("ez-gryb")()
    space = game.space
    game.set_stones(0, mask_of(space.parse_many(["G", "R", "Y", "GG", "RR"])))
    game.set_stones(1, mask_of(space.parse_many(["BB", "YB"])))
    game.apply("roll:B")  # B enters and wins; B-BB... are also legal
    assert str(ai.search(game, STEADY, random.Random(2)).action) == "B"


def test_blocks_or_wins_in_drangles():
    game = find("drangles")()
    space = game.space
    game.set_stones(0, mask_of(space.parse_many(["GG", "GR", "GY", "G"])))  # G-GB wins at once
    game.set_stones(1, mask_of(space.parse_many(["RR", "RY"])))
    result = ai.search(game, STEADY, random.Random(3))
    assert str(result.action) == "G-GB"


def test_chance_nodes_branch_on_the_die():
    game = find("ez-gryb")()
    game.apply("roll:G")
    game.apply("G")
    result = ai.search(game, STEADY, random.Random(4))
    assert result.action.kind == "roll"  # the side to move is chance: the search never picks a face
    game.apply("roll:Y")
    game.apply("Y")
    game.apply("roll:R")  # player 1 may enter R or go G-GR: a real choice after a roll
    assert len(game.legal_actions()) == 2
    result = ai.search(game, STEADY, random.Random(4))
    assert result.iterations > 0 and result.action in game.legal_actions()


def test_levels_and_errors():
    assert set(ai.LEVELS) == {"easy", "medium", "hard"}
    with pytest.raises(ai.LevelError, match="no level 'godlike'"):
        ai.level("godlike")
    game = find("drangles")()
    game.finish((0,))
    with pytest.raises(ValueError, match="game is over"):
        ai.search(game, "easy")


def test_time_budget_is_kept():
    game = find("drangles")()
    budget = ai.Level("tight", iterations=10**9, seconds=0.05, playout=10)
    result = ai.search(game, budget, random.Random(5))
    assert result.seconds < 1.0


def run(*args, stdin=""):
    return subprocess.run([sys.executable, "-m", "companion.cli", *args], input=stdin, capture_output=True,
                          text=True, timeout=300)


def test_cli_computer_seat_answers_each_human_move():
    done = run("play", "drangles", "--ai", "2=easy", "--seed", "3", stdin="0\n0-G\n")
    states = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0
    assert len(states) == 4 and states[-1]["to_move"] == 0  # two human moves, two computer moves


def test_cli_computer_plays_a_whole_game_against_random():
    done = run("play", "ez-gryb", "--ai", "1=easy", "--seed", "8", "--random", "5000")
    assert done.returncode == 0 and json.loads(done.stdout.splitlines()[-1])["over"]


@pytest.mark.parametrize("bad, message", [("3=easy", "SEAT from 1 to 2"), ("1=godlike", "no level 'godlike'"),
                                          ("easy", "SEAT=LEVEL")])
def test_cli_bad_ai_option(bad, message):
    done = run("play", "drangles", "--ai", bad)
    assert done.returncode == 2 and message in done.stderr
