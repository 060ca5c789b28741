"""Compositions: a game made of the manuals' parameters of play, in a TOML or JSON file (docs/composer.md).
:func:`parse` checks one into frozen :class:`Rules`, :func:`export` writes it (companion/service/library.py
keeps them on disk).
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from companion.games.option import Option
from companion.games.series import PRESETS
from companion.rules import node as nd
from companion.rules.node import NodeError
from companion.rules.space import bits, space

MOVE_KEYS = {  # the manuals' word -> the move kind (companion.rules.space)
    "gravity": "down",
    "levity": "up",
    "lateral": "sideways",
    "multi_level": "hyperspace",
    "limited_hyperspace": "limited-hyperspace",
    "interjection": "interjection",
    "limited_interjection": "limited-interjection",
    "excision": "excision",
    "limited_excision": "limited-excision",
}
# The kinds of move encounters can name; not a hop, which lands on a free node (hop_captures takes the stone).
KIND_NAMES = tuple(MOVE_KEYS.values()) + ("reincarnation",)
GOALS = ("gryb", "capture", "corner", "vacate", "race", "surround", "arrangement", "connection")
ID_PATTERN = re.compile(r"[a-z0-9][a-z0-9-]{1,39}")
# Never in a name, source or summary: control characters, bidirectional marks, lone surrogates.
UNSHOWN = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


class CompositionError(ValueError):
    """A composition that cannot be played; the message names the key and the problem."""


def _p(section, key, default, help, **more) -> Option:
    kind = more.pop("kind", None)
    if kind is None:
        kind = "choice" if "choices" in more else type(default).__name__
    return Option(key, default, help, section=section, kind=kind, **more)


SCHEMA: tuple[Option, ...] = (
    _p(
        "",
        "id",
        "",
        "a short name for the game: 2 to 40 lowercase letters, digits and dashes, starting "
        "with a letter or digit",
        kind="id",
    ),
    _p("", "name", "", "the game's name as players say it"),
    _p("", "source", "composed", "where the rules come from"),
    _p("", "summary", "", "one or two sentences for the catalogue"),
    _p("", "players", [2, 2], "number of players, or [fewest, most] (2 to 4)", kind="players"),
    _p("", "teams", False, "four players as two teams, seats 1 and 3 against 2 and 4 (001 'Teams')"),
    _p(
        "",
        "series",
        [],
        "the series the game's manuals suggest, the first the default (001 'Scoring GRYB'): "
        "any of " + ", ".join(PRESETS),
        kind="presets",
    ),
    # The board (000 "Game Space", "Periodic Game Space", "Giant GRYB"; 001 "Headless GRYB").
    _p(
        "board",
        "depth",
        4,
        "levels below the head node: 4 standard, 5 Giant GRYB, 6 Super Giant",
        minimum=2,
        maximum=nd.MAX_DEPTH,
    ),
    _p("board", "headless", False, "play without the head node (001 'Headless GRYB')"),
    _p(
        "board",
        "periodic",
        False,
        "up from the top level reaches the bottom level and down from the bottom the "
        "top (000 'Periodic Game Space')",
    ),
    # Tokens (001 "Token Limits", "Residents", "New Moves"; 000 "Game piece introduction").
    _p(
        "tokens",
        "stones",
        20,
        "stones each player may enter (001 'Token Limits'; residents not counted)",
        minimum=0,
        maximum=400,
    ),
    _p(
        "tokens",
        "enter",
        "top",
        "where new stones enter: the head node, the top quadrangle, the bottom level, "
        "anywhere, or none (residents only)",
        choices=("head", "top", "bottom", "anywhere", "none"),
    ),
    _p(
        "tokens",
        "rolled",
        False,
        "the node die (GRYB Dice II) picks the node each new stone enters on, rolled again while it is taken",
    ),
    _p(
        "tokens",
        "phase",
        "mixed",
        "mixed: each turn enters a stone or moves one; first: every stone enters before any stone moves",
        choices=("mixed", "first"),
    ),
    _p(
        "tokens",
        "residents",
        [],
        "stones on the board before the first turn, one list of nodes per seat (001 'Residents')",
        kind="node-sets",
    ),
    # The turn (001 "Number of Moves per Turn", "Prescribed or Free Moves").
    _p(
        "turn",
        "die",
        "none",
        "prescribed moves: the colour die is rolled each turn (colour); free moves: no die (none)",
        choices=("none", "colour"),
    ),
    _p(
        "turn",
        "colour_of",
        "target",
        "the colour rolled is the node moved to (target) or moved from (source; 001 'Residents')",
        choices=("target", "source"),
    ),
    _p(
        "turn",
        "moves",
        1,
        "moves per turn: one stone several times or several stones once each",
        minimum=1,
        maximum=4,
    ),
    _p(
        "turn",
        "through",
        False,
        "with several moves a turn, the first may pass through a stone to land on a "
        "free node with the next (001 ''Drangles')",
    ),
    _p(
        "turn",
        "turn_limit",
        300,
        "the game is a draw after this many turns each without a winner",
        minimum=10,
        maximum=100000,
    ),
    # Moves (000 "Game Space Traversal", "Mechanisms"; 001 "Gravity & Levity", "Lateral Moves",
    # "Multi-Level Moving", "Reincarnation").
    _p("moves", "gravity", True, "moves down the tree"),
    _p("moves", "levity", False, "moves up the tree"),
    _p("moves", "lateral", False, "sideways moves round a quadrangle"),
    _p(
        "moves",
        "multi_level",
        False,
        "hyperspace: vary any one locus above the focus to a neighbouring colour (001 'Multi-Level Moving')",
    ),
    _p("moves", "limited_hyperspace", False, "vary the penultimate locus to the side"),
    _p("moves", "interjection", False, "insert a locus anywhere (a move one level down, elsewhere)"),
    _p("moves", "limited_interjection", False, "insert a locus before the focus"),
    _p("moves", "excision", False, "remove a locus above the focus (a move one level up, elsewhere)"),
    _p("moves", "limited_excision", False, "remove the penultimate locus"),
    _p(
        "moves",
        "lateral_levels",
        [],
        "levels on which lateral moves are allowed (empty: every level)",
        kind="levels",
    ),
    _p(
        "moves",
        "reincarnation",
        False,
        "a stone on the bottom level moves to the head node in one move (001 'Reincarnation')",
    ),
    _p(
        "moves",
        "exit",
        False,
        "a stone may leave the board past its far end: down off the bottom level "
        "(gravity) or up off the top level (levity)",
    ),
    _p(
        "moves",
        "hopping",
        "none",
        "hop over one stone to the node beyond it by the same kind of move twice: "
        "over your own, your opponents', or any stones (000 'Hopping moves')",
        choices=("none", "own", "opponents", "any"),
    ),
    _p("moves", "hop_captures", False, "a hopped opponent's stone is captured, as in checkers"),
    _p(
        "moves",
        "chain",
        False,
        "new stones build on an unbroken chain of your own stones reaching back to where "
        "stones enter (000 'Chain moves')",
    ),
    # Encounters (000 "Stymie moves", "Encounters", "hold court"; 001 "Lethal Encounters",
    # "Gravity & Levity").
    _p(
        "encounters",
        "landing",
        "stymie",
        "moving onto an opponent's stone: not allowed (stymie), captures it "
        "(lethal), or holds court (a die roll decides)",
        choices=("stymie", "lethal", "hold-court"),
    ),
    _p(
        "encounters",
        "lethal",
        [],
        "the kinds of move that may land on an opponent's stone (empty: every kind the game allows)",
        kind="kinds",
    ),
    _p(
        "encounters",
        "capture_only",
        [],
        "kinds of move made only to land on an opponent's stone",
        kind="kinds",
    ),
    _p(
        "encounters",
        "captured",
        "out",
        "a captured stone leaves the game (out) or goes back to its owner's supply (returned)",
        choices=("out", "returned"),
    ),
    _p(
        "encounters",
        "push",
        False,
        "entering onto an opponent's stone pushes it down a level to a node of "
        "your choice, and any of theirs it lands on in turn; off the bottom it leaves the board (001 'push')",
    ),
    _p(
        "encounters",
        "pop",
        False,
        "entering onto a stone pops it up to the node above, and any stone there in "
        "turn; off the top it leaves the board (001 'pop')",
    ),
    # The goal (000 "Goal/Objective"; 001 "Multi-Level GRYB", "Big & Little Endians", "Scoring GRYB").
    _p("goal", "win", ["gryb"], "the ways to win, any of: " + ", ".join(GOALS), kind="goals"),
    _p("goal", "integrated", False, "integrated (multi-level) GRYBs count, not only covered quadrangles"),
    _p("goal", "levels", [], "levels a winning GRYB may lie on (empty: any)", kind="levels"),
    _p(
        "goal",
        "endian",
        "little",
        "GRYB points 1, 2, 4, 8 from the top (little) or from the bottom (big)",
        choices=("little", "big"),
    ),
    _p(
        "goal",
        "capture",
        0,
        "capture: stones to capture to win (0: all of the opponents' stones)",
        minimum=0,
        maximum=400,
    ),
    _p(
        "goal",
        "race",
        "bottom",
        "race: the first stone to reach the bottom level, the top level, or a named node wins",
        kind="race",
    ),
    _p(
        "goal",
        "arrangement",
        [],
        "arrangement: sets of nodes; the first to cover one of them wins",
        kind="node-sets",
    ),
    _p(
        "goal",
        "connect",
        [],
        "connection: per seat, two nodes to join by a contiguous line of own stones",
        kind="node-sets",
    ),
)
PARAMS: dict[str, Option] = {p.key: p for p in SCHEMA}
SECTIONS = tuple(dict.fromkeys(p.section for p in SCHEMA))
# What the game is, not how it is set up: never an option.
FIXED = {"id", "name", "source", "summary"}


@dataclass(frozen=True)
class OptionSpec:
    """A parameter the players may change when they start the game, and the values it may take."""

    key: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple | None = None


@dataclass(frozen=True)
class Computer:
    """The optional [computer] table: how the computer player searches the game, not its rules (the class
    attributes ``wide_root`` and ``computer_levels`` of companion.games.engine.Game)."""

    wide_root: bool = False
    levels: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = ()  # (level, ((change, value), ...))

    def level_changes(self) -> dict[str, dict[str, Any]]:
        return {name: dict(changes) for name, changes in self.levels}

    def as_dict(self) -> dict[str, Any]:
        return ({"wide_root": True} if self.wide_root else {}) | self.level_changes()


# What [computer] may change in a level (companion/ai.py's Level): (lowest, highest, a whole number).
# Hard's iterations and time are never held back: a game may change how it searches, not how long.
COMPUTER_LEVELS = ("easy", "medium", "hard")
LEVEL_CHANGES = {
    "iterations": (1, 100000, True),
    "playout": (0, 100, True),
    "blunder": (0, 1, False),
    "exploration": (0, 10, False),
}


@dataclass(frozen=True)
class Rules:
    """A checked composition: every parameter's value (``values``) and the options players may change."""

    values: tuple[tuple[str, Any], ...]
    options: tuple[OptionSpec, ...] = ()
    # Rules a recorded game was played by: parameters that can never take effect are let be, so that a
    # record made before they were refused still replays.
    played: bool = field(default=False, compare=False)
    computer: Computer = Computer()

    def __post_init__(self):
        for key, value in self.values:  # plain attributes (rules.depth ...), read on hot paths
            object.__setattr__(self, key, value)

    def as_dict(self) -> dict[str, Any]:
        return {k: _thaw(v) for k, v in self.values}

    def with_values(self, changes: dict[str, Any]) -> Rules:
        """These rules with some parameters changed (a game's options), checked again as a whole."""
        data = self.as_dict() | changes  # the options' ranges were checked with the file
        return _check(data, self.options, ends=False, played=self.played, computer=self.computer)

    @property
    def kinds(self) -> tuple[str, ...]:
        """The move kinds (companion.rules.space names) the game allows."""
        return tuple(kind for key, kind in MOVE_KEYS.items() if getattr(self, key))


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value


