"""LED frame speed: compose + brightness/gamma + current limit + encode, per frame, as the Pi runs it;
then the pico backend (issue 48): bytes a frame whole and as changes for each game's scenes, the host's
encode time, frames a second at 12 Mbit/s, and press-to-frame through the emulated Pico.

    .venv/bin/python bench/bench_leds.py [--frames 2000] [--presses 150] [--only pipeline|pico]

Targets: a full 32x32 frame in <= 2 ms before the driver; with the pico backend, a full frame at the
LEDs' rate fits USB full speed with room to spare, and press-to-frame p99 no worse than the ws281x
backend's simulated write. What each row times, and the figures: docs/performance.md, "LEDs".
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
# ruff: noqa: E402

from companion.games.catalogue import catalogue
from companion.games.die import Die
from companion.rules import node as nd
from companion.service.config import Config
from companion.service.geometry import board_geometry
from companion.session.hands import Hands
from companion.session.renderer import TARGET_FPS, Effects, render
from firmware_bridge import protocol as p
from firmware_bridge.frames import FrameSender
from hardware.buttons import load_button_layout
from hardware.led_layout import load_layout
from hardware.leds import HardwarePaths, LedInputError, Pipeline, Ws281xSurface, spi_buffer_bytes
from hardware.node_input import SimulatedNodeInput
from hardware.pico import PicoSurface

USB_BITS = 12_000_000  # USB full speed, the Pico's; bulk transfers carry at most about 80 % of it


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


def scenes(layout, pipeline, cls, rng: random.Random) -> tuple[list[bytes], bytes] | None:
    """A game mid-way: a second of its frames at 30 a second (pulses, blinks) and the frame after one
    more move; None if its board does not fit the cloth."""
    hands, die = Hands(cls(cls.min_players)), Die(rng.randrange(1 << 30))
    colours = [Config().players.rgb(i) for i in range(4)]
    for _ in range(rng.randrange(8, 16)):
        game = hands.game
        if game.over:
            break
        if game.is_chance:
            hands.roll(die)
        elif hands.chores:
            hands.press(hands.chores[0].node)
        else:
            action = rng.choice(game.legal_actions())
            hands.act(action, pressed=action.sources + action.targets)

    def wire(at: float) -> bytes:
        picture = render(hands.game, hands, colours, Effects(), at)
        nodes = {nd.name(n): colour for n, colour in picture.nodes.items()}
        return pipeline.run(pipeline.compose(nodes, picture.status))[0]

    game = hands.game
    moves = [] if game.over or game.is_chance else [a for a in game.legal_actions() if a.sources]
    if moves:
        hands.press(rng.choice(moves).sources[0])  # a stone picked up: its targets pulse
    try:
        second = [wire(100.0 + k / 30) for k in range(30)]
        if not game.over and not game.is_chance and game.legal_actions():
            action = rng.choice(game.legal_actions())
            hands.act(action, pressed=action.sources + action.targets)
        return second, wire(101.0)
    except LedInputError:
        return None


class Confirming:
    """A FrameSender whose every frame the Pico confirms at once (a clean line)."""

    def __init__(self):
        self.sender = FrameSender()

    def send(self, wire: bytes) -> tuple[int, float]:
        t0 = time.perf_counter()
        data = self.sender.encode(wire)
        took = time.perf_counter() - t0
        self.sender.heard(p.decode(p.led_state(self.sender.number, p.frame_crc(wire), p.SHOWING, 0)))
        return len(data), took


def pico_sizes(games: int) -> list[tuple]:
    layout = load_layout("panels-32x32", board_geometry())
    pipeline = Pipeline(layout, "GRB", 0.5, 4000)
    rows = []
    rng = random.Random(48)
    for cls in catalogue()[:games]:
        got = scenes(layout, pipeline, cls, rng)
        if got is None:
            rows.append((cls.id, None))
            continue
        second, after_move = got
        whole, _ = Confirming().send(second[0])
        whole_s = statistics.median(Confirming().send(second[0])[1] for _ in range(9))
        link = Confirming()
        link.send(second[0])
        pulses = [link.send(w) for w in second[1:]]
        move, move_s = link.send(after_move)
        rows.append((cls.id, (whole, whole_s, pulses, move, move_s)))
    return rows


def worst_frames() -> list[tuple[str, int, float]]:
    """Every pixel lit, whole: the most a 32x32 frame costs on the line."""
    rng = random.Random(3)
    out = []
    for strip, bpp in (("GRB", 3), ("GRBW", 4)):
        wire = bytes(rng.randrange(1, 256) for _ in range(bpp * 1024))
        sizes = [Confirming().send(wire) for _ in range(50)]
        out.append((f"32x32 {strip}, every pixel lit", sizes[0][0], statistics.median(s for _, s in sizes)))
    return out


class FakeWs281x:
    """rpi_ws281x's PixelStrip as it behaves on a Pi: show() blocks for the SPI transfer (3 bits a data
    bit at 2.4 MHz, the buffer of spi_buffer_bytes), the caller's thread with it."""

    def __init__(self, count, pin, freq, dma, invert, brightness, channel, strip_type):
        self.takes = spi_buffer_bytes(count, freq) * 8 / (3 * freq)

    def begin(self) -> None:
        pass

    def setPixelColor(self, i: int, colour: int) -> None:
        pass

    def show(self) -> None:
        time.sleep(self.takes)

    def _cleanup(self) -> None:
        pass


