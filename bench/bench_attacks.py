"""A hostile guest on the LAN, re-run (issue 44): each attack against the real server, and what it got.

    .venv/bin/python bench/bench_attacks.py [--only NAME ...]

Loopback addresses 127.0.x.y stand for phones and guests. One function an attack, each returning its rows
(attack, what was done, what it got); the figures and what they mean: docs/security.md, "The attacks,
re-run".
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
# ruff: noqa: E402

from companion.assembly import Companion
from companion.service import commands as c
from companion.service import config as config_mod
from companion.service.config import Config
from companion.service.runtime import Runtime
from companion.service.store import Store
from web import create_app
from web.server import serve
from web.testing import Feed, LoadedDie, Phone

CODES = ["".join(code) for code in itertools.product("GRYB", repeat=4)]


def _companion(folder: str) -> Companion:
    """The whole companion on simulated hardware, not as the simulator: no page is the board."""
    config = config_mod.load(None, sim=True)
    made = Companion(replace(config, state=replace(config.state, dir=folder)), sim=False, port=0)
    made.start()
    return made


def _runtime(folder: str) -> Runtime:
    runtime = Runtime(Config(), Store(Path(folder) / "gryb.db"), die=LoadedDie("G"))
    runtime.start()
    return runtime


def side_channel(folder: str) -> list[tuple]:
    """1: the LEDs' current, read by a guest with each of the 256 codes shown, at two brightnesses."""
    rows = []
    board = _companion(folder)
    try:
        guest = Phone(board.server, "127.0.0.2")
        for brightness in (0.5, 1.0):
            board.runtime.call(c.ChangeSettings(brightness=brightness))
            # The die's blink stands still: the code alone changes the frame.
            board.runtime.clock = itertools.repeat(board.runtime.clock()).__next__
            real, told = {}, {}
            for code in CODES:
                board.runtime.call(c.ShowCode(code))
                board.runtime.call(c.Snapshot())
                board.surface.settle(2.0)
                real[code] = board.surface.status()["last_frame_ma"]
                told[code] = json.loads(guest.get("/api/status")[2])["led_status"]["last_frame_ma"]
            board.runtime.call(c.ShowCode(None))
            board.runtime.clock = time.monotonic
            for name, figures in (("the LEDs' own estimate", real), ("GET /api/status (a guest)", told)):
                left = statistics.mean(sum(v == figures[k] for v in figures.values()) for k in figures)
                rows.append(
                    (
                        "1 current side channel",
                        f"{name}, brightness {brightness}",
                        f"{len(set(figures.values()))} values; {left:.0f} of 256 codes left on average",
                    )
                )
    finally:
        board.stop()
    return rows


def guessing(folder: str) -> list[tuple]:
    """3: four addresses guess as fast as they can while the owner asks for the code and types it."""
    runtime = _runtime(folder)
    try:
        with serve(create_app(runtime, Config(), state_dir=Path(folder) / "state"), "127.0.0.1", 0) as server:
            owner = Phone(server, "127.0.0.1")
            owner.post("/api/pair/start")
            code = "".join(runtime.board.effects.code)
            wrong = itertools.cycle(c for c in CODES if c != code)
            guessers = [Phone(server, f"127.0.1.{i}") for i in range(1, 5)]
            seen, t0 = [], time.perf_counter()
            while time.perf_counter() - t0 < 3.0:
                seen += [g.post("/api/pair", {"code": next(wrong)})[0] for g in guessers]
            took = time.perf_counter() - t0
            start = owner.post("/api/pair/start")[0]
            kept = "".join(runtime.board.effects.code) == code
            t1 = time.perf_counter()
            paired = owner.json("POST", "/api/pair", {"code": code})[0]
            typed = time.perf_counter() - t1
    finally:
        runtime.stop()
        runtime.store.close()
    return [
        (
            "3 guessing codes",
            f"4 addresses, {len(seen)} guesses in {took:.1f} s",
            f"{seen.count(403)} looked at (wrong), {seen.count(429)} refused unread (429)",
        ),
        (
            "3 guessing codes",
            "then the owner asks and types the code",
            f"start {start}, code kept: {kept}; pair {paired} in {typed * 1000:.0f} ms",
        ),
    ]