# -- reading


def loads(text: str, fmt: str = "toml") -> Rules:
    """A composition from TOML (or JSON) text; CompositionError names what is wrong."""
    try:
        data = json.loads(text) if fmt == "json" else tomllib.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as err:
        raise CompositionError(f"not valid {fmt.upper()}: {err}") from None
    except ValueError:  # past Python's 4300 digits for an int (its message names sys calls)
        raise CompositionError(f"not valid {fmt.upper()} here: a number with too many digits") from None
    except RecursionError:  # thousands of [ in a row: past the reader's stack
        raise CompositionError(f"not valid {fmt.upper()} here: nested too deep") from None
    if not isinstance(data, dict):
        raise CompositionError("a composition is a table of parameters")
    return parse(data)


def parse(data: dict, played: bool = False) -> Rules:
    """Check a composition given as nested tables; ``played``: see :attr:`Rules.played`."""
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if key in ("options", "computer"):
            continue
        if isinstance(value, dict):
            if key not in SECTIONS or not key:
                raise CompositionError(
                    f"unknown section [{key}]; sections: " + ", ".join(f"[{s}]" for s in SECTIONS if s)
                )
            for inner, v in value.items():
                param = PARAMS.get(inner)
                if param is None or param.section != key:
                    known = ", ".join(p.key for p in SCHEMA if p.section == key)
                    raise CompositionError(f"[{key}] has no parameter {inner!r}; it has: {known}")
                flat[inner] = v
        else:
            param = PARAMS.get(key)
            if param is None or param.section:
                hint = f" (it belongs in [{param.section}])" if param else ""
                raise CompositionError(f"unknown parameter {key!r}{hint}")
            flat[key] = value
    for required in ("id", "name"):
        if required not in flat:
            raise CompositionError(f"{required} is missing: every composition names its {required}")
    options = _parse_options(data.get("options", {}))
    values = {p.key: flat.get(p.key, p.default) for p in SCHEMA}
    computer = _parse_computer(data.get("computer", {}))
    return _check(values, options, played=played, computer=computer)