def ws281x_surface(layout, folder: Path, saw) -> Ws281xSurface:
    """The ws281x backend on fake Pi files and FakeWs281x; ``saw`` hears each frame once it is out."""
    for name, text in (("model", "Raspberry Pi 4 Model B\x00"), ("spidev0.0", ""), ("gpiomem", "")):
        (folder / name).write_text(text)
    (folder / "bufsiz").write_text("32768\n")
    names = ("model", "cpuinfo", "mem", "gpiomem", "spidev0.0", "bufsiz")
    paths = HardwarePaths(*(str(folder / n) for n in names))
    sys.modules["rpi_ws281x"] = types.SimpleNamespace(
        PixelStrip=FakeWs281x, ws=types.SimpleNamespace(WS2811_STRIP_RGB=0, SK6812_STRIP_RGBW=1)
    )

    class Watched(Ws281xSurface):
        def _write(self, wire: bytes) -> None:
            super()._write(wire)  # returns once the strip has it all
            saw(wire, time.perf_counter())

    try:
        return Watched(layout, brightness=1.0, paths=paths)
    finally:
        del sys.modules["rpi_ws281x"]


def press_to_frame(backend: str, presses: int) -> list[float]:
    """Seconds from a switch closing on the emulated Pico to the frame lighting its node being on the LEDs
    (its last bit out: rpi_ws281x's SPI transfer returned, or the Pico's PIO transfer ended), while a
    pulse keeps frames flowing at the renderer's rate for it (TARGET_FPS)."""
    layout = load_layout("panels-32x32", board_geometry())
    node_input = SimulatedNodeInput(load_button_layout(board_geometry()))
    lit: dict[int, float] = {}
    closed: dict[int, float] = {}
    event = threading.Event()

    def saw(wire: bytes, out: float) -> None:
        for pixel in list(closed):
            if pixel not in lit and wire[3 * pixel : 3 * pixel + 3] == b"\xff\xff\xff":
                lit[pixel] = out
                event.set()

    folder = Path(tempfile.mkdtemp(prefix="bench-pi-"))
    if backend == "pico":
        surface = PicoSurface(layout, node_input, brightness=1.0)
        strip = node_input.emulator.strip
        strip.on_write = lambda wire: saw(wire, time.perf_counter() + strip.takes(len(wire)))
    else:
        surface = ws281x_surface(layout, folder, saw)
    names = [n for n in layout.nodes if node_input.layout.key(n) is not None][:200]
    pressed: set[str] = set()
    stop = threading.Event()

    def show(level: int) -> None:
        nodes = {n: (level, 0, 255 - level) for n in names[-8:]}
        nodes.update({n: (255, 255, 255) for n in pressed})
        surface.show_nodes(nodes)

    def pulse() -> None:
        k = 0
        while not stop.wait(1 / TARGET_FPS):
            k += 1
            show(40 + (k * 12) % 200)

    def on_event(ev) -> None:
        (pressed.add if ev.pressed else pressed.discard)(ev.node)
        show(40)

    node_input.when_event = on_event
    end = time.monotonic() + 3
    while node_input.link_status()["state"] != "up" and time.monotonic() < end:
        time.sleep(0.01)
    pulser = threading.Thread(target=pulse, daemon=True)
    pulser.start()
    took = []
    try:
        for i in range(presses):
            name = names[i % (len(names) - 8)]
            pixel = layout.nodes[name]
            event.clear()
            closed[pixel] = time.perf_counter()
            node_input.press(name)
            if event.wait(2.0):
                took.append(lit[pixel] - closed[pixel])
            node_input.release(name)
            time.sleep(0.2)  # a quick player's pace: the frame-rate cap has room for the press's frame
            closed.pop(pixel, None)
            lit.pop(pixel, None)
    finally:
        stop.set()
        pulser.join()
        surface.close()
        node_input.close()
        shutil.rmtree(folder)
    return took


MICROPYTHON_COST = """
import gc, time, protocol
from leds import Leds
from mcu import Firmware
class Keys:
    rows, cols = 24, 16
    def scan(self):
        return [0] * 24
class Strip:
    def write(self, buf):
        pass
    def busy(self):
        return False
fw = Firmware(Keys(), lambda data: None, leds=Leds(Strip(), 1024, 3))
fw.start(0)
for name in NAMES:
    data = open(name, "rb").read()
    spent = []
    for i in range(15):
        gc.collect()
        t = time.ticks_us()
        for at in range(0, len(data), 256):
            fw.receive(data[at : at + 256], i)
        spent.append(time.ticks_diff(time.ticks_us(), t))
    print(name, len(data), min(spent))
"""


