"""The games that can be played, by id.

The shipped games (the manuals' and the companion's own compositions) register as their modules are
imported; :func:`shipped` is their catalogue. A runtime owns a catalogue of its own, the shipped games and
the compositions saved in its state directory (companion/service/library.py). A Catalogue is a value: a
game added or taken out makes a new one, so a reader on another thread always sees a whole one.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache

from companion.games.engine import Game, UnknownGame, shipped_classes


class Catalogue:
    def __init__(self, games: Iterable[type[Game]] = ()):
        self._games: dict[str, type[Game]] = {}
        for cls in games:
            if not cls.id or cls.id in self._games:
                raise ValueError(f"game id {cls.id!r} is empty or taken")
            self._games[cls.id] = cls

    def find(self, game_id: str) -> type[Game]:
        try:
            return self._games[game_id]
        except KeyError:
            known = ", ".join(sorted(self._games))
            raise UnknownGame(f"no game {game_id!r}; known games: {known}") from None

    def __iter__(self) -> Iterator[type[Game]]:
        return iter(list(self._games.values()))

    def __contains__(self, game_id: object) -> bool:
        return game_id in self._games

    def __len__(self) -> int:
        return len(self._games)

    def with_game(self, cls: type[Game]) -> Catalogue:
        """This catalogue with ``cls`` added, or in place of the game of its id."""
        return Catalogue([*(g for g in self if g.id != cls.id), cls])

    def without(self, game_id: str) -> Catalogue:
        return Catalogue(g for g in self if g.id != game_id)


@cache
def shipped() -> Catalogue:
    """The games the companion ships with, in the order their modules register them."""
    import companion.games  # noqa: F401  (importing the package registers every game)

    return Catalogue(shipped_classes())


def find(game_id: str) -> type[Game]:
    """A shipped game by id."""
    return shipped().find(game_id)


def catalogue() -> list[type[Game]]:
    """The shipped games."""
    return list(shipped())
