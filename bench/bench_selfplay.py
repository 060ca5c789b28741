"""How computer players' games end when every seat is the same level. Prints a table.

    python bench/bench_selfplay.py [--games N] [--players P] [--seed S] [--level L ...] [GAME]

Per level: games won and drawn (and why), turns each a game, and how often a level passed though
it could move. Figures: docs/performance.md, "Every move optional (issue 45)".
"""

from __future__ import annotations

import argparse
import collections
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# ruff: noqa: E402

from companion import ai
from companion.games.catalogue import find


def play(game_id: str, players: int, lvl: str, rng: random.Random, tally: collections.Counter):
    game = find(game_id)(players)
    while not game.over:
        legal = [] if game.is_chance else game.legal_actions()
        if game.is_chance or len(legal) == 1:
            game.push_legal(game.random_action(rng) if game.is_chance else legal[0])
            continue
        action = ai.search(game, lvl, rng).action
        tally["choices"] += 1
        tally["passes"] += action.kind == "pass"
        if any(a.kind == "roll" for a in legal):  # a choice before the roll (PyraGRYB's reincarnation)
            tally["before_roll"] += 1
            tally["taken_back"] += action.kind == "remove"
        game.push_legal(action)
    return game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--level", action="append", default=[], choices=list(ai.LEVELS))
    parser.add_argument("game", nargs="?", default="pyragryb")
    args = parser.parse_args()
    print(
        f"{'level':<7} {'games':>5} {'won':>4} {'drawn':>6} {'turns each: median / max':>25} "
        f"{'passes by choice':>17} {'taken back':>11} {'s':>5}"
    )
    for lvl in args.level or list(ai.LEVELS):
        rng, tally, began = random.Random(f"{args.seed}:{lvl}"), collections.Counter(), time.time()
        turns, won, draws = [], 0, collections.Counter()
        for _ in range(args.games):
            game = play(args.game, args.players, lvl, rng, tally)
            turns.append(game.turn // args.players)
            won += bool(game.winners)
            if not game.winners:
                draws[game.draw] += 1
        passes = f"{tally['passes']}/{tally['choices']}"
        back = f"{tally['taken_back']}/{tally['before_roll']}"
        print(
            f"{lvl:<7} {args.games:>5} {won:>4} {sum(draws.values()):>6} "
            f"{f'{statistics.median(turns):.0f} / {max(turns)}':>25} {passes:>17} {back:>11} "
            f"{time.time() - began:>5.0f}" + (f"  drawn: {dict(draws)}" if draws else ""),
            flush=True,
        )


if __name__ == "__main__":
    main()
