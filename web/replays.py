"""Replayed games kept, so that a step through a record costs a position, not a game (docs/performance.md,
"Replay: stepping through a game"). A key must change whenever what it replays could."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

from companion.games.engine import Game


class Replays:
    """At most ``games`` games of at most ``plies`` positions together, the least recently asked for
    dropped first; a game longer than ``plies`` is not kept."""

    def __init__(self, games: int = 8, plies: int = 10_000):
        self.games = games
        self.plies = plies
        self._kept: OrderedDict[Hashable, Game] = OrderedDict()
        self._lock = threading.Lock()

    def replayed(self, key: Hashable, replay: Callable[[], Game]) -> Game:
        """The game kept under ``key``, or ``replay()``; never to be changed: take a :func:`position`."""
        with self._lock:
            game = self._kept.get(key)
            if game is not None:
                self._kept.move_to_end(key)
                return game
        # Outside the lock: a long replay holds up no other game.
        game = replay()
        if len(game.history) <= self.plies:
            with self._lock:
                self._kept[key] = game
                self._kept.move_to_end(key)
                while len(self._kept) > self.games or self._plies() > self.plies:
                    self._kept.popitem(last=False)
        return game

    def kept_plies(self) -> int:
        with self._lock:
            return self._plies()

    def _plies(self) -> int:
        return sum(len(game.history) for game in self._kept.values())

    def __len__(self) -> int:
        with self._lock:  # never the moment between a game kept and the oldest let go
            return len(self._kept)


def position(game: Game, ply: int) -> Game:
    """A copy of ``game`` after its first ``ply`` actions, as those alone would make it; ValueError past
    its history (an action taken back is not part of the record)."""
    if not 0 <= ply <= len(game.history):
        raise ValueError(f"there is no position {ply}: the game has {len(game.history)} actions")
    view = game.copy()
    view.goto(ply)
    return view
