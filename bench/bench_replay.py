"""Stepping through a finished game's replay: one ``GET /api/history/<id>?ply=N`` at a time.

    .venv/bin/python bench/bench_replay.py [--depths 4 6] [--games G ...] [--steps 30] [--seed 1]

A game played to its end at random through a real Runtime, then the replay page's requests timed over a
socket to waitress, and the memory one replayed game holds. Figures: docs/performance.md, "Replay".
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
# ruff: noqa: E402

from companion.games.die import Die
from companion.service.config import Config
from companion.service.runtime import Runtime
from companion.service.store import Store
from web import create_app
from web.server import serve
from web.testing import play_to_the_end


def replayed_size(store: Store, game_id: int) -> int:
    """Bytes allocated by one replay of the stored game and still held by it."""
    row = store.game_row(game_id)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    game = store.replay(row)
    size = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    del game
    return size


def timed(url: str) -> tuple[float, dict]:
    t0 = time.perf_counter()
    with urllib.request.urlopen(url, timeout=60) as r:
        body = r.read()
    return (time.perf_counter() - t0) * 1000, json.loads(body)


def walk(base: str, game_id: int, steps: int, rng: random.Random) -> dict[str, list[float]]:
    url = f"{base}/api/history/{game_id}"
    first, data = timed(url)
    plies = len(data["actions"])
    out = {
        "first request (page opened at the end)": [first],
        "step back from the end": [],
        "step forwards from the middle": [],
        "random jump": [],
    }
    for ply in range(plies - 1, max(-1, plies - 1 - steps), -1):
        out["step back from the end"].append(timed(f"{url}?ply={ply}")[0])
    for ply in range(plies // 2, min(plies + 1, plies // 2 + steps)):
        out["step forwards from the middle"].append(timed(f"{url}?ply={ply}")[0])
    for _ in range(steps):
        out["random jump"].append(timed(f"{url}?ply={rng.randrange(plies + 1)}")[0])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", type=int, nargs="+", default=[4, 6])
    parser.add_argument(
        "--games",
        nargs="+",
        default=["battlefield", "multiverse"],
        help="games with a depth option (replaying these costs the most a ply)",
    )
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rows = []
    for game, depth in [(game, depth) for game in args.games for depth in args.depths]:
        rng = random.Random(args.seed)
        with tempfile.TemporaryDirectory() as tmp:
            runtime = Runtime(Config(), Store(Path(tmp) / "gryb.db"), die=Die(args.seed))
            runtime.start()
            server = None
            try:
                game_id = play_to_the_end(runtime, game, 2, {"depth": depth}, rng)
                size = replayed_size(runtime.store, game_id)
                server = serve(create_app(runtime, Config(), state_dir=tmp), "127.0.0.1", 0)
                times = walk(server.url, game_id, args.steps, rng)
                plies = len(runtime.store.replay(runtime.store.game_row(game_id)).history)
            finally:
                if server is not None:
                    server.close()
                runtime.stop()
                runtime.store.close()
        rows.append((game, depth, plies, size, times))
    print("| game | plies | replayed game | request | median | max |")
    print("| --- | --- | --- | --- | --- | --- |")
    for game, depth, plies, size, times in rows:
        for name, values in times.items():
            print(
                f"| {game}, depth {depth} | {plies} "
                f"| {size / 2**20:.1f} MiB, {size / plies / 1024:.2f} KiB a ply "
                f"| {name} ({len(values)}) "
                f"| {statistics.median(values):.1f} ms | {max(values):.1f} ms |"
            )


if __name__ == "__main__":
    main()
