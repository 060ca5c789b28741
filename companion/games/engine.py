"""The game engine: the base class of every GRYB game. Pure: no I/O, no clock, no randomness.

A position with push/pop over snapshots of immutable fields, as python-chess. While a roll is due
(``is_chance``) the legal actions are the die's faces, rolled outside. A game overrides ``setup``,
``_actions``, ``_apply`` and ``_reason``; :func:`register` lists it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from operator import attrgetter
from typing import Any, ClassVar

from companion.games import series as series_mod
from companion.games.option import Option, OptionError
from companion.rules import gryb as gryb_mod
from companion.rules import node as nd
from companion.rules.action import CHOOSE_ROLL, END, MOVE, PASS, PLACE, REMOVE, ROLL, Action, NotationError
from companion.rules.node import COLOURS, Bitboard, Node
from companion.rules.space import GameSpace, bits, space

COLOUR_NAMES = {"G": "green", "R": "red", "Y": "yellow", "B": "blue"}
NO_DIE, COLOUR_DIE, NODE_DIE, NUMBER_DIE = "none", "colour", "node", "number"


class DieByPhase:
    """A ``die`` that changes during the game: on the class, the die it starts with; on a game, ``now``."""

    def __init__(self, catalogue: str, now: Callable[[Game], str]):
        self.catalogue, self.now = catalogue, now

    def __get__(self, game, cls=None) -> str:
        return self.catalogue if game is None else self.now(game)


class IllegalAction(ValueError):
    """An action the rules do not allow now; ``reason`` tells the player why."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


TURN_LIMIT = Option(
    "turn_limit", 300, "the game is a draw after this many turns without a winner", minimum=10, maximum=100000
)


