"""The session as the store keeps it, and rebuilt from it."""

from __future__ import annotations

import logging
from collections.abc import Callable

from companion.games.catalogue import find
from companion.games.engine import Game, UnknownGame
from companion.games.series import Series, SeriesError
from companion.rules.action import Action
from companion.service.commands import GO_ON
from companion.service.store import ACTION, UNDO, Store, StoreError
from companion.session.seating import HUMAN, SEATS, seating
from companion.session.session import Session, SessionError

log = logging.getLogger(__name__)


class Ledger:
    def __init__(self, store: Store, wall: Callable[[], float]):
        self.store, self.wall = store, wall
        self.logged = 0  # actions stored so far
        self.series_started = 0.0  # wall clock

    def open(self, session: Session, series, before: Session | None, seed: int | None) -> None:
        """Keep a new game; ``series``: a dict starts one, GO_ON goes on with ``before``'s, None none."""
        if series == GO_ON:
            session.series, session.series_id = before.series, before.series_id
        elif isinstance(series, dict):
            try:
                made = Series(session.game.players, series["method"], int(series["target"]))
            except (SeriesError, TypeError, ValueError) as err:
                raise SessionError(str(err)) from None
            self.open_series(session, made, session.game.id)
        self.open_game(session, seed)

    def open_game(self, session: Session, seed: int | None) -> None:
        store = self.store
        session.game_id = store.new_game(session.game, session.names, seed, session.series_id, self.wall())
        if any(s != HUMAN for s in session.seats):
            store.set_setting(f"seats:{session.game_id}", session.seats)
        if session.order != sorted(session.order):
            store.set_setting(f"order:{session.game_id}", session.order)
        self.logged = 0

    def open_series(self, session: Session, series: Series, game: str) -> None:
        session.series = series
        session.series_id = self.store.new_series(series.to_dict() | {"game": game}, self.wall())
        self.series_started = self.wall()

    def write(self, session: Session) -> list[Action]:
        """Store the actions taken since the last write; returns them."""
        history = session.game.history
        new = [a for a, _ in history[self.logged :]]
        for action in new:
            self.store.append(session.game_id, ACTION, str(action), self.wall())
        self.logged = len(history)
        return new

    def undone(self, session: Session, count: int) -> None:
        """UNDOs are events too: the log only grows."""
        for _ in range(count):
            self.store.append(session.game_id, UNDO, None, self.wall())
        self.logged = len(session.game.history)

    def seated(self, session: Session, renamed: bool) -> None:
        self.store.set_setting(f"seats:{session.game_id}", session.seats)
        if renamed:
            self.store.rename(session.game_id, session.names)

    def linked(self, session: Session) -> None:
        self.store.set_setting(f"link:{session.game_id}", session.link)

    def elapsed(self) -> float:
        # A Pi may start before network time sets its clock: the series then waits at 0, not below.
        return max(0.0, self.wall() - self.series_started)

    def finish(self, session: Session) -> None:
        """Series first: a power cut between is mended on restart."""
        game, series = session.game, session.series
        if session.count_result(self.elapsed()):
            finished = self.wall() if series.over(self.elapsed()) else None
            self.store.save_series(session.series_id, series.to_dict(), finished)
        result = {"winners": list(game.winners), "scores": list(game.scores)}
        self.store.finish_game(session.game_id, result, self.wall())
        log.info("game %s over: winners %s, scores %s", session.game_id, result["winners"], result["scores"])

    def abandon(self, session: Session) -> None:
        """A game left unfinished for a new one: kept with its record, counted in no series."""
        result = {"winners": [], "scores": list(session.game.scores), "abandoned": True}
        self.store.finish_game(session.game_id, result, self.wall())

    def reopen(self, session: Session) -> None:
        """A finished game undone: its result leaves the series and the store."""
        if session.series is not None and session.series.taken_back(session.game_id):
            self.store.save_series(session.series_id, session.series.to_dict(), None)
        self.store.reopen_game(session.game_id)
        log.info("game %s: in play again after undo", session.game_id)

    def restore(self, begin: Callable[..., Session]) -> Session | None:
        """The newest game as played (None: none, or it no longer replays)."""
        store = self.store
        try:
            row = store.current_game()
        except StoreError as err:
            log.error("%s; starting a new game", err)
            return None
        if row is None:
            return None
        try:
            game = store.replay(row)
        except (ValueError, UnknownGame) as err:
            log.error("game %s could not be replayed (%s); starting a new game", row.id, err)
            return None
        names = row.names
        if not (
            isinstance(names, list) and len(names) == game.players and all(isinstance(n, str) for n in names)
        ):
            log.error("game %s: stored names %r do not read; the players are numbered", row.id, names)
            names = None
        seats = self._kept(f"seats:{row.id}", [HUMAN] * game.players)
        if not (isinstance(seats, list) and len(seats) == game.players and all(s in SEATS for s in seats)):
            log.error("game %s: stored seats %r do not read; every seat a person's", row.id, seats)
            seats = [HUMAN] * game.players
        order = seating(self._kept(f"order:{row.id}"), game.players)
        # Stored by seat; begin() takes them by player.
        by_player = [None] * game.players
        for seat, player in enumerate(order):
            by_player[player] = seat
        session = begin(
            game,
            [names[s] for s in by_player] if names else None,
            [seats[s] for s in by_player],
            order,
        )
        session.game_id = row.id
        link = self._kept(f"link:{row.id}")
        if isinstance(link, dict) and len(link.get("seats", ())) == game.players:
            session.link = link
        self.logged = len(game.history)
        self._restore_series(session, row)
        # A power cut may part events and result: the events are what happened.
        if game.over and row.finished is None:
            self.finish(session)
        elif not game.over and row.finished is not None:
            self.reopen(session)
        log.info("restored game %s (%s) after %d actions", row.id, row.game, len(game.history))
        return session

    def _restore_series(self, session: Session, row) -> None:
        if row.series_id is None:
            return
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
            return
        if series is not None:
            session.series, session.series_id = series, row.series_id
            started = self.store.series_started(row.series_id)
            self.series_started = self.wall() if started is None else started

    def _kept(self, key: str, default=None):
        """None where not even JSON."""
        try:
            return self.store.setting(key, default)
        except ValueError:
            return None

    @staticmethod
    def default_game() -> Game:
        return find("ez-gryb")(2)
