"""The running companion on the simulator: press-to-frame, start time, memory, idle CPU. Prints a table.

    python bench/bench_runtime.py [--presses N] [--stored N] [--idle-seconds S] [--starts N]

Press-to-frame of a stone picked up and put down, a 25 Men's GRYB placement and an EZ GRYB move (the two
stored, on disk and on tmpfs); start to READY=1; memory with the page up; idle CPU after a start and in
four waiting states; a full collection with and without ``settle()``. Targets: p99 <= 5 ms, start < 2 s,
< 80 MB, idle < 1 %. What each row times, and the figures: docs/performance.md, "The running companion".
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# ruff: noqa: E402

from companion.assembly import DB_NAME, Companion, settle
from companion.games.catalogue import find
from companion.service import commands as c
from companion.service import config as config_mod
from companion.service.store import ACTION, Store
from companion.session.renderer import DIE_SECONDS

PACE = 0.15  # seconds between a player's presses, quick ones


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


@dataclass
class Samples:
    """Milliseconds per timed press: press to frame, and the runtime thread's command and draw for it."""

    frame: list[float] = field(default_factory=list)
    command: list[float] = field(default_factory=list)
    draw: list[float] = field(default_factory=list)


class Finger:
    """Presses through the emulated Pico, timing a press from its event leaving the bridge to the first
    frame written after the runtime has handled it."""

    def __init__(self, companion: Companion):
        self.companion = companion
        self.runtime, self.sim, surface = companion.runtime, companion.node_input, companion.surface
        self.samples: Samples | None = None  # None: the press being made is not timed
        self._pressed_at: float | None = None
        self._handled = threading.Event()
        self._framed = threading.Event()
        self._timing_draw = False
        bridge, write = self.sim.when_event, surface._write
        command, draw = self.runtime._command, self.runtime._draw

        def on_event(event):
            if event.pressed and self.samples is not None:
                self._pressed_at = time.perf_counter()
            bridge(event)

        def on_command(cmd):
            started = time.perf_counter()
            try:
                return command(cmd)
            finally:
                if isinstance(cmd, c.ClothPress):
                    if self._pressed_at is not None:
                        self.samples.command.append((time.perf_counter() - started) * 1000)
                        self._timing_draw = True
                    self._handled.set()

        def on_draw():
            if not self._timing_draw:
                return draw()
            started = time.perf_counter()
            try:
                return draw()
            finally:
                self.samples.draw.append((time.perf_counter() - started) * 1000)
                self._timing_draw = False

        def on_write(wire):
            write(wire)
            if self._pressed_at is not None and self._handled.is_set():
                self.samples.frame.append((time.perf_counter() - self._pressed_at) * 1000)
                self._pressed_at = None
                self._framed.set()

        self.sim.when_event = on_event
        surface._write = on_write
        self.runtime._command = on_command
        self.runtime._draw = on_draw

    def press(self, node: str, samples: Samples | None = None, settle: float = 0.03) -> None:
        """Press a node and let go once the runtime has handled it; ``samples``: time it there."""
        self.samples = samples
        self._handled.clear()
        self._framed.clear()
        self.sim.press(node)
        if not self._handled.wait(2):
            raise RuntimeError(f"the press on {node} never reached the runtime")
        if samples is not None and not self._framed.wait(2):
            raise RuntimeError(f"the press on {node} produced no frame")
        self.samples = None
        self.sim.release(node)
        time.sleep(settle)  # the release reaches the bridge; the frame-rate cap's tokens come back

    def chores(self) -> dict:
        """Lift and put down what the board asks for; the snapshot after."""
        snapshot = self.runtime.call(c.Snapshot())
        while snapshot["table"]["chores"]:
            self.press(snapshot["table"]["chores"][0]["node"])
            snapshot = self.runtime.call(c.Snapshot())
        return snapshot


def pick_up_and_put_down(finger: Finger, presses: int) -> Samples:
    """'Drangles: a stone on the head node, pressed again and again (selected, put down): nothing stored."""
    samples = Samples()
    finger.runtime.call(c.NewGame("drangles", 2, {}, abandon=True))
    finger.press("0")
    for i in range(presses):
        # a quick player's pace, landing at different points of the animation
        finger.press("0", samples, settle=PACE + (i % 7) * 0.004)
    return samples


def placements(finger: Finger, count: int, rng: random.Random) -> Samples:
    """25 Men's GRYB: a placement on a free node, each stored; a GRYB's removal pressed, not timed."""
    samples = Samples()
    finger.runtime.call(c.NewGame("25-mens-gryb", 2, {}, abandon=True))
    while len(samples.frame) < count:
        snapshot = finger.chores()
        legal = snapshot["legal"]
        places = [a for a in legal if "-" not in a and not a.startswith("x") and a != "pass"]
        if snapshot["state"].get("over") or not legal or (not places and not legal[0].startswith("x")):
            finger.runtime.call(c.NewGame("25-mens-gryb", 2, {}, abandon=True))  # all placed: a new game
        elif not places:
            finger.press(legal[0][1:])  # a removal the GRYB just formed asks for
        else:
            finger.press(rng.choice(places), samples, settle=PACE)
    return samples


