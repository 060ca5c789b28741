"""Web page speed: page weight, first render in Chromium, and how fast a change reaches an open page.

    .venv/bin/python bench/bench_web.py [--changes 200]

The whole companion on the simulator, every page's weight as sent, first paint and load in Chromium (when
/usr/bin/chromium is there), and a press to its event on the page's stream. What each row times, and the
figures: docs/performance.md, "Web page".
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import urllib.request
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
# ruff: noqa: E402

from companion.assembly import Companion
from companion.service import commands as c
from companion.service import config as config_mod
from web.testing import WEIGHT_LIMIT, Feed, LoadedDie, every_page_weight, page_weight


def fetcher(base: str):
    """A page's or a file's body over the socket, as a browser asking for no compression gets it."""

    def fetch(path: str) -> bytes:
        with urllib.request.urlopen(base + path, timeout=30) as r:
            return r.read()

    return fetch


def sse_latency(runtime, port: int, changes: int, press) -> list[float]:
    """Ms from ``press("0")`` to the event of the change it makes on the feed, ``changes`` times."""
    feed = Feed(port)
    feed.snapshot(timeout=10)
    runtime.call(c.NewGame("drangles", 2, {"stones": 400, "turn_limit": 100000}, abandon=True))
    while feed.snapshot(timeout=10)["game"]["id"] != "drangles":
        pass
    times = []
    for _ in range(changes):
        version = runtime.snapshot()["version"]
        t0 = time.perf_counter()
        press("0")  # enter / select / put down: every press publishes a change
        while feed.snapshot(timeout=10)["version"] <= version:
            pass
        times.append((time.perf_counter() - t0) * 1000)
        time.sleep(0.02)  # the Pico's debounce sees a release before the next press
    feed.sock.close()
    return times


def on_the_board(node_input):
    """A press on the board: the node's switch closed in the emulated Pico's key matrix, then opened."""

    def press(node: str) -> None:
        node_input.press(node)
        time.sleep(0.01)
        node_input.release(node)

    return press


NAVIGATION_TIMING = """(() => { const n = performance.getEntriesByType('navigation')[0];
    const p = performance.getEntriesByName('first-contentful-paint')[0];
    return {load: n.loadEventEnd, dcl: n.domContentLoadedEventEnd, fcp: p ? p.startTime : null}; })()"""


def first_render(base: str, runs: int = 5) -> list[float] | None:
    if not os.path.exists("/usr/bin/chromium"):
        return None
    from playwright.sync_api import sync_playwright

    out = []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=[
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        for _ in range(runs):
            ctx = browser.new_context(viewport={"width": 360, "height": 740})  # a cold cache each time
            page = ctx.new_page()
            page.goto(base + "/")
            while not page.evaluate("+(document.body.dataset.version || 0) > 0"):
                time.sleep(0.005)
            timing = page.evaluate(NAVIGATION_TIMING)
            out.append(timing)
            ctx.close()
        browser.close()
    return out


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        config = config_mod.load(None, sim=True)  # what `gryb-companion run --sim` reads
        config = replace(config, state=replace(config.state, dir=tmp))
        companion = Companion(config, sim=True, port=0, die=LoadedDie("GRYB"))
        companion.start()
        runtime, base = companion.runtime, companion.url
        port = companion.server.port
        try:
            sizes = page_weight(fetcher(base), "/")  # Now playing, file by file
            renders = first_render(base)
            pages = every_page_weight(runtime, fetcher(base))
            board = sse_latency(runtime, port, args.changes, on_the_board(companion.node_input))
            latency = sse_latency(runtime, port, args.changes, lambda node: runtime.call(c.Press(node)))
        finally:
            companion.stop()
    print("| measure | value | target |")
    print("| --- | --- | --- |")
    for name, size in sizes.items():
        if size:
            what = "HTML (the board drawn by cloth.js)" if name == "/" else name
            print(f"| weight: {what} | {size / 1024:.1f} KiB | |")
    for label, page in pages.items():
        print(f"| page weight, {label} | {sum(page.values()) / 1024:.1f} KiB | < {WEIGHT_LIMIT // 1000} KB |")
    if renders:
        fcp = [r["fcp"] for r in renders if r["fcp"] is not None]
        load = [r["load"] for r in renders]
        cold = f"median of {len(renders)} cold loads"
        print(f"| first contentful paint, {cold} | {statistics.median(fcp):.0f} ms | < 1 s |")
        print(f"| load event, {cold} | {statistics.median(load):.0f} ms | < 1 s |")
    else:
        print("| first render | (no /usr/bin/chromium) | < 1 s |")
    on_board = "node pressed on the board -> SSE event on a socket"
    print(f"| {on_board}, p50 ({len(board)} presses) | {pct(board, 0.5):.2f} ms | |")
    print(f"| {on_board}, p99 | {pct(board, 0.99):.2f} ms | < 100 ms |")
    print(f"| node pressed on the board -> SSE event, max | {max(board):.2f} ms | |")
    in_runtime = "runtime press -> SSE event on a socket"
    print(f"| {in_runtime}, p50 ({len(latency)} changes) | {pct(latency, 0.5):.2f} ms | |")
    print(f"| {in_runtime}, p99 | {pct(latency, 0.99):.2f} ms | |")
    print(f"| runtime press -> SSE event, max | {max(latency):.2f} ms | |")
    print(f"\nPython {sys.version.split()[0]}, load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
