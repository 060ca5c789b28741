"""Computer player strength and speed. Prints a table.

    python bench/bench_ai.py [--games N] [GAME ...]

For each game: each level against a random player, and each level against the level below, seats
alternating; a draw counts half. Also the hard level's time per move and the search speed
(iterations per second). Targets: every level beats random in >= 95 % of games, each level beats the
one below in >= 60 %; hard <= 0.25 s per move on one core. Figures go in docs/performance.md.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion import ai  # noqa: E402
from companion.engine import find  # noqa: E402

DEFAULT_GAMES = {"ez-gryb": 2, "drangles": 2, "25-mens-gryb": 2, "pyragryb": 3, "connection": 2, "hyper-chess": 2}


class Stats:
    def __init__(self):
        self.moves = 0
        self.seconds = 0.0
        self.iterations = 0


def play(game_id: str, players: int, seats: list[str | None], rng: random.Random, stats: dict[str, Stats]):
    game = find(game_id)(players)
    while not game.over:
        who = seats[game.to_move]
        if game.is_chance or who is None:
            game.push_legal(game.random_action(rng))
            continue
        result = ai.search(game, who, rng)
        s = stats.setdefault(who, Stats())
        s.moves += 1
        s.seconds += result.seconds
        s.iterations += result.iterations
        game.push_legal(result.action)
    return game


def match(game_id, players, level, opponent, games, rng, stats):
    """Share of points the level takes against the opponent (None = random) over ``games`` games."""
    points = 0.0
    for g in range(games):
        seats = [opponent] * players
        seat = g % players
        seats[seat] = level
        game = play(game_id, players, seats, rng, stats)
        if seat in game.winners:
            points += 1.0 / len(game.winners)
        elif not game.winners:
            points += 1.0 / players
    return points / games


def interval(p: float, n: int) -> str:
    half = 1.96 * math.sqrt(max(p * (1 - p), 1e-9) / n)
    return f"{p:5.0%} ±{half:4.0%}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games per pairing (default 40)")
    parser.add_argument("ids", nargs="*", help="game ids (default: the six of the issue that exist)")
    args = parser.parse_args()
    ids = args.ids or list(DEFAULT_GAMES)
    rng = random.Random(2026)
    print(f"{'game':<16} {'pairing':<16} {'score':>12}  {'games':>5}")
    print(f"{'-' * 16} {'-' * 16} {'-' * 12}  {'-' * 5}")
    speed = []
    for game_id in ids:
        try:
            find(game_id)
        except LookupError:
            print(f"{game_id:<16} (not in the catalogue yet)")
            continue
        players = DEFAULT_GAMES.get(game_id, 2)
        stats: dict[str, Stats] = {}
        previous = None
        for level in ai.LEVELS:
            p = match(game_id, players, level, None, args.games, rng, stats)
            print(f"{game_id:<16} {level + ' v random':<16} {interval(p, args.games):>12}  {args.games:>5}")
            if previous:
                p = match(game_id, players, level, previous, args.games, rng, stats)
                print(f"{game_id:<16} {level + ' v ' + previous:<16} {interval(p, args.games):>12}  {args.games:>5}")
            previous = level
        hard = stats.get("hard")
        if hard and hard.moves:
            speed.append((game_id, hard.seconds / hard.moves, hard.iterations / max(hard.seconds, 1e-9)))
    print(f"\n{'game':<16} {'hard s/move':>12} {'iterations/s':>13}")
    for game_id, per_move, rate in speed:
        print(f"{game_id:<16} {per_move:>12.3f} {rate:>13,.0f}")
    print(f"\nPython {sys.version.split()[0]}, one core; score = share of points (draw = 1/players), "
          "±95 % interval.")


if __name__ == "__main__":
    t = time.time()
    main()
    print(f"({time.time() - t:.0f} s)")