class Game:
    """The base of every game (see the module docstring)."""

    id: ClassVar[str] = ""
    name: ClassVar[str] = ""
    source: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    die: ClassVar[str] = NO_DIE
    options: ClassVar[tuple[Option, ...]] = (TURN_LIMIT,)
    moves_per_turn: ClassVar[int] = 1
    extra_fields: ClassVar[tuple[str, ...]] = ()  # a subclass's own state fields (immutable values)
    # A linked board's own player, whose board it shows where each player has one (Multiverse); not state.
    viewer: int | None = None
    # Stones on the cloth kept in step; False: the LEDs alone show them (Multiverse).
    physical_stones: ClassVar[bool] = True
    piece_words: ClassVar[tuple[str, str]] = ("stone", "stones")  # a piece in the players' words: one, many
    hand: ClassVar[str | None] = "In hand"  # the page's column head for ``in_hand``; None: no column
    # The column head for ``scores``; None: "just played win or lose" (001 "Scoring GRYB"), a win scores 1.
    score: ClassVar[str | None] = "Points"
    finds_grybs: ClassVar[bool] = False  # the page lists the GRYBs found
    # The manuals' series.PRESETS, their default first (a series spans games: no option).
    series_presets: ClassVar[tuple[str, ...]] = ()
    wide_root: ClassVar[bool] = False  # companion/ai.py widens the root in its first look's order
    computer_levels: ClassVar[dict[str, dict[str, float]]] = {}  # by level: {"medium": {"playout": 4}}

    _BASE_FIELDS = (
        "stones",
        "to_move",
        "phase",
        "roll",
        "in_hand",
        "captured",
        "scores",
        "moves_left",
        "over",
        "winners",
        "last",
        "turn",
        "grybs",
        "pending",
        "last_roll",
        "draw",
    )

    def __init__(self, players: int = 2, **options: Any):
        if not isinstance(players, int) or not self.min_players <= players <= self.max_players:
            span = (
                f"{self.min_players}"
                if self.min_players == self.max_players
                else f"{self.min_players} to {self.max_players}"
            )
            raise OptionError(f"{self.name} is for {span} players, not {players}")
        self.players = players
        known = {o.name: o for o in self.options}
        for key in options:
            if key not in known:
                raise OptionError(
                    f"{self.name} has no option {key!r}; its options: {', '.join(known) or 'none'}"
                )
        self.settings: dict[str, Any] = {
            name: (opt.convert(options[name]) if name in options else opt.default)
            for name, opt in known.items()
        }
        self.space: GameSpace = self.make_space()
        self.grybs_index = gryb_mod.index(self.space)
        self._fields = self._BASE_FIELDS + self.extra_fields
        self._fields_of = attrgetter(*self._fields)  # a snapshot on every ply: one C call
        self.history: list[tuple[Action, tuple]] = []
        self.redo_stack: list[Action] = []
        self.stones: tuple[Bitboard, ...] = (0,) * players
        self.to_move = 0
        self.phase = "play"
        self.roll: str | Node | None = None
        self.in_hand: tuple[int, ...] = (0,) * players
        self.captured: tuple[int, ...] = (0,) * players
        self.scores: tuple[int, ...] = (0,) * players
        self.moves_left = self.moves_per_turn
        self.over = False
        self.winners: tuple[int, ...] = ()
        self.last: tuple[Node, ...] = ()
        self.turn = 0
        self.grybs: tuple[gryb_mod.Gryb, ...] = ()
        self.pending = 0
        self.last_roll: str | Node | None = None
        self.draw: str | None = None  # why a game that ended without a winner is a draw
        self.setup()

    # -- hooks for subclasses

    def make_space(self) -> GameSpace:
        return space(self.settings.get("depth", nd.STANDARD_DEPTH), self.settings.get("headless", False))

    def setup(self) -> None:
        """Set the starting position (stones in hand, residents, phase)."""

    def _actions(self) -> list[Action]:
        """The legal actions of the side to move, any roll made. MUST override."""
        raise NotImplementedError

    def _apply(self, action: Action) -> None:
        """Change the state for a legal action, turn included. MUST override."""
        raise NotImplementedError

    def _reason(self, action: Action) -> str | None:
        """Why ``action`` is illegal; None: the generic reasons. MAY override."""
        return None

    def needs_roll(self) -> bool:
        """Whether the side to move must roll first (by default once a turn)."""
        return self.die != NO_DIE and self.roll is None and self.pending == 0

    def roll_faces(self) -> list[Action]:
        """The faces the die can show now, all equally likely. MAY override."""
        if self.die == COLOUR_DIE:
            return [Action.roll_colour(c) for c in COLOURS]
        return [Action.roll_node(n) for n in bits(self.roll_node_mask())]

    def roll_node_mask(self) -> Bitboard:
        """Nodes the node die may show (re-rolled until free: any free one)."""
        return self.space.all & ~self.occupied

    def stone_kind(self, node: Node) -> str:
        return "stone"

    def shown_stones(self) -> tuple[Bitboard, ...]:
        """Each player's stones on the board the cloth shows. MAY override (Multiverse)."""
        return self.stones

    def shown_last(self) -> tuple[Node, ...]:
        """The last move's nodes on the board shown. MAY override."""
        return self.last

    def formed(self) -> tuple[gryb_mod.Gryb, ...]:
        """The GRYBs the last action formed (``grybs`` keeps them longer)."""
        if not self.grybs or not self.history:
            return ()
        before = self.history[-1][1][self._BASE_FIELDS.index("grybs")]
        # By identity: the same nodes formed again (Square Deal) are a new tuple.
        return () if before is self.grybs else self.grybs

    def markers(self) -> Bitboard:
        """Nodes holding a marker, not a stone (Multiverse's conduits). MAY override."""
        return 0

    def deadlocked(self) -> bool:
        """No player can ever act again, whatever the die: a draw (checked after a pass). MAY override."""
        return False

    def _deadlock_words(self) -> str:
        return "nobody can ever move again" + (", whatever the die shows" if self.die != NO_DIE else "")

    # -- the public interface

    @property
    def is_chance(self) -> bool:
        return not self.over and self.needs_roll()

    @property
    def roll_offered(self) -> bool:
        """ROLL plays now: a roll is due, or ``roll`` is offered beside moves without it. MAY override."""
        return self.is_chance

    def legal_actions(self) -> list[Action]:
        if self.over:
            return []
        if self.needs_roll():
            return self.roll_faces()
        actions = self._actions()
        return actions if actions else [Action(PASS)]

    def random_action(self, rng) -> Action:
        """A uniformly random legal action. MAY override with a faster way."""
        return rng.choice(self.legal_actions())

    def push_legal(self, action: Action) -> None:
        """Apply an action from ``legal_actions()``/``random_action`` unchecked."""
        self._push(action)
        self.redo_stack.clear()

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        faces = self.roll_faces() if self.is_chance else []
        return [(face, 1.0 / len(faces)) for face in faces]

    def apply(self, action: Action | str) -> None:
        if isinstance(action, str):
            action = self.parse(action)
        legal = self.legal_actions()
        # Shared instances (Action.place, Action.move) found by identity first: docs/performance.md,
        # "Choices the code makes for speed".
        if not any(a is action for a in legal) and action not in legal:
            raise IllegalAction(self.why_illegal(action))
        self._push(action)
        self.redo_stack.clear()

    push = apply

    def _push(self, action: Action) -> None:
        """Apply an action known to be legal."""
        self.history.append((action, self._snapshot()))
        if action.kind == ROLL and action != CHOOSE_ROLL:
            self.roll = self.last_roll = action.colour if action.colour else action.targets[0]
        elif action.kind == PASS:
            self.last = ()
            self.end_turn()
            if not self.over and self.deadlocked():
                self.finish((), draw=self._deadlock_words())
        else:
            if self.roll is None:
                self.last_roll = None  # a turn without the die shows no stale roll
            self._apply(action)

    def undo(self) -> Action:
        if not self.history:
            raise IllegalAction("there is nothing to undo")
        action, snapshot = self.history.pop()
        self._restore(snapshot)
        self.redo_stack.append(action)
        return action

    pop = undo

    def retract(self) -> None:
        """Undo the last action without keeping it for redo (search)."""
        _, snapshot = self.history.pop()
        self._restore(snapshot)

    def copy(self) -> Game:
        """An independent game in the same position, history included."""
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin.history = list(self.history)
        twin.redo_stack = list(self.redo_stack)
        twin.settings = dict(self.settings)
        return twin

    def playout(self, rng, plies: int | None = None) -> list[float]:
        """``plies`` random legal actions (None: to the end), ``evaluate()``, back. MAY override (EZ GRYB)."""
        played = 0
        while not self.over and played != plies:
            self.push_legal(self.random_action(rng))
            played += 1
        values = self.evaluate()
        for _ in range(played):
            self.retract()
        return values

    def action_order(self, actions: list[Action]) -> list[float] | None:
        """How promising each of ``actions`` looks to the search (higher first), or None. MAY override."""
        return None

    def evaluate(self) -> list[float]:
        """How well each player stands, 0..1 each (by default the scores). MAY override."""
        if self.over:
            return self.outcome()
        total = sum(self.scores)
        if total <= 0:
            return [1.0 / self.players] * self.players
        return [s / total for s in self.scores]

    def outcome(self) -> list[float]:
        """1 shared among the winners; a draw shares it among everyone."""
        if not self.winners:
            return [1.0 / self.players] * self.players
        share = 1.0 / len(self.winners)
        return [share if p in self.winners else 0.0 for p in range(self.players)]

    def redo(self) -> Action:
        if not self.redo_stack:
            raise IllegalAction("there is nothing to redo")
        action = self.redo_stack.pop()
        self._push(action)
        return action

    def goto(self, ply: int) -> None:
        """Undo or redo to the position after ``ply`` actions (0 is the start)."""
        total = len(self.history) + len(self.redo_stack)
        if not 0 <= ply <= total:
            raise IllegalAction(f"there is no position {ply}: the record has {total} actions")
        while len(self.history) > ply:
            self.undo()
        while len(self.history) < ply:
            self.redo()

    def parse(self, text: str) -> Action:
        try:
            return Action.parse(text, self.space.depth, self.space.headless)
        except NotationError as err:
            raise IllegalAction(str(err)) from None

    def say(self, action: Action) -> str:
        """``action`` in a player's words: its notation; a roll names its colour."""
        if action.kind == ROLL and action.colour in COLOUR_NAMES:
            return COLOUR_NAMES[action.colour]
        return str(action)

    def played(self, start: int = 0) -> list[tuple[Action, int]]:
        """The history from ply ``start`` as (action, the player who played it), oldest first."""
        at = self._BASE_FIELDS.index("to_move")
        return [(action, snapshot[at]) for action, snapshot in self.history[start:]]

    def state_key(self) -> tuple:
        """Everything that defines the position."""
        return self._snapshot()

    def _snapshot(self) -> tuple:
        return self._fields_of(self)

    def _restore(self, snapshot: tuple) -> None:
        # Into the dict on every ply: state fields are never properties (tests/games/test_engine.py).
        self.__dict__.update(zip(self._fields, snapshot))

    # -- reasons

    def why_illegal(self, action: Action) -> str:
        if self.over:
            return "the game is over"
        if self.needs_roll():
            if action == CHOOSE_ROLL:
                return "the die is rolled now: roll:COLOUR says what it shows"
            if action.kind == ROLL:
                return f"the die cannot show {str(action)[5:]} now"
            return "roll the die first"
        if action.kind == ROLL:
            if self.roll_offered:
                return "choose to roll first (roll): then the die is rolled"
            if self.die == NO_DIE:
                return f"{self.name} has no die" if type(self).die == NO_DIE else "no die is rolled now"
            if self.legal_actions() == [Action(PASS)]:
                # A script types the forced pass too: say it comes next.
                return (
                    f"the die has been rolled this turn ({_face_name(self.roll)}) and nothing fits it: pass"
                )
            return "the die has been rolled this turn"
        if any(t not in self.space for t in action.targets + action.sources):
            return "that node is not on this board"
        reason = self._reason(action)
        if reason:
            return reason
        if action.kind == PASS:
            return "you can move, so you may not pass"
        occupied = self.occupied
        if action.kind == MOVE:
            for s in action.sources:
                if self.owner(s) is None:
                    return f"there is no stone on {nd.name(s)}"
                if self.owner(s) != self.to_move:
                    return f"the stone on {nd.name(s)} is not yours"
        if action.kind in (PLACE, MOVE):
            # The roll first: what the player most needs to hear.
            if isinstance(self.roll, str):
                wrong = [t for t in action.targets if t != nd.HEAD and nd.focus(t) != self.roll]
                if wrong:
                    colour, there = COLOUR_NAMES[self.roll], nd.name(wrong[0])
                    return f"you rolled {self.roll}: move onto a {colour} node, and {there} is not one"
            for t in action.targets:
                if occupied >> t & 1 and t not in action.sources:
                    return f"{nd.name(t)} is occupied"
        if action.kind == REMOVE and self.owner(action.target) is None:
            return f"there is no stone on {nd.name(action.target)}"
        if action.kind == END:
            return "you cannot end your turn now"
        return f"{action} is not a legal move now"

    # -- helpers for subclasses

    @property
    def occupied(self) -> Bitboard:
        m = 0
        for s in self.stones:
            m |= s
        return m

    @property
    def empty(self) -> Bitboard:
        return self.space.all & ~self.occupied

    def owner(self, node: Node) -> int | None:
        for player, mask in enumerate(self.stones):
            if mask >> node & 1:
                return player
        return None

    def owner_before_last(self, node: Node) -> int | None:
        """Who had a stone on ``node`` before the last action (a removal's loser)."""
        stones = self.history[-1][1][self._BASE_FIELDS.index("stones")] if self.history else self.stones
        return next((p for p, mask in enumerate(stones) if mask >> node & 1), None)

    def set_stones(self, player: int, mask: Bitboard) -> None:
        stones = list(self.stones)
        stones[player] = mask
        self.stones = tuple(stones)

    def add_to(self, field: str, player: int, amount: int) -> None:
        values = list(getattr(self, field))
        values[player] += amount
        setattr(self, field, tuple(values))

    def end_turn(self) -> None:
        """Hand the turn to the next player; a draw when the turn limit is reached."""
        self.to_move = (self.to_move + 1) % self.players
        self.roll = None
        self.moves_left = self.moves_per_turn
        self.turn += 1
        if self.turn >= self.settings.get("turn_limit", TURN_LIMIT.default) * self.players:
            self.finish((), draw="the turn limit")

    def use_move(self) -> None:
        """Count one move of a multi-move turn; the turn ends when none are left."""
        self.moves_left -= 1
        if self.moves_left <= 0 and not self.over:
            self.end_turn()

    def finish(
        self, winners: Iterable[int], points: Iterable[int] | None = None, draw: str | None = None
    ) -> None:
        """End the game. ``points``: the scores, if not as they stand; ``draw``: why, if no winner."""
        self.over = True
        self.winners = tuple(winners)
        self.draw = None if self.winners else draw
        if points is None and self.score is None:
            points = [int(p in self.winners) for p in range(self.players)]
        if points is not None:
            self.scores = tuple(points)

    def gryb_points(self, found: gryb_mod.Gryb) -> int:
        return found.points(self.space.depth, self.settings.get("big_endian", False))

    # -- reporting

    def draw_reason(self) -> str | None:
        """Why a finished game is a draw, else None."""
        return self.draw

    @property
    def winner(self) -> int | None:
        return self.winners[0] if len(self.winners) == 1 else None

    def side(self, player: int) -> tuple[int, ...]:
        """The players who win with ``player``: alone, unless teams play. MAY override."""
        return (player,)

    def aims(self) -> list[str] | None:
        """Each player's goal where the seats' differ (Grim Reaper), else None."""
        return None

    def state_dict(self) -> dict:
        """The position as JSON-able data (docs/notation.md, "The state line")."""
        stones = {}
        for player, mask in enumerate(self.stones):
            for n in bits(mask):
                stones[nd.name(n)] = {"player": player, "kind": self.stone_kind(n)}
        # The die LEDs keep the last roll until a roll is due or a turn passes without one.
        shown = self.roll if self.roll is not None else None if self.roll_offered else self.last_roll
        return {
            "game": self.id,
            "to_move": None if self.over else self.to_move,
            "phase": self.phase,
            "die": _face_name(self.last_rolled()),
            "die_shown": _face_name(shown),
            "awaiting_roll": self.roll_offered,
            "moves_left": self.moves_left,
            "stones": stones,
            "in_hand": list(self.in_hand),
            "captured": list(self.captured),
            "scores": list(self.scores),
            "last": [nd.name(n) for n in self.last],
            "grybs": [
                {"nodes": g.names(), "levels": list(g.levels), "points": self.gryb_points(g)}
                for g in self.grybs
            ],
            "over": self.over,
            "winner": self.winner,
            "winners": list(self.winners),
            "turn": self.turn,
            "aims": self.aims(),
            "draw": self.draw_reason(),
        }

    def last_rolled(self) -> str | Node | None:
        """The last roll so far (a colour, a node or a number), or None."""
        if self.last_roll is not None:  # blanked (LEDs) in turns without a roll
            return self.last_roll
        for action, _ in reversed(self.history):
            if action.kind == ROLL and action != CHOOSE_ROLL:
                return action.colour if action.colour else action.targets[0]
        return None

    @classmethod
    def describe(cls) -> dict:
        return {
            "id": cls.id,
            "name": cls.name,
            "source": cls.source,
            "summary": cls.summary,
            "players": {"min": cls.min_players, "max": cls.max_players},
            "die": cls.die,
            "hand": cls.hand,
            "score": cls.score,
            "grybs": cls.finds_grybs,
            "options": [o.describe() for o in cls.options],
            "series": {
                "presets": [series_mod.describe(p) for p in cls.series_presets],
                "default": cls.series_presets[0] if cls.series_presets else None,
            },
        }


def _face_name(face: str | Node | None) -> str | None:
    """A die face as the JSON state writes it: a node by its name."""
    return face if isinstance(face, str) or face is None else nd.name(face)


# -- registry

_SHIPPED: list[type[Game]] = []


def register(cls: type[Game]) -> type[Game]:
    """A shipped game (the class decorator of each game's module); companion/games/catalogue.py lists them."""
    if not cls.id:
        raise ValueError(f"{cls.__name__} has no id")
    _SHIPPED.append(cls)
    return cls


def shipped_classes() -> tuple[type[Game], ...]:
    return tuple(_SHIPPED)


class UnknownGame(LookupError):
    pass
