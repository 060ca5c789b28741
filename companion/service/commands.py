"""What the runtime can be asked to do: one dataclass per command, its JSON body declared once in
``BODY``, whence the web's 400, the runtime's refusal and the OpenAPI document."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar

from companion.games.engine import Game, Option, OptionError, UnknownGame
from companion.games.series import METHODS
from companion.service.schema import CommandError, check
from companion.service.settings import SAYS as SETTINGS_SAYS
from companion.service.settings import SETTINGS
from companion.session.seating import SEATS

GO_ON = "continue"  # a new game goes on with the series
MAX_NAME = 24  # characters
# Never in a name: control characters and bidirectional marks (one turns a history line round).
UNSHOWN = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


NODE = {
    "type": "string",
    "format": "node",
    "pattern": "^(0|[GRYB]{1,6})$",
    "maxLength": 6,
    "description": "a node in the manuals' notation: 0 for the head node, else the colours of its path",
}
GAME = {
    "type": "integer",
    "description": "the id of the game the page shows (state.game_id): refused if a new game has begun since",
    "x-error": "game is the id of the game the page shows (state.game_id), a whole number",
}
PLY = {
    "type": "integer",
    "minimum": 0,
    "description": "the number of actions of the position the page shows (the snapshot's ply): refused "
    "(400, nothing done) when the game has moved on since, so two phones tapping UNDO take back one move",
    "x-error": "ply is the number of actions of the position the page shows (the state's ply), "
    "a whole number",
}


@dataclass(frozen=True)
class Command:
    """A request to the runtime. Fields left None were not sent."""

    BODY: ClassVar[dict] = {}  # field -> JSON Schema; x-error: what a refusal says
    REQUIRED: ClassVar[tuple[str, ...]] = ()
    SAYS: ClassVar[str] = "the body does not read"  # where the field's schema has no x-error

    @classmethod
    def schema(cls) -> dict:
        """The body's JSON Schema."""
        schema = {"type": "object", "additionalProperties": False, "properties": cls.BODY}
        return schema | ({"required": list(cls.REQUIRED)} if cls.REQUIRED else {})

    @classmethod
    def fields(cls) -> tuple[str, ...]:
        return tuple(cls.BODY)

    @classmethod
    def from_body(cls, data: dict) -> Command:
        """The command a body asks for, checked first (a missing field is said, not a TypeError)."""
        check(cls.schema(), {k: v for k, v in data.items() if v is not None}, cls.SAYS)
        return cls(**data)

    def body(self) -> dict:
        return {k: v for k, v in asdict(self).items() if k in self.BODY and v is not None}

    def validate(self) -> None:
        if self.BODY:
            check(self.schema(), self.body(), self.SAYS)


# -- at the table --


@dataclass(frozen=True)
class Press(Command):
    """A tap on a node, as a finger's press."""

    node: str
    game: int | None = None
    BODY: ClassVar[dict] = {
        "node": NODE | {"x-error": 'give the node to press, e.g. {"node": "RG"}'},
        "game": GAME,
    }
    REQUIRED: ClassVar[tuple[str, ...]] = ("node",)


@dataclass(frozen=True)
class ClothPress(Command):
    """A press on the cloth; refused for a board larger than the cloth."""

    node: str


@dataclass(frozen=True)
class Roll(Command):
    game: int | None = None
    BODY: ClassVar[dict] = {"game": GAME}


@dataclass(frozen=True)
class Ok(Command):
    """Confirm, end the turn, pass where that is all there is; at a game's end, play it again."""

    game: int | None = None
    ply: int | None = None
    BODY: ClassVar[dict] = {"game": GAME, "ply": PLY}


@dataclass(frozen=True)
class Undo(Command):
    game: int | None = None
    ply: int | None = None
    BODY: ClassVar[dict] = {"game": GAME, "ply": PLY}


@dataclass(frozen=True)
class Again(Command):
    """The page's Play again: what OK does at a game's end."""

    game: int | None = None
    BODY: ClassVar[dict] = {"game": GAME}