def _parse_options(table: Any) -> tuple[OptionSpec, ...]:
    if not isinstance(table, dict):
        raise CompositionError("[options] is a table: parameter = true, [min, max] or [choices]")
    specs = []
    for key, spec in table.items():
        param = PARAMS.get(key)
        if param is None or key in FIXED:
            raise CompositionError(f"[options] {key}: not a parameter players can set when they start a game")
        if param.kind in ("node-sets", "players", "goals", "kinds", "levels", "presets"):
            raise CompositionError(f"[options] {key}: a list parameter cannot be an option")
        if spec is True:
            specs.append(OptionSpec(key))
        elif (
            param.kind == "int"
            and isinstance(spec, list)
            and len(spec) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in spec)
            and spec[0] <= spec[1]
        ):
            low, high = spec
            if (param.minimum is not None and low < param.minimum) or (
                param.maximum is not None and high > param.maximum
            ):
                raise CompositionError(
                    f"[options] {key}: [{low}, {high}] goes outside what {param.where} "
                    f"takes, {param.minimum} to {param.maximum}"
                )
            specs.append(OptionSpec(key, minimum=low, maximum=high))
        elif (
            param.kind in ("choice", "race")
            and isinstance(spec, list)
            and spec
            and all(isinstance(v, str) for v in spec)
        ):
            specs.append(OptionSpec(key, choices=tuple(spec)))
        else:
            raise CompositionError(
                f"[options] {key}: write true, [min, max] for a number, or a list of choices"
            )
    return tuple(specs)


