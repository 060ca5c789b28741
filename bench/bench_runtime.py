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
- idle CPU: the same process over S seconds with nothing happening. Target < 1 %.
- a full garbage collection in the companion after the presses, median of 5, without and with
  ``app.settle()`` (what ``gryb-companion run`` does once started: start-up objects frozen).
"""

from __future__ import annotations

import argparse
import gc
import os
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
from companion.app import Companion, settle  # noqa: E402


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
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "notify")
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            sock.bind(path)
            sock.settimeout(30)
            env = dict(os.environ, NOTIFY_SOCKET=path, XDG_STATE_HOME=tmp)
            started = time.perf_counter()
            process = subprocess.Popen([sys.executable, "-m", "companion.cli", "run", "--sim", "--port", "0"],
                                       cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            try:
                while not sock.recv(4096).startswith(b"READY=1"):
                    pass
                ready_times.append(time.perf_counter() - started)
                url = process.stdout.readline().split("open ")[1].split("/ ")[0]
                if i == starts - 1:
                    for page in ("/", "/games", "/settings", "/api/state", "/api/games"):
                        urllib.request.urlopen(url + page, timeout=10).read()
                    stream = urllib.request.urlopen(url + "/api/events", timeout=10)
                    stream.readline()
                    time.sleep(1.0)
                    rss = _rss_mb(process.pid)
                    before = _cpu_seconds(process.pid)
                    time.sleep(idle_seconds)
                    cpu = (_cpu_seconds(process.pid) - before) / idle_seconds * 100
                    stream.close()
            finally:
                process.terminate()
                process.wait(10)
                sock.close()
    return {"ready": statistics.median(ready_times), "ready_max": max(ready_times), "rss": rss, "cpu": cpu}


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
    ms = [s * 1000 for s in samples]
    rows = [
        ("press-to-frame p50", f"{percentile(ms, 50):.2f} ms", ""),
        ("press-to-frame p99", f"{percentile(ms, 99):.2f} ms", "<= 5 ms"),
        ("press-to-frame max", f"{max(ms):.2f} ms", ""),
        (f"start to READY=1 (median of {args.starts})", f"{figures['ready']:.2f} s", "< 2 s"),
        ("start to READY=1 (slowest)", f"{figures['ready_max']:.2f} s", ""),
        ("resident memory, web page up", f"{figures['rss']:.1f} MB", "< 80 MB"),
        (f"idle CPU over {args.idle_seconds:g} s", f"{figures['cpu']:.2f} %", "< 1 %"),
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
