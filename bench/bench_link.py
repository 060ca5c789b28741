"""Linked boards on loopback: a move made on board A to the frame that shows it on board B; and how many
matches one Mosquitto carries. Prints tables.

    python bench/bench_link.py [--moves N] [--game 25-mens-gryb]
    python bench/bench_link.py --matches 10,50,100,200 [--pace 2.0] [--seconds 10]

Starts its own Mosquitto (Debian's, on a free port) and two boards in this process, each its own runtime,
SQLite store and link; the players alternate, each move timed from the runtime call on the mover's board
to the frame drawn on the other once it holds that move. Target: p99 <= 20 ms (docs/linking.md,
"How fast"; figures in docs/performance.md, "Linked boards").

--matches: for each count, that many matches of two boards, each board a paho client of its own that
publishes a signed move (QoS 1, retained, on its own topic) every --pace seconds as a fast player would,
three messages a move (the move, a dice commitment and its reveal); the other board's client times each
from publish to delivery. Every client runs in this one Python process, so the figure is a floor of what
the broker carries. Target: p99 under 100 ms.
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
from tests.link.broker import Broker

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


def matches(counts: list[int], pace: float, seconds: float) -> None:
    import json
    import random

    import paho.mqtt.client as mqtt

    from companion.link import protocol as p

    folder = Path(tempfile.mkdtemp(prefix="bench-broker-"))
    broker = Broker(folder)
    broker.start()
    print(
        f"one Mosquitto on loopback, a move every {pace} s per board, 3 messages a move, {seconds:.0f} s each"
    )
    print("| matches | boards | messages/s | delivered | p50 ms | p99 ms | max ms |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    try:
        for count in counts:
            lock, delays, clients = threading.Lock(), [], []

            def heard(client, userdata, message, lock=lock, delays=delays) -> None:
                if message.retain:  # kept from before this board subscribed: not a delivery to time
                    return
                sent = json.loads(message.payload)["sent"]
                with lock:
                    delays.append((time.time() - sent) * 1000)

            for m in range(count):
                match, key = f"bench{count}x{m}", p.match_key(f"BENCH-{m:04d}-CODE")
                for side in ("alba", "bran"):
                    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"{match}-{side}")
                    client.on_message = heard
                    client.connect("127.0.0.1", broker.port)
                    other = "bran" if side == "alba" else "alba"
                    client.subscribe(f"gryb/{match}/{other}/#", qos=1)
                    client.loop_start()
                    clients.append((client, match, key, side))
            time.sleep(1.0)
            began, sent = time.monotonic(), 0
            due = {i: began + random.uniform(0, pace) for i in range(len(clients))}
            while time.monotonic() < began + seconds:
                now = time.monotonic()
                for i, when in due.items():
                    if when <= now:
                        client, match, key, side = clients[i]
                        for kind in (p.ACTION, p.COMMIT, p.REVEAL):
                            name, _ = p.make(key, match, side, kind, ply=sent, hash="0" * 64)
                            body = {"sent": time.time(), "pad": "x" * 250}
                            client.publish(name, json.dumps(body), qos=1, retain=True)
                            sent += 1
                        due[i] = when + pace
                time.sleep(0.002)
            time.sleep(2.0)
            for client, *_ in clients:
                client.disconnect()
                client.loop_stop()
            with lock:
                got = list(delays)
            rate = sent / seconds
            if got:
                p50, p99 = percentile(got, 0.5), percentile(got, 0.99)
                row = (count, 2 * count, f"{rate:.0f}", f"{len(got)}/{sent}", f"{p50:.1f}", f"{p99:.1f}")
                print("| " + " | ".join(map(str, row)) + f" | {max(got):.1f} |")
    finally:
        broker.stop()
    print(f"load average {os.getloadavg()[0]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--game", default="25-mens-gryb")
    parser.add_argument("--matches", help="counts of matches to carry at once, such as 10,50,100")
    parser.add_argument("--pace", type=float, default=2.0, help="seconds between a board's moves")
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    if args.matches:
        matches([int(n) for n in args.matches.split(",")], args.pace, args.seconds)
        return
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
