"""The runtime: one thread owns the board; hardware callbacks and web requests only submit commands, each
run in one transaction and shown once that has committed (docs/runtime.md, "One owner")."""

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

# Refusals: said to the caller, nothing changed.
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
        fresh_code: Callable[[], None] | None = None,
        stones: str = "cloth",
    ):
        self.config, self.store, self.clock = config, store, clock
        self.watchdog, self.watchdog_every = watchdog, watchdog_every
        self.painter = Painter(frame_sink or (lambda picture: None))
        self.feed = Feed()
        self._queue: queue.Queue[tuple[c.Command, Future] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self.board = Board(
            config,
            store,
            submit=self.submit,
            die=die,
            sound=sound,
            clock=clock,
            wall=wall,
            settle=settle,
            fresh_code=fresh_code,
            stones=stones,
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

    # -- the thread-safe interface --

    def submit(self, command: c.Command) -> Future:
        """Queue a command, checked against its declaration on the caller's thread."""
        if not isinstance(command, c.Command):
            raise CommandError(f"unknown command {command!r}")
        command.validate()
        future: Future = Future()
        self._queue.put((command, future))
        return future

    def call(self, command: c.Command, timeout: float = 10.0):
        """Submit and wait. One still queued at ``timeout`` is withdrawn, so the player's retry is the only
        one (docs/runtime.md, "One owner"); one already running is waited for as long again."""
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

    # -- the loop --

    def _loop(self) -> None:
        # Animation takes at most 2/3 of the frame rate: the LEDs' cap keeps a token for a press's frame.
        frame_period = 1.5 / self.config.leds.fps
        next_ping = next_tick = self.clock()
        self._computer_turn()
        picture = self._draw()
        while True:
            # Draw when the picture changes, no sooner than a frame period; tick once a second.
            redraw = picture.redraw
            timeout = 1.0 if redraw is None else min(1.0, max(frame_period, redraw - self.clock()))
            if self.watchdog_every:
                timeout = min(timeout, max(0.0, next_ping - self.clock()))
            try:
                item = self._queue.get(timeout=timeout)
            except queue.Empty:
                now = self.clock()
                if now < next_tick and not (self.watchdog_every and now >= next_ping):
                    picture = self._draw()  # a frame alone: no command, no transaction
                    continue
                next_tick = now + 1.0
                item = (c.Tick(), Future())
            if item is None:
                break
            command, future = item
            if not future.set_running_or_notify_cancel():
                continue  # withdrawn by Runtime.call: not done
            try:
                future.set_result(self._command(command))
            except Exception as err:  # never kills the loop; the caller gets it
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
        """One transaction, published once committed; a failure goes back to what the store holds."""
        board = self.board
        board.unpublished = None
        before = (board.session.game_id, board.session.hands.chores)  # a failed write moves no stone
        try:
            with self.store.transaction():
                return board.handle(command)
        except (CommandError, IllegalAction):
            raise
        except REFUSALS as err:
            raise CommandError(str(err)) from None
        except Exception as err:
            board.unpublished = None  # not stored: never shown
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
