"""Node input: press and release events per node, with the time they happened. The runtime's interface.

The simulator is the emulated Pico on a pty read by the same serial client, so a simulated press travels
the real bytes. A press on a spare key is a wiring fault: counted in ``unmapped_keys``, never an event.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from firmware_bridge.client import HEARTBEAT_TIMEOUT, BridgeClient, KeyEvent
from firmware_bridge.emulator import Emulator
from firmware_bridge.firmware.debounce import DEFERRED
from firmware_bridge.protocol import PANEL_ROW
from hardware.buttons import ButtonLayout

log = logging.getLogger(__name__)

SIM = "sim"


@dataclass(frozen=True)
class NodeEvent:
    node: str  # e.g. "RG", "0"
    pressed: bool
    time: float  # host time.monotonic()


class NodeInput:
    """Press and release events from the node buttons. A backend *must* call ``when_event`` from its own
    thread for each press and release, in order, alternating per node, never a press that did not happen;
    release every node when it loses the hardware; answer ``pressed_nodes()`` and ``link_status()`` (JSON,
    at least ``state``, ``heartbeat_age``, ``firmware``) from any thread; no event after ``close()``, which
    is idempotent.
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
        except Exception:  # a consumer's bug must not silence the buttons
            log.exception("node input: when_event failed for %s", event)


class SerialNodeInput(NodeInput):
    """Node buttons on the Pico's serial port (any pyserial URL), keys named by ``layout``."""

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
        self.when_panel: Callable[[KeyEvent], None] | None = None  # the Pico's control-panel buttons
        self._lock = threading.Lock()
        self._closed = False
        # held through a lost link: their release was reported then
        self._held_over: set[tuple[int, int]] = set()
        self._client = BridgeClient(url, self._on_key, heartbeat_timeout=heartbeat_timeout, backoff=backoff)

    @property
    def client(self) -> BridgeClient:
        return self._client

    def _on_key(self, event: KeyEvent) -> None:
        if self._closed:
            return
        if event.row == PANEL_ROW:
            if self.when_panel is not None:
                self.when_panel(event)
            return
        key = (event.row, event.col)
        if event.source == "held":
            # a press going on through an outage (docs/firmware.md, 'What the host does with it')
            with self._lock:
                self._held_over.add(key)
            return
        if key in self._held_over:
            with self._lock:
                self._held_over.discard(key)
            if not event.pressed:
                return  # reported when the link was lost
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
    """The simulator's buttons: the emulated Pico and a :class:`SerialNodeInput` reading it."""

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
        """Close the switch under ``node`` (ButtonLayoutError if there is none)."""
        self.emulator.press(*self.layout.key(node))

    def release(self, node: str) -> None:
        self.emulator.release(*self.layout.key(node))

    def tap(self, node: str, hold: float = 0.03) -> None:
        """Press ``node`` now and release it ``hold`` seconds later; returns at once."""
        self.emulator.tap(*self.layout.key(node), hold=hold)

    def unplug(self, seconds: float) -> None:
        """Pull the emulated Pico's cable for ``seconds``; returns at once."""
        self.emulator.unplug(seconds)

    def close(self) -> None:
        if self._closed:
            return
        super().close()
        self.emulator.close()


def open_node_input(url: str, layout: ButtonLayout) -> NodeInput:
    """``"sim"``: the emulated Pico; anything else: a pyserial URL."""
    if url == SIM:
        return SimulatedNodeInput(layout)
    return SerialNodeInput(url, layout)
