"""The board's state and one handler per command type, on the runtime's thread, in its transaction."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from companion.games.catalogue import shipped
from companion.games.composed import schema as composition
from companion.games.die import Die
from companion.games.engine import Game, IllegalAction, OptionError
from companion.games.series import Series
from companion.service import commands as c
from companion.service.commands import CommandError
from companion.service.computer import Computer
from companion.service.config import Config
from companion.service.ledger import Ledger
from companion.service.library import FOLDER, Library
from companion.service.outputs import snapshot
from companion.service.settings import Settings
from companion.service.store import Store
from companion.session.hands import Feedback
from companion.session.linked import digest, face
from companion.session.renderer import Effects
from companion.session.session import Session

log = logging.getLogger(__name__)

NEW_GAME_SINCE = "a new game has started since: look at the board again"
MENU = "menu open: ROLL dims the board step by step down to night mode, OK closes, UNDO shows a pairing code"
MENU_LINK = ", UNDO held links boards"  # with a broker set: docs/linking.md, "At the board"
FRESH_CODE = "a fresh pairing code on the board: type it on the phone"
MOVED_SINCE = "the game has moved on since: look at the board again"
LINKED_ROLL = "the linked boards roll together: the die shows once every board has sent its part"


class Board:
    def __init__(
        self,
        config: Config,
        store: Store,
        *,
        submit: Callable[[c.Command], Any],
        die: Die | None = None,
        sound: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        settle: Callable[[], None] | None = None,
        fresh_code: Callable[[], None] | None = None,
        stones: str = "cloth",
    ):
        self.config, self.store, self.die = config, store, die or Die()
        self._fresh_code = fresh_code  # the web's: a person at the board asks for a pairing code
        self.stones = stones  # until the players choose: the simulator has no stones
        self._beep = sound or (lambda kind: None)
        self.clock, self.wall = clock, wall
        self.effects = Effects()
        self.least_budget_ma = config.leds.least_budget_ma()  # mA
        self.settings = Settings.load(config, self.least_budget_ma, store.setting, stones)
        # Replaced whole on a change, so a page on another thread reads a whole one.
        self.library = Library(config.state.path() / FOLDER)
        self.catalogue, skipped = self.library.install(shipped())
        for problem in skipped:
            log.warning("saved composition skipped: %s", problem)
        self.ledger = Ledger(store, wall)
        self.computer = Computer(submit, self._position, settle)
        self._version = 0
        self.unpublished: dict | None = None  # this command's snapshot, sent after its commit
        self.newest: dict = {}
        self._undos = 0  # part of a position's token
        self.session: Session
        self._handlers: dict[type, Callable[[Any], Any]] = {
            c.Snapshot: lambda _: self.newest,
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
            c.ShowMatchCode: self._show_match_code,
            c.Compose: self._compose,
            c.ForgetComposition: self._forget_composition,
            c.StartLinked: self._start_linked,
            c.Linked: self._linked,
            c.LinkedRoll: self._linked_roll,
        }
        with store.transaction():
            self._restore()
        self._publish()

    def handle(self, command: c.Command):
        return self._handlers[type(command)](command)

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
            self._view()
            self._warm()

    def _begin(self, game: Game, names, kinds, order, series: Series | None = None) -> Session:
        return Session.begin(
            game,
            names,
            kinds,
            order,
            people=self.config.players.names,
            physical_die=self.settings.die == "physical",
            cloth=self.settings.stones == "cloth",
            series=series,
        )

    # -- at the table --

    def _in_game(self, command) -> None:
        """Refused when meant for an older game or (OK, UNDO) position (docs/web.md, "The API")."""
        if command.game is not None and command.game != self.session.game_id:
            raise CommandError(NEW_GAME_SINCE)
        if getattr(command, "ply", None) is not None and command.ply != len(self.session.game.history):
            raise CommandError(MOVED_SINCE)

    def on_cloth(self) -> bool:
        return self.session.on_cloth()

    def _cloth_press(self, command: c.ClothPress) -> Feedback:
        if not self.on_cloth():
            depth = self.session.game.space.depth
            why = f"this {depth}-level board does not fit the cloth: press on the phone's board"
            return self._after(Feedback(False, why))
        return self._press(c.Press(command.node))

    def _press(self, command: c.Press) -> Feedback:
        self._in_game(command)
        pressed = self.session.pressed(command.node)
        if isinstance(pressed, Feedback):
            return self._after(pressed)
        if self.settings.menu:
            return Feedback(False, "the menu is open: OK to close it")
        return self._after(self.session.press(pressed))

    def _roll(self, command: c.Roll) -> Feedback:
        self._in_game(command)
        if self.settings.menu:
            return self._menu_key(c.Roll)
        if self.session.link is not None:
            return self._after(Feedback(False, LINKED_ROLL))
        feedback = self._after(self.session.roll(self.die))
        if feedback.rolled and feedback.ok:
            self.effects.die_started = self.clock()
            self.sound("roll")
        return feedback

    def _ok(self, command: c.Ok) -> Feedback:
        self._in_game(command)
        if self.settings.menu:
            return self._menu_key(c.Ok)
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
        if self.settings.menu:
            return self._menu_key(c.Undo)
        if self.session.link is not None:
            return self._after(Feedback(False, "a linked game is not taken back: the other boards have it"))
        session, was_over = self.session, self.session.game.over
        undone = session.undo()
        if not undone:
            return self._after(Feedback(False, session.hands.message))
        self.computer.thinking, self._undos = None, self._undos + 1
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
        """Store what the engine took, then sound, effects, snapshot."""
        session, game = self.session, self.session.game
        new = self.ledger.write(session)
        if new:
            log.info("game %s: %s", session.game_id, " ".join(map(str, new)))
        if not feedback.ok:
            self.effects.flash = (feedback.node, self.clock())
            self.sound("illegal")
        elif game.grybs and (game.grybs != self._grybs_seen or new and game.formed()):
            self.effects.gryb_started = self.clock()  # formed(): the same four formed again
            self.sound("gryb")
        self._grybs_seen = game.grybs
        if game.over and new and self.effects.ended is None:
            self.effects.ended = self.clock()
            self.ledger.finish(session)
            self.sound("win" if game.winners else "draw")
        self._publish(feedback)
        return feedback

    def _menu(self, command: c.Menu) -> Feedback:
        self.settings.menu = not self.settings.menu
        self._publish()
        shown = MENU + (MENU_LINK if self.config.link.url else "")
        return Feedback(True, shown if self.settings.menu else "menu closed")

    def _menu_key(self, key: type) -> Feedback:
        """ROLL dims a step (kept); OK closes the menu, UNDO too, with a fresh pairing code shown."""
        if key is c.Roll:
            said = self.settings.step_brightness()
            self.store.set_setting("brightness", self.settings.brightness)
            self.store.set_setting("night", self.settings.night)
        elif key is c.Undo and self._fresh_code is not None:
            self._fresh_code()
            said, self.settings.menu = FRESH_CODE, False
        else:
            said, self.settings.menu = "menu closed", False
        self._publish()
        return Feedback(True, said)

    def sound(self, kind: str) -> None:
        if self.settings.sounds:
            self._beep(kind)

    # -- the computer players --

    def _position(self) -> tuple:
        """What a search's answer must match (an UNDO and a move make the same length elsewhere)."""
        session = self.session
        return (session.game_id, len(session.game.history), self._undos, session.seated)

    def computer_turn(self) -> c.ComputerRoll | None:
        """A computer player's search started, or its roll returned."""
        if self.settings.menu or not self.computer.turn(
            self.session, self._position(), self.settings.time_scale
        ):
            return None
        return c.ComputerRoll(self._position())

    def _computer_move(self, command: c.ComputerMove) -> Feedback | None:
        hands = self.session.hands
        if command.token != self._position() or hands.proposal is not None or command.action is None:
            return None  # the game moved on, or a later search's move waits
        self.computer.thinking = None
        return self._after(self.session.propose(self.session.game.parse(command.action)))

    def _computer_roll(self, command: c.ComputerRoll) -> Feedback | None:
        if command.token != self._position():
            return None
        if self.settings.menu:  # opened while queued: asked again when it closes
            self.computer.thinking = None
            return None
        if not self.session.hands.physical_die:
            self.computer.thinking = None
        # A real die is rolled for it: asked once, thinking stays on this position.
        return self._roll(c.Roll())

    def _hint(self, command: c.Hint) -> Feedback:
        if why := self.session.why_no_hint():
            raise CommandError(why)
        self.computer.hint(self.session.game, self._position(), self.settings.time_scale)
        return Feedback(True, "thinking about a hint")

    def _hint_ready(self, command: c.HintReady) -> None:
        if command.token == self.computer.hinting:
            self.computer.hinting = None
        if command.token != self._position() or command.action is None:
            return  # the game moved on, or the search failed
        message = self.session.show_hint(self.session.game.parse(command.action))
        self._publish(Feedback(True, message))

    def _seat(self, command: c.Seat) -> Feedback:
        self._in_game(command)
        session = self.session
        names, seats = list(session.names), list(session.seats)
        feedback = session.seat(command.seat, command.kind)
        if session.seats == seats:
            return feedback
        self.ledger.seated(session, renamed=session.names != names)
        self._warm()
        log.info("game %s: seat %d now %s", session.game_id, command.seat + 1, command.kind)
        self._publish(feedback)
        return feedback

    def _warm(self) -> None:
        """Build a computer player's first search's tables ahead."""
        if any(s != "human" for s in self.session.seats):
            self.computer.warm(self.session.game, self.session.game_id)

    # -- new games, settings, compositions --

    def _new_game(self, command: c.NewGame) -> dict:
        """Refused while a game is under way unless ``abandon`` says to; that game is kept, abandoned."""
        before = self.session
        under_way = bool(before.game.history) and not before.game.over
        if under_way and not command.abandon:
            command.make(c.find_game(self.catalogue, command.game))  # a wrong choice is said first
            raise c.Unconfirmed(
                f"{before.game.name} is under way ({len(before.game.history)} actions): a new game abandons "
                "it, and it stays in Scores, marked abandoned"
            )
        self._start_new(command)
        if under_way:
            self.ledger.abandon(before)
            log.info("game %s abandoned for game %s", before.game_id, self.session.game_id)
        return self._publish()

    def _start_new(
        self, command: c.NewGame, cls: type[Game] | None = None, order: list[int] | None = None
    ) -> None:
        """Check a new game's choices and start it; ``cls`` where known (Play again, even once deleted)."""
        game, names, kinds = command.make(cls or c.find_game(self.catalogue, command.game))
        if command.series == c.GO_ON:
            order = order or self.session.series_goes_on(game.players, self.ledger.elapsed())
        self._start(game, names, kinds, order, command.series)

    def _start(self, game: Game, names, kinds, order, series) -> None:
        """``series``: a dict starts one, GO_ON goes on, None plays none."""
        session = self._begin(game, names, kinds, order)
        self.ledger.open(session, series, getattr(self, "session", None), self.die.seed)
        self.session, self._grybs_seen = session, game.grybs
        self.effects = self._codes()  # a pairing or a match under way stays shown
        log.info("game %s: new %s for %d players", session.game_id, game.id, game.players)
        self._warm()

    def _play_again(self) -> Feedback:
        """The same game begun by the next player along (docs/runtime.md, "A turn")."""
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
        if "stones" in checked:
            self._stones_changed()
        return self._publish()

    def _stones_changed(self) -> None:
        """With the LEDs for stones nothing waits for hands: chores go, a computer's move is made."""
        hands = self.session.hands
        hands.cloth = self.settings.stones == "cloth"
        if hands.cloth:
            return
        hands.chores = ()
        if hands.proposal is not None:
            action, hands.proposal, hands.picks = hands.proposal, None, ()
            self._after(self.session.propose(action))

    def _show_code(self, command: c.ShowCode) -> None:
        self.effects.code = tuple(command.code) if command.code else None

    def _show_match_code(self, command: c.ShowMatchCode) -> None:
        self.effects.match_code = command.code

    def _codes(self) -> Effects:
        return Effects(code=self.effects.code, match_code=self.effects.match_code)

    def _compose(self, command: c.Compose) -> dict:
        try:
            rules = composition.loads(command.text, command.format)
            self.catalogue = self.library.add(self.catalogue, rules, replace=command.replace)
        except (composition.CompositionError, OptionError) as err:
            raise CommandError(str(err)) from None
        except OSError as err:  # nothing was saved
            raise CommandError(f"cannot save in {self.library.folder}: {err.strerror or err}") from None
        log.info("composition %s saved", rules.id)
        self._publish()
        return {"id": rules.id, "name": rules.name}

    def _forget_composition(self, command: c.ForgetComposition) -> None:
        try:
            self.catalogue = self.library.remove(self.catalogue, command.game_id)
        except composition.CompositionError as err:
            raise CommandError(str(err)) from None
        log.info("composition %s deleted", command.game_id)
        self._publish()

    # -- linked boards (docs/linking.md) --

    def _start_linked(self, command: c.StartLinked) -> dict:
        link = command.link  # this board among the seats' boards plays; else it watches
        seats = link.get("seats", ())
        if len(seats) != command.players or not all(isinstance(b, str) for b in seats):
            raise CommandError("a linked game names the board of every seat")
        self._start_new(c.NewGame(command.game, command.players, dict(command.options), list(command.names)))
        self.session.link = dict(link)
        self._view()
        self.ledger.linked(self.session)
        log.info("game %s: linked in match %s as %s", self.session.game_id, link["match"], link["board"])
        return self._publish()

    def _view(self) -> None:
        """A linked board shows its own player's board where each has one (Multiverse)."""
        link = self.session.link
        if link is not None:
            mine = [seat for seat, board in enumerate(link["seats"]) if board == link["board"]]
            self.session.game.viewer = mine[0] if mine else None

    def _linked_turn(self, game_id: int, ply: int) -> Game:
        session, game = self.session, self.session.game
        if session.link is None or game_id != session.game_id:
            raise CommandError(NEW_GAME_SINCE)
        if ply != len(game.history):
            raise CommandError(f"for ply {ply}: this board is at ply {len(game.history)}")
        return game

    def _linked(self, command: c.Linked) -> Feedback:
        game = self._linked_turn(command.game, command.ply)
        if game.is_chance:
            raise CommandError("a roll is due: the boards roll together")
        if command.seat != game.to_move or command.seat not in self.session.remote:
            raise CommandError(f"seat {command.seat + 1} is not a linked board's to move")
        trial = game.copy()
        try:
            action = game.parse(command.action)
            trial.apply(action)
        except IllegalAction as err:
            raise CommandError(err.reason) from None
        if digest(trial) != command.digest:
            raise CommandError("the position after it is not this board's: the boards differ")
        return self._after(self.session.hands.remote(action))

    def _linked_roll(self, command: c.LinkedRoll) -> Feedback:
        game = self._linked_turn(command.game, command.ply)
        if not game.is_chance:
            raise CommandError("no roll is due")
        self.effects.die_started = self.clock()
        self.sound("roll")
        return self._after(self.session.hands.remote(face(game, command.seed)))

    def _tick(self, command: c.Tick) -> None:
        """A timed series whose time ran out is published as over."""
        published = self.newest.get("series")
        series = self.session.series
        if published and not published["over"] and series and series.over(self.ledger.elapsed()):
            self._publish()

    def _publish(self, feedback: Feedback | None = None) -> dict:
        """The snapshot, sent once the transaction has committed."""
        self._version += 1
        made = snapshot(
            self._version, self.session, self.settings, self.on_cloth(), self.ledger.elapsed(), feedback
        )
        self.unpublished = self.newest = made
        return made

    def recover(self, message: str, before: tuple) -> None:
        """Back to what the store holds after a failure; chores (not stored) kept."""
        try:
            with self.store.transaction():
                menu = self.settings.menu
                self.settings = Settings.load(
                    self.config, self.least_budget_ma, self.store.setting, self.stones
                )
                self.settings.menu = menu
                self._restore()
            game_id, chores = before
            if self.session.game_id == game_id:
                self.session.hands.chores = chores
        except Exception:  # unreadable: keep what is in memory
            log.exception("could not reload the game from the store")
        self.computer.thinking = None
        self.effects = self._codes()
        if message:
            self.session.hands.message = message
        self._publish(Feedback(False, message) if message else None)
