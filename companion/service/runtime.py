"""The companion runtime: one thread owns the session; hardware callbacks and web requests only submit.

    inputs (node presses, ROLL/OK/UNDO, the phone) -> queue -> runtime thread -> session (game, hands)
                                                              -> store (committed first)
                                                              -> renderer -> frame sink (LEDs)
                                                              -> change feed (web page)

Every accepted action is committed to SQLite before the board shows it: each command runs in one
transaction, and what it changed is drawn and published once that has committed. A command whose writes
fail changes nothing: the transaction rolls back and the runtime goes back to what the store holds. On
start the newest game is rebuilt from its events. Hardware is reached only through the callables passed
in (``frame_sink``, ``sound``), so the same loop runs on the Pi, on the simulator and in tests.
"""

from __future__ import annotations

import logging
import queue
import sqlite3
import threading
import time
from concurrent.futures import Future
from itertools import islice
from typing import Any, Callable

from companion import ai
from companion.games.composed import interpreter as composed
from companion.games.composed import schema as composition
from companion.games.die import Die
from companion.games.engine import Game, IllegalAction, OptionError, UnknownGame, find
from companion.games.series import Series, SeriesError
from companion.rules import node as nd
from companion.service import commands as c
from companion.service.commands import CommandError
from companion.service.computer import Computer
from companion.service.config import Config
from companion.service.ledger import Ledger
from companion.service.settings import Settings
from companion.service.store import Store
from companion.session.hands import Feedback
from companion.session.renderer import Effects, Picture, render
from companion.session.seating import by_seat
from companion.session.session import Session, SessionError

log = logging.getLogger(__name__)

