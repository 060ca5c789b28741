"""Random playouts per second and plies per second for every game, on one core. Prints a table.

    python bench/bench_games.py [--seconds S] [--lengths] [GAME ...]

A ply is one action (rolls included): choose a uniformly random legal action (``random_action``) and
apply it (``push_legal``), as a Monte Carlo playout does. A playout is a whole random game from the start
with the default options, to its end: a win, or a draw by the turn limit (300 turns each) or by the game's
own draw rule (no one can ever move again, a stall, quiet turns). Rows: every game of the catalogue, with
its fewest players, and with 3 where it takes 3 (Doubles: 4 only).

Columns: plies/s and playouts/s, through the engine; plies/game, the mean length; how the games ended,
as shares: "won" (a winner, however reached), "draw:limit" (no winner at the turn limit), "draw:rule" (no
winner by the game's own draw rule); "ai po/s", the playouts of the computer player (companion/ai.py:
``Game.playout`` with the general hard level's playout plies, 8, then ``evaluate()``, then back: the
same for every game, so that the column compares games and machines, though a game's own levels may
play out fewer, as Hyper-Chess's hard does, 2), started from positions spread over random games;
"playout()/s", whole random games from the start through ``Game.playout``, the same loop as the
engine's columns except where a game plays its random games its own faster way (EZ GRYB:
companion/games/composed/ez_playout.py). Targets (issue 4): >= 100k plies/s for 25 Men's GRYB, >= 2k whole random games a
second for EZ GRYB ("playout()/s", the playouts its computer player uses).
Figures go in docs/performance.md.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.ai import LEVELS  # noqa: E402
from companion.games.engine import catalogue  # noqa: E402

TARGETS = {"25-mens-gryb": ("plies/s", 100_000), "ez-gryb": ("playout()/s", 2_000)}
AI_PLAYOUT = LEVELS[
    "hard"
].playout  # the general level's, for every game (a game's computer_levels may change it)
AI_START_EVERY = 7  # an AI playout from every 7th position of a random game


def ended_at_limit(cls, game) -> bool:
    """Whether the turn limit ended the game: the same actions with a limit one turn longer do not end it.
    (Each game counts its limit its own way, so the game itself is asked.)"""
    if "turn_limit" not in game.settings:
        return False
    twin = cls(game.players, **{**game.settings, "turn_limit": game.settings["turn_limit"] + 1})
    for action, _ in game.history:
        twin.push_legal(action)
    return not twin.over


def measure(cls, players: int, seconds: float) -> dict:
    rng = random.Random(1)
    games = plies = won = limit = 0
    lengths = {"won": [], "draw:limit": [], "draw:rule": []}
    elapsed = 0.0
    while elapsed < seconds:
        start = time.perf_counter()
        game = cls(players)
        while not game.over:
            game.push_legal(game.random_action(rng))
        elapsed += time.perf_counter() - start
        games += 1
        plies += len(game.history)
        if game.winners:
            won += 1
            end = "won"
        elif ended_at_limit(cls, game):  # not timed
            limit += 1
            end = "draw:limit"
        else:
            end = "draw:rule"
        lengths[end].append(len(game.history))
    return {
        "plies/s": plies / elapsed,
        "playouts/s": games / elapsed,
        "plies/game": plies / games,
        "won": won / games,
        "draw:limit": limit / games,
        "draw:rule": (games - won - limit) / games,
        "ai po/s": ai_playouts(cls, players, seconds / 2),
        "playout()/s": whole_playouts(cls, players, seconds / 2),
        "lengths": lengths,
        "games": games,
    }


def ai_playouts(cls, players: int, seconds: float) -> float:
    """The computer player's playouts per second: ``Game.playout(rng, AI_PLAYOUT)`` as the search calls it
    (AI_PLAYOUT random plies, evaluate(), back), from positions spread over random games."""
    rng = random.Random(2)
    count = 0
    elapsed = 0.0
    while elapsed < seconds:
        game = cls(players)
        while not game.over and elapsed < seconds:
            for _ in range(AI_START_EVERY):
                if game.over:
                    break
                game.push_legal(game.random_action(rng))
            start = time.perf_counter()
            game.playout(rng, AI_PLAYOUT)
            elapsed += time.perf_counter() - start
            count += 1
    return count / elapsed


def whole_playouts(cls, players: int, seconds: float, batch_seconds: float = 0.1) -> float:
    """Whole random games a second through ``Game.playout(rng)`` (to the end, evaluate, back): the engine's
    loop, or a game's own faster way of playing the same random game (EZ GRYB's bitboards). Timed as
    ``timeit`` times: the same batch of games (one seed, as many as the first ``batch_seconds`` held) again
    and again, and the fastest batch counts, since whatever else the machine runs only slows a batch."""
    batch, best, elapsed = 0, math.inf, 0.0
    while elapsed < seconds:
        rng = random.Random(3)
        start = time.perf_counter()
        played = 0
        while played < batch or not batch and time.perf_counter() - start < batch_seconds:
            cls(players).playout(rng)
            played += 1
        took = time.perf_counter() - start
        batch = played
        best = min(best, took)
        elapsed += took
    return batch / best


def verdict(game_id: str, row: dict) -> str:
    if game_id not in TARGETS:
        return ""
    column, target = TARGETS[game_id]
    met = "met" if row[column] >= target else "MISSED"
    return f">= {target:,} {column}: {met}"


def percentiles(values: list[int]) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    return " / ".join(str(ordered[min(len(ordered) - 1, len(ordered) * q // 10)]) for q in (1, 5, 9))


def print_lengths(rows) -> None:
    print("\nplies per game, 10th / 50th / 90th percentile, of all games and by how they ended:")
    print(f"{'game':<24} {'games':>6} {'all':>18} {'won':>18} {'draw:limit':>18} {'draw:rule':>18}")
    print(f"{'-' * 24} {'-' * 6} {'-' * 18} {'-' * 18} {'-' * 18} {'-' * 18}")
    for name, r, _ in rows:
        every = [n for values in r["lengths"].values() for n in values]
        print(
            f"{name:<24} {r['games']:>6} {percentiles(every):>18} "
            + " ".join(f"{percentiles(r['lengths'][end]):>18}" for end in ("won", "draw:limit", "draw:rule"))
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seconds",
        type=float,
        default=3.0,
        help="time per row (default 3 s; half as much again for the AI playouts)",
    )
    parser.add_argument(
        "--lengths",
        action="store_true",
        help="also print how long the games were: the "
        "10th, 50th and 90th percentile of plies, of all games and by how they ended",
    )
    parser.add_argument("games", nargs="*", help="game ids (default: every game)")
    args = parser.parse_args()
    rows = []
    for cls in sorted(catalogue(), key=lambda c: c.id):
        if args.games and cls.id not in args.games:
            continue
        for players in sorted({cls.min_players, min(cls.max_players, max(cls.min_players, 3))}):
            row = measure(cls, players, args.seconds)
            rows.append((f"{cls.id} ({players}p)", row, verdict(cls.id, row)))
    print(
        f"{'game':<24} {'plies/s':>9} {'playouts/s':>10} {'plies/game':>10} {'won':>5} {'draw:limit':>10} "
        f"{'draw:rule':>9} {'ai po/s':>8} {'playout()/s':>11}  target"
    )
    print(
        f"{'-' * 24} {'-' * 9} {'-' * 10} {'-' * 10} {'-' * 5} {'-' * 10} {'-' * 9} {'-' * 8} {'-' * 11}  ------"
    )
    for name, r, target in rows:
        print(
            f"{name:<24} {r['plies/s']:>9,.0f} {r['playouts/s']:>10,.1f} {r['plies/game']:>10,.0f} "
            f"{r['won']:>5.0%} {r['draw:limit']:>10.0%} {r['draw:rule']:>9.0%} {r['ai po/s']:>8,.0f} "
            f"{r['playout()/s']:>11,.1f}  {target}".rstrip()
        )
    if args.lengths:
        print_lengths(rows)
    print(
        f"\nPython {sys.version.split()[0]}, one core, {args.seconds:g} s of whole games per row and "
        f"{args.seconds / 2:g} s each of AI playouts ({AI_PLAYOUT} plies + evaluate) and of whole games "
        f"through Game.playout per row."
    )


if __name__ == "__main__":
    main()
