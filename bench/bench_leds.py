"""LED frame speed: compose + brightness/gamma + current limit + encode, per frame, as the Pi runs it.

    .venv/bin/python bench/bench_leds.py [--frames 2000]

Target: a full 32x32 frame in <= 2 ms, the work before a frame is handed to the driver. What each row
times, and the figures: docs/performance.md, "LEDs".
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
# ruff: noqa: E402

from companion.service.geometry import board_geometry
from hardware.led_layout import load_layout
from hardware.leds import Pipeline


def cases(layout):
    rnd = random.Random(7)
    names = list(layout.nodes)
    mid = {n: (rnd.randrange(256), rnd.randrange(256), rnd.randrange(256)) for n in names}
    status = [(255, 0, 200)] * 4 + [(240, 200, 0)] * 4
    pixels = [(rnd.randrange(256), rnd.randrange(256), rnd.randrange(256)) for _ in range(layout.pixel_count)]
    return [
        ("all nodes lit", 0.5, lambda p: p.compose(mid, status)),
        ("all nodes, limited", 1.0, lambda p: p.compose({n: (255, 255, 255) for n in names}, status)),
        ("raw frame, all pixels", 1.0, lambda p: p.check_pixels(pixels)),
    ]


def measure(layout, strip, brightness, make, frames, budget):
    pipeline = Pipeline(layout, strip, brightness, budget)
    times = []
    limited = False
    for _ in range(frames):
        t0 = time.perf_counter()
        raw = make(pipeline)
        _, ma, limited = pipeline.run(raw)
        times.append(time.perf_counter() - t0)
    times.sort()
    return statistics.mean(times), statistics.median(times), times[int(0.99 * (len(times) - 1))], ma, limited


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=2000)
    parser.add_argument("--budget", type=float, default=4000)
    args = parser.parse_args(argv)
    print("| layout | strip | frame | mean ms | median ms | p99 ms | frames/s | mA | limited |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |")
    worst = 0.0
    for name in ("panels-32x32", "chain-341"):
        layout = load_layout(name, board_geometry())
        for strip in ("GRB", "GRBW"):
            for label, brightness, make in cases(layout):
                mean, median, p99, ma, limited = measure(
                    layout, strip, brightness, make, args.frames, args.budget
                )
                if name == "panels-32x32":
                    worst = max(worst, mean)
                print(
                    f"| {name} ({layout.pixel_count} px) | {strip} | {label} "
                    f"| {mean * 1e3:.3f} | {median * 1e3:.3f} | {p99 * 1e3:.3f} "
                    f"| {1 / mean:,.0f} | {ma:.0f} | {'yes' if limited else 'no'} |"
                )
    print(
        f"\nworst mean for a full 32x32 frame: {worst * 1e3:.3f} ms (target <= 2 ms): "
        f"{'met' if worst <= 0.002 else 'NOT met'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