def moves_after_a_roll(finger: Finger, count: int, rng: random.Random) -> Samples:
    """EZ GRYB: ROLL, then a move onto the colour rolled: its stone pressed, then its target (timed)."""
    samples = Samples()
    finger.runtime.call(c.NewGame("ez-gryb", 2, {}, abandon=True))
    while len(samples.frame) < count:
        snapshot = finger.chores()
        legal = snapshot["legal"]
        if snapshot["state"].get("over") or not legal:
            finger.runtime.call(c.NewGame("ez-gryb", 2, {}, abandon=True))
        elif legal[0].startswith("roll:"):
            finger.runtime.call(c.Roll())
            time.sleep(DIE_SECONDS + 0.05)  # the player reads the colour once the die has settled
        elif moves := [a for a in legal if "-" in a and "," not in a]:
            source, target = rng.choice(moves).split("-")
            finger.press(source, settle=PACE)
            finger.press(target, samples, settle=PACE)
        else:
            finger.press(rng.choice([a for a in legal if a != "pass"]))  # a stone entered: not a move
    return samples


def disk_folder() -> Path:
    """Where ``gryb-companion run`` keeps its state: the bench's folder goes beside it."""
    folder = config_mod.State().path().parent
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def press_to_frame(presses: int, stored: int) -> tuple[dict[str, Samples], tuple[float, float]]:
    """Samples per kind of press, and a full collection's ms without and with ``settle()``."""
    rng = random.Random(1)
    found: dict[str, Samples] = {}
    folders = [("disk", disk_folder())]
    if Path("/dev/shm").is_dir():
        folders.append(("tmpfs", Path("/dev/shm")))
    collections = (float("nan"), float("nan"))
    for where, folder in folders:
        with tempfile.TemporaryDirectory(prefix="bench-runtime-", dir=folder) as state:
            config = config_mod.load(None, sim=True)
            config = replace(config, state=replace(config.state, dir=state))
            companion = Companion(config, sim=True, port=0)
            companion.start()
            try:
                finger = Finger(companion)
                if where == "disk":
                    found["pick"] = pick_up_and_put_down(finger, presses)
                found[f"place {where}"] = placements(finger, stored, rng)
                found[f"move {where}"] = moves_after_a_roll(finger, stored, rng)
                if where == "disk":
                    plain = collection_ms()
                    settle()
                    collections = (plain, collection_ms())
                    gc.unfreeze()
            finally:
                companion.stop()
    return found, collections


def collection_ms(times: int = 5) -> float:
    spent = []
    for _ in range(times):
        started = time.perf_counter()
        gc.collect()
        spent.append((time.perf_counter() - started) * 1000)
    return statistics.median(spent)


def process_figures(starts: int, idle_seconds: float) -> dict[str, float]:
    ready_times = []
    rss = cpu = 0.0
    for i in range(starts):
        with tempfile.TemporaryDirectory() as tmp, _companion(tmp) as (process, url, ready):
            ready_times.append(ready)
            if i == starts - 1:
                for page in ("/", "/games", "/settings", "/api/state", "/api/games"):
                    urllib.request.urlopen(url + page, timeout=10).read()
                rss, cpu = _idle(process, url, idle_seconds)
    return {"ready": statistics.median(ready_times), "ready_max": max(ready_times), "rss": rss, "cpu": cpu}


def _placed_without_gryb(game, rng, stones: int) -> None:
    """Place ``stones`` men in turn, none forming a GRYB (which would ask for a removal)."""
    while len(game.history) < stones:
        for action in rng.sample(game.legal_actions(), len(game.legal_actions())):
            game.apply(action)
            if not game.pending:
                break
            game.undo()


def _all_placed(game, rng) -> None:
    """Play at random until every man is placed and the player to move has a line to move."""
    while game.phase == "place" or game.pending or game.over:
        if game.over:
            raise RuntimeError("the game ended before its men were all placed: pick another seed")
        game.apply(rng.choice(game.legal_actions()))


# Each waiting state is a game played to that point with a fixed seed.
WAITING = (
    ("EZ GRYB after a roll", "ez-gryb", lambda game, rng: game.apply("roll:G")),
    ("'Drangles at its start", "drangles", lambda game, rng: None),
    ("25 Men's GRYB, a placement", "25-mens-gryb", lambda game, rng: _placed_without_gryb(game, rng, 20)),
    ("Lines Morris, men all placed", "lines-morris", _all_placed),
)


