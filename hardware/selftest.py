"""The self-test: every LED lit, every node pressed, the serial link's health (docs/hardware.md, 'The
self-test'), through the companion's own LedSurface and NodeInput, so the simulator runs this code.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

log = logging.getLogger(__name__)

RGB = tuple[int, int, int]
WHITE: RGB = (255, 255, 255)
DIM: RGB = (110, 110, 110)  # still a visible glow after gamma and brightness
DONE: RGB = (0, 255, 0)
SWEEP_COLOURS: tuple[RGB, ...] = (WHITE, (255, 0, 0), (0, 255, 0), (0, 0, 255))
SWEEP_BLOCKS = 16
BOUNCE_GAP = 0.03  # s: a press this soon after the node's release is a bounce, not a finger


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
    untested: str | None = None  # why the press step did not run
    cancelled: bool = False  # the nodes not pressed yet are untested, not dead

    @property
    def ok(self) -> bool:
        return (
            not (self.dead or self.stuck or self.chattering or self.cancelled)
            and self.link.get("state", "up") == "up"
        )

    def to_dict(self) -> dict:
        return {
            "ok": self.ok,
            "pixels": self.pixels,
            "sweep_frames": self.sweep_frames,
            "pressed": len(self.pressed),
            "dead": self.dead,
            "stuck": self.stuck,
            "chattering": self.chattering,
            "link": self.link,
            "seconds": round(self.seconds, 2),
            "untested": self.untested,
            "cancelled": self.cancelled,
        }

    def text(self) -> str:
        lines = [
            f"LEDs: {self.pixels} pixels swept in {self.sweep_frames} frames "
            "(look for dark or wrong colours)",
            f"nodes: not tested: {self.untested}"
            if self.untested
            else f"nodes: {len(self.pressed)} pressed, {len(self.dead)} dead, {len(self.stuck)} stuck, "
            f"{len(self.chattering)} chattering"
            + (", the rest untested: cancelled" if self.cancelled else ""),
        ]
        for label, names in (
            ("dead (never pressed)", self.dead),
            ("stuck (down from the start)", self.stuck),
            ("chattering", self.chattering),
        ):
            if names:
                lines.append(f"  {label}: {' '.join(names)}")
        link = self.link
        lines.append(
            "link: " + ", ".join(f"{k} {v}" for k, v in link.items() if not isinstance(v, (dict, list)))
        )
        lines.append(
            "result: " + ("cancelled" if self.cancelled else "all good" if self.ok else "faults found")
        )
        return "\n".join(lines)


def sweep(
    surface,
    colours: Sequence[RGB] = SWEEP_COLOURS,
    blocks: int = SWEEP_BLOCKS,
    pause: float = 0.0,
    sleep: Callable[[float], None] = time.sleep,
    cancel: threading.Event | None = None,
    shown: Callable[[int, int], None] | None = None,
) -> int:
    """Light the surface block by block in each colour, then dark; the frames shown. ``cancel`` stops it
    after the frame being shown; ``shown(frames, of)`` hears of each."""
    count = surface.layout.pixel_count
    size = max(1, -(-count // blocks))
    total = len(colours) * len(range(0, count, size))
    frames = 0
    for colour in colours:
        for start in range(0, count, size):
            if cancel is not None and cancel.is_set():
                break
            pixels = [(0, 0, 0)] * count
            pixels[start : start + size] = [colour] * len(pixels[start : start + size])
            surface.show_pixels(pixels)
            surface.settle()  # else the frame-rate cap would drop all but a few
            frames += 1
            if shown is not None:
                shown(frames, total)
            if pause:
                sleep(pause)
    surface.show_pixels([(0, 0, 0)] * count)
    return frames + 1


def selftest(
    surface,
    node_input,
    nodes: Sequence[str],
    *,
    timeout: float = 120.0,
    pause: float = 0.0,
    on_ready: Callable[[], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
    link_wait: float = 3.0,
    cancel: threading.Event | None = None,
    progress: Callable[[dict], None] | None = None,
) -> Report:
    """Sweep, wait ``link_wait`` s for the Pico, then for every node until ``timeout`` (``on_ready`` then).
    ``cancel`` ends any step; ``progress`` hears each ``{"step": "sweep" | "link" | "nodes", ...}``."""
    cancel = cancel or threading.Event()
    tell = progress or (lambda step: None)
    started = clock()
    report = Report(pixels=surface.layout.pixel_count)
    report.sweep_frames = sweep(
        surface,
        pause=pause,
        cancel=cancel,
        shown=lambda done, of: tell({"step": "sweep", "done": done, "of": of}),
    )
    tell({"step": "link"})
    waited = clock() + link_wait
    while node_input.link_status().get("state") != "up" and clock() < waited and not cancel.is_set():
        time.sleep(0.05)
    link = node_input.link_status()
    if cancel.is_set():
        report.link, report.cancelled, report.seconds = dict(link), True, clock() - started
        return report
    if link.get("state") != "up":
        report.link = dict(link)
        report.untested = (
            f"the node buttons' Pico is not answering on {link.get('url', 'its port')}"
            + (f" ({link['last_error']})" if link.get("last_error") else "")
            + "; is it plugged in, with its firmware, and is nothing else using the port "
            "(sudo systemctl stop gryb-companion)?"
        )
        report.seconds = clock() - started
        return report

    wanted = list(nodes)
    asked = set(wanted)
    stuck = set(node_input.pressed_nodes()) & asked
    pressed: dict[str, int] = {}  # node -> presses seen
    released: dict[str, float] = {}  # node -> when it was last released
    bounces: dict[str, int] = {}  # node -> bounces in a row in this press
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

    def told() -> None:
        with lock:
            done = len(pressed)
        tell({"step": "nodes", "pressed": done, "of": len(wanted) - len(stuck), "until": deadline})

    node_input.when_event = on_event
    try:
        show()
        deadline = clock() + timeout
        told()
        if on_ready is not None:
            on_ready()
        while not all_done.is_set() and clock() < deadline and not cancel.is_set():
            if changed.wait(min(0.1, max(0.0, deadline - clock()))):
                changed.clear()
                show()
                told()
        show()
    finally:
        node_input.when_event = previous
    report.cancelled = cancel.is_set() and not all_done.is_set()
    with lock:
        report.pressed = [n for n in wanted if n in pressed]
        report.chattering = [n for n in wanted if n in chattering]
    report.stuck = [n for n in wanted if n in stuck]
    report.dead = [] if report.cancelled else [n for n in wanted if n not in pressed and n not in stuck]
    report.link = dict(node_input.link_status())
    report.seconds = clock() - started
    return report


class Run:
    """The self-test for the companion's pages: one at a time on its own thread; ``on_end`` is called once
    it has let go of the board."""

    def __init__(
        self,
        surface,
        node_input,
        nodes: Sequence[str],
        *,
        pause: float = 0.05,
        on_end: Callable[[], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.surface, self.node_input, self.nodes = surface, node_input, list(nodes)
        self.pause, self.on_end, self.clock = pause, on_end, clock
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._cancel = threading.Event()
        self._status: dict | None = None  # progress, then the report

    @property
    def running(self) -> bool:
        """Whether the board is the self-test's now."""
        return self._thread is not None

    def start(self, timeout: float) -> bool:
        """Start one whose press step lasts at most ``timeout`` s; False if one runs already."""
        with self._lock:
            if self._thread is not None:
                return False
            self._cancel = threading.Event()
            self._status = {"running": True, "step": "sweep", "nodes": len(self.nodes), "timeout": timeout}
            self._thread = threading.Thread(
                target=self._work, args=(timeout, self._cancel), name="gryb-selftest", daemon=True
            )
            self._thread.start()
        return True

    def cancel(self, wait: float = 5.0) -> bool:
        """Stop the one under way and wait (at most ``wait`` s) until it lets go; False if none runs."""
        with self._lock:
            thread = self._thread
            if thread is None:
                return False
            self._cancel.set()
        thread.join(wait)
        return True

    def status(self) -> dict | None:
        """None before the first; its progress while it runs (``"running": true``); then its report."""
        status = self._status
        if status is not None and "until" in status:
            status = dict(status)
            status["left"] = round(max(0.0, status.pop("until") - self.clock()), 1)
        return status

    def _work(self, timeout: float, cancel: threading.Event) -> None:
        def progress(step: dict) -> None:
            self._status = {"running": True, "nodes": len(self.nodes), "timeout": timeout, **step}

        try:
            report = selftest(
                self.surface,
                self.node_input,
                self.nodes,
                timeout=timeout,
                pause=self.pause,
                clock=self.clock,
                cancel=cancel,
                progress=progress,
            )
            self._status = report.to_dict()
            log.info(
                "self-test: %s",
                "cancelled"
                if report.cancelled
                else "all good"
                if report.ok
                else f"faults: {report.to_dict()}",
            )
        except Exception as err:
            log.exception("the self-test failed")
            self._status = {"ok": False, "error": f"{type(err).__name__}: {err}"}
        finally:
            with self._lock:
                self._thread = None
            if self.on_end is not None:
                self.on_end()