@dataclass(frozen=True)
class Act(Command):
    """An action in the notation (docs/notation.md)."""

    action: str
    game: int | None = None
    BODY: ClassVar[dict] = {
        "action": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200,
            "description": "an action in the notation (docs/notation.md), one of GET /api/legal's",
            "x-error": 'give the action in the notation, e.g. {"action": "0-G"}',
        },
        "game": GAME,
    }
    REQUIRED: ClassVar[tuple[str, ...]] = ("action",)


@dataclass(frozen=True)
class Hint(Command):
    """Ask the computer for a move; the hint appears when its search is done."""


@dataclass(frozen=True)
class Menu(Command):
    """UNDO held: the menu opens (ROLL dims the board, OK closes), or closes."""


@dataclass(frozen=True)
class Seat(Command):
    """Hand a seat to the computer at a level, or back to a person."""

    seat: int
    kind: str
    game: int | None = None
    BODY: ClassVar[dict] = {
        "seat": {
            "type": "integer",
            "description": "the seat, as in state.seats (from 0; the game says how many)",
        },
        "kind": {
            "enum": list(SEATS),
            "description": "a person (human) or the computer at a level",
            "x-error": f"a seat is one of {', '.join(SEATS)}",
        },
        "game": {k: v for k, v in GAME.items() if k != "x-error"},
    }
    REQUIRED: ClassVar[tuple[str, ...]] = ("seat", "kind")
    SAYS: ClassVar[str] = (
        "give the seat (as in state.seats, from 0) and who plays it: a seat is one of "
        f'{", ".join(SEATS)} (e.g. {{"seat": 1, "kind": "hard"}})'
    )


# -- the game, the settings, the catalogue --

NAMES = {
    "type": "array",
    "maxItems": 4,
    "items": {"type": "string"},
    "description": f"the players' names, player 1 first (at most {MAX_NAME} characters are kept; control "
    "and bidirectional characters become spaces); an empty or missing name is given one",
    "x-error": "names is a list of text, one for each player",
}
SEATS_FIELD = {
    "type": "array",
    "items": {"enum": list(SEATS)},
    "description": "per player: human, or the computer at a level",
    "x-error": f"seats is a list with one of {', '.join(SEATS)} for each player",
}
SERIES = {
    "anyOf": [
        {"type": "null"},
        {"const": GO_ON},
        {
            "type": "object",
            "additionalProperties": False,
            "required": ["method", "target"],
            "properties": {
                "method": {"enum": list(METHODS)},
                "target": {"type": "integer", "minimum": 1, "maximum": 10000},
            },
        },
    ],
    "description": f'null: just this game; "{GO_ON}": go on with the series being played; or a new one '
    "with its method and target (1 to 10000)",
    "x-error": f'series is null (just this game), "{GO_ON}" (go on with the series being played) or '
    f'{{"method": one of {", ".join(METHODS)}, "target": a whole number from 1 to 10000}}',
}

ABANDON = {
    "type": "boolean",
    "description": "true: start it even though the game being played is under way, which is then kept in "
    "the history marked abandoned (without it such a request is refused, 409, and nothing changes)",
    "x-error": "abandon is true or false",
}


class Unconfirmed(CommandError):
    """A request that would lose something the players have not agreed to lose: asked again with consent."""