def waiting_cpu(idle_seconds: float) -> list[tuple[str, float, int]]:
    """(the waiting state, idle CPU %, how many nodes pulse as targets there) for each."""
    from companion.session.hands import Hands

    figures = []
    for label, game_id, to_the_state in WAITING:
        game = find(game_id)(2)
        to_the_state(game, random.Random(1))
        targets = Hands(game).targets().bit_count()
        with tempfile.TemporaryDirectory() as tmp:
            store = Store(Path(tmp) / "gryb-companion" / DB_NAME)
            with store.transaction():
                game_id_stored = store.new_game(
                    find(game_id)(2), ["Player 1", "Player 2"], None, None, time.time()
                )
                for action, _ in game.history:
                    store.append(game_id_stored, ACTION, str(action), time.time())
            store.close()
            with _companion(tmp) as (process, url, _):
                state = json.load(urllib.request.urlopen(url + "/api/state", timeout=10))
                if state["ply"] != len(game.history):
                    raise RuntimeError(
                        f"{label}: the companion restored {state['ply']} actions, not {len(game.history)}"
                    )
                figures.append((label, _idle(process, url, idle_seconds)[1], targets))
    return figures


@contextlib.contextmanager
def _companion(state_home: str):
    """``gryb-companion run --sim`` under ``state_home``: (process, page URL, seconds to READY=1)."""
    path = os.path.join(state_home, "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(30)
    env = dict(os.environ, NOTIFY_SOCKET=path, XDG_STATE_HOME=state_home)
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "run", "--sim", "--port", "0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        while not sock.recv(4096).startswith(b"READY=1"):
            pass
        ready = time.perf_counter() - started
        url = process.stdout.readline().split("open ")[1].split("/ ")[0]
        yield process, url, ready
    finally:
        process.terminate()
        process.wait(10)
        sock.close()


def _idle(process, url: str, seconds: float) -> tuple[float, float]:
    """Resident MB, then CPU % over ``seconds``, with the page's event stream open."""
    stream = urllib.request.urlopen(url + "/api/events", timeout=10)
    try:
        stream.readline()
        time.sleep(1.0)
        rss = _rss_mb(process.pid)
        before = _cpu_seconds(process.pid)
        time.sleep(seconds)
        return rss, (_cpu_seconds(process.pid) - before) / seconds * 100
    finally:
        stream.close()


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=400, help="stones picked up and put down")
    parser.add_argument(
        "--stored", type=int, default=100, help="placements, and moves, timed on each storage"
    )
    parser.add_argument("--idle-seconds", type=float, default=30.0)
    parser.add_argument("--starts", type=int, default=5)
    args = parser.parse_args()
    found, (collect_plain, collect_settled) = press_to_frame(args.presses, args.stored)
    figures = process_figures(args.starts, args.idle_seconds)
    waiting = waiting_cpu(args.idle_seconds)
    ms = found["pick"].frame
    rows = [
        ("press-to-frame p50", f"{percentile(ms, 50):.2f} ms", ""),
        ("press-to-frame p99", f"{percentile(ms, 99):.2f} ms", "<= 5 ms"),
        ("press-to-frame max", f"{max(ms):.2f} ms", ""),
    ]
    for kind, what in (("place", "25 Men's GRYB placement"), ("move", "EZ GRYB move after a roll")):
        for where in ("disk", "tmpfs"):
            samples = found.get(f"{kind} {where}")
            if samples is None:
                continue
            rows += [
                (f"{what}, {where}: press-to-frame p50", f"{percentile(samples.frame, 50):.2f} ms", ""),
                (
                    f"{what}, {where}: press-to-frame p99",
                    f"{percentile(samples.frame, 99):.2f} ms",
                    "<= 5 ms",
                ),
                (f"{what}, {where}: command p50", f"{percentile(samples.command, 50):.2f} ms", ""),
                (f"{what}, {where}: draw p50", f"{percentile(samples.draw, 50):.2f} ms", ""),
            ]
        if f"{kind} tmpfs" in found:
            share = percentile(found[f"{kind} disk"].command, 50) - percentile(
                found[f"{kind} tmpfs"].command, 50
            )
            rows.append((f"{what}: fsync share (command p50, disk - tmpfs)", f"{share:.2f} ms", ""))
    rows += [
        (f"start to READY=1 (median of {args.starts})", f"{figures['ready']:.2f} s", "< 2 s"),
        ("start to READY=1 (slowest)", f"{figures['ready_max']:.2f} s", ""),
        ("resident memory, web page up", f"{figures['rss']:.1f} MB", "< 80 MB"),
        (f"idle CPU over {args.idle_seconds:g} s", f"{figures['cpu']:.2f} %", "< 1 %"),
        *(
            (f"idle CPU, {label} ({targets} targets)", f"{cpu:.2f} %", "< 1 %")
            for label, cpu, targets in waiting
        ),
        ("full garbage collection", f"{collect_plain:.1f} ms", ""),
        ("full garbage collection, settled", f"{collect_settled:.1f} ms", ""),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'value':>10}  target")
    print(f"{'-' * width}  {'-' * 10}  ------")
    for name, value, target in rows:
        print(f"{name:<{width}}  {value:>10}  {target}")
    print(
        f"\n{len(ms)} presses picking up and putting down, {args.stored} placements and {args.stored} "
        f"moves on each storage, through the emulated Pico; disk: {disk_folder()}; "
        f"Python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
