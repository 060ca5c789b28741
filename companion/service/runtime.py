"""The companion runtime: one thread owns the board; hardware callbacks and web requests only submit.

    inputs (node presses, ROLL/OK/UNDO, the phone) -> queue -> runtime thread -> board (session, settings)
                                                              -> store (committed first)
                                                              -> renderer -> frame sink (LEDs)
                                                              -> change feed (web page)

Every accepted action is committed to SQLite before the board shows it: each command runs in one
transaction, and what it changed is drawn and published once that has committed. A command whose writes
fail changes nothing: the transaction rolls back and the board goes back to what the store holds. On start
the newest game is rebuilt from its events. Hardware is reached only through the callables passed in
(``frame_sink``, ``sound``), so the same loop runs on the Pi, on the simulator and in tests.
"""

from __future__ import annotations

import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from companion.games.composed.schema import CompositionError
from companion.games.die import Die
from companion.games.engine import IllegalAction, OptionError, UnknownGame
from companion.service import commands as c
from companion.service.board import Board
from companion.service.commands import CommandError
from companion.service.config import Config
from companion.service.outputs import Feed, Painter
from companion.service.store import Store
from companion.session.renderer import Picture
from companion.session.session import SessionError

log = logging.getLogger(__name__)

# What the rules, the session and a command's own checks refuse: said to the caller, nothing changed.
REFUSALS = (SessionError, CompositionError, OptionError, UnknownGame)


class StorageError(RuntimeError):
    """A command that could not be stored (a full disk, a locked database): it changed nothing."""


class Runtime:
    def __init__(
        self,
        config: Config,
        store: Store,
        *,
        die: Die | None = None,
        frame_sink: Callable[[Picture], None] | None = None,
        sound: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        watchdog: Callable[[], Any] | None = None,
        watchdog_every: float | None = None,
        settle: Callable[[], None] | None = None,
    ):
        self.config, self.store, self.clock = config, store, clock
        self.watchdog, self.watchdog_every = watchdog, watchdog_every
        self.painter = Painter(frame_sink or (lambda picture: None))
        self.feed = Feed()
        self._queue: queue.Queue[tuple[c.Command, Future] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self.board = Board(
            config, store, submit=self.submit, die=die, sound=sound, clock=clock, wall=wall, settle=settle
        )
        self._deliver()

    @property
    def game_id(self) -> int | None:
        return self.board.session.game_id

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="gryb-runtime", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self.board.computer.stopping = True  # a search still running ends at its next step
        self._queue.put(None)
        if self._thread is not None:
            self._thread.join(timeout)

    # -- the thread-safe interface ------------------------------------------------------------------

    def submit(self, command: c.Command) -> Future:
        """Queue a command (checked against its declaration first, on the caller's thread)."""
        if not isinstance(command, c.Command):
            raise CommandError(f"unknown command {command!r}")
        command.validate()
        future: Future = Future()
        self._queue.put((command, future))
        return future

    def call(self, command: c.Command, timeout: float = 10.0):
        """Submit and wait for the result. A command still queued when ``timeout`` runs out is withdrawn,
        so the player's retry is the only one (a stalled UNDO answered "busy" and then run anyway would,
        with the retry, take back two moves); one already running is waited for as long again."""
        future = self.submit(command)
        try:
            return future.result(timeout)
        except TimeoutError:
            if future.cancel():
                name = type(command).__name__.lower()
                raise TimeoutError(f"{name} was not done: the board was busy") from None
            return future.result(timeout)

    def snapshot(self) -> dict:
        return self.feed.newest

    def subscribe(self) -> queue.Queue:
        return self.feed.subscribe()

    def unsubscribe(self, q: queue.Queue) -> None:
        self.feed.unsubscribe(q)

    # -- the loop -----------------------------------------------------------------------------------

    def _loop(self) -> None:
        # Frames that only animate come at most at two thirds of the LEDs' frame rate, so the frame-rate
        # cap (hardware/leds.py) always has a token left for the frame a press causes.
        frame_period = 1.5 / self.config.leds.fps
        next_ping = next_tick = self.clock()
        self._computer_turn()
        picture = self._draw()
        while True:
            # Draw again when the picture next changes, no sooner than the frame period, and at least once a
            # second (the tick: a timed series' end).
            redraw = picture.redraw
            timeout = 1.0 if redraw is None else min(1.0, max(frame_period, redraw - self.clock()))
            if self.watchdog_every:
                timeout = min(timeout, max(0.0, next_ping - self.clock()))
            try:
                item = self._queue.get(timeout=timeout)
            except queue.Empty:
                now = self.clock()
                if now < next_tick and not (self.watchdog_every and now >= next_ping):
                    picture = self._draw()  # a frame alone needs no command and no transaction
                    continue
                next_tick = now + 1.0
                item = (c.Tick(), Future())
            if item is None:
                break
            command, future = item
            if not future.set_running_or_notify_cancel():
                continue  # its caller gave up waiting (Runtime.call): it is not done
            try:
                future.set_result(self._command(command))
            except Exception as err:  # a command must never kill the loop; the caller gets the error
                future.set_exception(err)
            self._computer_turn()
            if self.watchdog and self.watchdog_every and self.clock() >= next_ping:
                self.watchdog()
                next_ping = self.clock() + self.watchdog_every
            picture = self._draw()

    def _draw(self) -> Picture:
        board = self.board
        return self.painter.draw(board.session, board.settings, board.effects, self.clock())

    def _computer_turn(self) -> None:
        roll = self.board.computer_turn()
        if roll is not None:
            self._queue.put((roll, Future()))

    def _command(self, command: c.Command):
        """Run a command in one transaction; publish what it changed only once that has committed. A
        refusal has changed nothing. Any other failure rolls back and brings the board back to what the
        store holds, so nothing is shown that is not stored."""
        board = self.board
        board.unpublished = None
        before = (board.session.game_id, board.session.hands.chores)  # no failed write moves the stones
        try:
            with self.store.transaction():
                return board.handle(command)
        except (CommandError, IllegalAction):
            raise
        except REFUSALS as err:
            raise CommandError(str(err)) from None
        except Exception as err:
            board.unpublished = None  # what it changed was not stored: it is never shown
            name = type(command).__name__
            if not isinstance(err, sqlite3.Error):
                log.exception("command %s failed", name)
                board.recover("", before)
                raise
            log.error("command %s could not be stored: %s", name, err)
            board.recover(f"could not save ({err}): nothing changed", before)
            raise StorageError(f"could not save ({err}): nothing changed; try again") from None
        finally:
            self._deliver()

    def _deliver(self) -> None:
        made, self.board.unpublished = self.board.unpublished, None
        if made is not None:
            self.feed.publish(made)
