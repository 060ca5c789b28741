"""Linked boards on loopback: a move made on board A to the frame that shows it on board B. Prints a table.

    python bench/bench_link.py [--moves N] [--game 25-mens-gryb]

Starts its own Mosquitto (Debian's, on a free port) and two boards in this process, each its own runtime,
SQLite store and link; the players alternate, each move timed from the runtime call on the mover's board
to the frame drawn on the other once it holds that move. Target: p99 <= 20 ms (docs/linking.md,
"How fast"; figures in docs/performance.md, "Linked boards").
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# ruff: noqa: E402

from companion.games.die import Die
from companion.link.link import Link
from companion.service import commands as c
from companion.service.config import Config, State
from companion.service.runtime import Runtime
from companion.service.store import Store
from tests.link.conftest import Broker

TARGET_P99_MS = 20.0


class Board:
    def __init__(self, name: str, folder: Path, url: str):
        self.name, self.waiting, self.seen = name, None, threading.Event()
        folder.mkdir()
        config = Config(state=State(dir=str(folder)))
        self.runtime = Runtime(config, Store(folder / "gryb.db"), die=Die(1), frame_sink=self._frame)
        self.runtime.start()
        self.link = Link(self.runtime, url=url, board=name, secret=name.encode() * 4)
        self.link.start()

    def _frame(self, picture) -> None:
        if self.waiting is not None and self.runtime.feed.newest.get("ply") == self.waiting:
            self.waiting = None
            self.seen.set()

    def stop(self) -> None:
        self.link.stop()
        self.runtime.stop()
        self.runtime.store.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--game", default="25-mens-gryb")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-link-"))
    broker = Broker(folder)
    broker.start()
    boards = [Board("alba", folder / "alba", broker.url), Board("bran", folder / "bran", broker.url)]
    times: list[float] = []
    try:
        code = boards[0].link.host(args.game, 2, {"turn_limit": 100000})
        boards[1].link.join(code)
        while any(b.link.game_id is None for b in boards):
            time.sleep(0.01)
        for n in range(args.moves):
            mover, other = boards[n % 2], boards[1 - n % 2]
            state = mover.runtime.call(c.Snapshot())
            if state["state"]["over"]:
                break
            for chore in state["table"]["chores"]:
                mover.runtime.call(c.Press(chore["node"]))
            action = mover.runtime.call(c.Snapshot())["legal"][0]
            other.seen.clear()
            other.waiting = state["ply"] + 1
            began = time.perf_counter()
            assert mover.runtime.call(c.Act(action)).ok
            if not other.seen.wait(5):
                raise SystemExit(f"move {n}: no frame on {other.name} within 5 s")
            times.append((time.perf_counter() - began) * 1000)
    finally:
        for board in boards:
            board.stop()
        broker.stop()
    p50, p99 = percentile(times, 0.50), percentile(times, 0.99)
    print(f"{args.game}, {len(times)} moves, loopback, load average {os.getloadavg()[0]:.2f}")
    print("| move on A to frame on B | p50 ms | p99 ms | max ms | target p99 |")
    print("| --- | ---: | ---: | ---: | ---: |")
    print(f"| {len(times)} moves | {p50:.1f} | {p99:.1f} | {max(times):.1f} | {TARGET_P99_MS:.0f} ms |")
    print(f"mean {statistics.mean(times):.1f} ms")


if __name__ == "__main__":
    main()
