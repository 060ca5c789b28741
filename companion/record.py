"""Game records: (game, players, options, seed, actions) -> JSON and a readable text, and replay.

A record replays deterministically: rolls are actions of the record, so the seed is kept only to
continue a game with the same die.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from . import composed, composition
from .engine import Game, find

FORMAT = 1


class RecordError(ValueError):
    pass


@dataclass
class GameRecord:
    game: str
    players: int
    options: dict = field(default_factory=dict)
    seed: int | None = None
    actions: list[str] = field(default_factory=list)
    rules: dict | None = None  # a saved composition's rules, so the record replays where it is not saved

    @classmethod
    def of(cls, game: Game, seed: int | None = None) -> GameRecord:
        options = {k: v for k, v in game.settings.items()}
        rules = composition.to_data(game.base_rules) if getattr(game, "composed", False) and not game.shipped \
            else None
        return cls(game.id, game.players, options, seed, [str(a) for a, _ in game.history], rules)

    def new_game(self) -> Game:
        if self.rules is None:
            return find(self.game)(self.players, **self.options)
        try:
            return composed.game_class(composition.parse(self.rules, played=True))(self.players, **self.options)
        except composition.CompositionError as err:
            raise RecordError(f"the record's composition does not read: {err}") from None

    def replay(self) -> Game:
        """The game after every action of the record; a bad record raises RecordError naming the action."""
        game = self.new_game()
        for number, text in enumerate(self.actions, start=1):
            try:
                game.apply(text)
            except ValueError as err:
                raise RecordError(f"action {number} ({text}) cannot be replayed: {err}") from None
        return game

    def to_json(self) -> str:
        data = {"format": FORMAT, **asdict(self)}
        if self.rules is None:
            del data["rules"]
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
            return cls(str(data["game"]), int(data["players"]), dict(data.get("options", {})),
                       data.get("seed"), [str(a) for a in data.get("actions", [])], rules)
        except (KeyError, TypeError, AttributeError, json.JSONDecodeError) as err:
            raise RecordError(f"not a game record: {err}") from None

    def to_text(self) -> str:
        """A readable record: header lines, then one numbered action a line."""
        lines = [f'[Game "{self.game}"]', f'[Players "{self.players}"]']
        lines += [f'[Option "{k}={v}"]' for k, v in sorted(self.options.items())]
        if self.seed is not None:
            lines.append(f'[Seed "{self.seed}"]')
        lines.append("")
        lines += [f"{i}. {a}" for i, a in enumerate(self.actions, start=1)]
        return "\n".join(lines) + "\n"
