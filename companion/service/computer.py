"""The computer players' searches, each on a thread, answering by command; one nobody waits for ends
(docs/performance.md, "A search nobody waits for")."""

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
        """``token`` names the position now (read on worker threads: plain values, each read whole)."""
        self._submit, self._token, self._settle = submit, token, settle
        self._settled: set[tuple] = set()
        self._warmed: object = None
        self.stopping = False
        self.thinking: tuple | None = None  # the position a computer's search (or roll) runs for
        self.hinting: tuple | None = None

    def turn(self, session, token: tuple, time_scale: float) -> bool:
        """Start a computer player's search; True when it is to roll instead."""
        level = session.computer_to_move()
        if level is None or self.thinking == token:
            return False
        self.thinking = token
        if session.game.is_chance:
            return True
        self.think(session.game, level, time_scale)
        return False

    def hint(self, game: Game, token: tuple, time_scale: float) -> None:
        """A hint's search; none more while it runs."""
        if self.hinting != token:
            self.hinting = token
            self.think(game, ai.HINT_LEVEL, time_scale, hint=True)

    def think(self, game: Game, level: str, time_scale: float, hint: bool = False) -> None:
        """Search a copy of ``game``; ComputerMove or HintReady answers."""
        board, token = game.copy(), self._token()
        budget = ai.level(level, time_scale, board)

        def moved_on() -> bool:
            return self.stopping or self._token() != token

        def work() -> None:
            # A failed search plays the first legal action (taken before the search touches the copy),
            # or its seat would wait for ever.
            legal = [] if hint else board.legal_actions()
            try:
                text = str(ai.search(board, budget, stop=moved_on).action)
            except Exception:
                log.exception("the %s search failed", level)
                text = str(legal[0]) if legal else None
            self._submit((HintReady if hint else ComputerMove)(token, text))

        threading.Thread(target=work, name="gryb-hint" if hint else "gryb-computer", daemon=True).start()

    def warm(self, game: Game, key: object) -> None:
        """Build a game's first tables ahead, once a ``key``; settle after a kind's first
        (docs/performance.md, "Garbage collection while the computer plays")."""
        if self._warmed == key:
            return
        self._warmed = key
        board, kind = game.copy(), (type(game), game.space)

        def work() -> None:
            try:
                ai.warm(board)
            except Exception:  # only a head start
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
