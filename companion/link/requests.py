"""What the page asks of the link, each body declared once (as the runtime's commands are)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from companion.service.commands import Command


@dataclass(frozen=True)
class HostMatch(Command):
    """Open a match for a new game; this board plays seat 1, the boards that join the others."""

    game: str
    players: int | None = None  # None: the fewest the game takes, at least 2
    options: dict = field(default_factory=dict)
    BODY: ClassVar[dict] = {
        "game": {"type": "string", "description": "a game id from /api/games", "x-error": "choose a game"},
        "players": {
            "type": "integer",
            "minimum": 2,
            "maximum": 4,
            "x-error": "players is how many boards play, 2 to 4 (one seat each)",
        },
        "options": {"type": "object", "x-error": "options is an object of option name to value"},
    }
    REQUIRED: ClassVar[tuple[str, ...]] = ("game",)
    SAYS: ClassVar[str] = 'send {"game": a game id, "players": 2 to 4, "options": {}}'


@dataclass(frozen=True)
class JoinMatch(Command):
    """Join the match whose code another board shows."""

    match_code: str
    BODY: ClassVar[dict] = {
        "match_code": {
            "type": "string",
            "maxLength": 20,
            "description": "the match code another board shows (any case; spaces and dashes do not matter)",
            "examples": ["7K3Q-M2XD-9F4A", "H8W2-0RTC-5NJB"],
            "x-error": "give the match code the other board shows",
        }
    }
    REQUIRED: ClassVar[tuple[str, ...]] = ("match_code",)
    SAYS: ClassVar[str] = 'send {"match_code": the match code the other board shows}'