@dataclass(frozen=True)
class NewGame(Command):
    """A new game: the game's id, players, its options, names and seats by player, and the series."""

    game: str
    players: int | None = None  # None: the fewest
    options: dict = field(default_factory=dict)
    names: list | None = None
    series: Any = None
    seats: list | None = None
    abandon: bool | None = None
    BODY: ClassVar[dict] = {
        "game": {
            "type": "string",
            "description": "a game id from /api/games",
            "x-error": "choose a game from /api/games",
        },
        "players": {
            "type": "integer",
            "minimum": 1,
            "maximum": 4,
            "x-error": "players is how many play, a whole number from 1 to 4",
        },
        "options": {"type": "object", "x-error": "options is an object of option name to value"},
        "names": NAMES,
        "series": SERIES,
        "seats": SEATS_FIELD,
        "abandon": ABANDON,
    }
    REQUIRED: ClassVar[tuple[str, ...]] = ("game",)

    def body(self) -> dict:
        body = super().body()
        if self.series is None:
            body.pop("series", None)
        return body

    def make(self, cls: type[Game]) -> tuple[Game, list[str], list[str]]:
        """(the game, names, seats by player), by its own rules."""
        players, options, names, kinds = self.check_for(cls)
        try:
            return cls(players, **options), names, kinds
        except OptionError as err:
            raise CommandError(str(err)) from None

    def check_for(self, cls: type[Game]) -> tuple[int, dict, list[str], list[str]]:
        """(players, options, names cleaned, seats), by the game's own rules."""
        players = cls.min_players if self.players is None else self.players
        if not cls.min_players <= players <= cls.max_players:
            low, high = cls.min_players, cls.max_players
            raise CommandError(
                f"{cls.name} is for {low} players"
                if low == high
                else f"{cls.name} is for {low} to {high} players"
            )
        known = {o.name: o for o in cls.options}
        options = {}
        for key, value in (self.options or {}).items():
            if key not in known:
                raise CommandError(f"{cls.name} has no option {key!r}")
            options[key] = json_option(known[key], value)
        names = list(self.names or [])
        if len(names) > players:
            raise CommandError(NAMES["x-error"])
        seats = list(self.seats) if self.seats is not None else ["human"] * players
        if len(seats) != players:
            raise CommandError(f"seats: one of {', '.join(SEATS)} for each of the {players} players")
        return players, options, [clean_name(n) for n in names], seats


def find_game(catalogue, game_id: str) -> type[Game]:
    try:
        return catalogue.find(game_id)
    except UnknownGame as err:
        raise CommandError(str(err)) from None


def clean_name(name: str) -> str:
    """A name as shown: no UNSHOWN characters, one space between words, MAX_NAME long."""
    return " ".join(UNSHOWN.sub(" ", name).split())[:MAX_NAME]


def json_option(option: Option, value: Any) -> Any:
    """A game option's JSON value: of its default's type, then in its own range."""
    kind = type(option.default)
    if kind is bool and not isinstance(value, bool):
        raise CommandError(f"option {option.name} is true or false")
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise CommandError(f"option {option.name} is a whole number")
    if kind is str and (not isinstance(value, str) or len(value) > 100):
        raise CommandError(f"option {option.name} is text of 100 characters at most")
    try:
        return option.convert(value)
    except ValueError as err:
        raise CommandError(str(err)) from None


def option_schema(option: Option) -> dict:
    """A game option as JSON Schema."""
    kind = type(option.default)
    schema: dict = {"default": option.default}
    if kind is bool:
        schema["type"] = "boolean"
    elif kind is int:
        schema["type"] = "integer"
        schema |= {
            k: v for k, v in (("minimum", option.minimum), ("maximum", option.maximum)) if v is not None
        }
    else:
        schema |= {"type": "string", "maxLength": 100}
    if option.choices is not None:
        schema["enum"] = list(option.choices)
    return schema


def new_game_schema(cls: type[Game], players: int) -> dict:
    """The body that starts ``cls`` for ``players``."""
    options = {o.name: option_schema(o) for o in cls.options}
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["game"] if players == cls.min_players else ["game", "players"],
        "properties": {
            "game": {"const": cls.id},
            "players": {"const": players},
            "options": {"type": "object", "additionalProperties": False, "properties": options},
            "names": NAMES | {"maxItems": players, "items": {"type": "string", "maxLength": MAX_NAME}},
            "seats": SEATS_FIELD | {"minItems": players, "maxItems": players},
            "series": SERIES,
            "abandon": ABANDON,
        },
    }


