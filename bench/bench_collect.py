"""Garbage collection while the computer plays: how often the collector stops the process, and for how long.

    python bench/bench_collect.py [--moves N] [--seed S] [GAME ...]

Each game hard against hard, in a process set up as ``gryb-companion run`` sets itself up, with its
tables as built and then settled; every collection timed through ``gc.callbacks``. Figures:
docs/performance.md, "Garbage collection while the computer plays".
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# ruff: noqa: E402

import web  # noqa: F401  (the web page's modules, as a running companion has them)
from companion import ai
from companion import assembly as app
from companion.games.catalogue import find

GAMES = ["25-mens-gryb", "hyper-chess", "drangles", "ez-gryb", "connection"]


class Pauses:
    """Every collection's generation and milliseconds, through gc.callbacks."""

    def __init__(self):
        self.found: list[tuple[int, float]] = []
        self._began = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._began = time.perf_counter()
        else:
            self.found.append((info["generation"], (time.perf_counter() - self._began) * 1000))


def play(game_id: str, moves: int, rng: random.Random, pauses: Pauses) -> int:
    """A game of hard against hard, up to ``moves`` searches; the searches made."""
    game = find(game_id)()
    ai.warm(game)
    gc.collect()
    pauses.found.clear()
    searches = 0
    while not game.over and searches < moves:
        if game.is_chance:
            game.push_legal(game.random_action(rng))
            continue
        game.push_legal(ai.search(game, "hard", rng).action)
        searches += 1
    return searches


def full_collection_ms() -> float:
    spent = []
    for _ in range(3):
        began = time.perf_counter()
        gc.collect()
        spent.append((time.perf_counter() - began) * 1000)
    return statistics.median(spent)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=GAMES)
    parser.add_argument("--moves", type=int, default=60, help="searches a game, at most")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    app.settle()
    pauses = Pauses()
    rows = []
    for mode in ("built", "settled"):
        for game_id in args.games:
            if mode == "settled":
                find(game_id)()  # its tables, built in the first pass, are there to settle
                app.settle()
            searches = play(game_id, args.moves, random.Random(args.seed), pauses)
            by = {g: [ms for gen, ms in pauses.found if gen == g] for g in range(3)}
            cells = [f"{len(by[g])} / {max(by[g], default=0.0):.1f}" for g in range(3)]
            rows.append(
                (
                    game_id,
                    mode,
                    searches,
                    *cells,
                    f"{sum(ms for _, ms in pauses.found):.1f}",
                    f"{full_collection_ms():.1f}",
                )
            )
    head = (
        "game",
        "tables",
        "searches",
        "gen 0: n / max ms",
        "gen 1: n / max ms",
        "gen 2: n / max ms",
        "total ms",
        "full collect ms",
    )
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    for r in [head, ["-" * w for w in widths], *rows]:
        print(
            "  ".join(
                str(c).ljust(w) if i < 2 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths))
            )
        )
    print(
        f"\nhard v hard, up to {args.moves} searches a game, seed {args.seed}; Python "
        f"{sys.version.split()[0]}; frozen at the end: {gc.get_freeze_count():,} objects"
    )


if __name__ == "__main__":
    main()
