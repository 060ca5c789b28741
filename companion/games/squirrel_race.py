"""Squirrel Race (000 "Squirrel Race"): two squirrels on the third level gather the nuts beneath them.

A player's stones are their nuts (fourth level) and their squirrel. Rules decisions:
docs/rules/squirrel-race.md.
"""

from __future__ import annotations

import math

from companion.games.engine import (
    COLOUR_DIE,
    NO_DIE,
    NODE_DIE,
    TURN_LIMIT,
    DieByPhase,
    Game,
    Option,
    register,
)
from companion.rules import node as nd
from companion.rules.action import MOVE, PLACE, Action
from companion.rules.node import COLOURS, Bitboard, Node
from companion.rules.space import GameSpace, MoveKind, bits, space

DEPTH = 4  # squirrels on the third level, nuts on the fourth: the standard board
SQUIRREL_LEVEL = 3
NUTS = Option(
    "nuts",
    60,
    "nuts placed in phase one, in turn, each player placing their own colour (000: 60)",
    minimum=2,
    maximum=256,
)
DICE_MOVES = Option(
    "dice_moves",
    False,
    "roll the colour die for every squirrel move too: a move must end on the "
    "colour rolled (000 names the die only for where the squirrel starts)",
)

NUTTING, ENTERING, RACING = "nuts", "squirrels", "race"
KINDS = (MoveKind.SIDEWAYS, MoveKind.HYPERSPACE)
OWN_NUT, OTHER_NUT = 2, 1
_NODE_FACES = tuple(Action.roll_node(n) for n in range(nd.count(DEPTH)))
_COLOUR_FACES = tuple(Action.roll_colour(c) for c in COLOURS)


def _under(node: Node) -> Bitboard:
    return 0b1111 << (4 * node + 1)


