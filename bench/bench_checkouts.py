"""Two checkouts of the companion, the same seeded random games in each, CPU seconds compared. Prints a table.

    python bench/bench_checkouts.py BEFORE AFTER [--games N] [--rounds R] [--only GAME ...]

Each round runs every game of the catalogue N times from seed 1 in BEFORE, then in AFTER (the order swaps
every round), each in its own process. CPU time (process_time), not wall time, so that other load on the
machine moves both sides alike; the median of the rounds is shown. The plies played must be the same in
both: a refactoring that changes them changed behaviour. Figures: docs/performance.md, "The redesign".
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys

_CHILD = """
import json, random, sys, time
sys.path.insert(0, sys.argv[1])
try:
    from companion.games.catalogue import catalogue
except ImportError:  # the layout before the redesign
    from companion.engine import catalogue
out = {}
for cls in sorted(catalogue(), key=lambda c: c.id):
    if sys.argv[3:] and cls.id not in sys.argv[3:]:
        continue
    for players in sorted({cls.min_players, min(cls.max_players, max(cls.min_players, 3))}):
        rng, plies, start = random.Random(1), 0, time.process_time()
        for _ in range(int(sys.argv[2])):
            game = cls(players)
            while not game.over:
                game.push_legal(game.random_action(rng))
            plies += len(game.history)
        out[f"{cls.id} ({players}p)"] = (time.process_time() - start, plies)
print(json.dumps(out))
"""


def run(checkout: str, games: int, only: list[str]) -> dict:
    # -S: no site-packages, so an editable install of another checkout cannot fill in a module this
    # checkout lacks (the games need nothing outside the standard library).
    command = [sys.executable, "-S", "-c", _CHILD, checkout, str(games), *only]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--games", type=int, default=20, help="seeded random games per row (default 20)")
    parser.add_argument("--rounds", type=int, default=4, help="rounds, the order swapped each (default 4)")
    parser.add_argument("--only", nargs="*", default=[], help="these game ids alone")
    args = parser.parse_args()
    before, after = [], []
    for round_ in range(args.rounds):
        pair = [(before, args.before), (after, args.after)]
        for into, checkout in pair if round_ % 2 == 0 else reversed(pair):
            into.append(run(checkout, args.games, args.only))
    print(f"{'game':<24} {'plies':>7} {'before ms':>10} {'after ms':>9} {'after/before':>12}  same plies")
    print(f"{'-' * 24} {'-' * 7} {'-' * 10} {'-' * 9} {'-' * 12}  ----------")
    ratios = []
    for row in before[0]:
        b = statistics.median(r[row][0] for r in before) * 1000 / args.games
        a = statistics.median(r[row][0] for r in after) * 1000 / args.games
        same = len({r[row][1] for r in before + after}) == 1
        ratios.append(a / b)
        same = "yes" if same else "NO"
        print(f"{row:<24} {before[0][row][1]:>7} {b:>10.1f} {a:>9.1f} {a / b:>12.2f}  {same}")
    geomean = math.exp(statistics.mean(math.log(r) for r in ratios))
    print(f"\nCPU ms per game, median of {args.rounds} rounds; geometric mean of after/before {geomean:.2f}")


if __name__ == "__main__":
    main()
