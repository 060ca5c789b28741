"""The companion runtime: one thread owns the game; hardware callbacks and web requests only enqueue.

    inputs (node presses, ROLL/OK/UNDO, the phone) -> queue -> runtime thread -> table/engine
                                                              -> store (committed first)
                                                              -> renderer -> frame sink (LEDs)
                                                              -> change feed (web page)

Every accepted action is committed to SQLite before the board shows it: each command runs in one
transaction, and what it changed is drawn and published only once that has committed. A command whose
writes fail (a full disk, a locked database) changes nothing: the transaction rolls back and the runtime
goes back to what the store holds. On start the newest game is rebuilt from its events, so a power cut
loses nothing that was acknowledged. Hardware is reached only
through the callables passed in (``frame_sink``, ``sound``), so the same loop runs on the Pi, on the
simulator and in tests.
"""

from __future__ import annotations

import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, replace
from itertools import islice
from typing import Any

from companion import ai
from companion.games.composed import interpreter as composed
from companion.games.composed import schema as composition
from companion.games.die import Die
from companion.games.engine import Game, IllegalAction, OptionError, UnknownGame, find
from companion.games.series import Series, SeriesError
from companion.rules import node as nd
from companion.service.config import TIME_SCALES, Config, ConfigError
from companion.service.store import ACTION, UNDO, Store, StoreError
from companion.session.hands import Feedback, Hands
from companion.session.renderer import Effects, Picture, render
from companion.session.seating import HUMAN, SEATS, by_player, by_seat, next_along, seating

log = logging.getLogger(__name__)

# The menu's ROLL: each press one step dimmer, down to night mode, then the brightest again. The last
# step is the dimmest the LEDs show colours at; the steps no brighter than night mode are left out.
BRIGHTNESS_STEPS = (1.0, 0.6, 0.4, 0.25)
GO_ON = "continue"  # a new game goes on with the series being played
DEFAULT_GAME = "ez-gryb"
CLOTH_DEPTH = nd.STANDARD_DEPTH  # the printed bandanna is the standard board
COMPOSITIONS = "compositions"  # saved compositions, in the state directory
NEW_GAME_SINCE = "a new game has started since: look at the board again"  # to a page showing the game before
MOVED_SINCE = "the game has moved on since: look at the board again"  # to a page showing an older position


class CommandError(ValueError):
    """A command the runtime refuses (bad game id, bad option, bad node); the message says why."""


class StorageError(RuntimeError):
    """A command that could not be stored (a full disk, a locked database): it changed nothing."""


DIE_MODES = ("electronic", "physical")


def _player_colours(config: Config, value: Any) -> list[tuple[int, int, int]]:
    """Four '#RRGGBB' texts, checked by the same rules as the config file's (apart, and not the board's)."""
    if not isinstance(value, list) or len(value) != 4 or not all(isinstance(v, str) for v in value):
        raise CommandError("colours is a list of four '#RRGGBB' colours, one per player")
    players = replace(config.players, colours=tuple(value))
    try:
        players.check()
    except ConfigError as err:
        raise CommandError(str(err).replace("players.colours", "colours")) from None
    return [players.rgb(i) for i in range(4)]


