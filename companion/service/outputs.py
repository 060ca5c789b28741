"""What the runtime shows: the page's snapshot and its change feed, and the LEDs' frames."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from itertools import islice

from companion.service.settings import Settings
from companion.session.hands import Feedback
from companion.session.renderer import Effects, Picture, render
from companion.session.seating import by_seat
from companion.session.session import Session

log = logging.getLogger(__name__)

LEGAL_SHOWN = 400  # legal actions listed (GET /api/legal); 25 Men's GRYB places on about 340


def seat_colours(session: Session, settings: Settings) -> list[tuple[int, int, int]]:
    """Each seat's stone colour: its player's (then the unused players')."""
    colours, order = settings.colours, session.order
    return by_seat(colours, order) + colours[len(order) :]


def snapshot(
    version: int,
    session: Session,
    settings: Settings,
    on_cloth: bool,
    elapsed: float,
    feedback: Feedback | None,
) -> dict:
    game = session.game
    return {
        "version": version,
        "game_id": session.game_id,
        "game": game.describe() | {"settings": game.settings},
        "board": {"depth": game.space.depth, "headless": game.space.headless, "on_cloth": on_cloth},
        "players": game.players,
        "ply": len(game.history),  # UNDO and OK from a page carry it
        "state": game.state_dict(),
        "table": session.hands.to_dict(),
        "legal": [str(a) for a in islice(session.hands.legal(), LEGAL_SHOWN)],
        "seats": session.seats,
        "order": session.order,
        "link": None if session.link is None else {k: v for k, v in session.link.items() if k != "code"},
        "series": session.series_dict(elapsed),
        "settings": settings.to_dict(),
        "colours": [
            "#{:02x}{:02x}{:02x}".format(*rgb) for rgb in seat_colours(session, settings)[: game.players]
        ],
        "feedback": None if feedback is None else {"ok": feedback.ok, "message": feedback.message},
    }


class Feed:
    """The change feed: the newest snapshot, and a queue for each page that listens."""

    def __init__(self):
        self.newest: dict = {}
        self.listeners: list[queue.Queue] = []
        self._lock = threading.Lock()

    def subscribe(self) -> queue.Queue:
        q: queue.Queue = queue.Queue(maxsize=64)
        with self._lock:
            self.listeners.append(q)
        return q

    def unsubscribe(self, q: queue.Queue) -> None:
        with self._lock:
            if q in self.listeners:
                self.listeners.remove(q)

    def publish(self, made: dict) -> None:
        self.newest = made
        with self._lock:
            listeners = list(self.listeners)
        for q in listeners:
            try:
                q.put_nowait(made)
            except queue.Full:  # a stalled page skips to the newest
                try:
                    q.get_nowait()
                    q.put_nowait(made)
                except (queue.Empty, queue.Full):
                    pass


class Painter:
    """Draws the LEDs' frame for the sink. A fault is logged (once while it repeats) and the frame left
    dark: the runtime's loop must outlive it."""

    def __init__(self, sink: Callable[[Picture], None]):
        self.sink = sink
        self._fault: str | None = None  # the last fault, logged once

    def draw(self, session: Session, settings: Settings, effects: Effects, now: float) -> Picture:
        fault = None
        try:
            picture = render(session.game, session.hands, seat_colours(session, settings), effects, now)
        except Exception as err:
            fault = self._log("could not draw the frame: the LEDs stay dark until the next one", err)
            picture = Picture()
        try:
            self.sink(picture)
        except Exception as err:
            fault = self._log("could not show the frame", err)
        self._fault = fault
        return picture

    def _log(self, what: str, err: Exception) -> str:
        if repr(err) != self._fault:
            log.error("%s: %r", what, err, exc_info=err)
        return repr(err)
