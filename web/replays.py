"""Replayed games kept for the replay page, so that a step through a record costs a position, not a game.

The page asks for one position at a time (its arrow keys, Play, the slider). Replaying the stored game for
each of them cost a whole game a step, twice over: 0.3 to 0.8 s on a Super Giant board on the development
machine, seconds on the Pi. A replayed game holds every position it went through (the engine's undo
snapshots), so one replay serves every ply: :func:`position` takes a copy back to the one asked for.

A game is kept under a key that changes whenever what it replays could: the caller's (the web's: the game's
id, when it was started, how many events its log holds; the log is append-only, so a game still being
played has a new key after each action, undo or redo, and an old replay is never served for it). The
least recently asked for goes first when more than ``games`` games, or more than ``plies`` positions
together, are kept; a game longer than ``plies`` is replayed for each request and not kept. A position at
depth 6 holds up to some 0.9 KiB (the bitboards that changed and the snapshot's fields; bench/bench_replay.py
measures it), so the default bound is some 9 MiB at most.

Thread-safe: waitress serves requests on several threads. A kept game is never changed after it is kept;
each request moves a copy of it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

from companion.games.engine import Game


class Replays:
    """At most ``games`` replayed games holding at most ``plies`` positions together, latest asked for kept."""

    def __init__(self, games: int = 8, plies: int = 10_000):
        self.games = games
        self.plies = plies
        self._kept: OrderedDict[Hashable, Game] = OrderedDict()
        self._lock = threading.Lock()

    def replayed(self, key: Hashable, replay: Callable[[], Game]) -> Game:
        """The game kept under ``key``, or ``replay()`` (kept, if it fits). Callers must not change it:
        take a :func:`position` of it. What ``replay`` raises is raised, and nothing is kept."""
        with self._lock:
            game = self._kept.get(key)
            if game is not None:
                self._kept.move_to_end(key)
                return game
        # Replayed outside the lock: a long replay does not hold up the steps of other games. Two requests
        # for the same new key may both replay it; the second one kept replaces the first, which is equal.
        game = replay()
        if len(game.history) <= self.plies:
            with self._lock:
                self._kept[key] = game
                self._kept.move_to_end(key)
                while len(self._kept) > self.games or self._plies() > self.plies:
                    self._kept.popitem(last=False)
        return game

    def kept_plies(self) -> int:
        """How many positions the kept games hold together."""
        with self._lock:
            return self._plies()

    def _plies(self) -> int:
        return sum(len(game.history) for game in self._kept.values())

    def __len__(self) -> int:
        with self._lock:  # never the moment between a game kept and the oldest let go
            return len(self._kept)


def position(game: Game, ply: int) -> Game:
    """A copy of a replayed game at the position after its first ``ply`` actions (the game is left as it
    is). Undo restores each position as it was, so this is the game those actions alone would make. A ply
    past the game's history is a ValueError (an action the game took back is not part of its record)."""
    if not 0 <= ply <= len(game.history):
        raise ValueError(f"there is no position {ply}: the game has {len(game.history)} actions")
    view = game.copy()
    view.goto(ply)
    return view
