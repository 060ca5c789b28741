"""Rules-core speed: table building, move generation, GRYB scans. Prints a table.

    python bench/bench_rules.py

Targets (one core): depth-4 tables < 50 ms; incremental GRYB query <= 20 us; full GRYB scan of a
170-stone position <= 5 ms at depth 4. Figures: docs/performance.md, "Rules core".
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

from companion.rules import gryb
from companion.rules import node as nd
from companion.rules.space import GameSpace, MoveKind, bits, mask_of


def best_of(fn, repeat: int, number: int = 1) -> float:
    """Best (least disturbed) time per call in seconds over ``repeat`` runs of ``number`` calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return min(times)


def main() -> None:
    rows: list[tuple[str, str, str]] = []

    for depth, repeat in ((4, 20), (5, 5), (6, 3)):
        t = best_of(lambda d=depth: GameSpace(d), repeat)
        rows.append(
            (f"build every move table, depth {depth}", f"{t * 1e3:.1f} ms", "< 50 ms" if depth == 4 else "")
        )

    board = GameSpace(4)
    full = board.all

    def all_targets() -> int:
        """Every target of every move kind from every stone of a full board (each one counted)."""
        total = 0
        for kind in MoveKind:
            for n in bits(full):
                total += board.target_mask(kind, n).bit_count()
        return total

    t = best_of(all_targets, 20)
    rows.append(
        (f"all targets, 9 kinds x 341 stones (full board; {all_targets()} targets)", f"{t * 1e3:.2f} ms", "")
    )

    rng = random.Random(2026)
    index = gryb.GrybIndex(board)
    t = best_of(lambda: [index._build(n) for n in board.nodes], 5)
    rows.append(("GRYB index, every node of depth 4 (cold)", f"{t * 1e3:.1f} ms", "built lazily"))

    positions = [mask_of(rng.sample(board.nodes, 170)) for _ in range(50)]
    for stones in positions:
        index.find_all(stones)
    scans = [best_of(lambda s=stones: index.find_all(s), 5) for stones in positions]
    rows.append(
        ("full GRYB scan, 170 stones (median of 50)", f"{statistics.median(scans) * 1e3:.2f} ms", "<= 5 ms")
    )

    queries = [(rng.choice(board.nodes), positions[i % 50]) for i in range(2000)]
    deep = [(n, s) for n, s in queries if nd.LEVEL[n] == 4]

    def incremental(sample=queries) -> None:
        for n, s in sample:
            index.completed_by(n, s)

    t = best_of(incremental, 10) / len(queries)
    rows.append(("incremental GRYB query, random node", f"{t * 1e6:.2f} us", "<= 20 us"))
    t = best_of(lambda: incremental(deep), 10) / len(deep)
    rows.append(("incremental GRYB query, bottom-level node (40 GRYBs)", f"{t * 1e6:.2f} us", "<= 20 us"))

    giant = GameSpace(6)
    gindex = gryb.GrybIndex(giant)
    gstones = mask_of(rng.sample(giant.nodes, 2730))
    gindex.find_all(gstones)
    t = best_of(lambda: gindex.find_all(gstones), 3)
    rows.append(("full GRYB scan, Super Giant, 2730 stones", f"{t * 1e3:.1f} ms", ""))

    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'time':>10}  target")
    print(f"{'-' * width}  {'-' * 10}  ------")
    for name, value, target in rows:
        print(f"{name:<{width}}  {value:>10}  {target}")
    print(f"\nPython {sys.version.split()[0]}, one core, best of several runs.")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()  # --help, not a run
    main()
