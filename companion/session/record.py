"""Game records as JSON and as text, read back and replayed (the forms: docs/notation.md).

Rolls are actions of the record, so it replays without the die: the seed is kept only to go on with it.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime

from companion.games.catalogue import find
from companion.games.composed import interpreter as composed
from companion.games.composed import schema as composition
from companion.games.engine import Game, UnknownGame

FORMAT = 1
DATE = "%Y-%m-%dT%H:%M:%SZ"  # UTC: the same wherever the record is read
TAG = re.compile(r'\[(\w+) "((?:[^"\\]|\\.)*)"\]')


class RecordError(ValueError):
    pass


@dataclass
class GameRecord:
    game: str
    players: int
    options: dict = field(default_factory=dict)
    seed: int | None = None
    actions: list[str] = field(default_factory=list)
    rules: dict | None = None  # a saved composition's, so the record replays where it is not saved
    # By player, player 1 first; None where not known (the command line's games).
    names: list[str] | None = None
    seats: list[str] | None = None  # "human" or the computer's level
    date: str | None = None  # when the game began
    result: dict | None = None  # {"winners": [players from 0], "scores": [points]} once it ended

    @classmethod
    def of(
        cls,
        game: Game,
        seed: int | None = None,
        *,
        names: list[str] | None = None,
        seats: list[str] | None = None,
        started: float | None = None,
        result: dict | None = None,
    ) -> GameRecord:
        """The record of ``game``; ``started`` in seconds since the epoch."""
        options = {k: v for k, v in game.settings.items()}
        rules = (
            composition.to_data(game.base_rules)
            if getattr(game, "composed", False) and not game.shipped
            else None
        )
        date = None if started is None else datetime.fromtimestamp(started, UTC).strftime(DATE)
        result = (
            None if result is None else {"winners": list(result["winners"]), "scores": list(result["scores"])}
        )
        return cls(
            game.id,
            game.players,
            options,
            seed,
            [str(a) for a, _ in game.history],
            rules,
            None if names is None else list(names),
            None if seats is None else list(seats),
            date,
            result,
        )

    def new_game(self) -> Game:
        if self.rules is None:
            return find(self.game)(self.players, **self.options)
        try:
            return composed.game_class(composition.parse(self.rules, played=True))(
                self.players, **self.options
            )
        except composition.CompositionError as err:
            raise RecordError(f"the record's composition does not read: {err}") from None

    def replay(self) -> Game:
        """The game after every action; RecordError names an action that does not replay."""
        game = self.new_game()
        for number, text in enumerate(self.actions, start=1):
            try:
                game.apply(text)
            except ValueError as err:
                raise RecordError(f"action {number} ({text}) cannot be replayed: {err}") from None
        return game

    def to_json(self) -> str:
        data = {"format": FORMAT, **asdict(self)}
        for key in ("rules", "names", "seats", "date", "result"):  # left out where not known
            if data[key] is None:
                del data[key]
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        try:
            data = json.loads(text)
            if data.get("format") != FORMAT:
                raise RecordError(f"not a game record of format {FORMAT}: format {data.get('format')!r}")
            rules = data.get("rules")
            if rules is not None and not isinstance(rules, dict):
                raise RecordError("not a game record: its rules are not a table of parameters")
            record = cls(
                str(data["game"]),
                int(data["players"]),
                dict(data.get("options", {})),
                data.get("seed"),
                [str(a) for a in data.get("actions", [])],
                rules,
                data.get("names"),
                data.get("seats"),
                data.get("date"),
                data.get("result"),
            )
        except (KeyError, TypeError, AttributeError, json.JSONDecodeError) as err:
            raise RecordError(f"not a game record: {err}") from None
        return record._checked()

    def _checked(self) -> GameRecord:
        """This record, if well formed; else RecordError."""
        for key in ("names", "seats"):
            value = getattr(self, key)
            if value is not None and (
                not isinstance(value, list)
                or len(value) != self.players
                or not all(isinstance(v, str) for v in value)
            ):
                raise RecordError(
                    f"not a game record: its {key} are not one text for each of its {self.players} players"
                )
        if self.date is not None:
            try:
                datetime.strptime(self.date, DATE)
            except (TypeError, ValueError):
                raise RecordError(
                    f"not a game record: its date {self.date!r} is not as {DATE} writes one"
                ) from None
        result = self.result
        if result is not None:
            winners, scores = (
                (result.get("winners"), result.get("scores")) if isinstance(result, dict) else (0, 0)
            )
            if not (
                isinstance(winners, list)
                and isinstance(scores, list)
                and len(scores) == self.players
                and all(type(w) is int and 0 <= w < self.players for w in winners)
                and all(type(p) in (int, float) for p in scores)
            ):
                raise RecordError(
                    "not a game record: its result is not {winners: players, scores: points per player}"
                )
        return self

    def to_text(self) -> str:
        """Header lines (players numbered from 1, as on the page), then one numbered action a line."""
        lines = [_tag("Game", self.game), _tag("Players", self.players)]
        lines += [_tag("Option", f"{k}={v}") for k, v in sorted(self.options.items())]
        if self.seed is not None:
            lines.append(_tag("Seed", self.seed))
        if self.date is not None:
            lines.append(_tag("Date", self.date))
        lines += [_tag(f"Name{n}", name) for n, name in enumerate(self.names or [], start=1)]
        if self.seats is not None:
            lines.append(_tag("Seats", " ".join(self.seats)))
        if self.result is not None:
            winners = self.result["winners"]
            lines.append(_tag("Winners", " ".join(str(w + 1) for w in winners) if winners else "none"))
            lines.append(_tag("Points", " ".join(str(p) for p in self.result["scores"])))
        lines.append("")
        lines += [f"{i}. {a}" for i, a in enumerate(self.actions, start=1)]
        return "\n".join(lines) + "\n"

    @classmethod
    def from_text(cls, text: str) -> GameRecord:
        """Read the text form back; an unknown tag is skipped, so a later version's record still reads."""
        tags: dict[str, str] = {}
        options: list[str] = []
        actions: list[str] = []
        for number, line in enumerate(text.splitlines(), start=1):
            tag = TAG.fullmatch(line.strip())  # before comments go: a name may hold a #
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            tag = tag or TAG.fullmatch(line)
            if tag:
                if actions:
                    raise RecordError(f"line {number}: a header line after the actions")
                value = re.sub(r"\\(.)", r"\1", tag.group(2))
                if tag.group(1) == "Option":
                    options.append(value)
                else:
                    tags[tag.group(1)] = value
                continue
            numbered, _, action = line.partition(". ")
            if numbered != str(len(actions) + 1) or not action.strip():
                raise RecordError(
                    f"line {number}: not a header line or action {len(actions) + 1} ({line[:40]!r})"
                )
            actions.append(action.strip())
        if "Game" not in tags or not tags.get("Players", "").isdigit():
            raise RecordError("not a game record: it names no [Game] or no number of [Players]")
        players = int(tags["Players"])
        names = [tags[f"Name{n}"] for n in range(1, players + 1) if f"Name{n}" in tags] or None
        seats = tags["Seats"].split() if "Seats" in tags else None
        seed = int(tags["Seed"]) if tags.get("Seed", "").lstrip("-").isdigit() else None
        record = cls(
            tags["Game"],
            players,
            _typed(tags["Game"], options),
            seed,
            actions,
            None,
            names,
            seats,
            tags.get("Date"),
            _result(tags) if "Winners" in tags or "Points" in tags else None,
        )
        return record._checked()


def _tag(name: str, value) -> str:
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{text}"]'


def _typed(game_id: str, pairs: list[str]) -> dict:
    """[Option "key=value"] lines in the types of the game's options (text for a game not known here)."""
    try:
        known = {o.name: o for o in find(game_id).options}
    except UnknownGame:
        known = {}
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise RecordError(f"not a game record: option {pair!r} is not key=value")
        try:
            options[key] = known[key].convert(value) if key in known else value
        except ValueError as err:
            raise RecordError(f"not a game record: {err}") from None
    return options


def _result(tags: dict[str, str]) -> dict:
    """[Winners "1 3"] (or "none") and [Points "15 3"] as the stored result."""
    try:
        winners = (
            [] if tags.get("Winners") == "none" else [int(w) - 1 for w in tags.get("Winners", "").split()]
        )
        scores = [float(p) if "." in p else int(p) for p in tags.get("Points", "").split()]
    except ValueError:
        raise RecordError("not a game record: [Winners] and [Points] are numbers") from None
    return {"winners": winners, "scores": scores}
