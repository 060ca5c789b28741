"""Hyper-Chess endings: how often each level mates a King left with his Pawns. Prints a table.

    python bench/bench_hunt.py [--positions N] [--seed S] [PIECES ...]

The level, with King, Pawns and PIECES (letters Q R B N), against a random King and Pawns, from endings
cut out of random games; a mate within the fifty-turn rule's 50 turns counts. Figures:
docs/performance.md, "Computer players" (Hyper-Chess).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# ruff: noqa: E402

from companion import ai
from companion.games.hyper_chess import KIND_NAMES, HyperChess
from companion.rules.space import bits

LETTERS = "KQRBNP"


def ending(rng: random.Random, attacker: int, pieces: str) -> HyperChess | None:
    """A position after 30 random plies, stripped to the ending; None if it is already over."""
    game = HyperChess(2)
    for _ in range(30):
        if game.over:
            return None
        game.push_legal(rng.choice(game.legal_actions()))
    placement = {}
    for player in (0, 1):
        kept = "KP" + (pieces if player == attacker else "")
        for kind, mask in enumerate(game.pieces[player]):
            letter = LETTERS[kind]
            if letter in kept:
                for node in bits(mask):
                    placement[game.space.name(node)] = letter if player == 0 else letter.lower()
    start = HyperChess(2)
    try:
        start.set_position(placement, to_move=attacker)
    except ValueError:  # the defender is mated or stalemated already
        return None
    return start


def run(level: str, pieces: str, positions: int, seed: int) -> tuple[int, int, list[int], float]:
    positions_rng = random.Random(f"{seed}-{pieces}")  # the same endings for every level and version
    rng = random.Random(f"{seed}-{pieces}-{level}")
    mated = played = 0
    turns: list[int] = []
    began = time.perf_counter()
    while played < positions:
        attacker = played % 2
        game = ending(positions_rng, attacker, pieces)
        if game is None:
            continue
        played += 1
        while not game.over:
            if game.to_move == attacker:
                game.push_legal(ai.search(game, level, rng).action)
            else:
                game.push_legal(rng.choice(game.legal_actions()))
        if game.winners == (attacker,):
            mated += 1
            turns.append((game.turn + 1) // 2)
    return mated, played, turns, time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=40, help="endings per level and pieces (default 40)")
    parser.add_argument("--seed", type=int, default=2026, help="random seed (default 2026)")
    parser.add_argument("--levels", default="easy,medium,hard", help="levels, comma-separated")
    parser.add_argument(
        "pieces",
        nargs="*",
        default=["RBN", "Q"],
        help="attacker's pieces besides King and Pawns, as letters (default: RBN and Q)",
    )
    args = parser.parse_args()
    for pieces in args.pieces:
        if not pieces or set(pieces.upper()) - set("QRBN"):
            parser.error(f"pieces are letters Q R B N, not {pieces!r}")
    print(f"{'pieces':<8} {'level':<7} {'mated':>6} {'of':>4} {'share':>6} {'median turns':>12} {'s':>6}")
    for pieces in args.pieces:
        names = "+".join(KIND_NAMES[LETTERS.index(c)] for c in pieces.upper())
        for level in args.levels.split(","):
            mated, played, turns, seconds = run(level, pieces.upper(), args.positions, args.seed)
            median = f"{statistics.median(turns):.0f}" if turns else "-"
            print(
                f"{pieces.upper():<8} {level:<7} {mated:>6} {played:>4} {mated / played:>6.0%} {median:>12} "
                f"{seconds:>6.0f}",
                flush=True,
            )
        print(f"{'':<8} ({names} against a bare King and his Pawns)")


if __name__ == "__main__":
    main()
