"""Node input: press and release events per node, with the time they happened. The runtime's interface.

``open_node_input(url)`` gives a :class:`SerialNodeInput` on the Pico's serial port for a pyserial URL
such as ``/dev/ttyACM0``, or for ``"sim"`` a :class:`SimulatedNodeInput`: the emulated Pico on a pty and
the same serial client on it, so a simulated press travels MCU -> real bytes -> client -> event, exactly
as a finger on the cloth does.

Keys of the matrix that no node sits on (spare positions) never become events; they are counted in
``link_status()["unmapped_keys"]`` and logged, because a press there means a wiring fault.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from firmware_bridge.client import HEARTBEAT_TIMEOUT, BridgeClient, KeyEvent
from firmware_bridge.emulator import Emulator
from firmware_bridge.firmware.debounce import DEFERRED
from hardware.buttons import ButtonLayout

log = logging.getLogger(__name__)

SIM = "sim"


@dataclass(frozen=True)
class NodeEvent:
    node: str  # node name in the manuals' notation, e.g. "RG", "0"
    pressed: bool  # True on press, False on release
    time: float  # host time.monotonic() of the event (MCU ms mapped to host time)


class NodeInput:
    """Press and release events from the node buttons.

    A backend must:

    - call ``when_event(event)`` (if set) with a :class:`NodeEvent` for each press and release, from its
      own thread, in the order they happened; never twice for one press, never a press that did not
      happen; releasing every pressed node if it loses the hardware, so no node stays stuck; press and
      release alternating for each node (a node held through a lost link gets no second release);
    - answer ``pressed_nodes()`` (the nodes down now) and ``link_status()`` from any thread;
    - make ``close()`` idempotent and stop calling ``when_event`` once it returns.

    ``link_status()`` returns a JSON-serialisable dict with at least ``state`` ("up", "down" or
    "connecting"), ``heartbeat_age`` (seconds since the hardware was last heard, or None) and
    ``firmware`` (its version, or None); a backend may add more. The base class does the context
    manager and holds ``when_event``.
    """

    when_event: Callable[[NodeEvent], None] | None = None

    def pressed_nodes(self) -> frozenset[str]:
        raise NotImplementedError

    def link_status(self) -> dict:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _emit(self, event: NodeEvent) -> None:
        callback = self.when_event
        if callback is None:
            return
        try:
            callback(event)
        except Exception:  # the consumer's bug must not silence the buttons
            log.exception("node input: when_event failed for %s", event)


class SerialNodeInput(NodeInput):
    """Node buttons on the Pico's USB serial port (or any pyserial URL) through ``firmware_bridge``.

    ``layout`` is the :class:`ButtonLayout` of the board (see :func:`hardware.buttons.load_button_layout`).
    ``heartbeat_timeout`` seconds without a frame count as a lost link (keys released, reconnect).
    """

    def __init__(
        self,
        url: str,
        layout: ButtonLayout,
        *,
        heartbeat_timeout: float = HEARTBEAT_TIMEOUT,
        backoff: tuple[float, float] = (0.05, 2.0),
    ):
        if not isinstance(layout, ButtonLayout):
            raise TypeError(f"layout must be a ButtonLayout (see hardware.buttons), not {layout!r}")
        self.layout = layout
        self.url = url
        self.unmapped_keys: dict[str, int] = {}
        self._lock = threading.Lock()
        self._closed = False
        # Keys held down through a lost link: the consumer had their press and the link's release, so
        # their physical release is not reported again (pressed_nodes() still shows them: they are down).
        self._held_over: set[tuple[int, int]] = set()
        self._client = BridgeClient(url, self._on_key, heartbeat_timeout=heartbeat_timeout, backoff=backoff)

    @property
    def client(self) -> BridgeClient:
        return self._client

    def _on_key(self, event: KeyEvent) -> None:
        if self._closed:
            return
        key = (event.row, event.col)
        if event.source == "held":
            # Released when the link was lost and still down in the first snapshot after it: the same press
            # going on (a finger resting on a stone through a glitch), which the consumer had already, and
            # whose release it had too (the lost link's).
            with self._lock:
                self._held_over.add(key)
            return
        if key in self._held_over:
            with self._lock:
                self._held_over.discard(key)
            if not event.pressed:
                return  # the release of a press held through an outage: reported when the link was lost
        node = self.layout.node_at(event.row, event.col)
        if node is None:
            if event.pressed:
                name = f"{event.row},{event.col}"
                with self._lock:
                    self.unmapped_keys[name] = self.unmapped_keys.get(name, 0) + 1
                log.warning(
                    "node buttons: key (%d, %d) pressed, but no node sits there (wiring fault?)",
                    event.row,
                    event.col,
                )
            return
        self._emit(NodeEvent(node, event.pressed, event.time))

    def pressed_nodes(self) -> frozenset[str]:
        layout = self.layout
        return frozenset(
            n for n in (layout.node_at(r, c) for r, c in self._client.pressed()) if n is not None
        )

    def link_status(self) -> dict:
        status = self._client.status()
        with self._lock:
            status["unmapped_keys"] = dict(self.unmapped_keys)
        matrix = status.get("matrix")
        if matrix is not None and matrix != [self.layout.rows, self.layout.cols]:
            status["layout_mismatch"] = (
                f"the MCU scans {matrix[0]}x{matrix[1]} but the button layout is "
                f"{self.layout.rows}x{self.layout.cols}"
            )
        return status

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._client.close()


class SimulatedNodeInput(SerialNodeInput):
    """The emulated Pico on a pty, and a :class:`SerialNodeInput` reading it: the simulator's buttons.

    ``press``/``release``/``tap`` close and open the switch under a node in the emulated matrix; the
    event arrives on ``when_event`` a few ms later, through the firmware, the pty and the client.
    ``tap`` and ``unplug`` return at once and finish on the emulator's own thread. Emulator options
    (``debounce_ms``, ``mode``, ``heartbeat_ms``, ``wiring``...) pass through ``emulator_options``.
    """

    def __init__(
        self,
        layout: ButtonLayout,
        *,
        heartbeat_timeout: float = HEARTBEAT_TIMEOUT,
        backoff: tuple[float, float] = (0.05, 2.0),
        emulator_options: dict | None = None,
    ):
        options = dict(debounce_ms=5, mode=DEFERRED)
        options.update(emulator_options or {})
        self.emulator = Emulator(layout.rows, layout.cols, **options)
        try:
            super().__init__(self.emulator.path, layout, heartbeat_timeout=heartbeat_timeout, backoff=backoff)
        except BaseException:
            self.emulator.close()
            raise

    def press(self, node: str) -> None:
        """Close the switch under ``node`` (ButtonLayoutError if the layout has no such node)."""
        self.emulator.press(*self.layout.key(node))

    def release(self, node: str) -> None:
        self.emulator.release(*self.layout.key(node))

    def tap(self, node: str, hold: float = 0.03) -> None:
        """Press ``node`` now and release it ``hold`` seconds later; returns at once (the web page calls it
        from a request), the two events follow on ``when_event``."""
        self.emulator.tap(*self.layout.key(node), hold=hold)

    def unplug(self, seconds: float) -> None:
        """Pull the emulated Pico's cable for ``seconds`` (for tests); returns at once."""
        self.emulator.unplug(seconds)

    def close(self) -> None:
        if self._closed:
            return
        super().close()
        self.emulator.close()


def open_node_input(url: str, layout: ButtonLayout) -> NodeInput:
    """``"sim"``: the emulated Pico (:class:`SimulatedNodeInput`); anything else: a pyserial URL."""
    if url == SIM:
        return SimulatedNodeInput(layout)
    return SerialNodeInput(url, layout)