KEEP: Any = type("Keep", (), {"__repr__": lambda self: "KEEP"})()  # a setting the command leaves as it is


@dataclass(frozen=True)
class ChangeSettings(Command):
    """Change settings (declared in settings.py), all checked first."""

    brightness: float | None = KEEP
    night: bool | None = KEEP
    sounds: bool | None = KEEP
    budget_ma: int | None = KEEP
    colours: list | None = KEEP
    die: str | None = KEEP
    time_scale: float | None = KEEP
    stones: str | None = KEEP
    BODY: ClassVar[dict] = SETTINGS  # the layout's lowest budget is the runtime's to check
    SAYS: ClassVar[str] = SETTINGS_SAYS

    @classmethod
    def schema(cls) -> dict:
        return super().schema() | {"minProperties": 1}

    def body(self) -> dict:
        return self.changes()

    @classmethod
    def from_body(cls, data: dict) -> Command:
        check(cls.schema(), data, cls.SAYS)  # null is refused, not taken as "left out"
        return cls(**data)

    def changes(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not KEEP}


@dataclass(frozen=True)
class ShowCode(Command):
    """Show a pairing code on the board (None hides it); never in the change feed."""

    code: str | None
    BODY: ClassVar[dict] = {
        "code": {
            "type": "string",
            "pattern": "^[GRYB]{4}$",
            "x-error": "a pairing code is four of G, R, Y, B",
        }
    }


@dataclass(frozen=True)
class Compose(Command):
    """Save a composition (docs/composer.md) and add it to the catalogue."""

    text: str
    format: str = "toml"
    replace: bool = False
    BODY: ClassVar[dict] = {
        "text": {"type": "string", "description": "the composition, in TOML (or JSON)"},
        "format": {"enum": ["toml", "json"], "default": "toml"},
        "replace": {"type": "boolean", "default": False, "description": "replace a saved one of the same id"},
    }
    REQUIRED: ClassVar[tuple[str, ...]] = ("text",)
    SAYS: ClassVar[str] = 'send {"text": the composition, "format": "toml" or "json", "replace": false}'


@dataclass(frozen=True)
class ForgetComposition(Command):
    """Delete a saved composition (games under way keep it)."""

    game_id: str


# -- the runtime's own --


@dataclass(frozen=True)
class Snapshot(Command):
    """The snapshot once every command before this one is done."""


@dataclass(frozen=True)
class Tick(Command):
    """Once a second when nothing came."""


@dataclass(frozen=True)
class Read(Command):
    """Run ``look(session)`` on the runtime's thread (tests, tools)."""

    look: Callable


@dataclass(frozen=True)
class ComputerMove(Command):
    """A computer player's move, for the position ``token`` names."""

    token: tuple
    action: str | None


@dataclass(frozen=True)
class ComputerRoll(Command):
    token: tuple


@dataclass(frozen=True)
class HintReady(Command):
    token: tuple
    action: str | None


@dataclass(frozen=True)
class ShowMatchCode(Command):
    """Show a linked match's code on the LEDs (None hides it); never in the change feed."""

    code: str | None


@dataclass(frozen=True)
class Linked(Command):
    """A linked board's action for a seat it plays, checked by the link's signature first
    (docs/linking.md): refused unless at ``ply``, legal, and leading to the position ``digest`` names."""

    game: int
    ply: int
    seat: int
    action: str
    digest: str


@dataclass(frozen=True)
class LinkedRoll(Command):
    """The roll every linked board's revealed value made (docs/linking.md, "Fair dice")."""

    game: int
    ply: int
    seed: str


@dataclass(frozen=True)
class StartLinked(Command):
    """A new game linked to other boards: ``link`` says which board plays each seat."""

    game: str
    players: int
    options: dict
    names: list
    link: dict


# Sent for the game the page shows: refused once a new one has begun.
IN_GAME = (Press, Roll, Ok, Undo, Again, Act)