@dataclass
class _Command:
    name: str
    args: tuple
    future: Future


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
        self.config = config
        self.store = store
        self.die = die or Die()
        self.frame_sink = frame_sink or (lambda picture: None)
        self._beep = sound or (lambda kind: None)
        self.clock = clock
        self.wall = wall
        self.watchdog = watchdog
        self.watchdog_every = watchdog_every
        self.effects = Effects()
        self.menu = False
        self.least_budget_ma = config.leds.least_budget_ma()  # mA: the layout's LEDs draw about this dark
        self._load_settings()
        self._queue: queue.Queue[_Command | None] = queue.Queue()
        self._listeners: list[queue.Queue] = []
        self._listeners_lock = threading.Lock()
        self._snapshot: dict = {}
        self._version = 0
        self._thread: threading.Thread | None = None
        self._stopping = False  # set by stop(): a search still running ends at its next step
        self.game_id: int | None = None
        self.series: Series | None = None
        self.series_id: int | None = None
        self._series_started = 0.0  # wall-clock seconds: a timed series runs from it
        self.table: Hands
        self.seats: list[str] = []  # per seat: "human" or a computer level
        # Per seat: the player sitting there, who keeps their colour and their place in a series when the
        # start moves round (each new game of a series, and Play again, is begun by the next player along).
        self.order: list[int] = []
        self._thinking: tuple | None = None  # the position a search is running for
        self._hinting: tuple | None = None  # the position a hint's search is running for
        self._undos = 0  # UNDOs taken in this run: part of a position's token (see _position)
        self._seatings = 0  # seats handed over in this run (computer or person): part of the token too
        self._warmed: int | None = None  # the game whose computer-player tables were built ahead (ai.warm)
        # Called on the warming thread once a kind of game's tables are first built (gryb-companion run passes
        # app.settle: they join start-up's objects in the collector's permanent generation); the kinds so far.
        self._settle = settle
        self._settled: set[tuple] = set()
        self._in_command = False
        self._draw_fault: str | None = None  # the last fault in drawing a frame, logged once
        self._unpublished: dict | None = None  # a snapshot waiting for its command's commit
        with store.transaction():
            self._restore()
        self._publish()

    def _load_settings(self) -> None:
        """The settings the page changed (kept in the store), else the config's; a stored value that no
        longer passes the page's own checks is ignored with a log line."""
        config = self.config
        defaults = {
            "colours": None,
            "sounds": config.panel.sounds,
            "budget_ma": config.leds.budget_ma,
            "die": "electronic",
            "time_scale": config.computer.time_scale,
            "brightness": config.leds.brightness,
            "night": config.leds.night,
        }
        values = {}
        for key, default in defaults.items():
            try:
                saved = self.store.setting(key)
                values[key] = default if saved is None else self._check_setting(key, saved)
            except ValueError as err:  # a CommandError, or a value that is not JSON
                log.warning("saved setting %s ignored: %s", key, err)
                values[key] = default
        self.colours = (
            [config.players.rgb(i) for i in range(4)]
            if values["colours"] is None
            else _player_colours(config, values["colours"])
        )
        self.sounds = bool(values["sounds"])
        self.budget_ma = int(values["budget_ma"])
        self.die_mode = values["die"]
        # How long the computer players think, as a multiple of their levels' budgets (the config's
        # computer.time_scale until the page changes it).
        self.time_scale = float(values["time_scale"])
        self.brightness = float(values["brightness"])
        self.effects.night = bool(values["night"])

    # -- start and stop -------------------------------------------------------------------------

    def _restore(self) -> None:
        self.series, self.series_id = None, None
        try:
            row = self.store.current_game()
        except StoreError as err:
            log.error("%s; starting a new game", err)
            row = None
        if row is None:
            self._start_game(find(DEFAULT_GAME), 2, {}, None, None)
            return
        try:
            game = self.store.replay(row)
        except (ValueError, UnknownGame) as err:
            log.error("game %s could not be replayed (%s); starting a new game", row.id, err)
            self._start_game(find(DEFAULT_GAME), 2, {}, None, None)
            return
        self.game_id = row.id
        names = row.names
        if not (
            isinstance(names, list) and len(names) == game.players and all(isinstance(n, str) for n in names)
        ):
            log.error("game %s: stored names %r do not read; the players are numbered", row.id, names)
            names = []
        self.table = Hands(game, list(names), physical_die=self.die_mode == "physical")
        self.seats = self._game_setting(f"seats:{row.id}", [HUMAN] * game.players)
        if not (
            isinstance(self.seats, list)
            and len(self.seats) == game.players
            and all(s in SEATS for s in self.seats)
        ):
            log.error("game %s: stored seats %r do not read; every seat a person's", row.id, self.seats)
            self.seats = [HUMAN] * game.players
        self.order = seating(self._game_setting(f"order:{row.id}"), game.players)
        self._logged = len(game.history)
        self._grybs_seen = game.grybs
        self._warm()
        if row.series_id is not None:
            try:
                data = self.store.series(row.series_id)
                series = None if data is None else Series.from_dict(data)
            except (KeyError, TypeError, ValueError) as err:  # a SeriesError, or not JSON
                log.error(
                    "game %s: its series %s does not read (%s); the game goes on in none",
                    row.id,
                    row.series_id,
                    err,
                )
                series = None
            if series is not None:
                self.series, self.series_id = series, row.series_id
                started = self.store.series_started(row.series_id)
                self._series_started = self.wall() if started is None else started
        # A power cut between an action's event and the game's result (or an undo's events and taking
        # the result back) leaves the two apart: the events are what happened.
        if game.over and row.finished is None:
            self._record_result()
        elif not game.over and row.finished is not None:
            self._reopen_game()
        log.info("restored game %s (%s) after %d actions", row.id, row.game, len(game.history))

    def _game_setting(self, key: str, default: Any = None) -> Any:
        """A value stored with the game being restored (its seats, who sits where); None where it is not
        even JSON, which the checks after it take as not reading."""
        try:
            return self.store.setting(key, default)
        except ValueError:
            return None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="gryb-runtime", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stopping = True
        self._queue.put(None)
        if self._thread is not None:
            self._thread.join(timeout)

    # -- the thread-safe interface (everything below only enqueues) -----------------------------

    def submit(self, name: str, *args) -> Future:
        future: Future = Future()
        self._queue.put(_Command(name, args, future))
        return future

    def call(self, name: str, *args, timeout: float = 10.0):
        """Submit and wait for the result (web requests and tests). A command still waiting in the queue
        when ``timeout`` runs out is withdrawn and the TimeoutError says it was not done, so the player's
        retry is the only one (a stalled UNDO answered "busy" and then run anyway would, with the retry,
        take back two moves); one already running is waited for as long again, since it is being done."""
        future = self.submit(name, *args)
        try:
            return future.result(timeout)
        except TimeoutError:
            if future.cancel():
                raise TimeoutError(f"{name} was not done: the board was busy") from None
            return future.result(timeout)

    def press(self, node_name: str) -> Future:
        return self.submit("press", node_name)

    def snapshot(self) -> dict:
        return self._snapshot

    def subscribe(self) -> queue.Queue:
        q: queue.Queue = queue.Queue(maxsize=64)
        with self._listeners_lock:
            self._listeners.append(q)
        return q

    def unsubscribe(self, q: queue.Queue) -> None:
        with self._listeners_lock:
            if q in self._listeners:
                self._listeners.remove(q)

    # -- the loop ---------------------------------------------------------------------------------

    def _loop(self) -> None:
        # Frames that only animate (a pulse, a blink) come at most at two thirds of the LEDs' frame rate, so
        # the frame-rate cap (a token bucket, hardware/leds.py) always has a token for the frame a press
        # causes: with a picked stone breathing at the full rate the bucket stayed empty, and a press's
        # frame waited for the next slot (up to 1/fps, 33 ms at p99 in bench_runtime).
        frame_period = 1.5 / self.config.leds.fps
        next_ping = next_tick = self.clock()
        self._computer_turn()
        picture = self._draw()
        while True:
            # Draw again when the picture next changes (a blink's next half, a dim pulse's next step), no
            # sooner than the LEDs' frame rate, and at least once a second (the tick: a timed series' end).
            timeout = (
                1.0 if picture.redraw is None else min(1.0, max(frame_period, picture.redraw - self.clock()))
            )
            if self.watchdog_every:
                timeout = min(timeout, max(0.0, next_ping - self.clock()))
            try:
                command = self._queue.get(timeout=timeout)
            except queue.Empty:
                # Nothing came: a frame is due, or the tick (once a second) or the watchdog's ping. A frame
                # alone is drawn without a command and its store transaction (a waiting board draws 20 a second).
                now = self.clock()
                if now < next_tick and not (self.watchdog_every and now >= next_ping):
                    picture = self._draw()
                    continue
                next_tick = now + 1.0
                command = _Command("tick", (), Future())
            if command is None:
                break
            if not command.future.set_running_or_notify_cancel():
                continue  # its caller gave up waiting (Runtime.call): it is not done
            try:
                result = self._command(command)
                command.future.set_result(result)
            except Exception as err:  # a command must never kill the loop; the caller gets the error
                command.future.set_exception(err)
            self._computer_turn()
            if self.watchdog and self.watchdog_every and self.clock() >= next_ping:
                self.watchdog()
                next_ping = self.clock() + self.watchdog_every
            picture = self._draw()

    def _draw(self) -> Picture:
        """The frame for the LEDs. A fault in drawing or showing it is logged (once while it repeats) and the
        frame left dark: the loop, which takes every command, must outlive it (an uncaught KeyError here
        killed the loop, and a restart replayed the game to the same frame and died again)."""
        fault = None
        try:
            picture = render(self.table.game, self.table, self._seat_colours(), self.effects, self.clock())
        except Exception as err:
            fault = self._frame_fault("could not draw the frame: the LEDs stay dark until the next one", err)
            picture = Picture()
        try:
            self.frame_sink(picture)
        except Exception as err:
            fault = self._frame_fault("could not show the frame", err)
        self._draw_fault = fault
        return picture

    def _frame_fault(self, what: str, err: Exception) -> str:
        """Log a fault of the frame unless the last frame had the same one; the fault, to compare with."""
        if repr(err) != self._draw_fault:
            log.error("%s: %r", what, err, exc_info=err)
        return repr(err)

    def _command(self, command: _Command):
        """Run a command in one transaction; publish what it changed only once that has committed. A
        refusal (CommandError, IllegalAction) has changed nothing. Any other failure rolls the transaction
        back and brings the runtime back to what the store holds, so nothing is shown that is not stored
        (a write that failed is a StorageError)."""
        self._in_command, self._unpublished = True, None
        before = (self.game_id, self.table.chores)  # the stones on the cloth: no failed write moves them
        try:
            with self.store.transaction():
                return self._handle(command)
        except (CommandError, IllegalAction):
            raise
        except Exception as err:
            self._unpublished = None  # what it changed was not stored: it is never shown
            if not isinstance(err, sqlite3.Error):
                log.exception("command %s failed", command.name)
                self._recover("", before)
                raise
            log.error("command %s could not be stored: %s", command.name, err)
            self._recover(f"could not save ({err}): nothing changed", before)
            raise StorageError(f"could not save ({err}): nothing changed; try again") from None
        finally:
            self._in_command = False
            self._deliver()

    def _recover(self, message: str, before: tuple) -> None:
        """After a command failed part-way: back to what the store holds (its transaction rolled back).
        ``before``: the game and its chores when the command began; the stones the players were asked to
        lift or put down before it are still to be moved (the store does not keep chores)."""
        try:
            with self.store.transaction():
                self._load_settings()
                self._restore()
            game_id, chores = before
            if self.game_id == game_id:
                self.table.chores = chores
        except Exception:  # the store cannot even be read: keep what is in memory
            log.exception("could not reload the game from the store")
        self._thinking = None
        self.effects = Effects(night=self.effects.night, code=self.effects.code)
        if message:
            self.table.message = message
        self._publish(Feedback(False, message) if message else None)

    def _handle(self, command: _Command):
        handler = getattr(self, f"_do_{command.name}", None)
        if handler is None:
            raise CommandError(f"unknown command {command.name!r}")
        return handler(*command.args)

    # -- commands (run on the runtime thread only) -------------------------------------------------

    # What a page may ask for the game it shows (``in_game``).
    IN_GAME = frozenset({"press", "act", "roll", "ok", "undo", "again"})

    def _same_game(self, game_id: int | None) -> None:
        if game_id is not None and game_id != self.game_id:
            raise CommandError(NEW_GAME_SINCE)

    def _same_ply(self, ply: int | None) -> None:
        """UNDO and OK from a page, meant for the position it showed (``ply``: its number of actions). Two
        phones tapping UNDO at once would otherwise take back two moves, and a second OK end the next
        player's turn. A press needs no such check: the table refuses a press that makes no sense."""
        if ply is not None and ply != len(self.table.game.history):
            raise CommandError(MOVED_SINCE)

    def _do_in_game(self, game_id: int, name: str, *args):
        """A press, move or button from a page, meant for the game it showed (``game_id``): refused when a
        new game has begun since, as another phone started one or Play again was pressed (the move was
        made in the new game, and the phone that sent it told it was made). Checked here, on the runtime's
        thread, where no new game can begin between the check and the move."""
        if name not in self.IN_GAME:
            raise CommandError(f"{name!r} is not one of {', '.join(sorted(self.IN_GAME))}")
        self._same_game(game_id)
        return getattr(self, f"_do_{name}")(*args)

    def _do_tick(self) -> None:
        """Nothing came for a while (the loop wakes at least once a second): a timed series whose time ran
        out since the last change is published as over, so the page and the history say so at once."""
        published = self._snapshot.get("series")
        if published and not published["over"] and self.series and self.series.over(self._series_elapsed()):
            self._publish()

    def on_cloth(self) -> bool:
        """Whether the game fits the cloth. Boards up to the standard depth are its upper levels, node for
        node; a Giant or Super Giant board (four or sixteen bandannas in the manual) does not fit one, so
        such a game is played on the phone's board and the cloth shows only the status pixels."""
        return self.table.game.space.depth <= CLOTH_DEPTH

    def _do_cloth(self, node_name: str) -> Feedback:
        """A press on the cloth (from the node buttons)."""
        if not self.on_cloth():
            return self._after(
                Feedback(
                    False,
                    f"this {self.table.game.space.depth}-level board does not fit the "
                    "cloth: press on the phone's board",
                )
            )
        return self._do_press(node_name)

    def _do_press(self, node_name: str) -> Feedback:
        space = self.table.game.space
        try:
            node = space.parse(node_name)
        except ValueError as err:
            try:  # a node of the board that this game leaves out (the head node of a headless one): refused
                node = nd.parse(node_name, space.depth)
            except ValueError:
                raise CommandError(str(err)) from None
            return self._after(Feedback(False, f"{err}: {self.table.game.name} does not use it", node))
        if self.menu:
            return Feedback(False, "the menu is open: OK to close it")
        if thinking := self._computer_thinking():
            return self._after(Feedback(False, thinking, node))
        return self._after(self.table.press(node))

    def _do_release(self, node_name: str) -> None:
        return None

    def _do_roll(self) -> Feedback:
        if self.menu:
            return Feedback(True, self._step_brightness())
        game = self.table.game
        computer = None if self.seats[game.to_move] == HUMAN else self.table.names[game.to_move]
        feedback = self._after(self.table.roll(self.die, computer=computer))  # a physical die: whose it is
        if feedback.rolled and feedback.ok:
            self.effects.die_started = self.clock()
            self.sound("roll")
        return feedback

    def _do_ok(self, ply: int | None = None) -> Feedback:
        self._same_ply(ply)
        if self.menu:
            self.menu = False
            self._publish()
            return Feedback(True, "menu closed")
        if self.table.game.over and not self.table.chores:
            return self._play_again()
        if thinking := self._computer_thinking():
            return self._after(Feedback(False, thinking))
        return self._after(self.table.ok())

    def _do_again(self) -> Feedback:
        """The page's Play again: what OK does at a game's end."""
        if not self.table.game.over:
            return Feedback(False, "the game is not over yet: play it out, or choose a new game")
        return self._play_again()

    def _play_again(self) -> Feedback:
        """OK at a game's end (the page's Play again), from the board alone: the same game, options, players
        and computer levels again, begun by the next player along; a series still on goes on, and one that
        is over starts again as it was played (the same method and target), as players at a table would
        play the return match."""
        game, series = self.table.game, self.series
        again = None if series is None else GO_ON
        if series is not None and series.players == game.players and series.over(self._series_elapsed()):
            again = {"method": series.method, "target": series.target}
        self._new_game(
            game.id,
            game.players,
            dict(game.settings),
            by_player(self.table.names, self.order),
            again,
            by_player(self.seats, self.order),
            turn=True,
            cls=type(game),
        )
        first = self.table.names[0]
        new_series = ", a new series" if isinstance(again, dict) else ""
        feedback = Feedback(True, f"{game.name} again{new_series}: {first} begins")
        self.table.message = feedback.message
        self._publish(feedback)
        return feedback

    def _do_undo(self, ply: int | None = None) -> Feedback:
        self._same_ply(ply)
        if self.menu:
            self.menu = False
            self._publish()
            return Feedback(True, "menu closed")
        game = self.table.game
        # Against the computer, UNDO goes back to a human's own last move: the computer's replies (and a
        # proposal not yet carried out) are taken back too, a computer's opening never.
        people = {p for p, kind in enumerate(self.seats) if kind == HUMAN} or set(range(game.players))
        was_over = game.over
        undone = self.table.undo_for(people)
        if not undone:
            return self._after(Feedback(False, self.table.message))
        self._thinking, self._undos = None, self._undos + 1
        for _ in undone:
            self.store.append(self.game_id, UNDO, None, self.wall())
        if was_over and not game.over:
            self._reopen_game()
        # The log stays append-only (the undos are in it); the history is now shorter.
        self._logged = len(game.history)
        self._grybs_seen = game.grybs
        log.info("game %s: undo %s", self.game_id, " ".join(map(str, undone)))
        self.sound("undo")
        self._publish()
        return Feedback(True, self.table.message)

    def _do_menu(self) -> Feedback:
        self.menu = not self.menu
        self._publish()
        return Feedback(
            True,
            "menu open: ROLL dims the board step by step down to night mode, OK closes"
            if self.menu
            else "menu closed",
        )

    # -- compositions (docs/composer.md): the runtime owns the catalogue, so it adds and removes ----------

    @property
    def library(self) -> composition.Library:
        return composition.Library(self.config.state.path() / COMPOSITIONS)

    def _do_compose(self, text: str, fmt: str = "toml", replace: bool = False) -> dict:
        try:
            rules = composition.loads(text, fmt)
            cls = composed.save_and_install(self.library, rules, replace=replace)
        except (composition.CompositionError, OptionError) as err:
            raise CommandError(str(err)) from None
        except OSError as err:  # the state directory cannot be made or written: nothing was saved
            raise CommandError(f"cannot save in {self.library.folder}: {err.strerror or err}") from None
        log.info("composition %s saved", rules.id)
        self._publish()
        return {"id": cls.id, "name": cls.name}

    def _do_forget_composition(self, game_id: str) -> None:
        try:
            composed.forget(self.library, game_id)
        except composition.CompositionError as err:
            raise CommandError(str(err)) from None
        log.info("composition %s deleted", game_id)
        self._publish()

    def _do_act(self, text: str) -> Feedback:
        """An action typed or tapped on the phone, in the notation (e.g. a move of a line)."""
        try:
            action = self.table.game.parse(text)
        except IllegalAction as err:
            raise CommandError(err.reason) from None
        if action.kind == "roll" and not self.table.physical_die:
            raise CommandError("the die is rolled with ROLL, not typed in")
        if thinking := self._computer_thinking():
            return self._after(Feedback(False, thinking))
        return self._after(self.table.act(action, pressed=action.sources + action.targets))

    def _do_new_game(
        self,
        game_id: str,
        players: int = 2,
        options: dict | None = None,
        names: list[str] | None = None,
        series: dict | None = None,
        seats: list[str] | None = None,
    ) -> dict:
        self._new_game(game_id, players, options, names, series, seats)
        return self._publish()

    def _new_game(
        self,
        game_id: str,
        players: int,
        options: dict | None,
        names: list[str] | None,
        series: dict | str | None,
        seats: list[str] | None,
        turn: bool = False,
        cls: type[Game] | None = None,
    ) -> None:
        """Check a new game's choices and start it (the caller publishes it). ``series``: a dict starts a
        new one; ``GO_ON`` goes on with the series being played (not over, for as many players); None is
        just this game, and a series being played ends with the game before.
        ``names`` and ``seats`` are the players' in their order (player 1 first, as the page lists them).
        A game that goes on with a series, or is played again (``turn``), is begun by the player after the
        one who began the last; any other seats the players in their order, player 1 first. ``cls`` is the
        game's class where it is known already (Play again: a composition deleted since still plays)."""
        seats = list(seats or [HUMAN] * players)
        if len(seats) != players or any(s not in SEATS for s in seats):
            raise CommandError(f"seats: one of {', '.join(SEATS)} for each of the {players} players")
        try:
            cls = cls or find(game_id)
            cls(players, **(options or {}))
        except (UnknownGame, OptionError) as err:
            raise CommandError(str(err.args[0] if err.args else err)) from None
        if series == GO_ON:
            if self.series is None:
                raise CommandError("no series is being played: start one, or play just this game")
            if self.series.over(self._series_elapsed()):
                raise CommandError("the series is over: start a new one, or play just this game")
            if self.series.players != players:
                raise CommandError(
                    f"the series being played is for {self.series.players} players: "
                    f"choose {self.series.players}, or play just this game"
                )
            turn = True
        elif isinstance(series, dict):
            try:
                self.series = Series(players, series.get("method", "games"), int(series.get("target", 5)))
            except (SeriesError, TypeError, ValueError) as err:
                raise CommandError(str(err)) from None
            self.series_id = self.store.new_series(self.series.to_dict() | {"game": game_id}, self.wall())
            self._series_started = self.wall()
        elif series is None:
            self.series, self.series_id = None, None
        else:
            raise CommandError(f"series: a method and target, {GO_ON!r} or none")
        order = list(range(players))
        if turn and len(self.order) == players:
            order = next_along(self.order)
        self._start_game(cls, players, options or {}, names, self.series_id, seats, order)

    def _do_seat(self, seat: int, kind: str, game_id: int | None = None) -> Feedback:
        """Hand a seat over during the game: to the computer at a level (a player who has to go, or wants
        to watch it play on), or back to a person. The player keeps their colour, place and scores; a name
        the companion gave ("Player 2", "Computer (hard)") becomes the one it gives the new kind, a name
        the players chose stays. ``game_id`` (the page's) refuses a change meant for a game since
        replaced. A move the computer proposed and not yet carried out, a selection and a hint of the
        seat to move are put away; the new kind takes over that turn as it stands (with the roll made)."""
        self._same_game(game_id)
        game = self.table.game
        if type(seat) is not int or not 0 <= seat < game.players:
            raise CommandError(f"seat: 0 to {game.players - 1}, one for each of the {game.players} players")
        if kind not in SEATS:
            raise CommandError(f"a seat is one of {', '.join(SEATS)}")
        was, names = self.seats[seat], list(self.table.names)
        before = names[seat]
        if kind == was:
            return Feedback(True, f"{names[seat]} plays on as before")
        if names[seat] == self._given_name(self.order[seat], was):
            names[seat] = self._given_name(self.order[seat], kind)
        self.seats = self.seats[:seat] + [kind] + self.seats[seat + 1 :]
        self.store.set_setting(f"seats:{self.game_id}", self.seats)
        self._warm()
        if names != self.table.names:
            self.store.rename(self.game_id, names)
            self.table.names = names
        self._seatings += 1  # a search under way for the old kind is not used
        table = self.table
        if seat == game.to_move and not game.over:
            table.drop()  # before the proposal goes: a stone lifted for it is to be put back
            table.proposal, table.hint, table.choices = None, None, ()
        table.message = (
            f"a person plays for {names[seat]} now"
            if kind == HUMAN
            else f"the computer ({kind}) plays for {before} now"
        )
        log.info("game %s: seat %d now %s", self.game_id, seat + 1, kind)
        self._publish(Feedback(True, table.message))
        return Feedback(True, table.message)

    def _do_set(self, key: str, value: Any) -> dict:
        return self._do_settings({key: value})

    def _do_settings(self, changes: dict) -> dict:
        """Change several settings at once: all are checked before any changes (and is stored)."""
        checked = {key: self._check_setting(key, value) for key, value in changes.items()}
        for key, value in checked.items():
            if key == "brightness":
                self.brightness = value
            elif key == "night":
                self.effects.night = value
            elif key == "colours":
                self.colours = _player_colours(self.config, value)
            elif key == "die":
                self.die_mode = value
                self.table.physical_die = value == "physical"
            else:
                setattr(self, key, value)
            self.store.set_setting(key, value)
        return self._publish()

    def _check_setting(self, key: str, value: Any) -> Any:
        if key == "brightness":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise CommandError("brightness is a number from 0 to 1")
            return float(value)
        if key in ("night", "sounds"):
            if not isinstance(value, bool):
                raise CommandError(f"{key} is true or false")
            return value
        if key == "budget_ma":
            least = self.least_budget_ma
            if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= 60000:
                raise CommandError(f"budget_ma is the LED supply's current in mA, {least} to 60000")
            return value
        if key == "colours":
            return ["#%02X%02X%02X" % c for c in _player_colours(self.config, value)]
        if key == "die":
            if value not in DIE_MODES:
                raise CommandError(
                    "die is electronic (the companion rolls) or physical (you roll a GRYB die)"
                )
            return value
        if key == "time_scale":
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not TIME_SCALES[0] <= value <= TIME_SCALES[1]
            ):
                raise CommandError(
                    f"time_scale multiplies the computer players' thinking time, "
                    f"{TIME_SCALES[0]:g} to {TIME_SCALES[1]:g}"
                )
            return float(value)
        raise CommandError(f"no setting {key!r}")

    def _do_show_code(self, code: str | None) -> None:
        """Show a pairing code on the board (None hides it). The code never goes to the change feed."""
        if code is not None and (len(code) != 4 or any(c not in "GRYB" for c in code)):
            raise CommandError("a pairing code is four of G, R, Y, B")
        self.effects.code = tuple(code) if code else None

    def sound(self, kind: str) -> None:
        if self.sounds:
            self._beep(kind)

    def _do_hint(self) -> Feedback:
        """Start a search for the human to move; the hint appears on the board and page when ready."""
        game = self.table.game
        if game.over:
            raise CommandError("the game is over: OK plays it again")
        if game.is_chance:
            raise CommandError("roll first: the hint is for the move after the roll")
        if self.seats[game.to_move] != HUMAN:
            raise CommandError("the computer is to move")
        if self._hinting != self._position():  # a second tap while it thinks starts no second search
            self._hinting = self._position()
            self._think(ai.HINT_LEVEL, "hint_ready")
        return Feedback(True, "thinking about a hint")

    def _do_hint_ready(self, token: tuple, text: str | None) -> None:
        if token == self._hinting:
            self._hinting = None
        if token != self._position() or text is None:
            return None  # the game moved on while the search ran, or the search failed
        hint = self.table.game.parse(text)
        # The hint says how to make the move from nothing selected, so a stone picked meanwhile is put down.
        self.table.drop()
        self.table.hint = hint
        first = (
            self.table.chore_reason() + " · " if self.table.chores else ""
        )  # a stone lifted goes back first
        self.table.message = f"{first}hint: {self.table.game.say(hint)} ({self.table.say_how(hint)})"
        self._publish(Feedback(True, self.table.message))
        return None

    def _do_computer(self, token: tuple, text: str | None) -> Feedback | None:
        if token != self._position() or self.table.proposal is not None or text is None:
            return None  # undone or a new game while it thought, or a later search's move already waits
        self._thinking = None
        return self._after(self.table.propose(self.table.game.parse(text)))

    def _do_computer_roll(self, token: tuple) -> Feedback | None:
        if token != self._position():
            return None
        if self.menu:  # opened while this waited in the queue: ROLL steps the brightness there
            self._thinking = None  # asked again when the menu closes
            return None
        if not self.table.physical_die:
            self._thinking = None
        # With a real die the players roll it for the computer. Asked once: _thinking stays on this position
        # until they enter what it shows (re-asking at every turn of the loop spun it flat out).
        return self._do_roll()

    def _computer_thinking(self) -> str | None:
        """Why a press, OK or a move from the phone is refused now: a computer player is to move and its
        move is not proposed yet (None when not so). Chores and the die (a physical one rolled for it)
        are still the players' to do."""
        table, game = self.table, self.table.game
        if (
            game.over
            or game.is_chance
            or table.chores
            or table.proposal is not None
            or self.seats[game.to_move] == HUMAN
        ):
            return None
        return f"{table.names[game.to_move]} is thinking: wait for its move"

    def _position(self) -> tuple:
        """The token a search's answer must match to be used. The history's length alone is not enough: an
        UNDO and another move bring it back to the same length in another position, and a seat handed to a
        person (or to another level) while the computer thought must not get the old search's move."""
        return (self.game_id, len(self.table.game.history), self._undos, self._seatings)

    def _computer_turn(self) -> None:
        """When a computer player is to move: roll for it, or start its search off this thread."""
        table, game = self.table, self.table.game
        if game.over or self.menu or table.chores or table.proposal is not None:
            return
        level = self.seats[game.to_move] if game.to_move < len(self.seats) else HUMAN
        if level == HUMAN or self._thinking == self._position():
            return
        self._thinking = self._position()
        if game.is_chance:
            self._queue.put(_Command("computer_roll", (self._position(),), Future()))
        else:
            self._think(level, "computer")

    def _think(self, level: str, reply: str) -> None:
        """Search a copy of the game on a worker thread; the answer comes back as a command. The search
        ends early once its answer could no longer be used (the position's token has changed: an UNDO, a
        seat handed over, a new game; or the runtime stops): searches on two threads share one
        interpreter (Python's GIL), and one nobody waits for would cost the next nearly half its
        iterations (docs/performance.md, "A search nobody waits for"). The token is read from the worker
        thread; its parts are plain attributes and a list's length, each read whole."""
        board, token = self.table.game.copy(), self._position()
        budget = ai.level(level, self.time_scale, board)

        def moved_on() -> bool:
            return self._stopping or self._position() != token

        def work() -> None:
            # Were the search ever to fail, the computer's seat would wait for a move that never comes, and
            # nothing else may be played for it: it plays its first legal action (taken before the search
            # touches the copy) instead.
            legal = board.legal_actions() if reply == "computer" else []
            try:
                text = str(ai.search(board, budget, stop=moved_on).action)
            except Exception:
                log.exception("the %s search failed", level)
                text = str(legal[0]) if legal else None  # None for a hint: none is shown
            self.submit(reply, token, text)

        threading.Thread(target=work, name=f"gryb-{reply}", daemon=True).start()

    def _do_snapshot(self) -> dict:
        return self._snapshot

    # -- internals --------------------------------------------------------------------------------

    def _start_game(
        self,
        cls: type[Game],
        players: int,
        options: dict,
        names,
        series_id,
        seats: list[str] | None = None,
        order: list[int] | None = None,
    ) -> None:
        """``names`` and ``seats`` are the players', in their order; ``order`` says who sits where."""
        game = cls(players, **options)
        kinds = list(seats or [HUMAN] * players)
        names = [
            names[p] if names and p < len(names) and names[p] else self._given_name(p, kinds[p])
            for p in range(players)
        ]
        self.order = list(order or range(players))
        self.seats, names = by_seat(kinds, self.order), by_seat(names, self.order)
        self.game_id = self.store.new_game(game, names, self.die.seed, series_id, self.wall())
        if any(s != HUMAN for s in self.seats):
            self.store.set_setting(f"seats:{self.game_id}", self.seats)
        if self.order != sorted(self.order):
            self.store.set_setting(f"order:{self.game_id}", self.order)
        self.table = Hands(game, names, physical_die=self.die_mode == "physical")
        self._logged = 0
        self._grybs_seen = game.grybs
        self.effects = Effects(
            night=self.effects.night, code=self.effects.code
        )  # a pairing under way stays shown
        log.info("game %s: new %s for %d players", self.game_id, game.id, players)
        self._warm()

    def _warm(self) -> None:
        """With a computer player at the table, build what its first search would otherwise build inside
        its time budget (ai.warm: the GRYB index, a game's tables) on a thread of its own, while the players
        make their first moves: the loop never waits for it, and a search started meanwhile still keeps its
        budget. Once a game: a seat handed to the computer later warms it then.

        The first time a kind of game (its class and board) is warmed in this process, ``settle`` (if
        given) is called after: what the game built (Hyper-Chess's tables, a board's GRYB index, tens of
        thousands of objects) lives as long as the process, and a full garbage collection that walks it
        takes 10-30 ms here, several times that on a Pi; settled, it is walked once, here, off the loop
        (docs/performance.md, "Garbage collection while the computer plays"). That walk holds the
        interpreter: a search under way meanwhile (the computer moving first) loses it from its budget."""
        game = self.table.game
        if self._warmed == self.game_id or all(s == HUMAN for s in self.seats):
            return
        self._warmed = self.game_id
        board = game.copy()
        kind = (type(game), game.space)

        def work() -> None:
            try:
                ai.warm(board)
            except Exception:  # only a speed-up: a failure costs the first search its head start, no more
                log.exception("warming the computer player's tables failed")
                return
            if self._settle is not None and kind not in self._settled:
                self._settled.add(kind)
                began = time.perf_counter()
                self._settle()
                log.info(
                    "%s: its tables settled in %.1f ms (no garbage collection walks them again)",
                    board.name,
                    (time.perf_counter() - began) * 1000,
                )

        threading.Thread(target=work, name="gryb-warm", daemon=True).start()

    def _given_name(self, player: int, kind: str) -> str:
        """The name the companion gives a player who was given none: the config's, or the computer's level."""
        return self.config.players.names[player] if kind == HUMAN else f"Computer ({kind})"

    def _after(self, feedback: Feedback) -> Feedback:
        """Persist what the engine accepted, then sound, effects and the change feed."""
        game = self.table.game
        new = [a for a, _ in game.history[self._logged :]]
        for action in new:
            self.store.append(self.game_id, ACTION, str(action), self.wall())
        self._logged = len(game.history)
        if new:
            log.info("game %s: %s", self.game_id, " ".join(map(str, new)))
        if not feedback.ok:
            self.effects.flash = (feedback.node, self.clock())
            self.sound("illegal")
        elif game.grybs and (game.grybs != self._grybs_seen or new and game.formed()):
            # formed(): the same four nodes formed again (Square Deal fills and captures a quadrangle twice)
            self.effects.gryb_started = self.clock()
            self.sound("gryb")
        self._grybs_seen = game.grybs
        if game.over and new and self.effects.ended is None:
            self.effects.ended = self.clock()
            self._finish_game()
        self._publish(feedback)
        return feedback

    def _finish_game(self) -> None:
        self._record_result()
        self.sound("win" if self.table.game.winners else "draw")

    def _record_result(self) -> None:
        """The game's result into the series (while it still counts) and then the store. In that order,
        and the series never counting a game twice, a power cut between the two is mended on restart
        (the game is over but not finished in the store: this runs again)."""
        game = self.table.game
        series = self.series
        if series is not None and series.accepts() and all(g.game != self.game_id for g in series.games):
            elapsed = self._series_elapsed()
            # The series counts by player, whichever seat they had in this game.
            series.add(
                by_player(game.scores, self.order),
                sorted(self.order[w] for w in game.winners),
                ended_at=elapsed,
                game=self.game_id,
            )
            self.store.save_series(
                self.series_id, series.to_dict(), self.wall() if series.over(elapsed) else None
            )
        result = {"winners": list(game.winners), "scores": list(game.scores)}
        self.store.finish_game(self.game_id, result, self.wall())
        log.info("game %s over: winners %s, scores %s", self.game_id, list(game.winners), list(game.scores))

    def _series_elapsed(self) -> float:
        # A Pi has no clock of its own while off: it may start before its network time puts the clock
        # right, earlier than the series began. The series then waits at 0, not at minus an hour.
        return max(0.0, self.wall() - self._series_started)

    def _seat_colours(self) -> list[tuple[int, int, int]]:
        """The stone colour of each seat: its player's (then the unused players')."""
        return by_seat(self.colours, self.order) + self.colours[len(self.order) :]

    def _series_dict(self) -> dict:
        """The series for the snapshot: its games and totals, whether it is over and who won it."""
        elapsed = self._series_elapsed()
        return self.series.to_dict() | {
            "id": self.series_id,
            "over": self.series.over(elapsed),
            "names": by_player(self.table.names, self.order),
            "winners": list(self.series.winners(elapsed)),
            "elapsed": round(elapsed, 1),
        }

    def _reopen_game(self) -> None:
        """UNDO took back a finished game's last move (or a restart found it so): it is in play again, and
        its result leaves the series and the store until it ends anew (so it is never counted twice)."""
        if self.series is not None and self.series.taken_back(self.game_id):
            self.store.save_series(self.series_id, self.series.to_dict(), None)
        self.store.reopen_game(self.game_id)
        self.effects.ended = None
        log.info("game %s: in play again after undo", self.game_id)

    def _step_brightness(self) -> str:
        """ROLL in the menu: one step dimmer, night mode after the dimmest step, then the brightest again.
        At a dark table the players press ROLL until the board stops dazzling: one button that only
        ever dims until it starts again, each step one they can see (a step no brighter than night mode
        would look like it). Night mode keeps the brightness it was entered from, as the phone's switch
        does (the LEDs show the dimmer of the two). Returns what the board says."""
        night = self.config.leds.night_brightness
        steps = [s for s in BRIGHTNESS_STEPS if s > night] or [BRIGHTNESS_STEPS[0]]
        nearest = min(range(len(steps)), key=lambda i: abs(steps[i] - self.brightness))
        if self.effects.night:
            self.effects.night, self.brightness = False, steps[0]
        elif nearest + 1 < len(steps):
            self.brightness = steps[nearest + 1]
        else:
            self.effects.night = True
        self.store.set_setting("brightness", self.brightness)
        self.store.set_setting("night", self.effects.night)
        self._publish()
        if not self.effects.night:
            return f"brightness {round(self.brightness * 100)} %"
        return "night mode" if night else "night mode: the LEDs are off"

    def _publish(self, feedback: Feedback | None = None) -> dict:
        """The state for the page and its change feed; during a command it goes out once the command's
        transaction has committed (:meth:`_deliver`). Returns it."""
        game = self.table.game
        self._version += 1
        snapshot = {
            "version": self._version,
            "game_id": self.game_id,
            "game": game.describe() | {"settings": game.settings},
            "board": {
                "depth": game.space.depth,
                "headless": game.space.headless,
                "on_cloth": self.on_cloth(),
            },
            "players": game.players,
            "ply": len(game.history),  # the actions so far: UNDO and OK from a page carry it (_same_ply)
            "state": game.state_dict(),
            "table": self.table.to_dict(),
            "legal": [str(a) for a in islice(self.table.legal(), 400)],
            "seats": self.seats,
            "order": self.order,
            "series": None if self.series is None else self._series_dict(),
            "settings": {
                "brightness": self.brightness,
                "night": self.effects.night,
                "menu": self.menu,
                "sounds": self.sounds,
                "budget_ma": self.budget_ma,
                "die": self.die_mode,
                "time_scale": self.time_scale,
                "colours": ["#%02X%02X%02X" % c for c in self.colours],
            },
            "colours": ["#%02x%02x%02x" % c for c in self._seat_colours()[: game.players]],
            "feedback": None if feedback is None else {"ok": feedback.ok, "message": feedback.message},
        }
        self._unpublished = snapshot
        if not self._in_command:
            self._deliver()
        return snapshot

    def _deliver(self) -> None:
        snapshot, self._unpublished = self._unpublished, None
        if snapshot is None:
            return
        self._snapshot = snapshot
        with self._listeners_lock:
            listeners = list(self._listeners)
        for q in listeners:
            try:
                q.put_nowait(snapshot)
            except queue.Full:  # a stalled page skips to the newest state when it catches up
                try:
                    q.get_nowait()
                    q.put_nowait(snapshot)
                except (queue.Empty, queue.Full):
                    pass
