"""Computer players: the search picks legal actions, finds wins, leaves the game alone, handles chance."""

import json
import math
import random
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from companion import ai
from companion.games.catalogue import catalogue, find
from companion.rules import gryb
from companion.rules.space import mask_of

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


# Run in a fresh interpreter by the test below: for each game, a search's unreachable leftovers.
_LEFTOVERS = """
import gc, json, random
from companion import ai
from companion.games.catalogue import catalogue
for cls in sorted(catalogue(), key=lambda c: c.id):
    rng = random.Random(2)
    game = cls(cls.max_players)
    while game.is_chance or len(game.legal_actions()) < 2:
        game.push_legal(game.random_action(rng))
    gc.collect()
    result = ai.search(game, ai.Level("test", iterations=200, seconds=60.0, playout=4), rng)
    found = {"game": cls.id, "iterations": result.iterations, "children": len(result.root.children)}
    del result
    print(json.dumps(found | {"unreachable": gc.collect()}))
"""


def test_a_search_leaves_nothing_for_the_garbage_collector():
    """The search tree has no reference cycle (a node knows its children, not its parent) and nor has
    anything else a search makes: all of it is freed as the answer is dropped, in every game. A cyclic
    tree of a hard search's few thousand objects waited for a collection instead, one that walked it at
    some later move (docs/performance.md, "Garbage collection while the computer plays"). In a process of
    its own: in this one, threads other tests left (a computer's search finishing for a runtime long
    stopped) drop garbage of their own, which the collector cannot tell from the search's."""
    done = subprocess.run(
        [sys.executable, "-c", _LEFTOVERS],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr
    found = [json.loads(line) for line in done.stdout.splitlines()]
    assert [f["game"] for f in found] == sorted(c.id for c in catalogue())
    assert all(f["iterations"] == 200 and f["children"] > 1 for f in found)
    assert [f for f in found if f["unreachable"]] == []


@pytest.mark.parametrize("more", [-57, -17, 0, 1, 40])
def test_stop_ends_a_search_early_with_the_best_so_far(more):
    """``stop`` is asked after each action of the first look and before each iteration, and not again
    once it has said so: the search answers with what it has (the first look's best, or the tree's), a
    legal action. Hyper-Chess's 57 opening moves: told to stop once it has looked at the 1st or the
    41st, once it has looked at all 57 (no iteration), after one iteration, after 40."""
    game = find("hyper-chess")()
    assert len(game.legal_actions()) == 57
    after = 57 + more
    asked = []

    def stop():
        asked.append(None)
        return len(asked) > after

    result = ai.search(
        game, ai.Level("test", iterations=5_000, seconds=60.0, playout=4), random.Random(3), stop=stop
    )
    legal = game.legal_actions()
    assert result.action in legal and result.how == "search"
    if more < 0:  # stopped in the first look, after as many actions as it was let look at
        assert result.iterations == 0 and result.looked == after + 1
    else:  # the whole look, then as many iterations as it was let
        assert result.looked == len(legal) and result.iterations == more
    assert len(asked) == after + 1  # and it asked no more once told


def test_takes_a_winning_move_in_ez_gryb():
    game = find("ez-gryb")()
    space = game.space
    game.set_stones(0, mask_of(space.parse_many(["G", "R", "Y", "GG", "RR"])))
    game.set_stones(1, mask_of(space.parse_many(["BB", "YB"])))
    game.apply("roll:B")  # B enters and wins; B-BB... are also legal
    assert str(ai.search(game, STEADY, random.Random(2)).action) == "B"


@pytest.mark.parametrize("name", [*ai.LEVELS, "always blunders"])
def test_no_level_misses_a_win_in_one(name):
    # Hyper-Chess: the red King on the head node, blue pawns on G, R and Y, the blue Rook on BG guards B;
    # six of the 61 moves mate (the Queen's BBB-B, two ups, among them), eight stalemate. Even a player who
    # otherwise always moves at random takes a mate.
    lvl = replace(ai.LEVELS["easy"], blunder=1.0) if name == "always blunders" else ai.LEVELS[name]
    game = find("hyper-chess")()
    game.set_position({"0": "k", "G": "P", "R": "P", "Y": "P", "BBB": "Q", "BG": "R", "BBBB": "K"})
    mates = set()
    for action in game.legal_actions():
        game.push_legal(action)
        if game.over and game.winners == (0,):
            mates.add(action)
        game.retract()
    assert len(game.legal_actions()) == 61 and "BBB-B" in {str(a) for a in mates} and len(mates) == 6
    result = ai.search(game, lvl, random.Random(5))
    assert result.action in mates and result.iterations == 0 and result.how == "win"
    game.apply(result.action)
    assert game.over and game.winners == (0,)


def test_a_win_in_one_for_a_team_is_taken_too():
    # Doubles: player 1's stones on G and Y and player 3's on R; 0-B covers the top quadrangle with the
    # team's stones and wins for both. It was never taken at once (the winners are two players, not the
    # mover alone), and the easy level missed such wins in about one game in four.
    game = find("doubles")(4)
    game.set_stones(0, mask_of(game.space.parse_many(["0", "G", "Y"])))
    game.set_stones(2, mask_of(game.space.parse_many(["R"])))
    game.set_stones(1, mask_of(game.space.parse_many(["GG"])))
    lvl = replace(ai.LEVELS["easy"], blunder=1.0)
    for seed in range(5):
        result = ai.search(game, lvl, random.Random(seed))
        assert str(result.action) == "0-B" and result.iterations == 0
    game.apply("0-B")
    assert game.winners == (0, 2)


def test_a_beginner_still_blunders_when_there_is_no_win_in_one():
    game = find("hyper-chess")()
    lvl = replace(ai.LEVELS["easy"], blunder=1.0)
    picks = {str(ai.search(game, lvl, random.Random(seed)).action) for seed in range(12)}
    assert len(picks) > 3 and picks <= {str(a) for a in game.legal_actions()}


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
    assert result.action in game.legal_actions()
    assert sorted(result.visits) == sorted(str(a) for a in game.legal_actions())
    for action, node in result.root.children.items():
        game.apply(action)
        outcomes = game.chance_outcomes()  # player 0 rolls next: every face, equally likely
        game.undo()
        assert len(outcomes) == 4 and node.visits >= 100
        assert node.chance and node.mover == game.to_move
        # The chance node's children are the faces drawn, each visited as often as the die shows it:
        # every face present, and the counts fit the die (chi-square, 3 degrees of freedom, p = 0.001).
        # A search that chose the faces (by their value) would pile its visits on a few of them.
        assert {face for face, _ in outcomes} == set(node.children)
        drawn = sum(child.visits for child in node.children.values())
        assert drawn == node.visits - 1  # the first visit only reached the chance node
        chi2 = sum(
            (node.children[face].visits - drawn * share) ** 2 / (drawn * share) for face, share in outcomes
        )
        assert chi2 < 16.27, {str(f): c.visits for f, c in node.children.items()}
        assert all(child.mover is None and not child.chance for child in node.children.values())


def test_a_game_that_orders_its_moves_gets_them_tried_best_first_and_widened_by_visits():
    # Hyper-Chess ranks its moves (action_order): taking the undefended Knight (GGGG-GGGR) and the
    # attacked Bishop's escapes rank 4, the Queen stepping beside the red Rook (YYYY-YRY) -9.
    game = find("hyper-chess")()
    game.set_position(
        {
            "BBBB": "K",
            "RRRR": "k",
            "GGGG": "R",
            "GGGR": "n",
            "YYYY": "Q",
            "YRYR": "r",
            "YRYY": "B",
            "RRR": "p",
            "RRG": "p",
        }
    )
    legal = game.legal_actions()
    order = dict(zip(legal, game.action_order(legal)))
    best = {a for a, v in order.items() if v == max(order.values())}
    first = ai.search(game, replace(STEADY, iterations=1), random.Random(6))
    assert set(first.root.children) <= best and len(first.root.children) == 1
    result = ai.search(game, STEADY, random.Random(6))
    root = result.root
    tried = set(root.children)
    assert len(tried) <= ai.WIDEN_BASE + ai.WIDEN_RATE * math.sqrt(root.visits) + 1 < len(legal)
    assert best <= tried and min(order, key=order.get) not in tried
    # Every node below the root widens the same way: none has more children than its visits allow.
    stack = list(root.children.values())
    while stack:
        node = stack.pop()
        assert len(node.children) <= ai.WIDEN_BASE + ai.WIDEN_RATE * math.sqrt(max(node.visits - 1, 0)) + 1
        stack.extend(node.children.values())
    # A game without an order (the default) has every action tried before any is tried twice.
    plain = find("connection")()
    assert plain.action_order(plain.legal_actions()) is None
    result = ai.search(plain, replace(STEADY, iterations=len(plain.legal_actions())), random.Random(6))
    assert set(result.root.children) == set(plain.legal_actions())


def test_levels_and_errors():
    assert set(ai.LEVELS) == {"easy", "medium", "hard"}
    with pytest.raises(ai.LevelError, match="no level 'godlike'"):
        ai.level("godlike")
    game = find("drangles")()
    game.finish((0,))
    with pytest.raises(ValueError, match="game is over"):
        ai.search(game, "easy")


def test_a_time_scale_stretches_only_the_time_budget():
    assert ai.level("hard") is ai.LEVELS["hard"]
    slow = ai.level("hard", 8.0)
    assert slow.seconds == pytest.approx(8 * ai.LEVELS["hard"].seconds)
    assert replace(slow, seconds=ai.LEVELS["hard"].seconds) == ai.LEVELS["hard"]
    with pytest.raises(ai.LevelError):
        ai.level("godlike", 8.0)


def test_a_game_whose_strength_saturates_early_gets_its_lower_levels_placed_lower():
    from companion.cli import command as cli

    ez = find("ez-gryb")
    tuned = ez.computer_levels
    medium = ai.level("medium", game=ez)
    assert medium.iterations == tuned["medium"]["iterations"] < ai.LEVELS["medium"].iterations
    assert replace(medium, iterations=ai.LEVELS["medium"].iterations) == ai.LEVELS["medium"]
    assert ai.level("hard", game=ez) is ai.LEVELS["hard"]  # the strongest level is never held back
    assert ai.level("medium", game=find("drangles")) is ai.LEVELS["medium"]  # other games: the general levels
    assert ai.level("easy", 2.0, ez).seconds == pytest.approx(2 * ai.LEVELS["easy"].seconds)
    # Repeatable (play --seed): counted, not timed, and never more than a quarter second's worth for hard.
    counted = ai.level("hard", 8.0, ez, repeatable=True)
    assert counted.seconds == math.inf and counted.iterations == ai.REPEATABLE_ITERATIONS
    assert ai.level("medium", 1.0, ez(), repeatable=True).iterations == tuned["medium"]["iterations"]
    # A level asked for by name searches the game's own budget, in the CLI and in search() itself.
    game, rng = find("ez-gryb")(), random.Random(1)
    while game.is_chance or len(game.legal_actions()) < 2:  # a position with a choice to search
        game.push_legal(game.random_action(rng) if game.is_chance else rng.choice(game.legal_actions()))

    def stopped():  # a clock that never moves: the iteration budget alone ends the search
        return 0.0

    seats = cli._ai_seats(["1=medium"], game, 1.0)
    assert seats[0] == medium
    assert ai.search(game, "medium", random.Random(2), stopped).iterations == tuned["medium"]["iterations"]


# The games the companion ships that tune their computer players (a saved composition may too).
TUNING = [
    cls
    for cls in sorted(catalogue(), key=lambda c: c.id)
    if cls.computer_levels and (not getattr(cls, "composed", False) or cls.shipped)
]


def test_the_games_tune_their_computer_players_as_before():
    """Each game's levels are what they were when ai.py held them in tables of game ids: the same games,
    the same changes, the same levels."""
    assert {cls.id: cls.computer_levels for cls in TUNING} == {
        "ez-gryb": {"easy": {"iterations": 20, "blunder": 0.2}, "medium": {"iterations": 60}},
        "hyper-chess": {"medium": {"iterations": 180, "playout": 4}, "hard": {"playout": 2}},
        "pyragryb": {"easy": {"blunder": 0.0, "playout": 2}},
    }
    assert sorted(cls.id for cls in catalogue() if cls.wide_root) == ["blobs", "siege", "the-borg"]
    expected = {
        ("ez-gryb", "easy"): ai.Level("easy", 20, 0.05, 4, blunder=0.2),
        ("ez-gryb", "medium"): ai.Level("medium", 60, 0.12, 8),
        ("hyper-chess", "medium"): ai.Level("medium", 180, 0.12, 4),
        ("hyper-chess", "hard"): ai.Level("hard", 100000, 0.25, 2),
        ("pyragryb", "easy"): ai.Level("easy", 60, 0.05, 2),
    }
    for cls in catalogue():
        for name in ai.LEVELS:
            assert ai.level(name, game=cls) == expected.get((cls.id, name), ai.LEVELS[name]), (cls.id, name)
    assert ai.LEVELS == {
        "easy": ai.Level("easy", 60, 0.05, 4, blunder=0.1),
        "medium": ai.Level("medium", 300, 0.12, 8),
        "hard": ai.Level("hard", 100000, 0.25, 8),
    }


def test_a_composition_tunes_its_computer_players_in_a_computer_table():
    """[computer] (companion/games/composed/schema.py) names companion/ai.py's levels and what a level may
    change, and the composed game's class carries it as a hand-written game's does."""
    from companion.games.composed import schema
    from companion.games.composed.interpreter import game_class

    assert schema.COMPUTER_LEVELS == tuple(ai.LEVELS)
    assert set(schema.LEVEL_CHANGES) <= set(ai.Level.__dataclass_fields__)
    rules = schema.loads('id = "tuned"\nname = "T"\n[computer]\nwide_root = true\nmedium = {playout = 2}\n')
    cls = game_class(rules)
    assert cls.wide_root and ai.level("medium", game=cls) == replace(ai.LEVELS["medium"], playout=2)
    assert ai.level("medium", game=cls(2)) == ai.level("medium", game=cls)


def test_every_game_level_override_names_a_game_a_level_and_a_budget_it_changes():
    fields = {f for f in ai.Level.__dataclass_fields__ if f != "name"}
    for cls in TUNING:
        levels = cls.computer_levels
        assert levels and set(levels) <= set(ai.LEVELS)
        for name, changes in levels.items():
            assert changes and set(changes) <= fields
            assert ai.level(name, game=cls) != ai.LEVELS[name]
            if (
                name == "hard"
            ):  # never held back: its time and iterations stay, only how it searches may change
                assert set(changes) <= {"playout", "exploration"}


def opened_drangles():
    """Drangles after the first player's forced head node: four moves to choose from."""
    game = find("drangles")()
    game.apply("0")
    assert len(game.legal_actions()) == 4
    return game


@pytest.mark.parametrize("step", [0.0001, 0.001, 0.007, 0.03])
@pytest.mark.parametrize("name", ["tight", *ai.LEVELS])
def test_time_budget_is_kept_whatever_an_iteration_costs(name, step, monkeypatch):
    """A fake clock that only moves when an iteration runs, by ``step``: deterministic on any machine."""
    now = [100.0]
    iterate = ai._iterate

    def slow_iterate(*args):
        iterate(*args)
        now[0] += step

    monkeypatch.setattr(ai, "_iterate", slow_iterate)
    lvl = ai.Level("tight", 10**9, 0.05, 10) if name == "tight" else ai.level(name)
    lvl = replace(lvl, iterations=10**9, blunder=0.0)  # only the clock stops it
    game = opened_drangles()
    result = ai.search(game, lvl, random.Random(5), clock=lambda: now[0])
    assert result.seconds <= lvl.seconds
    assert result.action in game.legal_actions()
    assert result.iterations == round(result.seconds / step)
    if step < lvl.seconds * (1 - ai.LAST_START):  # cheap iterations: the budget is used, not wasted
        assert result.seconds >= lvl.seconds * ai.LAST_START - step


def test_no_garbage_collection_inside_a_search_and_the_collector_is_left_as_found(monkeypatch):
    """A full collection (50-110 ms) inside the budget overran it; it waits until the answer."""
    import gc

    states = []
    iterate = ai._iterate
    monkeypatch.setattr(ai, "_iterate", lambda *args: (states.append(gc.isenabled()), iterate(*args)))
    game = opened_drangles()
    for enabled in (True, False):
        (gc.enable if enabled else gc.disable)()
        try:
            ai.search(game, ai.Level("few", 20, 60.0, 4), random.Random(5))
            assert gc.isenabled() is enabled
        finally:
            gc.enable()
    assert len(states) == 40 and not any(states)


@pytest.mark.parametrize("name", ["tight", "hard"])
def test_time_budget_is_kept(name):
    """The real search on a real clock. Its own ``seconds`` are read on this thread's CPU clock, so a
    loaded machine (other processes, 2 cores) does not lengthen them; the wall clock is bounded loosely."""
    lvl = ai.Level("tight", 10**9, 0.05, 10) if name == "tight" else ai.level(name)
    game = opened_drangles()
    # Warm tables, so that the slowest iteration so far foretells the next: a cold one may run past
    # (the cold start is the next tests').
    ai.search(game, ai.Level("warm", 50, 60.0, 10), random.Random(5))
    began = time.perf_counter()
    result = ai.search(game, lvl, random.Random(5), clock=time.thread_time)
    wall = time.perf_counter() - began
    assert result.iterations > 10
    assert result.seconds <= lvl.seconds
    assert wall < lvl.seconds + 1.0


def deep_square_deal():
    """Square Deal on a Super Giant board (depth 6), in phase two, Player 1 to move, with a GRYB index of its
    own that nothing has used yet: as in the first search of a process. 0-B completes the top quadrangle
    round three of Player 2's stones, the only capture; 36 more stones lie deep, so 360 moves reach nodes
    whose GRYB lists (364 each on the bottom level, 8 ms to build here) are not built."""
    game = find("square-deal")(2, depth=6)
    space = game.space
    deep = random.Random(6).sample([n for n in space.nodes if len(space.name(n)) >= 5], 36)
    game.set_stones(0, mask_of(space.parse_many(["0"]) + deep[:18]))
    game.set_stones(1, mask_of(space.parse_many(["G", "R", "Y"]) + deep[18:]))
    game.phase, game.in_hand, game.since = "move", (0, 0), game.turn - 1
    game.grybs_index = gryb.GrybIndex(space)
    assert len(game.legal_actions()) == 360 and str(game.legal_actions()[0]) == "0-B"
    return game


@pytest.mark.parametrize("build", [0.008, 0.03])
def test_a_cold_deep_board_keeps_the_budget_and_plays_the_best_move_seen(build, monkeypatch):
    """The first look once played every action before the search (5.8 s and no iteration for the first
    hard move of a Super Giant Square Deal, then a random move). A clock the test advances by ``build``
    for every GRYB list built (8 ms: this machine at depth 6; 30 ms: a machine four times slower) and
    by nothing else: the look stops at its share, the tree starts no iteration it cannot finish, and the
    move is the best one the search saw (at 30 ms no iteration fits, and the look's best is played)."""
    now = [0.0]
    built = gryb.GrybIndex._build

    def slow_build(self, node):
        now[0] += build
        return built(self, node)

    monkeypatch.setattr(gryb.GrybIndex, "_build", slow_build)
    game = deep_square_deal()
    hard = ai.level("hard")
    result = ai.search(game, hard, random.Random(1), clock=lambda: now[0])
    assert result.seconds <= hard.seconds
    assert result.looked < 360 and result.looked * build <= hard.seconds * ai.LOOK_SHARE + build
    assert str(result.action) == "0-B" and result.how == "search"
    assert result.iterations == (0 if build == 0.03 else 1)


def test_a_cold_deep_board_on_the_cpu_clock():
    """The same cold start for real, on this thread's CPU clock (other processes on the machine do not
    lengthen it), with a wide margin: a cold iteration can outlast the one before it, but not by seconds."""
    game = deep_square_deal()
    hard = ai.level("hard")
    began = time.thread_time()
    result = ai.search(game, hard, random.Random(1), clock=time.thread_time)
    assert time.thread_time() - began < 4 * hard.seconds
    assert result.looked < 360 and result.action in game.legal_actions()


def square_deal_capture():
    """Standard Square Deal, phase two: Player 1's YYY-YY completes the quadrangle round Player 2's YG, YR
    and YB and captures it (one ply deep, Player 1 then stands at 1.0); no other move captures, and 30
    moves are listed before it."""
    game = find("square-deal")()
    game.set_stones(0, mask_of(game.space.parse_many(["RB", "BG", "YYY", "RRRR", "BBBY", "GBGB"])))
    game.set_stones(1, mask_of(game.space.parse_many(["YG", "YR", "YB", "GGGG", "GRGR", "RYRY"])))
    game.phase, game.in_hand, game.since = "move", (0, 0), game.turn - 1
    return game


def test_the_first_look_ranks_the_moves_of_a_game_that_ranks_nothing(monkeypatch):
    game = square_deal_capture()
    legal = game.legal_actions()
    values = {}
    for action in legal:
        game.push_legal(action)
        values[str(action)] = game.evaluate()[0]
        game.retract()
    assert [a for a, v in values.items() if v == max(values.values())] == ["YYY-YY"] and len(legal) == 81
    assert [str(a) for a in legal].index("YYY-YY") == 30
    capped = 0
    for seed in range(4):
        # No iteration (the budget's end, on a slow machine): the look's best, not a random move.
        looked = ai.search(game, ai.Level("look only", 0, 60.0, 8), random.Random(seed))
        assert str(looked.action) == "YYY-YY" and looked.iterations == 0 and looked.looked == len(legal)
        # Time for three iterations among 81 moves (a clock that moves a quarter of the budget with each):
        # the root tries the look's three best.
        with monkeypatch.context() as patch:
            now = [0.0]
            iterate = ai._iterate
            patch.setattr(
                ai,
                "_iterate",
                lambda *args, iterate=iterate, now=now: (iterate(*args), now.__setitem__(0, now[0] + 0.25)),
            )
            short = ai.search(
                game, ai.Level("short", 10**6, 1.0, 8), random.Random(seed), clock=lambda now=now: now[0]
            )
        assert short.iterations == 3 and "YYY-YY" in short.visits
        assert sorted(values[a] for a in short.visits) == sorted(values.values())[-3:]
        # A level capped at three iterations (a beginner's few) tries three moves at random, as before: the
        # capture among them about one time in 27.
        capped += "YYY-YY" in ai.search(game, ai.Level("capped", 3, 60.0, 8), random.Random(seed)).visits
    assert capped <= 1


def mid_game(game_id: str, seed: int, wide: int):
    """A position of a random game of ``game_id`` with at least ``wide`` actions to choose from."""
    rng = random.Random(seed)
    game = find(game_id)()
    while game.is_chance or len(game.legal_actions()) < wide:
        game.push_legal(game.random_action(rng))
        assert not game.over
    return game


@pytest.mark.parametrize("game_id", sorted(cls.id for cls in catalogue() if cls.wide_root))
def test_a_wide_root_widens_in_the_first_looks_order(game_id):
    """A game whose root holds more moves than hard's iterations reach (Blobs: about 190 to 90) widens its
    root by visits in the first look's order (as Hyper-Chess's nodes do in its own), so that its
    iterations go to the moves that look best one ply deep rather than one playout to each of a hundred."""
    game = mid_game(game_id, 4, 40)
    legal, mover = game.legal_actions(), game.to_move
    assert game.action_order(legal) is None  # a game that ranks its own moves widens in its own order
    values = {}
    for action in legal:
        game.push_legal(action)
        values[action] = game.evaluate()[mover]
        game.retract()
    result = ai.search(game, replace(STEADY, iterations=len(legal)), random.Random(4))
    root = result.root
    assert root.widen and len(root.children) <= ai._width(root.visits) + 1 < len(legal) / 3
    assert min(values[a] for a in root.children) >= max(values[a] for a in root.untried)
    # A level capped below the root's width (a beginner's few iterations) tries its moves at random.
    capped = ai.search(game, replace(STEADY, iterations=len(legal) - 1), random.Random(4)).root
    assert not capped.widen and len(capped.children) == len(legal) - 1


def test_other_games_try_every_root_move_before_any_twice():
    game = mid_game("square-deal", 4, 100)
    result = ai.search(game, replace(STEADY, iterations=len(game.legal_actions())), random.Random(4))
    assert not result.root.widen and set(result.root.children) == set(game.legal_actions())


def counting_builds(monkeypatch) -> list:
    """The nodes whose GRYB lists are built from now on, in order."""
    built, build = [], gryb.GrybIndex._build
    monkeypatch.setattr(
        gryb.GrybIndex, "_build", lambda self, node: (built.append(node), build(self, node))[1]
    )
    return built


def test_warming_a_game_builds_what_its_first_search_would():
    """warm() (for a thread of its own when a game starts) leaves the first search nothing to build: on
    the standard board the whole GRYB index of a game that finds GRYBs, and the tables a search fills on
    first use (Hyper-Chess's distances, read by its evaluation). The game itself is left as it was."""
    from companion.games import hyper_chess

    game = square_deal_capture()
    game.grybs_index = gryb.GrybIndex(game.space)
    key, history = game.state_key(), list(game.history)
    ai.warm(game)
    assert game.state_key() == key and game.history == history
    assert all(game.grybs_index._through[n] is not None for n in game.space.nodes)
    hyper_chess.tables.cache_clear()  # a board whose tables nothing has used yet
    chess = find("hyper-chess")()
    assert "distance" not in vars(chess.t)
    ai.warm(chess)
    assert "distance" in vars(chess.t)


def test_warming_leaves_the_garbage_collector_alone(monkeypatch):
    """warm() runs on a thread of its own, maybe beside a search that put the collector off for its budget:
    turning it off and on again itself would switch it back on in the middle of that search."""
    import gc

    switched = []
    monkeypatch.setattr(gc, "disable", lambda: switched.append("off"))
    monkeypatch.setattr(gc, "enable", lambda: switched.append("on"))
    ai.warm(opened_drangles())
    assert switched == []
    ai.search(opened_drangles(), ai.Level("few", 5, 60.0, 4), random.Random(1))
    assert switched == ["off", "on"]  # as a search does


def test_warming_builds_no_board_too_big_to_build_ahead(monkeypatch):
    """A Super Giant board's whole GRYB index would take a minute and over a gigabyte: warm() leaves it
    to be built as play reaches its nodes (the first look keeps the budget meanwhile). At the start
    of Square Deal, placing stones by the die, there is no choice to search yet either."""
    built = counting_builds(monkeypatch)
    game = find("square-deal")(2, depth=6)
    game.grybs_index = gryb.GrybIndex(game.space)
    ai.warm(game)
    assert 0 < len(built) <= ai.WARM_WALK // 2  # the nodes of the stones the walk placed, on a copy
    assert game.occupied == 0


def run(*args, stdin=""):
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_cli_computer_seat_answers_each_human_move():
    done = run("play", "drangles", "--ai", "2=easy", "--seed", "3", stdin="0\n0-G\n")
    states = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0
    assert len(states) == 4 and states[-1]["to_move"] == 0  # two human moves, two computer moves


def test_cli_computer_plays_a_whole_game_against_random():
    done = run("play", "ez-gryb", "--ai", "1=easy", "--seed", "8", "--random", "5000")
    assert done.returncode == 0 and json.loads(done.stdout.splitlines()[-1])["over"]


@pytest.mark.parametrize("cls", sorted(catalogue(), key=lambda c: c.id), ids=lambda c: c.id)
def test_cli_every_game_against_the_computer_to_its_end(cls):
    """Every game of the catalogue, seat 2 the computer, the rest random, from the first move to the end
    (the shortest turn limit keeps it quick)."""
    done = run(
        "play",
        cls.id,
        "--players",
        str(cls.min_players),
        "--ai",
        "2=easy",
        "--seed",
        "5",
        "--random",
        "100000",
        "--option",
        "turn_limit=10",
    )
    assert done.returncode == 0, done.stderr
    states = [json.loads(line) for line in done.stdout.splitlines()]
    assert states[-1]["over"]
    movers = [
        before["to_move"]
        for before, after in zip(states, states[1:])
        if not after["action"].startswith("roll") and after["action"] != "pass"
    ]
    assert 1 in movers and 0 in movers  # the computer and the random player both acted


@pytest.mark.parametrize(
    "bad, message",
    [("3=easy", "SEAT from 1 to 2"), ("1=godlike", "no level 'godlike'"), ("easy", "SEAT=LEVEL")],
)
def test_cli_bad_ai_option(bad, message):
    done = run("play", "drangles", "--ai", bad)
    assert done.returncode == 2 and message in done.stderr


def test_cli_time_scale_stretches_the_computers_budget_and_is_checked():
    from companion.cli import command as cli

    seats = cli._ai_seats(["2=hard", "1=easy"], find("drangles")(), 8.0)
    assert seats[1] == ai.level("hard", 8.0) and seats[1].seconds == pytest.approx(2.0)
    assert seats[0].seconds == pytest.approx(0.4) and seats[0].iterations == ai.LEVELS["easy"].iterations
    done = run("play", "drangles", "--ai", "2=easy", "--time-scale", "50")
    assert done.returncode == 2 and "--time-scale is from 0.1 to 20, not 50" in done.stderr
    done = run("play", "drangles", "--ai", "2=easy", "--time-scale", "0.5", "--seed", "3", stdin="0\n0-G\n")
    assert (
        done.returncode == 0 and len(done.stdout.splitlines()) == 4
    )  # the human's two moves, the computer's


def test_cli_time_scale_stretches_the_hint_at_the_terminal_too(searched, monkeypatch, capsys):
    """As the settings page's time_scale does on the board: a hint is the hard search, on this machine's
    clock. The console's hint used to search a quarter second whatever --time-scale said."""
    import io

    from companion.cli import command as cli

    monkeypatch.setattr("sys.stdin", io.StringIO("0\nhint\nquit\n"))
    assert cli.main(["play", "drangles", "--interactive", "--time-scale", "0.2"]) == 0
    assert "hint: " in capsys.readouterr().out
    assert searched == [ai.level(ai.HINT_LEVEL, 0.2, find("drangles"))]