def _parse_computer(table: Any) -> Computer:
    if not isinstance(table, dict):
        raise CompositionError("[computer] is a table: wide_root = true, easy = {iterations = 20} ...")
    for key in table:
        if key != "wide_root" and key not in COMPUTER_LEVELS:
            known = ", ".join(("wide_root",) + COMPUTER_LEVELS)
            raise CompositionError(f"[computer] has no parameter {key!r}; it has: {known}")
    wide_root = table.get("wide_root", False)
    if not isinstance(wide_root, bool):
        raise CompositionError(f"computer.wide_root is true or false, not {wide_root!r}")
    levels = tuple((name, _level_changes(name, table[name])) for name in COMPUTER_LEVELS if name in table)
    return Computer(wide_root, levels)


def _level_changes(name: str, changes: Any) -> tuple[tuple[str, Any], ...]:
    where = f"computer.{name}"
    if not isinstance(changes, dict) or not changes:
        raise CompositionError(
            f"{where} is a table of changes to the level: any of {', '.join(LEVEL_CHANGES)}"
        )
    for key, value in changes.items():
        if key not in LEVEL_CHANGES:
            raise CompositionError(f"{where} has no {key!r}; a level changes: {', '.join(LEVEL_CHANGES)}")
        if name == "hard" and key in ("iterations", "blunder"):
            raise CompositionError(
                f"{where}.{key}: hard is never held back; it may change playout and exploration"
            )
        low, high, whole = LEVEL_CHANGES[key]
        kinds = int if whole else (int, float)
        if isinstance(value, bool) or not isinstance(value, kinds) or not low <= value <= high:
            number = "a whole number" if whole else "a number"
            raise CompositionError(f"{where}.{key} is {number} from {low} to {high}, not {value!r}")
    return tuple((key, changes[key]) for key in LEVEL_CHANGES if key in changes)


# -- checking


def _check(
    values: dict[str, Any],
    options: tuple[OptionSpec, ...],
    ends: bool = True,
    played: bool = False,
    computer: Computer = Computer(),
) -> Rules:
    for p in SCHEMA:
        values[p.key] = _check_value(p, values[p.key])
    for spec in options:
        value = values[spec.key]
        if spec.choices is not None and value not in spec.choices:
            raise CompositionError(f"[options] {spec.key}: its own value {value!r} is not among its choices")
    _check_together(values, played)
    # What players may choose must make a game too.
    for spec in options if ends else ():
        for end in () if spec.minimum is None else (spec.minimum, spec.maximum):
            try:
                _check_together({**values, spec.key: end}, played)
            except CompositionError as err:
                raise CompositionError(f"[options] {spec.key} = {end} (an end of its range): {err}") from None
        for choice in spec.choices or ():
            try:
                _check_together({**values, spec.key: _check_value(PARAMS[spec.key], choice)}, played)
            except CompositionError as err:
                raise CompositionError(
                    f"[options] {spec.key} = {choice!r} (one of its choices): {err}"
                ) from None
    return Rules(tuple((k, _freeze(v)) for k, v in values.items()), options, played, computer)


