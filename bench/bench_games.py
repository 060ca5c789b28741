"""Random playouts per second and plies per second for every game, on one core. Prints a table.

    python bench/bench_games.py [--seconds S] [GAME ...]

A ply is one action (rolls included): choose a uniformly random legal action (``random_action``) and
apply it (``push_legal``), as a Monte Carlo playout does. Targets: >= 100k plies/s for 25 Men's GRYB,
>= 2k playouts/s for EZ GRYB. Figures go in docs/performance.md.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.engine import catalogue  # noqa: E402

TARGETS = {"25-mens-gryb": ">= 100k plies/s", "ez-gryb": ">= 2k playouts/s"}


def measure(cls, players: int, seconds: float) -> tuple[int, int, float, float]:
    rng = random.Random(1)
    games = plies = 0
    wins = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        game = cls(players)
        while not game.over:
            game.push_legal(game.random_action(rng))
            plies += 1
        games += 1
        wins += bool(game.winners)
    elapsed = time.perf_counter() - start
    return games, plies, elapsed, wins / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per game (default 3 s)")
    parser.add_argument("games", nargs="*", help="game ids (default: every game)")
    args = parser.parse_args()
    rows = []
    for cls in sorted(catalogue(), key=lambda c: c.id):
        if args.games and cls.id not in args.games:
            continue
        for players in sorted({cls.min_players, min(cls.max_players, 3)}):
            games, plies, elapsed, decided = measure(cls, players, args.seconds)
            rows.append((f"{cls.id} ({players}p)", plies / elapsed, games / elapsed, plies / games, decided,
                         TARGETS.get(cls.id, "")))
    print(f"{'game':<26} {'plies/s':>10} {'playouts/s':>11} {'plies/game':>11} {'decided':>8}  target")
    print(f"{'-' * 26} {'-' * 10} {'-' * 11} {'-' * 11} {'-' * 8}  ------")
    for name, pps, gps, length, decided, target in rows:
        print(f"{name:<26} {pps:>10,.0f} {gps:>11,.1f} {length:>11,.0f} {decided:>8.0%}  {target}")
    print(f"\nPython {sys.version.split()[0]}, one core, {args.seconds:g} s per game; 'decided' = games with a "
          "winner rather than a draw by the turn limit.")


if __name__ == "__main__":
    main()
