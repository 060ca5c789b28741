"""Do the compositions play well? Prints a table.

    python bench/bench_compositions.py [--games N] [--ai-games N] [GAME ...]

For each composed game (default: the companion's own designs): random self-play (share of games won by
somebody, the first seat's share of those wins, turns played) and a computer player against random
players (its side's share of points; in team games a team of two against a random team). A game plays
well when random games end, neither seat is favoured much, and a player who thinks beats one who does not.
Figures: docs/composer.md, "Compositions of our own".
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
from companion.games.catalogue import catalogue, find

OWN = ("rising-tide", "kings-court", "samsara", "leapfrog", "exodus", "doubles", "siege")


def random_games(cls, games: int, rng: random.Random) -> tuple[float, float, list[int]]:
    decided = first = 0
    turns = []
    for _ in range(games):
        game = cls(cls.min_players)
        while not game.over:
            game.push_legal(game.random_action(rng))
        turns.append(game.turn)
        if game.winners:
            decided += 1
            first += 0 in game.winners
    return decided / games, first / max(1, decided), turns


def against_random(cls, games: int, level: str, rng: random.Random) -> float:
    """Share of points the computer's side takes (a draw is half), seats alternating."""
    points = 0.0
    for number in range(games):
        game = cls(cls.min_players)
        side = set(game.side(number % 2)) if hasattr(game, "side") else {number % 2}
        while not game.over:
            if game.to_move in side and not game.is_chance:
                game.push_legal(ai.search(game, level, rng).action)
            else:
                game.push_legal(game.random_action(rng))
        points += 0.5 if not game.winners else float(bool(side & set(game.winners)))
    return points / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="random games per composition")
    parser.add_argument("--ai-games", type=int, default=20, help="games of the computer against random play")
    parser.add_argument("--level", default="easy", choices=list(ai.LEVELS))
    parser.add_argument("ids", nargs="*", metavar="GAME")
    args = parser.parse_args()
    ids = args.ids or list(OWN)
    composed = {cls.id for cls in catalogue() if getattr(cls, "composed", False)}
    print(
        f"{'composition':14} {'players':>7} {'decided':>8} {'first seat':>10} {'turns p50':>9} {'p90':>5} "
        f"{args.level + ' vs random':>16} {'seconds':>8}"
    )
    for game_id in ids:
        if game_id not in composed:
            raise SystemExit(f"{game_id} is not a composition")
        cls = find(game_id)
        rng = random.Random(1)
        start = time.perf_counter()
        decided, first, turns = random_games(cls, args.games, rng)
        score = against_random(cls, args.ai_games, args.level, rng)
        turns.sort()
        print(
            f"{game_id:14} {cls.min_players:>7} {decided:>8.0%} {first:>10.0%} "
            f"{statistics.median(turns):>9.0f} {turns[int(0.9 * len(turns))]:>5} {score:>16.0%} "
            f"{time.perf_counter() - start:>8.1f}"
        )
    print(
        f"\n{args.games} random games and {args.ai_games} games against random play each; turns count every "
        f"player's turns; Python {sys.version.split()[0]}, one core."
    )


if __name__ == "__main__":
    main()
