"""Serial bridge speed: the frame parser, and a key press in the emulated Pico to the host's event.

    .venv/bin/python bench/bench_bridge.py [--frames 200000] [--presses 300]
    .venv/bin/python bench/bench_bridge.py --spoilt-taps 10000 [--rate 0.2]

Targets (issue 3): parser >= 50k frames/s; press to host event p99 <= 5 ms. What each row times, and the
figures: docs/performance.md, "Serial link". ``--spoilt-taps``: taps through a line that loses,
truncates and doubles frames (issue 44): lost, duplicated and phantom presses, each to be 0.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
# ruff: noqa: E402

from firmware_bridge import protocol as p
from firmware_bridge.client import BridgeClient
from firmware_bridge.emulator import Emulator
from firmware_bridge.firmware.debounce import DEFERRED, EAGER


def parser_rate(frames: int) -> float:
    rng = random.Random(1)
    parts = []
    seq = 0
    for i in range(frames):
        if i % 5 == 4:
            parts.append(p.heartbeat(seq, i * 3, i // 300))
        else:
            seq = (seq + 1) & 0xFFFF
            parts.append(p.edge(seq, i * 3, rng.randrange(24), rng.randrange(16), rng.random() < 0.5))
    stream = b"".join(parts)
    chunks = [stream[i : i + 4096] for i in range(0, len(stream), 4096)]
    best = 0.0
    for _ in range(3):
        decoder = p.Decoder()
        started = time.perf_counter()
        count = 0
        for chunk in chunks:
            count += len(decoder.feed(chunk))
        elapsed = time.perf_counter() - started
        assert count == frames and decoder.bad == 0
        best = max(best, frames / elapsed)
    return best


def press_latency(presses: int, mode: int, debounce_ms: int) -> tuple[list[float], list[float]]:
    """Per press: (edge written -> event, switch closed -> event), in seconds."""
    written: dict[tuple[int, int, int], float] = {}
    arrived: dict[tuple[int, int, int], float] = {}
    done = threading.Event()
    decoder = p.Decoder()

    def on_frame(frame: bytes) -> None:  # on the emulator thread, just before os.write
        t = time.perf_counter()
        for msg in decoder.feed(frame):
            if msg.kind == p.EDGE and msg.pressed:
                written[(msg.row, msg.col, msg.seq)] = t

    def on_key(event) -> None:
        if event.pressed and event.source == "edge":
            arrived[(event.row, event.col, event.seq)] = time.perf_counter()
            done.set()

    link, total = [], []
    with (
        Emulator(debounce_ms=debounce_ms, mode=mode, heartbeat_ms=500) as emulator,
        BridgeClient(emulator.path, on_key) as client,
    ):
        emulator.on_frame = on_frame
        end = time.monotonic() + 3
        while client.state != "up" and time.monotonic() < end:
            time.sleep(0.01)
        rng = random.Random(mode)
        for _ in range(presses):
            row, col = rng.randrange(24), rng.randrange(16)
            done.clear()
            closed = time.perf_counter()
            emulator.press(row, col)
            if not done.wait(1.0):
                continue
            seq_key = max((k for k in arrived if k[:2] == (row, col)), key=lambda k: arrived[k])
            if seq_key in written:
                link.append(arrived[seq_key] - written[seq_key])
            total.append(arrived[seq_key] - closed)
            arrived.clear()
            emulator.release(row, col)
            time.sleep(0.012 + debounce_ms / 1000)
    return link, total


def spoilt_taps(taps: int, rate: float, seed: int = 4409) -> dict[str, float]:
    """Taps 3 ms apart on 60 keys while each frame either way is lost, truncated or doubled with
    probability ``rate``; the client's presses counted against them."""
    rng = random.Random(seed)
    keys = rng.sample([(r, c) for r in range(24) for c in range(16)], 60)
    tapped, reported = Counter(), Counter()

    def on_key(event) -> None:
        if event.pressed and event.source != "held":
            reported[(event.row, event.col)] += 1

    started = time.monotonic()
    with Emulator(heartbeat_ms=100, seed=seed) as emulator, BridgeClient(emulator.path, on_key) as client:
        end = time.monotonic() + 3
        while (client.state != "up" or client.link.resyncing) and time.monotonic() < end:
            time.sleep(0.01)
        emulator.spoil(rate)
        for start in range(0, taps, 100):
            for i in range(start, min(taps, start + 100)):
                tapped[keys[i % len(keys)]] += 1
                emulator.tap(*keys[i % len(keys)], hold=0.012, after=(i - start) * 0.003)
            time.sleep(0.3)
        time.sleep(0.1)
        emulator.spoil(0.0)
        end = time.monotonic() + 5
        while (sum(reported.values()) < taps or client.pressed()) and time.monotonic() < end:
            time.sleep(0.01)
        status = client.status()
    return {
        "taps": taps,
        "lost": sum(max(0, tapped[k] - reported[k]) for k in tapped),
        "duplicated": sum(max(0, reported[k] - tapped[k]) for k in tapped),
        "phantom": sum(n for k, n in reported.items() if k not in tapped),
        "gaps": status["gaps"],
        "replays": status.get("replays", 0),
        "frames_bad": status["frames_bad"],
        "seconds": round(time.monotonic() - started, 1),
    }


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200_000)
    parser.add_argument("--presses", type=int, default=300)
    parser.add_argument("--spoilt-taps", type=int, default=0, help="only the spoilt-line run, this many taps")
    parser.add_argument("--rate", type=float, default=0.2, help="of frames lost, of truncated, of doubled")
    args = parser.parse_args()
    if args.spoilt_taps:
        counts = spoilt_taps(args.spoilt_taps, args.rate)
        print(" | ".join(counts))
        print(" | ".join(str(v) for v in counts.values()))
        return 0 if counts["lost"] == counts["duplicated"] == counts["phantom"] == 0 else 1

    rate = parser_rate(args.frames)
    rows = [
        (
            "parser (Decoder.feed, 4 KiB chunks)",
            f"{rate / 1000:,.0f}k frames/s",
            "",
            "",
            ">= 50k frames/s",
            "ok" if rate >= 50_000 else "MISSED",
        )
    ]
    link_eager, total_eager = press_latency(args.presses, EAGER, 5)
    _, total_deferred = press_latency(args.presses, DEFERRED, 5)
    for name, values, target in (
        ("edge written -> host event", link_eager, 0.005),
        ("switch closed -> host event, eager", total_eager, 0.005),
        ("switch closed -> host event, deferred 5 ms", total_deferred, None),
    ):
        p50, p99 = pct(values, 0.50) * 1000, pct(values, 0.99) * 1000
        verdict = "" if target is None else ("ok" if p99 <= target * 1000 else "MISSED")
        rows.append(
            (
                name,
                f"n={len(values)}",
                f"p50 {p50:.2f} ms",
                f"p99 {p99:.2f} ms",
                "p99 <= 5 ms" if target else "(debounce by design)",
                verdict,
            )
        )
    widths = [max(len(str(r[i])) for r in rows) for i in range(6)]
    header = ("measure", "", "", "", "target", "")
    print(" | ".join(h.ljust(w) for h, w in zip(header, widths)))
    print("-|-".join("-" * w for w in widths))
    for row in rows:
        print(" | ".join(str(c).ljust(w) for c, w in zip(row, widths)))
    print(
        f"\nmedian of all latencies: {statistics.median(total_eager) * 1000:.2f} ms eager, "
        f"{statistics.median(total_deferred) * 1000:.2f} ms deferred"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