def _check_value(p: Option, value: Any) -> Any:
    where = p.where
    if p.kind in ("str", "id"):
        if not isinstance(value, str):
            raise CompositionError(f"{where} is text, not {value!r}")
        if p.kind == "id" and not ID_PATTERN.fullmatch(value):
            raise CompositionError(
                f"{where} {value!r}: 2 to 40 lowercase letters, digits and dashes, "
                "starting with a letter or digit"
            )
        if p.key == "name" and not 1 <= len(value.strip()) <= 40:
            raise CompositionError(f"{where}: 1 to 40 characters")
        if len(value) > 400:
            raise CompositionError(f"{where} is too long (400 characters at most)")
        if bad := UNSHOWN.search(value):
            raise CompositionError(
                f"{where}: no control characters, bidirectional overrides or half characters "
                f"(U+{ord(bad.group()):04X} at character {bad.start() + 1})"
            )
        return value
    if p.kind == "bool":
        if not isinstance(value, bool):
            raise CompositionError(f"{where} is true or false, not {value!r}")
        return value
    if p.kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise CompositionError(f"{where} is a whole number, not {value!r}")
        if (p.minimum is not None and value < p.minimum) or (p.maximum is not None and value > p.maximum):
            raise CompositionError(f"{where} is from {p.minimum} to {p.maximum}, not {value}")
        return value
    if p.kind == "choice":
        if value not in p.choices:
            raise CompositionError(f"{where} is one of {', '.join(p.choices)}, not {value!r}")
        return value
    if p.kind == "players":
        if isinstance(value, int) and not isinstance(value, bool):
            value = [value, value]
        if not (
            isinstance(value, (list, tuple))
            and len(value) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        ):
            raise CompositionError(f"players is a number or [fewest, most], not {value!r}")
        low, high = value
        if not 2 <= low <= high <= 4:
            said = low if low == high else list(value)
            raise CompositionError(f"players: from 2 to 4 (a number, or [fewest, most]), not {said}")
        return [low, high]
    if p.kind == "race":
        if not isinstance(value, str) or not value:
            raise CompositionError(f"{where} is 'bottom', 'top' or a node name, not {value!r}")
        return value
    if not isinstance(value, (list, tuple)):
        raise CompositionError(f"{where} is a list, not {value!r}")
    if p.kind == "levels":
        if not all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= nd.MAX_DEPTH for v in value):
            raise CompositionError(f"{where} lists levels 1 to {nd.MAX_DEPTH}, not {list(value)}")
        return sorted(set(value))
    if p.kind == "kinds":
        for v in value:
            if v not in KIND_NAMES:
                raise CompositionError(
                    f"{where}: {v!r} is not a kind of move; kinds: {', '.join(KIND_NAMES)}"
                )
        return list(dict.fromkeys(value))
    if p.kind == "presets":
        for v in value:
            if not isinstance(v, str) or v not in PRESETS:
                raise CompositionError(
                    f"{where}: {v!r} is not a series preset; presets: {', '.join(PRESETS)}"
                )
        if len(set(value)) != len(value):
            raise CompositionError(f"{where} names a preset twice")
        return list(value)
    if p.kind == "goals":
        if not value:
            raise CompositionError(f"{where}: a game needs at least one way to win")
        for v in value:
            if v not in GOALS:
                raise CompositionError(f"{where}: {v!r} is not a goal; goals: {', '.join(GOALS)}")
        return list(dict.fromkeys(value))
    if p.kind == "node-sets":
        if not all(isinstance(s, (list, tuple)) and all(isinstance(n, str) for n in s) for s in value):
            raise CompositionError(f"{where} is a list of lists of node names, not {value!r}")
        return [list(s) for s in value]
    raise AssertionError(p.kind)


def _nodes(values: dict, key: str, names) -> list[int]:
    try:
        return [nd.parse(n, values["depth"], values["headless"]) for n in names]
    except NodeError as err:
        raise CompositionError(f"{PARAMS[key].where}: {err}") from None


