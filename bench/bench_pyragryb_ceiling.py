"""PyraGRYB with 3 players: how many games against two random players can a player win? Prints a table.

    python bench/bench_pyragryb_ceiling.py [--games N] [--seed S] [--jobs J] [PLAYER ...]

Yardsticks, not the computer levels: players told that both opponents play uniformly at random
(``random``; ``greedy``, the best race evaluation; ``round``, exact expectimax over one round). Figures:
docs/performance.md, "Computer players" ("How far can a player get?").
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# ruff: noqa: E402

from bench_ai import TARGET_RANDOM, wilson

from companion.games.pyragryb import PyraGryb

PLAYERS = ("random", "greedy", "round")


def _value(game: PyraGryb, seat: int, opponents_left: int) -> float:
    """Chance of ``seat`` winning, the opponents' rolls and choices averaged until ``seat`` is to move."""
    if game.over:
        return 1.0 if game.winners == (seat,) else 0.0
    if opponents_left == 0:
        return game.evaluate()[seat]
    if game.is_chance:  # a roll is weighed by its chance and is no opponent's move
        weighed, left = game.chance_outcomes(), opponents_left
    else:  # an opponent's moves, equally likely
        actions = game.legal_actions()
        weighed, left = [(action, 1.0 / len(actions)) for action in actions], opponents_left - 1
    total = 0.0
    for action, chance in weighed:
        game.push_legal(action)
        total += chance * _value(game, seat, left)
        game.retract()
    return total


def choose(game: PyraGryb, player: str, rng: random.Random):
    """The action ``player`` takes in ``game`` (a player's turn, not a roll)."""
    actions = game.legal_actions()
    if player == "random" or len(actions) == 1:
        return rng.choice(actions)
    seat = game.to_move
    best, best_value = None, -1.0
    for action in actions:
        game.push_legal(action)
        value = _value(game, seat, 0 if player == "greedy" else game.players - 1)
        game.retract()
        if value > best_value:
            best, best_value = action, value
    return best


def play(job: tuple[str, int, int]) -> tuple[str, bool, int, float]:
    """One game: (player, won, searched moves, seconds they took)."""
    player, number, seed = job
    rng = random.Random(f"{seed}:{player}:{number}")
    game = PyraGryb(3)
    seat = number % 3
    moves, seconds = 0, 0.0
    while not game.over:
        if game.is_chance:
            game.push_legal(game.random_action(rng))
        elif game.to_move == seat:
            began = time.perf_counter()
            game.push_legal(choose(game, player, rng))
            seconds += time.perf_counter() - began
            moves += 1
        else:
            game.push_legal(rng.choice(game.legal_actions()))
    return player, game.winners == (seat,), moves, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per player (default 400)")
    parser.add_argument("--seed", type=int, default=2026, help="random seed (default 2026)")
    parser.add_argument("--jobs", type=int, default=1, help="processes, one per core (default 1)")
    parser.add_argument("players", nargs="*", help=f"any of {', '.join(PLAYERS)} (default: all three)")
    args = parser.parse_args()
    if unknown := sorted(set(args.players) - set(PLAYERS)):
        parser.error(f"unknown player {', '.join(unknown)}: choose from {', '.join(PLAYERS)}")
    print(
        f"{'player':<8} {'games':>6} {'wins':>6} {'95 % CI':>11} {'ms/move':>7}  "
        f"target >= {TARGET_RANDOM:.0%}"
    )
    print(f"{'-' * 8} {'-' * 6} {'-' * 6} {'-' * 11} {'-' * 7}  {'-' * 12}", flush=True)
    with multiprocessing.Pool(args.jobs) as pool:
        for player in args.players or PLAYERS:
            jobs = [(player, number, args.seed) for number in range(args.games)]
            results = pool.map(play, jobs, chunksize=max(1, args.games // (4 * args.jobs)))
            won = sum(r[1] for r in results) / args.games
            moves = sum(r[2] for r in results)
            seconds = sum(r[3] for r in results)
            low, high = wilson(won, args.games)
            met = "yes" if won >= TARGET_RANDOM else "NO"
            print(
                f"{player:<8} {args.games:>6} {won:>6.1%} {f'{low:.1%}–{high:.1%}':>11} "
                f"{1000 * seconds / max(moves, 1):>7.1f}  {met}",
                flush=True,
            )
    print(
        f"\nPython {sys.version.split()[0]}, {args.jobs} process(es); wins = share of games won by the "
        "player in one seat against two random players, with its 95 % Wilson interval; ms/move = its "
        "thinking time per move it chose."
    )


if __name__ == "__main__":
    t = time.time()
    main()
    print(f"({time.time() - t:.0f} s)")
