"""'Drangles, Hyper Drangles and Sumo Drangles (000; 001 'Drangles and Sumo GRYB): two free moves a turn.

Stones enter through the head node and move down or sideways (Hyper Drangles: also via hyperspace) to
free nodes; the first move of a turn may pass through an occupied node when the same stone lands on a
free node with the second. First to cover a quadrangle wins (Sumo: any GRYB, integrated ones too).
Rules decisions: docs/rules/drangles.md.
"""

from __future__ import annotations

from .. import node as nd
from ..action import MOVE, PLACE, Action
from ..engine import TURN_LIMIT, Game, Option, register
from ..node import HEAD
from ..space import MoveKind, bits

DEPTH = Option("depth", 4, "board depth: 4 standard, 5 Giant GRYB, 6 Super Giant GRYB", minimum=2, maximum=6)
STONES = Option("stones", 30, "stones each player has", minimum=4, maximum=400)


class DranglesBase(Game):
    source = "000 Drangles; 001 'Drangles"
    moves_per_turn = 2
    move_kinds: tuple[MoveKind, ...] = (MoveKind.DOWN, MoveKind.SIDEWAYS)
    integrated = False  # whether integrated (multi-level) GRYBs win, as in Sumo
    options = (DEPTH, STONES, TURN_LIMIT)
    # The stone that passed through an occupied node with the first move of the turn, if any.
    extra_fields = ("transit",)

    def evaluate(self) -> list[float]:
        return self.quadrangle_race()

    def setup(self) -> None:
        self.in_hand = (self.settings["stones"],) * self.players
        self.transit = None

    def _exits(self, node: int, empty: int) -> int:
        return self.space.moves_mask(self.move_kinds, node) & empty

    def _actions(self) -> list[Action]:
        me = self.stones[self.to_move]
        occupied = self.occupied
        empty = self.space.all & ~occupied
        if self.transit is not None:
            return [Action.move(self.transit, t) for t in bits(self._exits(self.transit, empty))]
        first = self.moves_left == self.moves_per_turn
        actions = []
        if self.in_hand[self.to_move]:
            if not occupied >> HEAD & 1 or (first and self._exits(HEAD, empty)):
                actions.append(Action.place(HEAD))
        for s in bits(me):
            reach = self.space.moves_mask(self.move_kinds, s)
            for t in bits(reach & empty):
                actions.append(Action.move(s, t))
            if first:
                # Passing through: land on an occupied node now, leave it for a free one next move.
                for t in bits(reach & occupied):
                    if self._exits(t, empty | 1 << s):
                        actions.append(Action.move(s, t))
        return actions

    def _reason(self, action: Action) -> str | None:
        if self.transit is not None and (action.kind != MOVE or action.source != self.transit):
            return f"the stone passing through {nd.name(self.transit)} must move on to a free node"
        if action.kind == PLACE and action.target != HEAD:
            return "new stones enter through the head node 0"
        if action.kind == PLACE and not self.in_hand[self.to_move]:
            return "you have no stones left to enter"
        if action.kind == MOVE and len(action.sources) == 1:
            s, t = action.source, action.target
            if self.owner(s) == self.to_move and not self.space.moves_mask(self.move_kinds, s) >> t & 1:
                kinds = ", ".join(k.value for k in self.move_kinds)
                return f"{nd.name(s)} to {nd.name(t)} is not one move ({kinds})"
            if self.owner(t) is not None and self.moves_left != self.moves_per_turn:
                return f"{nd.name(t)} is occupied: only the first move of a turn may pass through a stone"
        return None

    def _apply(self, action: Action) -> None:
        me = self.to_move
        t = action.target
        occupied = self.occupied
        mine = self.stones[me]
        if action.kind == PLACE:
            self.add_to("in_hand", me, -1)
        elif self.transit is not None:
            self.transit = None  # the passing stone leaves the stone it stood on
        else:
            mine &= ~(1 << action.source)
            occupied &= ~(1 << action.source)
        if occupied >> t & 1:
            self.transit = t  # on top of a stone: it must move on to a free node with the next move
        else:
            mine |= 1 << t
        self.set_stones(me, mine)
        self.last = action.sources + action.targets
        if self.transit is None:
            found = self.grybs_index.completed_by(t, mine, quadrangle_only=not self.integrated)
            if found:
                self.grybs = tuple(found)
                points = [0] * self.players
                points[me] = max(self.gryb_points(g) for g in found)
                self.finish((me,), points)
                return
        self.use_move()


@register
class Drangles(DranglesBase):
    id = "drangles"
    name = "'Drangles"
    summary = ("Two free moves a turn: enter through the head node, move down or sideways to free nodes. "
               "First to cover a quadrangle wins its points.")


@register
class HyperDrangles(DranglesBase):
    id = "hyper-drangles"
    name = "Hyper Drangles"
    source = "000 Hyper Drangles"
    summary = "'Drangles with hyperspace moves as well as down and sideways."
    move_kinds = (MoveKind.DOWN, MoveKind.SIDEWAYS, MoveKind.HYPERSPACE)


@register
class SumoDrangles(DranglesBase):
    id = "sumo-drangles"
    name = "Sumo Drangles"
    source = "000 Sumo Drangles; 001 Sumo GRYB"
    summary = "'Drangles where integrated (multi-level) GRYBs win too, scored by every level they integrate."
    integrated = True
