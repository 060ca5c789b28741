"""EZ GRYB's bitboard playouts (companion/games/composed/ez_playout.py) play the engine's random game, move
for move."""

import random
import statistics

import pytest

from companion.games.catalogue import find
from companion.games.composed import ez_playout as playout
from companion.games.composed import schema as composition
from companion.rules.node import COLOURS

EZ = find("ez-gryb")


def after(game, action) -> tuple:
    """What a move leaves, as the playout reports it."""
    game.push_legal(action)
    seen = (
        game.stones,
        game.in_hand,
        game.over,
        game.winner if game.over else None,
        max(game.scores) if game.over else 0,
    )
    game.retract()
    return seen


def positions(depth: int, count: int, seed: int, stones: int = 30):
    """Positions of random games (the side to move yet to roll), from the start to late in a game."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        game = EZ(2, depth=depth, stones=stones)
        while not game.over:
            if not game.is_chance and rng.random() < 0.1:
                game.retract()  # back before the roll: the side to move is to roll
                found.append(game.copy())
                game.push_legal(game.random_action(rng))
            game.push_legal(game.random_action(rng))
    return found


@pytest.mark.parametrize("depth, count", [(2, 30), (3, 30), (4, 60), (5, 12)])
def test_each_roll_offers_exactly_the_engines_moves_each_equally_often(depth, count):
    board = playout.board(depth)
    rng = random.Random(depth)
    for game in positions(depth, count, seed=depth):
        for c, colour in enumerate(COLOURS):
            game.apply(f"roll:{colour}")
            expected = {after(game, a) for a in game.legal_actions()}
            turns_left = game.settings["turn_limit"] * 2 - game.turn
            tally: dict[tuple, int] = {}
            trials = 30 * len(expected)
            for _ in range(trials):
                end = board.play(rng, game.stones, game.in_hand, game.to_move, c, turns_left, plies=1)
                assert end.plies == 1
                seen = (end.stones, end.in_hand, end.over, end.winner, end.points)
                tally[seen] = tally.get(seen, 0) + 1
            game.retract()
            assert set(tally) == expected, f"{game.state_key()} roll {colour}"
            # Uniform: each of n moves comes up trials/n = 30 times on average; 8 or fewer is a 1e-6 event.
            assert min(tally.values()) > 8


def test_a_pass_that_leaves_nothing_to_move_ends_the_game_as_a_draw_and_so_does_the_turn_limit():
    board = playout.board(4)
    rng = random.Random(3)
    passes = deadlocks = 0
    for game in positions(4, 150, seed=11, stones=5):  # five stones each: they run out, and sink
        for c, colour in enumerate(COLOURS):
            game.apply(f"roll:{colour}")
            if game.legal_actions() == [game.parse("pass")]:
                expected = after(game, game.parse("pass"))
                end = board.play(rng, game.stones, game.in_hand, game.to_move, c, 600 - game.turn, plies=1)
                assert (end.stones, end.in_hand, end.over, end.winner, end.points) == expected
                passes += 1
                deadlocks += end.over
            game.retract()
    assert passes > 20
    # Everything sunk, nothing in hand, no opponent beside a stone: the pass ends it, a draw. With one
    # stone left above the bottom it does not (another roll moves it), nor with one beside an opponent,
    # nor with one in the opponent's hand.
    for mine, theirs, hand, over in [
        (["GGGG", "RRRR", "GYBB"], ["YYYY", "BBBB", "GYBR"], 0, True),
        (["GGGG", "RRRR", "GYB"], ["YYYY", "BBBB", "GYBR"], 0, False),
        (["GGGG", "RRRR", "GYBB"], ["YYYY", "BBBB", "GYBY"], 0, False),
        (["GGGG", "RRRR", "GYBB"], ["YYYY", "BBBB", "GYBR"], 1, False),
    ]:
        game, checked = EZ(2, stones=4), 0
        for player, nodes in enumerate((mine, theirs)):
            game.set_stones(player, sum(1 << game.space.parse(n) for n in nodes))
        game.in_hand = (0, hand)  # the side to move has none: only its opponent can enter
        for c, colour in enumerate(COLOURS):
            game.apply(f"roll:{colour}")
            if game.legal_actions() == [game.parse("pass")]:
                expected = after(game, game.parse("pass"))
                end = board.play(rng, game.stones, game.in_hand, game.to_move, c, 600, plies=1)
                assert (end.stones, end.in_hand, end.over, end.winner, end.points) == expected
                assert end.over == over
                checked += 1
            game.retract()
        assert checked, mine
    # The turn limit: the last turn's move, whatever it is, ends the game drawn (unless it wins).
    game = positions(4, 1, seed=5)[0]
    end = board.play(rng, game.stones, game.in_hand, game.to_move, None, 1)
    assert end.over and end.plies == 2 and (end.winner is None or end.points)
    # So does a short playout (the computer player's 8 plies) that reaches the limit: it plays no further.
    end = board.play(rng, game.stones, game.in_hand, game.to_move, None, 1, plies=8)
    assert end.over and end.plies == 2 and (end.winner is None or end.points)


def test_whole_random_games_end_like_the_engines():
    rng = random.Random(2026)
    engine_won, engine_plies = [], []
    for _ in range(150):
        game = EZ(2)
        while not game.over:
            game.push_legal(game.random_action(rng))
        engine_won.append(bool(game.winners))
        engine_plies.append(len(game.history))
    board = playout.board(4)
    fast_won, fast_plies = [], []
    for _ in range(1500):
        end = board.play(rng, (0, 0), (30, 30), 0, None, 600)
        assert end.over
        fast_won.append(end.winner is not None)
        fast_plies.append(end.plies)
    # 34 % won, 600 plies on average (docs/performance.md); the engine's 150 games bound its figures to
    # about +-8 points and +-5 %.
    assert abs(statistics.mean(fast_won) - statistics.mean(engine_won)) < 0.12
    assert abs(statistics.mean(fast_plies) / statistics.mean(engine_plies) - 1) < 0.08


def test_the_game_plays_its_playouts_there_and_is_left_as_it_was():
    game = positions(4, 1, seed=8)[0]
    key, history = game.state_key(), list(game.history)
    values = game.playout(random.Random(1), 8)
    assert game.state_key() == key and game.history == history
    assert len(values) == 2 and all(0 <= v <= 1 for v in values)
    assert game.playout(random.Random(1), 8) == values  # the same random game for the same seed
    # To the end: a win is [1, 0] or [0, 1], a draw [0.5, 0.5].
    ends = {tuple(game.playout(random.Random(seed))) for seed in range(30)}
    assert ends <= {(1.0, 0.0), (0.0, 1.0), (0.5, 0.5)} and len(ends) >= 2


def test_only_ez_grybs_rules_play_on_bitboards():
    # Every parameter of the composer is either one the bitboards play as EZ GRYB has it, or one they
    # take as it comes: a parameter added later must be put on one side or the other.
    taken_as_they_come = {
        "id",
        "name",
        "source",
        "summary",
        "players",
        "depth",
        "stones",
        "turn_limit",
        "series",
    }
    assert {p.key for p in composition.SCHEMA} == set(playout.RULES) | taken_as_they_come
    assert all(getattr(EZ.base_rules, key) == value for key, value in playout.RULES.items())
    assert playout.plays(EZ(2, depth=6, stones=200).rules, 2)
    for other in ("drangles", "interrupt", "smack-down", "rising-tide", "sumo-drangles"):
        cls = find(other)
        assert not playout.plays(cls(cls.min_players).rules, cls.min_players), other
    # A game that does not: the engine's own loop, with the same contract.
    drangles = find("drangles")(2)
    rng = random.Random(4)
    for _ in range(30):
        drangles.push_legal(drangles.random_action(rng))
    key = drangles.state_key()
    values = drangles.playout(rng, 8)
    assert drangles.state_key() == key and len(values) == 2
