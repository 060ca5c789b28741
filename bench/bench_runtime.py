"""The running companion on the simulator: press-to-frame latency, start time, memory, idle CPU. Prints a table.

    python bench/bench_runtime.py [--presses N] [--idle-seconds S] [--starts N]

- press-to-frame: from the node event leaving the serial bridge (the emulated Pico's press, decoded
  by the host client) until the frame it causes is handed to the LED driver (``_write`` of the
  simulated surface, where the real one calls rpi_ws281x's ``show``). Presses alternate between
  selecting and putting down a stone, so every press changes the picture; half of them land while
  the selected stone's targets are animating. Target p99 <= 5 ms.
- start to ready: ``gryb-companion run --sim`` spawned until it sends READY=1 to $NOTIFY_SOCKET (as
  systemd sees it). Target < 2 s.
- resident memory with the web page up (page, state and an open event stream served). Target < 80 MB.
- idle CPU: the same process over S seconds with nothing happening. Target < 1 %. Measured after a fresh
  start and in the waiting states below (a game stored in the state directory before the companion starts,
  which replays it as after a power cut, each in its own process): EZ GRYB after a roll (a target
  pulsing), 'Drangles at its start, 25 Men's GRYB waiting for a placement with 20 men placed (321 targets
  pulsing), Lines Morris with its men all placed (its lines to move found among block moves).
- a full garbage collection in the companion after the presses, median of 5, without and with
  ``app.settle()`` (what ``gryb-companion run`` does once started: start-up objects frozen).
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
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion import config as config_mod  # noqa: E402
from companion.app import DB_NAME, Companion, settle  # noqa: E402
from companion.engine import find  # noqa: E402
from companion.store import ACTION, Store  # noqa: E402


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def press_to_frame(presses: int) -> tuple[list[float], tuple[float, float]]:
    """Press-to-frame samples, and a full collection's milliseconds without and with ``settle()``."""
    with tempfile.TemporaryDirectory() as state:
        config = config_mod.load(None, sim=True)
        config = replace(config, state=replace(config.state, dir=state))
        companion = Companion(config, sim=True, port=0)
        companion.start()
        try:
            runtime, sim, surface = companion.runtime, companion.node_input, companion.surface
            runtime.call("new_game", "drangles", 2, {})
            runtime.call("press", "0")  # a stone on the head node: pressing it selects / puts it down
            pending: list[float] = []
            samples: list[float] = []
            arrived = threading.Event()
            bridge = sim.when_event
            write = surface._write

            def on_event(event):
                if event.pressed:
                    pending.append(time.perf_counter())
                bridge(event)

            def on_write(wire):
                write(wire)
                if pending:
                    samples.append(time.perf_counter() - pending.pop())
                    arrived.set()

            sim.when_event = on_event
            surface._write = on_write
            for i in range(presses):
                arrived.clear()
                sim.press("0")
                if not arrived.wait(2):
                    raise RuntimeError("a press produced no frame")
                time.sleep(0.005 + (i % 7) * 0.004)  # land at different points of the animation
                sim.release("0")
                time.sleep(0.03)
            plain = collection_ms()
            settle()
            settled = collection_ms()
            gc.unfreeze()
            return samples, (plain, settled)
        finally:
            companion.stop()


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
    """Place ``stones`` men in turn where no GRYB forms (a GRYB would leave a man to remove, not a placement)."""
    while len(game.history) < stones:
        for action in rng.sample(game.legal_actions(), len(game.legal_actions())):
            game.apply(action)
            if not game.pending:
                break
            game.undo()


def _all_placed(game, rng) -> None:
    """Play at random until every man is placed and the player to move has a line to move (a GRYB formed on
    the way removes its men as the rules say)."""
    while game.phase == "place" or game.pending or game.over:
        if game.over:
            raise RuntimeError("the game ended before its men were all placed: pick another seed")
        game.apply(rng.choice(game.legal_actions()))