def _check_together(v: dict[str, Any], played: bool = False) -> None:
    """Contradictions between parameters, naming both sides (``played``: not the dead ones)."""
    low, high = v["players"]
    depth, kinds = v["depth"], [kind for key, kind in MOVE_KEYS.items() if v[key]]
    if v["teams"] and (low, high) != (4, 4):
        raise CompositionError("teams: two teams of two need players = 4")
    if v["enter"] == "head" and v["headless"]:
        raise CompositionError("tokens.enter = 'head' but board.headless removes the head node")
    if v["reincarnation"] and v["headless"]:
        raise CompositionError("moves.reincarnation moves to the head node, which board.headless removes")
    if v["rolled"] and v["enter"] in ("none", "head"):
        raise CompositionError(
            f"tokens.rolled: the node die cannot choose where stones enter when tokens.enter = {v['enter']!r}"
        )
    if v["rolled"] and v["phase"] != "first":
        raise CompositionError(
            "tokens.rolled: the node die places stones in a first phase; set tokens.phase = 'first'"
        )
    if v["rolled"] and v["chain"]:
        raise CompositionError(
            "tokens.rolled and moves.chain: the die picks the node, so no chain can decide it"
        )
    if v["enter"] == "none" or v["stones"] == 0:
        if not v["residents"]:
            raise CompositionError(
                "no stone can ever be on the board: give tokens.stones and tokens.enter, or tokens.residents"
            )
    if v["phase"] == "first" and (v["enter"] == "none" or v["stones"] == 0):
        raise CompositionError(
            "tokens.phase = 'first' needs stones to enter (tokens.stones and tokens.enter)"
        )
    if v["through"] and v["moves"] < 2:
        raise CompositionError(
            "turn.through needs turn.moves of 2 or more: the stone lands with the next move"
        )
    if v["through"] and v["landing"] != "stymie":
        raise CompositionError(
            "turn.through passes over stones, so landing on one cannot also capture it: set "
            "encounters.landing = 'stymie'"
        )
    movers = kinds or v["reincarnation"] or v["hopping"] != "none"
    if not movers and v["phase"] == "first":
        raise CompositionError(
            "tokens.phase = 'first' but no kind of move is allowed: nothing could happen "
            "after the stones are placed"
        )
    if v["exit"] and not (v["gravity"] or v["levity"]):
        raise CompositionError("moves.exit leaves the board down (gravity) or up (levity): allow one of them")
    if v["hop_captures"] and v["hopping"] in ("none", "own"):
        raise CompositionError("moves.hop_captures needs moves.hopping over opponents ('opponents' or 'any')")
    allowed = set(kinds) | ({"reincarnation"} if v["reincarnation"] else set())
    for key in ("lethal", "capture_only"):
        for kind in v[key]:
            if kind not in allowed:
                raise CompositionError(
                    f"encounters.{key} names {kind!r}, a kind of move the game does not allow"
                )
    if v["capture_only"] and v["landing"] == "stymie":
        raise CompositionError(
            "encounters.capture_only: with landing = 'stymie' no move can land on an opponent"
        )
    if v["lethal"] and v["landing"] == "stymie":
        raise CompositionError(
            "encounters.lethal names kinds of move, but landing = 'stymie' makes none lethal"
        )
    if (v["push"] or v["pop"]) and v["enter"] == "none":
        raise CompositionError("encounters.push and pop happen when a stone enters: tokens.enter is 'none'")
    if v["push"] and v["pop"]:
        raise CompositionError(
            "encounters.push and pop together: an entering stone cannot push down and pop up"
        )
    if v["push"] and v["enter"] == "bottom":
        raise CompositionError(
            "encounters.push drives stones down from where they enter; tokens.enter = "
            "'bottom' leaves nowhere to push them (use pop)"
        )
    if v["pop"] and v["enter"] in ("head", "top"):
        raise CompositionError(
            f"encounters.pop drives stones up from where they enter; tokens.enter = "
            f"{v['enter']!r} leaves nowhere to pop them (use push)"
        )
    if (v["push"] or v["pop"]) and v["rolled"]:
        raise CompositionError(
            "encounters.push/pop need an occupied node to enter on; the node die only picks free nodes"
        )
    # A list of levels none of which is on the board is a contradiction.
    for key in ("lateral_levels", "levels"):
        if v[key] and min(v[key]) > depth:
            raise CompositionError(
                f"{PARAMS[key].where} names only levels below the bottom of a board of depth {depth}"
            )
    if v["lateral_levels"] and not v["lateral"]:
        raise CompositionError("moves.lateral_levels limits lateral moves, but moves.lateral is false")
    if not played:
        _check_dead(v, kinds)
    goals = v["win"]
    if "vacate" in goals and not v["exit"]:
        raise CompositionError("goal 'vacate': stones must be able to leave the board; set moves.exit")
    if (
        "capture" in goals
        and v["landing"] == "stymie"
        and not v["hop_captures"]
        and not v["push"]
        and not v["pop"]
    ):
        raise CompositionError(
            "goal 'capture' but nothing captures: set encounters.landing, hop_captures, push or pop"
        )
    if "capture" in goals and v["capture"] and v["captured"] == "out":
        # Taken stones never come back: the goal must not exceed what the fewest opponents ever have.
        own = [
            (v["stones"] if v["enter"] != "none" else 0)
            + (len(v["residents"][seat]) if v["residents"] else 0)
            for seat in range(low)
        ]
        fewest = min(
            sum(own[f] for f in range(low) if (f - seat) % (2 if v["teams"] else low)) for seat in range(low)
        )
        if v["capture"] > fewest:
            raise CompositionError(
                f"goal.capture = {v['capture']}, but captured stones leave the game and an "
                f"opponent has only {fewest} stones to take (tokens.stones, tokens.residents): "
                "ask for fewer, or set encounters.captured = 'returned'"
            )
    if "race" in goals and v["race"] not in ("top", "bottom"):
        _nodes(v, "race", [v["race"]])
    if "race" in goals and v["race"] == v["enter"]:
        raise CompositionError(
            f"goal.race = {v['race']!r} is where tokens.enter brings stones in: the first stone "
            "entered would win; race to the other end"
        )
    if "arrangement" in goals and not v["arrangement"]:
        raise CompositionError("goal 'arrangement' needs goal.arrangement: the sets of nodes to cover")
    if v["arrangement"]:
        for s in v["arrangement"]:
            if not s or len(set(_nodes(v, "arrangement", s))) != len(s):
                raise CompositionError("goal.arrangement: each set names one or more different nodes")
    if "connection" in goals:
        if len(v["connect"]) < high or any(len(pair) != 2 for pair in v["connect"]):
            raise CompositionError(
                f"goal 'connection' needs goal.connect: two nodes for each of the {high} seats"
            )
    for pair in v["connect"]:
        _nodes(v, "connect", pair)
    if not movers and v["enter"] == "none":
        raise CompositionError("nothing can ever happen: no stones enter and none can move")
    if v["residents"]:
        if len(v["residents"]) != high:
            raise CompositionError(
                f"tokens.residents: one list of nodes for each of the {high} seats, not {len(v['residents'])}"
            )
        seen: dict[int, int] = {}
        for seat, names in enumerate(v["residents"][:high]):
            for n in _nodes(v, "residents", names):
                if n in seen:
                    raise CompositionError(
                        f"tokens.residents: {nd.name(n)} is given to seat {seen[n] + 1} and seat {seat + 1}"
                    )
                seen[n] = seat
        if v["connect"]:
            for seat, pair in enumerate(v["connect"][:high]):
                for n in _nodes(v, "connect", pair):
                    if seen.get(n, seat) != seat:
                        raise CompositionError(
                            f"goal.connect: seat {seat + 1}'s endpoint {nd.name(n)} holds "
                            f"a resident of seat {seen[n] + 1}"
                        )
    if v["phase"] == "first" and (v["rolled"] or not (v["through"] or v["push"] or v["pop"])):
        ends = ((0, "head"), (1, "top"), (depth, "bottom"))
        entry = [
            n
            for n in nd.nodes(depth, v["headless"])
            if v["enter"] == "anywhere" or (nd.LEVEL[n], v["enter"]) in ends
        ]
        room = len(set(entry) - {n for names in v["residents"][:high] for n in _nodes(v, "residents", names)})
        if v["stones"] * high > room:
            raise CompositionError(
                f"tokens.phase = 'first' enters every stone before any moves, but {high} players' "
                f"tokens.stones = {v['stones']} need {v['stones'] * high} free nodes and "
                f"tokens.enter = {v['enter']!r} has {room}"
            )
    if v["levels"] and "gryb" not in goals:
        raise CompositionError("goal.levels limits GRYBs, but 'gryb' is not among goal.win")


