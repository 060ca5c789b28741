"""The computer players' searches, each on a worker thread of its own; the answer comes back as a command.

A search ends early once its answer can no longer be used (the position's token changed: an UNDO, a seat
handed over, a new game; or the runtime stops): two searches share one interpreter, and one nobody waits
for costs the next nearly half its iterations (docs/performance.md, "A search nobody waits for").
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from companion import ai
from companion.games.engine import Game
from companion.service.commands import Command, ComputerMove, HintReady

log = logging.getLogger(__name__)


class Computer:
    def __init__(
        self,
        submit: Callable[[Command], object],
        token: Callable[[], tuple],
        settle: Callable[[], None] | None = None,
    ):
        """``submit`` hands an answer to the runtime; ``token`` names the position now (read from the
        worker thread: its parts are plain values, each read whole). ``settle`` is called once a kind of
        game's tables are first built (``gryb-companion run`` passes assembly.settle)."""
        self._submit, self._token, self._settle = submit, token, settle
        self._settled: set[tuple] = set()
        self._warmed: object = None  # the game whose tables were built ahead
        self.stopping = False
        self.thinking: tuple | None = None  # the position a computer's search (or roll) is running for
        self.hinting: tuple | None = None  # the position a hint's search is running for

    def turn(self, session, token: tuple, time_scale: float) -> bool:
        """When a computer player is to move and nothing runs for this position yet: start its search, or
        answer True when it is to roll (the runtime rolls for it). Asked once a position."""
        level = session.computer_to_move()
        if level is None or self.thinking == token:
            return False
        self.thinking = token
        if session.game.is_chance:
            return True
        self.think(session.game, level, time_scale)
        return False

    def hint(self, game: Game, token: tuple, time_scale: float) -> None:
        """A hint's search for the person to move; a second ask while it runs starts no second search."""
        if self.hinting != token:
            self.hinting = token
            self.think(game, ai.HINT_LEVEL, time_scale, hint=True)

    def think(self, game: Game, level: str, time_scale: float, hint: bool = False) -> None:
        """Search a copy of ``game``; the move comes back as ComputerMove (or HintReady)."""
        board, token = game.copy(), self._token()
        budget = ai.level(level, time_scale, board)

        def moved_on() -> bool:
            return self.stopping or self._token() != token

        def work() -> None:
            # Were the search ever to fail, the computer's seat would wait for a move that never comes: it
            # plays its first legal action instead, taken before the search touches the copy (a hint: none).
            legal = [] if hint else board.legal_actions()
            try:
                text = str(ai.search(board, budget, stop=moved_on).action)
            except Exception:
                log.exception("the %s search failed", level)
                text = str(legal[0]) if legal else None
            self._submit((HintReady if hint else ComputerMove)(token, text))

        threading.Thread(target=work, name="gryb-hint" if hint else "gryb-computer", daemon=True).start()

    def warm(self, game: Game, key: object) -> None:
        """Build what a game's first search would build inside its budget (ai.warm), off the loop, once a
        game (``key``). The first time a kind of game (class and board) is warmed, settle: its tables then
        live as long as the process, and a settled table is no longer walked by every full collection
        (docs/performance.md, "Garbage collection while the computer plays")."""
        if self._warmed == key:
            return
        self._warmed = key
        board, kind = game.copy(), (type(game), game.space)

        def work() -> None:
            try:
                ai.warm(board)
            except Exception:  # only a head start: a failure costs the first search no more than that
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