CLOTH_DEPTH = nd.STANDARD_DEPTH  # the printed bandanna is the standard board
COMPOSITIONS = "compositions"  # saved compositions, in the state directory
NEW_GAME_SINCE = "a new game has started since: look at the board again"  # to a page showing the game before
MOVED_SINCE = "the game has moved on since: look at the board again"  # to a page showing an older position
SOUNDS = ("roll", "illegal", "gryb", "win", "draw", "undo")  # what ``sound`` is asked to play


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
        self.config, self.store, self.die = config, store, die or Die()
        self.frame_sink = frame_sink or (lambda picture: None)
        self._beep = sound or (lambda kind: None)
        self.clock, self.wall = clock, wall
        self.watchdog, self.watchdog_every = watchdog, watchdog_every
        self.effects = Effects()
        self.menu = False
        self.least_budget_ma = config.leds.least_budget_ma()  # mA: the layout's LEDs draw about this dark
        self.settings = Settings.load(config, self.least_budget_ma, store.setting)
        self.ledger = Ledger(store, wall)
        self.computer = Computer(self.submit, self._position, settle)
        self._queue: queue.Queue[c.Command | None] = queue.Queue()
        self._listeners: list[queue.Queue] = []
        self._listeners_lock = threading.Lock()
        self._snapshot: dict = {}
        self._version = 0
        self._thread: threading.Thread | None = None
        self._thinking: tuple | None = None  # the position a computer's search (or roll) is running for
        self._hinting: tuple | None = None  # the position a hint's search is running for
        self._undos = 0  # UNDOs taken in this run: part of a position's token
        self._in_command = False
        self._draw_fault: str | None = None  # the last fault in drawing a frame, logged once
        self._unpublished: dict | None = None  # a snapshot waiting for its command's commit
        self.session: Session
        self._handlers: dict[type, Callable[[Any], Any]] = {
            c.Snapshot: lambda _: self._snapshot,
            c.Tick: self._tick,
            c.Read: lambda command: command.look(self.session),
            c.Press: self._press,
            c.ClothPress: self._cloth_press,
            c.Roll: self._roll,
            c.Ok: self._ok,
            c.Again: self._again,
            c.Undo: self._undo,
            c.Act: self._act,
            c.Menu: self._menu,
            c.Hint: self._hint,
            c.HintReady: self._hint_ready,
            c.ComputerMove: self._computer_move,
            c.ComputerRoll: self._computer_roll,
            c.Seat: self._seat,
            c.NewGame: self._new_game,
            c.ChangeSettings: self._change_settings,
            c.ShowCode: self._show_code,
            c.Compose: self._compose,
            c.ForgetComposition: self._forget_composition,
        }
        with store.transaction():
            self._restore()
        self._publish()

    @property
    def game_id(self) -> int | None:
        return self.session.game_id

    def _restore(self) -> None:
        session = self.ledger.restore(self._begin)
        if session is None:
            self._start(self.ledger.default_game(), None, None, None, None)
        else:
            self.session = session
            self._grybs_seen = session.game.grybs
            self._warm()

    def _begin(self, game: Game, names, kinds, order, series: Series | None = None) -> Session:
        return Session.begin(
            game,
            names,
            kinds,
            order,
            people=self.config.players.names,
            physical_die=self.settings.die == "physical",
            series=series,
        )

    # -- the thread-safe interface ------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="gryb-runtime", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self.computer.stopping = True  # a search still running ends at its next step
        self._queue.put(None)
        if self._thread is not None:
            self._thread.join(timeout)

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
                raise TimeoutError(
                    f"{type(command).__name__.lower()} was not done: the board was busy"
                ) from None
            return future.result(timeout)

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
            timeout = (
                1.0 if picture.redraw is None else min(1.0, max(frame_period, picture.redraw - self.clock()))
            )
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
        """The frame for the LEDs. A fault in drawing or showing it is logged (once while it repeats) and the
        frame left dark: the loop, which takes every command, must outlive it."""
        fault = None
        try:
            colours = self._seat_colours()
            picture = render(self.session.game, self.session.hands, colours, self.effects, self.clock())
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
        if repr(err) != self._draw_fault:
            log.error("%s: %r", what, err, exc_info=err)
        return repr(err)

    def _command(self, command: c.Command):
        """Run a command in one transaction; publish what it changed only once that has committed. A
        refusal has changed nothing. Any other failure rolls back and brings the runtime back to what the
        store holds, so nothing is shown that is not stored."""
        self._in_command, self._unpublished = True, None
        before = (self.session.game_id, self.session.hands.chores)  # no failed write moves the stones
        try:
            with self.store.transaction():
                return self._handlers[type(command)](command)
        except (CommandError, IllegalAction):
            raise
        except Exception as err:
            self._unpublished = None  # what it changed was not stored: it is never shown
            if not isinstance(err, sqlite3.Error):
                log.exception("command %s failed", type(command).__name__)
                self._recover("", before)
                raise
            log.error("command %s could not be stored: %s", type(command).__name__, err)
            self._recover(f"could not save ({err}): nothing changed", before)
            raise StorageError(f"could not save ({err}): nothing changed; try again") from None
        finally:
            self._in_command = False
            self._deliver()

    def _recover(self, message: str, before: tuple) -> None:
        """After a command failed part-way: back to what the store holds. The stones the players were asked
        to lift or put down before it are still to be moved (the store does not keep chores)."""
        try:
            with self.store.transaction():
                self.settings = Settings.load(self.config, self.least_budget_ma, self.store.setting)
                self._restore()
            game_id, chores = before
            if self.session.game_id == game_id:
                self.session.hands.chores = chores
        except Exception:  # the store cannot even be read: keep what is in memory
            log.exception("could not reload the game from the store")
        self._thinking = None
        self.effects = Effects(code=self.effects.code)
        if message:
            self.session.hands.message = message
        self._publish(Feedback(False, message) if message else None)

    # -- at the table ---------------------------------------------------------------------------------

    def _in_game(self, command) -> None:
        """A page's press or button is meant for the game it showed: refused once a new one has begun (it
        was made in the new game, and the phone told it was made). OK and UNDO are also meant for the
        position shown: two phones tapping UNDO at once take back one move."""
        if command.game is not None and command.game != self.session.game_id:
            raise CommandError(NEW_GAME_SINCE)
        if getattr(command, "ply", None) is not None and command.ply != len(self.session.game.history):
            raise CommandError(MOVED_SINCE)

    def on_cloth(self) -> bool:
        """Whether the game fits the cloth: boards up to the standard depth are its upper levels; a Giant
        or Super Giant one is played on the phone's board, the cloth showing only the status pixels."""
        return self.session.game.space.depth <= CLOTH_DEPTH

    def _cloth_press(self, command: c.ClothPress) -> Feedback:
        if not self.on_cloth():
            depth = self.session.game.space.depth
            return self._after(
                Feedback(
                    False, f"this {depth}-level board does not fit the cloth: press on the phone's board"
                )
            )
        return self._press(c.Press(command.node))

    def _press(self, command: c.Press) -> Feedback:
        self._in_game(command)
        game = self.session.game
        try:
            node = game.space.parse(command.node)
        except ValueError as err:
            try:  # a node of the board that this game leaves out (the head node of a headless one)
                node = nd.parse(command.node, game.space.depth)
            except ValueError:
                raise CommandError(str(err)) from None
            return self._after(Feedback(False, f"{err}: {game.name} does not use it", node))
        if self.menu:
            return Feedback(False, "the menu is open: OK to close it")
        return self._after(self.session.press(node))

    def _roll(self, command: c.Roll) -> Feedback:
        self._in_game(command)
        if self.menu:
            return self._menu_step()
        feedback = self._after(self.session.roll(self.die))
        if feedback.rolled and feedback.ok:
            self.effects.die_started = self.clock()
            self.sound("roll")
        return feedback

    def _ok(self, command: c.Ok) -> Feedback:
        self._in_game(command)
        if self.menu:
            return self._menu_close()
        if self.session.game.over and not self.session.hands.chores:
            return self._play_again()
        return self._after(self.session.ok())

    def _again(self, command: c.Again) -> Feedback:
        self._in_game(command)
        if not self.session.game.over:
            return Feedback(False, "the game is not over yet: play it out, or choose a new game")
        return self._play_again()

    def _act(self, command: c.Act) -> Feedback:
        self._in_game(command)
        try:
            return self._after(self.session.act(command.action))
        except IllegalAction as err:
            raise CommandError(err.reason) from None

    def _undo(self, command: c.Undo) -> Feedback:
        self._in_game(command)
        if self.menu:
            return self._menu_close()
        session, was_over = self.session, self.session.game.over
        undone = session.undo()
        if not undone:
            return self._after(Feedback(False, session.hands.message))
        self._thinking, self._undos = None, self._undos + 1
        self.ledger.undone(session, len(undone))
        if was_over and not session.game.over:
            self.ledger.reopen(session)
            self.effects.ended = None
        self._grybs_seen = session.game.grybs
        log.info("game %s: undo %s", session.game_id, " ".join(map(str, undone)))
        self.sound("undo")
        self._publish()
        return Feedback(True, session.hands.message)

    def _after(self, feedback: Feedback) -> Feedback:
        """Store what the engine accepted, then sound, effects and the change feed."""
        session, game = self.session, self.session.game
        new = self.ledger.write(session)
        if new:
            log.info("game %s: %s", session.game_id, " ".join(map(str, new)))
        if not feedback.ok:
            self.effects.flash = (feedback.node, self.clock())
            self.sound("illegal")
        elif game.grybs and (game.grybs != self._grybs_seen or new and game.formed()):
            self.effects.gryb_started = self.clock()  # formed(): the same four nodes formed again
            self.sound("gryb")
        self._grybs_seen = game.grybs
        if game.over and new and self.effects.ended is None:
            self.effects.ended = self.clock()
            self.ledger.finish(session)
            self.sound("win" if game.winners else "draw")
        self._publish(feedback)
        return feedback

    def _menu(self, command: c.Menu) -> Feedback:
        self.menu = not self.menu
        self._publish()
        return Feedback(
            True,
            "menu open: ROLL dims the board step by step down to night mode, OK closes"
            if self.menu
            else "menu closed",
        )

    def _menu_close(self) -> Feedback:
        self.menu = False
        self._publish()
        return Feedback(True, "menu closed")

    def _menu_step(self) -> Feedback:
        said = self.settings.step_brightness()
        self.store.set_setting("brightness", self.settings.brightness)
        self.store.set_setting("night", self.settings.night)
        self._publish()
        return Feedback(True, said)

    def sound(self, kind: str) -> None:
        if self.settings.sounds:
            self._beep(kind)

    # -- the computer players -----------------------------------------------------------------------

    def _position(self) -> tuple:
        """The token a search's answer must match to be used: an UNDO and another move bring the history
        back to the same length in another position, and a seat handed over must not get the old move."""
        session = self.session
        return (session.game_id, len(session.game.history), self._undos, session.seated)

    def _computer_turn(self) -> None:
        """When a computer player is to move: roll for it, or start its search off this thread."""
        level = None if self.menu else self.session.computer_to_move()
        if level is None or self._thinking == self._position():
            return
        self._thinking = self._position()
        if self.session.game.is_chance:
            self._queue.put((c.ComputerRoll(self._position()), Future()))
        else:
            self.computer.think(self.session.game, level, self.settings.time_scale)

    def _computer_move(self, command: c.ComputerMove) -> Feedback | None:
        hands = self.session.hands
        if command.token != self._position() or hands.proposal is not None or command.action is None:
            return None  # undone or a new game while it thought, or a later search's move already waits
        self._thinking = None
        return self._after(self.session.propose(self.session.game.parse(command.action)))

    def _computer_roll(self, command: c.ComputerRoll) -> Feedback | None:
        if command.token != self._position():
            return None
        if self.menu:  # opened while this waited in the queue: ROLL steps the brightness there
            self._thinking = None  # asked again when the menu closes
            return None
        if not self.session.hands.physical_die:
            self._thinking = None
        # With a real die the players roll it for the computer: asked once, _thinking stays on this position.
        return self._roll(c.Roll())

    def _hint(self, command: c.Hint) -> Feedback:
        game = self.session.game
        if game.over:
            raise CommandError("the game is over: OK plays it again")
        if game.is_chance:
            raise CommandError("roll first: the hint is for the move after the roll")
        if self.session.seats[game.to_move] != "human":
            raise CommandError("the computer is to move")
        if self._hinting != self._position():  # a second tap while it thinks starts no second search
            self._hinting = self._position()
            self.computer.think(game, ai.HINT_LEVEL, self.settings.time_scale, hint=True)
        return Feedback(True, "thinking about a hint")

    def _hint_ready(self, command: c.HintReady) -> None:
        if command.token == self._hinting:
            self._hinting = None
        if command.token != self._position() or command.action is None:
            return  # the game moved on while the search ran, or the search failed
        message = self.session.show_hint(self.session.game.parse(command.action))
        self._publish(Feedback(True, message))

    def _seat(self, command: c.Seat) -> Feedback:
        self._in_game(command)
        session = self.session
        names, seats = list(session.names), list(session.seats)
        try:
            feedback = session.seat(command.seat, command.kind)
        except SessionError as err:
            raise CommandError(str(err)) from None
        if session.seats == seats:
            return feedback
        self.ledger.seated(session, renamed=session.names != names)
        self._warm()
        log.info("game %s: seat %d now %s", session.game_id, command.seat + 1, command.kind)
        self._publish(feedback)
        return feedback

    def _warm(self) -> None:
        """With a computer player at the table, build its first search's tables ahead, off the loop."""
        if any(s != "human" for s in self.session.seats):
            self.computer.warm(self.session.game, self.session.game_id)

    # -- new games, settings, compositions -------------------------------------------------------------

    def _new_game(self, command: c.NewGame) -> dict:
        self._start_new(command)
        return self._publish()

    def _start_new(
        self, command: c.NewGame, cls: type[Game] | None = None, order: list[int] | None = None
    ) -> None:
        """Check a new game's choices against its game and start it. ``cls`` is the game's class where it
        is known already (Play again: a composition deleted since still plays); ``order`` the seating of a
        game played again or going on with a series."""
        try:
            cls = cls or find(command.game)
        except UnknownGame as err:
            raise CommandError(str(err)) from None
        players, options, names, kinds = command.check_for(cls)
        try:
            game = cls(players, **options)
        except OptionError as err:
            raise CommandError(str(err)) from None
        series, session = command.series, self.session
        if series == c.GO_ON:
            if session.series is None:
                raise CommandError("no series is being played: start one, or play just this game")
            if session.series.over(self.ledger.elapsed()):
                raise CommandError("the series is over: start a new one, or play just this game")
            if session.series.players != players:
                raise CommandError(
                    f"the series being played is for {session.series.players} players: "
                    f"choose {session.series.players}, or play just this game"
                )
            order = order or (
                session.order[1:] + session.order[:1] if len(session.order) == players else None
            )
        self._start(game, names, kinds, order, series)

    def _start(self, game: Game, names, kinds, order, series) -> None:
        """Start a game: ``series`` a dict starts a new one, GO_ON goes on with this one, None plays none."""
        old = getattr(self, "session", None)
        session = self._begin(game, names, kinds, order)
        if series == c.GO_ON:
            session.series, session.series_id = old.series, old.series_id
        elif isinstance(series, dict):
            try:
                made = Series(game.players, series.get("method", "games"), int(series.get("target", 5)))
            except (SeriesError, TypeError, ValueError) as err:
                raise CommandError(str(err)) from None
            self.ledger.open_series(session, made, game.id)
        self.ledger.open_game(session, self.die.seed)
        self.session = session
        self._grybs_seen = game.grybs
        self.effects = Effects(code=self.effects.code)  # a pairing under way stays shown
        log.info("game %s: new %s for %d players", session.game_id, game.id, game.players)
        self._warm()

    def _play_again(self) -> Feedback:
        """OK at a game's end (or Play again): the same game, options, players and computer levels, begun by
        the next player along; a series still on goes on, and one that is over starts again as it was."""
        session, game = self.session, self.session.game
        series, new_series = session.series, False
        again = None if series is None else c.GO_ON
        if series is not None and series.players == game.players and series.over(self.ledger.elapsed()):
            again, new_series = {"method": series.method, "target": series.target}, True
        names, kinds, order = session.again()
        command = c.NewGame(game.id, game.players, dict(game.settings), names, again, kinds)
        self._start_new(command, cls=type(game), order=order)
        feedback = Feedback(True, self.session.again_said(new_series))
        self.session.hands.message = feedback.message
        self._publish(feedback)
        return feedback

    def _change_settings(self, command: c.ChangeSettings) -> dict:
        checked = self.settings.check(command.changes())
        self.settings.apply(checked)
        for key, value in checked.items():
            self.store.set_setting(key, value)
        self.session.hands.physical_die = self.settings.die == "physical"
        return self._publish()

    def _show_code(self, command: c.ShowCode) -> None:
        self.effects.code = tuple(command.code) if command.code else None

    @property
    def library(self) -> composition.Library:
        return composition.Library(self.config.state.path() / COMPOSITIONS)

    def _compose(self, command: c.Compose) -> dict:
        try:
            rules = composition.loads(command.text, command.format)
            cls = composed.save_and_install(self.library, rules, replace=command.replace)
        except (composition.CompositionError, OptionError) as err:
            raise CommandError(str(err)) from None
        except OSError as err:  # the state directory cannot be made or written: nothing was saved
            raise CommandError(f"cannot save in {self.library.folder}: {err.strerror or err}") from None
        log.info("composition %s saved", rules.id)
        self._publish()
        return {"id": cls.id, "name": cls.name}

    def _forget_composition(self, command: c.ForgetComposition) -> None:
        try:
            composed.forget(self.library, command.game_id)
        except composition.CompositionError as err:
            raise CommandError(str(err)) from None
        log.info("composition %s deleted", command.game_id)
        self._publish()

    def _tick(self, command: c.Tick) -> None:
        """Once a second when nothing came: a timed series whose time ran out is published as over."""
        published = self._snapshot.get("series")
        series = self.session.series
        if published and not published["over"] and series and series.over(self.ledger.elapsed()):
            self._publish()

    # -- what the page sees -------------------------------------------------------------------------------

    def _seat_colours(self) -> list[tuple[int, int, int]]:
        """The stone colour of each seat: its player's (then the unused players')."""
        colours, order = self.settings.colours, self.session.order
        return by_seat(colours, order) + colours[len(order) :]

    def _publish(self, feedback: Feedback | None = None) -> dict:
        """The state for the page and its change feed; during a command it goes out once the command's
        transaction has committed (:meth:`_deliver`). Returns it."""
        session, game = self.session, self.session.game
        self._version += 1
        snapshot = {
            "version": self._version,
            "game_id": session.game_id,
            "game": game.describe() | {"settings": game.settings},
            "board": {
                "depth": game.space.depth,
                "headless": game.space.headless,
                "on_cloth": self.on_cloth(),
            },
            "players": game.players,
            "ply": len(game.history),  # UNDO and OK from a page carry it
            "state": game.state_dict(),
            "table": session.hands.to_dict(),
            "legal": [str(a) for a in islice(session.hands.legal(), 400)],
            "seats": session.seats,
            "order": session.order,
            "series": session.series_dict(self.ledger.elapsed()),
            "settings": self.settings.to_dict() | {"menu": self.menu},
            "colours": ["#%02x%02x%02x" % rgb for rgb in self._seat_colours()[: game.players]],
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