# The waiting states whose idle CPU is measured, each a game played to that point with a fixed seed.
WAITING = (
    ("EZ GRYB after a roll", "ez-gryb", lambda game, rng: game.apply("roll:G")),
    ("'Drangles at its start", "drangles", lambda game, rng: None),
    ("25 Men's GRYB, a placement", "25-mens-gryb", lambda game, rng: _placed_without_gryb(game, rng, 20)),
    ("Lines Morris, men all placed", "lines-morris", _all_placed),
)


def waiting_cpu(idle_seconds: float) -> list[tuple[str, float, int]]:
    """Idle CPU in each waiting state: (the state, %, how many nodes pulse as targets there)."""
    from companion.table import Table

    figures = []
    for label, game_id, to_the_state in WAITING:
        game = find(game_id)(2)
        to_the_state(game, random.Random(1))
        targets = Table(game).targets().bit_count()
        with tempfile.TemporaryDirectory() as tmp:
            store = Store(Path(tmp) / "gryb-companion" / DB_NAME)
            with store.transaction():
                game_id_stored = store.new_game(find(game_id)(2), ["Player 1", "Player 2"], None, None, time.time())
                for action, _ in game.history:
                    store.append(game_id_stored, ACTION, str(action), time.time())
            store.close()
            with _companion(tmp) as (process, url, _):
                state = json.load(urllib.request.urlopen(url + "/api/state", timeout=10))
                if state["ply"] != len(game.history):
                    raise RuntimeError(f"{label}: the companion restored {state['ply']} actions, "
                                       f"not {len(game.history)}")
                figures.append((label, _idle(process, url, idle_seconds)[1], targets))
    return figures


@contextlib.contextmanager
def _companion(state_home: str):
    """``gryb-companion run --sim`` on a state directory under ``state_home``: (process, page URL, seconds
    from the spawn to READY=1), stopped afterwards."""
    path = os.path.join(state_home, "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(30)
    env = dict(os.environ, NOTIFY_SOCKET=path, XDG_STATE_HOME=state_home)
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "companion.cli", "run", "--sim", "--port", "0"],
                               cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
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
    """With the page's event stream open and nothing happening: resident MB, then CPU % over ``seconds``."""
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
    parser.add_argument("--presses", type=int, default=400)
    parser.add_argument("--idle-seconds", type=float, default=30.0)
    parser.add_argument("--starts", type=int, default=5)
    args = parser.parse_args()
    samples, (collect_plain, collect_settled) = press_to_frame(args.presses)
    figures = process_figures(args.starts, args.idle_seconds)
    waiting = waiting_cpu(args.idle_seconds)
    ms = [s * 1000 for s in samples]
    rows = [
        ("press-to-frame p50", f"{percentile(ms, 50):.2f} ms", ""),
        ("press-to-frame p99", f"{percentile(ms, 99):.2f} ms", "<= 5 ms"),
        ("press-to-frame max", f"{max(ms):.2f} ms", ""),
        (f"start to READY=1 (median of {args.starts})", f"{figures['ready']:.2f} s", "< 2 s"),
        ("start to READY=1 (slowest)", f"{figures['ready_max']:.2f} s", ""),
        ("resident memory, web page up", f"{figures['rss']:.1f} MB", "< 80 MB"),
        (f"idle CPU over {args.idle_seconds:g} s", f"{figures['cpu']:.2f} %", "< 1 %"),
        *((f"idle CPU, {label} ({targets} targets)", f"{cpu:.2f} %", "< 1 %") for label, cpu, targets in waiting),
        ("full garbage collection", f"{collect_plain:.1f} ms", ""),
        ("full garbage collection, settled", f"{collect_settled:.1f} ms", ""),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'value':>10}  target")
    print(f"{'-' * width}  {'-' * 10}  ------")
    for name, value, target in rows:
        print(f"{name:<{width}}  {value:>10}  {target}")
    print(f"\n{len(ms)} presses through the emulated Pico; Python {sys.version.split()[0]}, load average "
          f"{os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