def _check_dead(v: dict[str, Any], kinds: list[str]) -> None:
    """Parameters that can never take effect: refused, naming both sides. A board is built only where
    needed (a Super Giant board's tables are megabytes)."""
    if v["hopping"] != "none" and not any(_repeats(v, kind) for kind in kinds):
        allowed = ", ".join(k for k, kind in MOVE_KEYS.items() if v[k]) or "none"
        raise CompositionError(
            f"moves.hopping = {v['hopping']!r} hops by the same kind of move twice, but no kind "
            f"of move the game allows goes twice on this board (moves allowed: {allowed})"
        )
    if v["colour_of"] == "source" and v["die"] != "colour":
        raise CompositionError(
            "turn.colour_of = 'source' makes the colour rolled the node moved from, but "
            "turn.die = 'none' rolls no colour: set turn.die = 'colour'"
        )
    if v["reincarnation"] and not _reaches_bottom(v, kinds):
        raise CompositionError(
            "moves.reincarnation moves a stone from the bottom level, but no stone can ever get "
            "there: moves.gravity is false, and no other move, tokens.enter, tokens.residents or "
            "encounters.push brings one down"
        )
    goals = v["win"]
    unused = [
        (key, goal)
        for key, goal in (
            ("integrated", "gryb"),
            ("endian", "gryb"),
            ("capture", "capture"),
            ("race", "race"),
            ("arrangement", "arrangement"),
            ("connect", "connection"),
        )
        if v[key] != PARAMS[key].default and goal not in goals
    ]
    if unused:
        key, goal = unused[0]
        raise CompositionError(
            f"goal.{key} is set, but {goal!r} is not among goal.win: it would change nothing"
        )
    captures = v["landing"] != "stymie" or v["hop_captures"] or v["push"] or v["pop"]
    if v["captured"] == "returned" and not captures:
        raise CompositionError(
            "encounters.captured = 'returned' gives captured stones back, but nothing captures: "
            "encounters.landing is 'stymie' and no hop_captures, push or pop"
        )


