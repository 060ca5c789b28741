"""Computer player strength and speed. Prints a table.

    python bench/bench_ai.py [--games N] [--seed S] [--jobs J] [--pairing "hard v medium" ...] [GAME ...]

Each level against a random player (target: wins >= 95 %) and against the level below (>= 60 %), seats
alternating; then the hard level's time per move (target <= 0.25 s on one core) and iterations a second.
What the columns mean, and the figures: docs/performance.md, "Computer players".
"""

from __future__ import annotations

import argparse
import contextlib
import math
import multiprocessing
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# ruff: noqa: E402

from companion import ai
from companion.games.catalogue import find

DEFAULT_GAMES = {
    "ez-gryb": 2,
    "drangles": 2,
    "25-mens-gryb": 2,
    "pyragryb": 3,
    "connection": 2,
    "hyper-chess": 2,
}
TARGET_RANDOM, TARGET_BELOW, TARGET_SECONDS = 0.95, 0.60, 0.25


class Stats:
    """A level's moves with a choice (a win in one and a search of no iteration included)."""

    def __init__(self):
        self.moves = 0
        self.seconds = 0.0
        self.slowest = 0.0
        self.slowest_cpu = 0.0
        self.iterations = 0
        self.empty = 0  # searches that ran no iteration

    def add(self, result: ai.Result, cpu: float) -> None:
        if result.how == "forced":
            return
        self.moves += 1
        self.seconds += result.seconds
        self.slowest = max(self.slowest, result.seconds)
        self.slowest_cpu = max(self.slowest_cpu, cpu)
        self.iterations += result.iterations
        self.empty += result.how == "search" and result.iterations == 0


def play(game_id: str, players: int, seats: list[str | None], rng: random.Random, stats: dict[str, Stats]):
    game = find(game_id)(players)
    while not game.over:
        who = seats[game.to_move]
        if game.is_chance or who is None:
            game.push_legal(game.random_action(rng))
            continue
        cpu = time.thread_time()
        result = ai.search(game, who, rng)
        stats.setdefault(who, Stats()).add(result, time.thread_time() - cpu)
        game.push_legal(result.action)
    return game


def match(game_id, players, level, opponent, games, rng, stats):
    """Points, wins, draws and losses of ``level`` against ``opponent`` (None = random) over ``games``."""
    points, record = 0.0, [0, 0, 0]
    for g in range(games):
        seats = [opponent] * players
        seat = g % players
        seats[seat] = level
        game = play(game_id, players, seats, rng, stats)
        if seat in game.winners:
            points += 1.0 / len(game.winners)
            record[0 if len(game.winners) == 1 else 1] += 1
        elif not game.winners:
            points += 1.0 / players
            record[1] += 1
        else:
            record[2] += 1
    return points / games, record


def wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval (95 %) for a share ``p`` of ``n`` games."""
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def row(game_id: str, pairing: str, p: float, record: list[int], n: int, target: float) -> str:
    low, high = wilson(p, n)
    wins = record[0] / n
    wdl = "-".join(str(x) for x in record)
    met = "yes" if wins >= target else "score" if p >= target else "NO"
    return (
        f"{game_id:<14} {pairing:<16} {wins:>5.1%} {p:>6.1%} {f'{low:.0%}–{high:.0%}':>9} {wdl:>8} {n:>5}  "
        f">= {target:.0%} {met}"
    )


def pairings() -> list[tuple[str, str | None]]:
    """(level, opponent) for every pairing: each level against random (None), then against the one below."""
    pairs, previous = [], None
    for level in ai.LEVELS:
        pairs.append((level, None))
        if previous:
            pairs.append((level, previous))
        previous = level
    return pairs


def pairing_name(level: str, opponent: str | None) -> str:
    return f"{level} v {opponent or 'random'}"


def bench_game(
    game_id: str, games: int, seed: int, only: tuple[str, ...] = ()
) -> tuple[list[str], tuple | None]:
    """One game's rows, and the hard level's speed as the second table prints it (None: no hard move)."""
    try:
        find(game_id)
    except LookupError:
        return [f"{game_id:<14} (not in the catalogue)"], None
    began = time.time()
    players = DEFAULT_GAMES.get(game_id, 2)
    stats: dict[str, Stats] = {}
    lines = []
    for level, opponent in pairings():
        name = pairing_name(level, opponent)
        if only and name not in only:
            continue
        rng = random.Random(f"{seed}:{game_id}:{name}")
        p, record = match(game_id, players, level, opponent, games, rng, stats)
        lines.append(row(game_id, name, p, record, games, TARGET_BELOW if opponent else TARGET_RANDOM))
    lines.append(f"{'':<14} ({players} players; {time.time() - began:.0f} s)")
    hard = stats.get("hard")
    if not (hard and hard.moves):
        return lines, None
    return lines, (
        game_id,
        hard.moves,
        hard.seconds / hard.moves,
        hard.slowest,
        hard.slowest_cpu,
        hard.empty,
        hard.iterations / max(hard.seconds, 1e-9),
    )


def _bench_game(args: tuple[str, int, int, tuple[str, ...]]):
    return bench_game(*args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games per pairing (default 40)")
    parser.add_argument("--seed", type=int, default=2026, help="random seed (default 2026)")
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="games benchmarked side by side, one process each (default 1); each still "
        "searches on one core, so use at most one job per core",
    )
    names = [pairing_name(*pair) for pair in pairings()]
    parser.add_argument(
        "--pairing",
        action="append",
        default=[],
        choices=names,
        metavar="PAIRING",
        help=f'only this pairing, e.g. "hard v medium" (repeatable; default all: {", ".join(names)})',
    )
    parser.add_argument("ids", nargs="*", help="game ids (default: the six of the issue)")
    args = parser.parse_args()
    ids = args.ids or list(DEFAULT_GAMES)
    print(
        f"{'game':<14} {'pairing':<16} {'wins':>5} {'score':>6} {'95 % CI':>9} {'W-D-L':>8} "
        f"{'games':>5}  target"
    )
    print(f"{'-' * 14} {'-' * 16} {'-' * 5} {'-' * 6} {'-' * 9} {'-' * 8} {'-' * 5}  {'-' * 10}", flush=True)
    work = [(game_id, args.games, args.seed, tuple(args.pairing)) for game_id in ids]
    speed = {}
    with multiprocessing.Pool(args.jobs) if args.jobs > 1 else contextlib.nullcontext() as pool:
        done = pool.imap_unordered(_bench_game, work) if pool else map(_bench_game, work)
        for lines, fast in done:  # each game's block as it finishes
            print("\n".join(lines), flush=True)
            if fast:
                speed[fast[0]] = fast
    print(
        f"\n{'game':<14} {'hard moves':>10} {'mean s/move':>11} {'max s/move':>10} {'max CPU s':>9} "
        f"{'no iteration':>12} {'iterations/s':>12}"
    )
    for game_id in ids:
        if game_id not in speed:
            continue
        _, moves, mean, slowest, slowest_cpu, empty, rate = speed[game_id]
        flag = "" if slowest <= TARGET_SECONDS else f"  (wall max over {TARGET_SECONDS} s)"
        print(
            f"{game_id:<14} {moves:>10} {mean:>11.3f} {slowest:>10.3f} {slowest_cpu:>9.3f} {empty:>12} "
            f"{rate:>12,.0f}{flag}"
        )
    print(
        f"\nPython {sys.version.split()[0]}, one core per game, {args.jobs} at a time; wins = share of games "
        "won outright; score = share of points (a draw = 1/players), with its 95 % Wilson interval; W-D-L = "
        "wins, draws (shared wins included), losses; with 3 players the level takes one seat against two of "
        "the other side (an even match scores 33 %); hard moves = moves with a choice (forced moves left "
        "out, wins in one counted); no iteration = those whose search ran out of time before its tree."
    )


if __name__ == "__main__":
    t = time.time()
    main()
    print(f"({time.time() - t:.0f} s)")