def revoked(folder: str) -> list[tuple]:
    """4: a copy of a phone's cookie and CSRF token, after "Forget this phone"."""
    runtime = _runtime(folder)
    try:
        with serve(create_app(runtime, Config(), state_dir=Path(folder) / "state"), "127.0.0.1", 0) as server:
            phone = Phone(server)
            phone.pair(runtime)
            copy = Phone(server)
            copy.cookie, copy.csrf = phone.cookie, phone.csrf
            phone.post("/api/unpair")
            change = copy.post("/api/settings", {"night": True})[0]
            said = copy.json("GET", "/api/session")[1]["paired"]
    finally:
        runtime.stop()
        runtime.store.close()
    return [("4 forget this phone", "the saved cookie, after unpair", f"POST {change}, paired: {said}")]


def feeds(folder: str) -> list[tuple]:
    """5: four unread live feeds from each of four addresses, then a paired phone and another guest."""
    runtime = _runtime(folder)
    try:
        app = create_app(runtime, Config(), state_dir=Path(folder) / "state")
        app.config["GRYB_GUEST_IDLE"] = 3.0
        with serve(app, "127.0.0.1", 0) as server:
            hogs = [Feed(server.port, f"127.0.3.{a}") for a in range(1, 5) for _ in range(4)]
            phone = Phone(server, "127.0.0.1")
            phone.pair(runtime)
            t0 = time.perf_counter()
            mine = Feed(server.port, "127.0.0.1", cookie=phone.cookie)
            mine.snapshot()
            first = time.perf_counter() - t0
            other = Feed(server.port, "127.0.7.1")
            t0 = time.perf_counter()
            ended = all(f.ended(10.0) for f in hogs if f.status == 200)
            idle = time.perf_counter() - t0
            statuses = sorted(f.status for f in hogs)
            for f in hogs + [mine, other]:
                f.close()
    finally:
        runtime.stop()
        runtime.store.close()
    return [
        (
            "5 live feeds",
            "4 unread feeds from each of 4 addresses",
            f"{statuses.count(200)} open, {statuses.count(429)} refused (429)",
        ),
        ("5 live feeds", "then a paired phone", f"{mine.status}, first event in {first * 1000:.0f} ms"),
        ("5 live feeds", "and another guest", f"{other.status}"),
        ("5 live feeds", "the unread feeds, GRYB_GUEST_IDLE 3 s", f"all ended: {ended}, {idle:.1f} s later"),
    ]


def rebinding(folder: str) -> list[tuple]:
    """7: a page on another name (DNS rebinding) reading the simulator's code shown."""
    runtime = _runtime(folder)
    try:
        app = create_app(runtime, Config(), sim_input=object(), state_dir=Path(folder) / "state")
        with serve(app, "127.0.0.1", 0) as server:
            Phone(server).post("/api/pair/start")
            rows = []
            for host in ("rebind.example", "127.0.0.1"):
                status, _, raw = Phone(server, host=host).get("/api/pair/shown")
                told = "".join(runtime.board.effects.code).encode() in raw
                rows.append(
                    ("7 DNS rebinding", f"GET /api/pair/shown, Host: {host}", f"{status}, code told: {told}")
                )
    finally:
        runtime.stop()
        runtime.store.close()
    return rows


ATTACKS = {
    "side_channel": side_channel,
    "guessing": guessing,
    "revoked": revoked,
    "feeds": feeds,
    "rebinding": rebinding,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=sorted(ATTACKS), help="these attacks alone")
    args = parser.parse_args()
    rows = []
    for name, attack in ATTACKS.items():
        if args.only and name not in args.only:
            continue
        with tempfile.TemporaryDirectory() as folder:
            rows += attack(folder)
    widths = [max(len(str(row[i])) for row in rows) for i in range(3)]
    for row in rows:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip())
    print(f"\nPython {sys.version.split()[0]}, load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