def _repeats(v: dict[str, Any], kind: str) -> bool:
    """Whether some move of ``kind`` can be made twice in a row (a hop), as on every board of 3+ levels."""
    if v["depth"] >= 3:
        return True
    board = space(v["depth"], v["headless"], v["periodic"])
    for n in board.nodes:
        for m in board.targets(kind, n):
            if board.target_mask(kind, m) & ~(1 << n):
                return True
    return False


def _reaches_bottom(v: dict[str, Any], kinds: list[str]) -> bool:
    """Whether a stone can ever stand on the bottom level."""
    if v["gravity"] or v["enter"] in ("bottom", "anywhere") or v["push"]:
        return True  # with gravity any stone falls there
    board = space(v["depth"], v["headless"], v["periodic"])
    start = {"head": [nd.HEAD], "top": [n for n in board.nodes if nd.LEVEL[n] == 1]}.get(v["enter"], [])
    start += [n for names in v["residents"] for n in _nodes(v, "residents", names)]
    seen = reached = sum(1 << n for n in set(start))
    while reached:
        onward = 0
        for n in bits(reached):
            for kind in kinds:
                onward |= board.target_mask(kind, n)
        reached = onward & ~seen
        seen |= reached
    return bool(seen & board.bottom)


# -- writing


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a TOML basic string is a JSON string
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):  # an inline table: [computer]'s levels
        return "{" + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(value)


def to_data(rules: Rules) -> dict:
    """Nested tables, as a file holds them, every parameter written out."""
    values = rules.as_dict()
    data: dict[str, Any] = {}
    for p in SCHEMA:
        value = values[p.key]
        if p.key == "players" and value[0] == value[1]:
            value = value[0]
        if p.section:
            data.setdefault(p.section, {})[p.key] = value
        else:
            data[p.key] = value
    if rules.options:
        data["options"] = {
            s.key: [s.minimum, s.maximum]
            if s.minimum is not None
            else list(s.choices)
            if s.choices is not None
            else True
            for s in rules.options
        }
    if rules.computer.as_dict():
        data["computer"] = rules.computer.as_dict()
    return data


def export(rules: Rules, fmt: str = "toml") -> str:
    """The whole composition as TOML (every parameter with its meaning as a comment) or JSON."""
    data = to_data(rules)
    if fmt == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    lines = []
    for section in SECTIONS:
        table = data if not section else data[section]
        if section:
            lines += ["", f"[{section}]"]
        for p in SCHEMA:
            if p.section == section:
                lines.append(f"{p.key} = {_toml_value(table[p.key])}  # {p.help}")
    if "options" in data:
        lines += ["", "[options]  # what players may change when they start a game"]
        lines += [f"{k} = {_toml_value(v)}" for k, v in data["options"].items()]
    if "computer" in data:
        lines += ["", "[computer]  # how the computer player searches this game (docs/composer.md)"]
        lines += [f"{k} = {_toml_value(v)}" for k, v in data["computer"].items()]
    return "\n".join(lines) + "\n"


# -- the library