@register
class SquirrelRace(Game):
    id = "squirrel-race"
    name = "Squirrel Race"
    source = "000 Squirrel Race"
    summary = (
        "Place 60 nuts where the node die picks, then roll the colour die to put your squirrel on the third "
        "level and move it sideways or via hyperspace, gathering the nuts beneath: 2 points for your "
        "colour, 1 for the other. Most points when the nuts are gone wins."
    )
    # The die of each phase (docs/rules/squirrel-race.md, "Which die?").
    die = DieByPhase(
        NODE_DIE,
        lambda g: (
            NODE_DIE
            if g.phase == NUTTING
            else NO_DIE
            if g.phase == RACING and not g.settings["dice_moves"]
            else COLOUR_DIE
        ),
    )
    options = (NUTS, DICE_MOVES, TURN_LIMIT)
    # squirrels: each player's squirrel node, None before it is on the board.
    extra_fields = ("squirrels",)

    def make_space(self) -> GameSpace:
        return space(DEPTH)

    def setup(self) -> None:
        self.phase = NUTTING
        total = self.settings["nuts"]
        self.in_hand = tuple(total // self.players + (p < total % self.players) for p in range(self.players))
        self.squirrels = (None,) * self.players

    def stone_kind(self, node: Node) -> str:
        return "squirrel" if node in self.squirrels else "nut"

    @property
    def nuts(self) -> Bitboard:
        """Every nut still on the board."""
        return self.occupied & self.space.bottom

    def needs_roll(self) -> bool:
        if self.roll is not None:
            return False
        return self.phase != RACING or self.settings["dice_moves"]

    def roll_faces(self) -> list[Action]:
        if self.phase == NUTTING:  # "roll again" while the node is occupied: a roll among the free ones
            return [_NODE_FACES[n] for n in bits(self.space.bottom & ~self.occupied)]
        return list(_COLOUR_FACES)

    def random_action(self, rng) -> Action:
        if self.is_chance and self.phase == NUTTING:
            occupied, first = self.occupied, nd.first_of_level(DEPTH)
            while True:
                n = first + rng.randrange(4**DEPTH)
                if not occupied >> n & 1:
                    return _NODE_FACES[n]
        return super().random_action(rng)

    def _free_for_squirrel(self) -> Bitboard:
        board = self.space
        free = board.level_masks[SQUIRREL_LEVEL] & ~self.occupied
        if self.roll is not None and self.phase != NUTTING:
            free &= board.focus_masks[self.roll]
        return free

    def _actions(self) -> list[Action]:
        if self.phase == NUTTING:
            return [Action.place(self.roll)]
        free = self._free_for_squirrel()
        if self.phase == ENTERING:
            return [Action.place(t) for t in bits(free)]
        s = self.squirrels[self.to_move]
        return [Action.move(s, t) for t in bits(self.space.moves_mask(KINDS, s) & free)]

    def _reason(self, action: Action) -> str | None:
        if self.phase == NUTTING:
            if action.kind == PLACE:
                return f"the die chose {nd.name(self.roll)}: place your nut there"
            return f"the nuts are placed first: place yours on {nd.name(self.roll)}"
        if self.phase == ENTERING:
            if action.kind == PLACE and nd.LEVEL[action.target] != SQUIRREL_LEVEL:
                return f"squirrels stay on the third level: put yours on a third-level {self.roll} node"
            if action.kind == MOVE:
                return "put your squirrel on the third level first"
            return None  # "you rolled G ..." or "RGB is occupied"
        if action.kind == PLACE:
            return "your squirrel is on the board: move it sideways or via hyperspace"
        if action.kind != MOVE:
            return None
        if len(action.sources) != 1:
            return "one squirrel moves at a time"
        s, t = action.source, action.target
        if self.owner(s) is not None and nd.LEVEL[s] == DEPTH:
            return "nuts do not move: move your squirrel"
        if s != self.squirrels[self.to_move]:
            return None  # the base class names the missing or foreign stone
        if not self.space.moves_mask(KINDS, s) >> t & 1:
            return (
                f"{nd.name(s)} to {nd.name(t)} is neither a sideways nor a hyperspace move: squirrels stay "
                f"on the third level"
            )
        return None

    def _apply(self, action: Action) -> None:
        me = self.to_move
        t = action.target
        self.last = action.sources + action.targets
        if self.phase == NUTTING:
            self.set_stones(me, self.stones[me] | 1 << t)
            self.add_to("in_hand", me, -1)
            if not any(self.in_hand):
                self.phase = ENTERING
            self.end_turn()
            return
        mine = self.stones[me] | 1 << t
        if action.kind == MOVE:
            mine &= ~(1 << action.source)
        self.set_stones(me, mine)
        squirrels = list(self.squirrels)
        squirrels[me] = t
        self.squirrels = tuple(squirrels)
        self._gather(t)
        if not self.nuts:
            self._finish_by_points("every nut is gathered")
            return
        if self.phase == ENTERING and None not in self.squirrels:
            self.phase = RACING
        self.end_turn()

    def _gather(self, squirrel: Node) -> None:
        """The mover's squirrel gathers every nut on the quadrangle under it."""
        me = self.to_move
        under = _under(squirrel)
        for player in range(self.players):
            found = self.stones[player] & under
            if found:
                self.set_stones(player, self.stones[player] & ~found)
                count = found.bit_count()
                self.add_to("captured", me, count)
                self.add_to("scores", me, count * (OWN_NUT if player == me else OTHER_NUT))

    def end_turn(self) -> None:
        super().end_turn()
        if self.over:  # the turn limit: the points gathered so far decide, not a draw
            self._finish_by_points("the turn limit")

    def _finish_by_points(self, why: str) -> None:
        """The most points win; equal points are a draw, for ``why`` the game ended."""
        best = max(self.scores)
        winners = [p for p, s in enumerate(self.scores) if s == best]
        self.finish(winners if len(winners) == 1 else (), draw=f"{why}, and the points are equal")

    def evaluate(self) -> list[float]:
        """Points plus a share of the nuts left and half the best haul within a move, as chances by how
        far ahead each player is for the points still to win."""
        if self.over:
            return self.outcome()
        board = self.space
        left = [(self.stones[p] & board.bottom).bit_count() for p in range(self.players)]
        expected = []
        for p in range(self.players):
            share = sum(n * (OWN_NUT if q == p else OTHER_NUT) for q, n in enumerate(left)) / self.players
            haul = 0
            s = self.squirrels[p]
            if s is not None:
                free = board.level_masks[SQUIRREL_LEVEL] & ~self.occupied
                for t in bits(board.moves_mask(KINDS, s) & free):
                    under = _under(t)
                    gain = sum(
                        (self.stones[q] & under).bit_count() * (OWN_NUT if q == p else OTHER_NUT)
                        for q in range(self.players)
                    )
                    haul = max(haul, gain)
            expected.append(self.scores[p] + share + 0.5 * haul)
        spread = 1.0 + math.sqrt(sum(left) * OWN_NUT)
        weights = [math.exp(e / spread) for e in expected]
        total = sum(weights)
        return [w / total for w in weights]
