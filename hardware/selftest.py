"""The self-test: every LED lit, every node pressed, the serial link's health — on the board or the simulator.

    report = selftest(surface, node_input, nodes, timeout=120)
    print(report.text())

1. Sweep: the whole LED surface is lit in blocks of pixels, white then the board colours, so a dead
   pixel, a wrong panel order or a colour-order mistake (GRB vs RGB) shows at a glance.
2. Nodes: every node still to press glows dim white; a press turns it green. Nodes reported pressed
   before anyone touched the board are *stuck*; nodes never pressed before the timeout are *dead*
   (or not wired); a node that goes down and up more than twice during one press is *chattering*
   (its debounce is too short or the switch is worn).
3. Link: the serial link's status from the node input (state, heartbeat age, bad frames, resyncs).

Works through the same interfaces as the companion (:class:`hardware.leds.LedSurface` and
:class:`hardware.node_input.NodeInput`), so the simulator runs exactly this code; a test presses
every node through the emulated Pico.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

RGB = tuple[int, int, int]
WHITE: RGB = (255, 255, 255)
DIM: RGB = (110, 110, 110)  # after gamma and brightness still a visible glow
DONE: RGB = (0, 255, 0)
SWEEP_COLOURS: tuple[RGB, ...] = (WHITE, (255, 0, 0), (0, 255, 0), (0, 0, 255))
SWEEP_BLOCKS = 16
# A press that comes this soon after the same node's release is its contact bouncing past the debounce,
# not a finger pressing again (a quick tapper lifts and presses again in a tenth of a second at best).
BOUNCE_GAP = 0.03


@dataclass
class Report:
    pixels: int = 0
    sweep_frames: int = 0
    pressed: list[str] = field(default_factory=list)
    dead: list[str] = field(default_factory=list)
    stuck: list[str] = field(default_factory=list)
    chattering: list[str] = field(default_factory=list)
    link: dict = field(default_factory=dict)
    seconds: float = 0.0
    untested: str | None = None  # why the press step did not run (the Pico does not answer)

    @property
    def ok(self) -> bool:
        return not (self.dead or self.stuck or self.chattering) and self.link.get("state", "up") == "up"

    def to_dict(self) -> dict:
        return {"ok": self.ok, "pixels": self.pixels, "sweep_frames": self.sweep_frames,
                "pressed": len(self.pressed), "dead": self.dead, "stuck": self.stuck,
                "chattering": self.chattering, "link": self.link, "seconds": round(self.seconds, 2),
                "untested": self.untested}

    def text(self) -> str:
        lines = [f"LEDs: {self.pixels} pixels swept in {self.sweep_frames} frames (look for dark or wrong colours)",
                 f"nodes: not tested: {self.untested}" if self.untested else
                 f"nodes: {len(self.pressed)} pressed, {len(self.dead)} dead, {len(self.stuck)} stuck, "
                 f"{len(self.chattering)} chattering"]
        for label, names in (("dead (never pressed)", self.dead), ("stuck (down from the start)", self.stuck),
                             ("chattering", self.chattering)):
            if names:
                lines.append(f"  {label}: {' '.join(names)}")
        link = self.link
        lines.append("link: " + ", ".join(f"{k} {v}" for k, v in link.items() if not isinstance(v, (dict, list))))
        lines.append("result: " + ("all good" if self.ok else "faults found"))
        return "\n".join(lines)


def sweep(surface, colours: Sequence[RGB] = SWEEP_COLOURS, blocks: int = SWEEP_BLOCKS,
          pause: float = 0.0, sleep: Callable[[float], None] = time.sleep) -> int:
    """Light the whole surface block by block in each colour; returns the frames shown."""
    count = surface.layout.pixel_count
    size = max(1, -(-count // blocks))
    frames = 0
    for colour in colours:
        for start in range(0, count, size):
            pixels = [(0, 0, 0)] * count
            pixels[start:start + size] = [colour] * len(pixels[start:start + size])
            surface.show_pixels(pixels)
            surface.settle()  # every block reaches the LEDs: the frame-rate cap would drop all but a few
            frames += 1
            if pause:
                sleep(pause)
    surface.show_pixels([(0, 0, 0)] * count)
    return frames + 1


def selftest(surface, node_input, nodes: Sequence[str], *, timeout: float = 120.0, pause: float = 0.0,
             on_ready: Callable[[], None] | None = None, clock: Callable[[], float] = time.monotonic,
             link_wait: float = 3.0) -> Report:
    """Run the three steps. ``on_ready`` is called once the board waits for presses (the simulator's
    test presses every node from it); the press step ends when every node was pressed or at ``timeout``.
    A Pico that has not answered ``link_wait`` seconds after the sweep skips the press step: every node
    would only come out dead, and the report says why instead."""
    started = clock()
    report = Report(pixels=surface.layout.pixel_count)
    report.sweep_frames = sweep(surface, pause=pause)
    waited = clock() + link_wait
    while node_input.link_status().get("state") != "up" and clock() < waited:
        time.sleep(0.05)
    link = node_input.link_status()
    if link.get("state") != "up":
        report.link = dict(link)
        report.untested = (f"the node buttons' Pico is not answering on {link.get('url', 'its port')}"
                           + (f" ({link['last_error']})" if link.get("last_error") else "")
                           + "; is it plugged in, with its firmware, and is nothing else using the port "
                             "(sudo systemctl stop gryb-companion)?")
        report.seconds = clock() - started
        return report

    wanted = list(nodes)
    asked = set(wanted)
    stuck = set(node_input.pressed_nodes()) & asked
    pressed: dict[str, int] = {}  # node -> presses seen
    released: dict[str, float] = {}  # node -> the time of its last release
    bounces: dict[str, int] = {}  # node -> bounces in a row in its current press (reset by a new press)
    chattering: set[str] = set()
    lock = threading.Lock()
    changed = threading.Event()
    all_done = threading.Event()
    previous = node_input.when_event

    def on_event(event) -> None:
        with lock:
            node = event.node
            if node not in stuck and node in asked:
                if not event.pressed:
                    released[node] = event.time
                else:
                    pressed[node] = pressed.get(node, 0) + 1
                    bounced = node in released and event.time - released[node] < BOUNCE_GAP
                    bounces[node] = bounces.get(node, 0) + 1 if bounced else 0
                    if bounces[node] >= 2:  # down and up more than twice in one press
                        chattering.add(node)
                    if len(pressed) == len(wanted) - len(stuck):
                        all_done.set()
        changed.set()

    def show() -> None:
        with lock:
            done = set(pressed)
        surface.show_nodes({n: DONE if n in done else DIM for n in wanted if n not in stuck})

    node_input.when_event = on_event
    try:
        show()
        if on_ready is not None:
            on_ready()
        deadline = clock() + timeout
        while not all_done.is_set() and clock() < deadline:
            if changed.wait(min(0.1, max(0.0, deadline - clock()))):
                changed.clear()
                show()
        show()
    finally:
        node_input.when_event = previous
    with lock:
        report.pressed = [n for n in wanted if n in pressed]
        report.chattering = [n for n in wanted if n in chattering]
    report.stuck = [n for n in wanted if n in stuck]
    report.dead = [n for n in wanted if n not in pressed and n not in stuck]
    report.link = dict(node_input.link_status())
    report.seconds = clock() - started
    return report