def micropython_cost(frames: dict[str, bytes]) -> dict[str, tuple[int, int]]:
    """Microseconds the firmware takes for each frame's bytes under MicroPython's Unix port (least of
    15; in 256-byte slices, as main.py reads them), or {} without the port."""
    binary = Path(sys.executable).parent / "micropython"
    if not binary.exists():
        return {}
    root = Path(__file__).resolve().parents[1] / "firmware_bridge"
    with tempfile.TemporaryDirectory() as folder:
        for path in [root / "protocol.py", *(root / "firmware").glob("[!_]*.py")]:
            shutil.copy(path, folder)
        for name, data in frames.items():
            (Path(folder) / name).write_bytes(data)
        script = MICROPYTHON_COST.replace("NAMES", repr(list(frames)))
        done = subprocess.run([str(binary), "-c", script], cwd=folder, capture_output=True, text=True)
    return {
        line.split()[0]: (int(line.split()[1]), int(line.split()[2])) for line in done.stdout.splitlines()
    }


def pico_report(games: int, presses: int) -> None:
    print("\npico backend: bytes a frame (panels-32x32, GRB, brightness 0.5) and the host's encode time")
    print("| game | whole B | pulse change B (median, max) | after a move B | encode whole us | change us |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    biggest, wholes, changes = 0, [], []
    for game_id, got in pico_sizes(games):
        if got is None:
            print(f"| {game_id} | (not on the cloth) | | | | |")
            continue
        whole, whole_s, pulses, move, move_s = got
        sizes = [b for b, _ in pulses]
        biggest = max(biggest, whole, *sizes, move)
        wholes.append(whole)
        changes += sizes
        print(
            f"| {game_id} | {whole:,} | {statistics.median(sizes):,.0f}, {max(sizes):,} | {move:,} "
            f"| {whole_s * 1e6:,.0f} | {statistics.median(s for _, s in pulses) * 1e6:,.0f} |"
        )
    print("\n| frame | bytes | encode us | frames/s at 12 Mbit/s | at 80 % (bulk) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    rows = [(f"a game, whole (median of {len(wholes)})", statistics.median(wholes), None)]
    rows.append(("a game, a pulse's change (median)", statistics.median(changes), None))
    rows += worst_frames()
    for label, size, spent in rows:
        rate = USB_BITS / 8 / size
        cost = "" if spent is None else f"{spent * 1e6:,.0f}"
        print(f"| {label} | {size:,.0f} | {cost} | {rate:,.0f} | {0.8 * rate:,.0f} |")
    rng = random.Random(5)
    full = bytes(rng.randrange(1, 256) for _ in range(3 * 1024))
    every_node = bytearray(3 * 1024)
    for pixel in load_layout("panels-32x32", board_geometry()).nodes.values():
        every_node[3 * pixel : 3 * pixel + 3] = b"\x30\x18\x30"
    changed = bytearray(full)
    changed[300:303] = b"\x01\x02\x03"
    link = Confirming()
    link.send(full)
    samples = {
        "every-pixel-whole": FrameSender().encode(full),
        "every-node-whole": FrameSender().encode(bytes(every_node)),
        "one-pixel-change": link.sender.encode(bytes(changed)),
    }
    cost = micropython_cost(samples)
    if cost:
        print(
            "\nthe firmware's work for a frame's bytes, MicroPython's Unix port on this machine (not a Pico)"
        )
        print("| frame | bytes | us |")
        print("| --- | ---: | ---: |")
        for name, (size, spent) in cost.items():
            print(f"| {name} | {size:,} | {spent:,} |")
    if presses:
        print(
            f"\npress-to-frame, a pulse at {TARGET_FPS} frames/s, {presses} presses (deferred 5 ms debounce)"
        )
        print("| backend | n | p50 ms | p99 ms |")
        print("| --- | ---: | ---: | ---: |")
        took: dict[str, list[float]] = {"ws281x (simulated rpi_ws281x)": [], "pico": []}
        for start in range(0, presses, 50):  # in turns, so a load that comes and goes falls on both
            for backend, values in took.items():
                values += press_to_frame(backend.split()[0], min(50, presses - start))
        for backend, values in took.items():
            values.sort()
            p50, p99 = values[len(values) // 2], values[min(len(values) - 1, int(0.99 * len(values)))]
            print(f"| {backend} | {len(values)} | {p50 * 1e3:.2f} | {p99 * 1e3:.2f} |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=2000)
    parser.add_argument("--budget", type=float, default=4000)
    parser.add_argument("--presses", type=int, default=150, help="press-to-frame presses a backend")
    parser.add_argument("--games", type=int, default=100, help="the first this many games' scenes")
    parser.add_argument("--only", choices=("pipeline", "pico"))
    args = parser.parse_args(argv)
    if args.only == "pico":
        pico_report(args.games, args.presses)
        return 0
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
    if args.only != "pipeline":
        pico_report(args.games, args.presses)
    return 0


if __name__ == "__main__":
    sys.exit(main())
