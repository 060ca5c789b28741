"""EZ GRYB (000 "EZ GRYB"), the same game as Quick & Easy GRYB (001): roll, then place, go down or capture.

Rules decisions: docs/rules/ez-gryb.md.
"""

from __future__ import annotations

from .. import node as nd
from ..action import PLACE, Action
from ..engine import COLOUR_DIE, TURN_LIMIT, Game, Option, register
from ..space import MoveKind, bits

DEPTH = Option("depth", 4, "board depth: 4 standard, 5 Giant GRYB, 6 Super Giant GRYB", minimum=2, maximum=6)
STONES = Option("stones", 30, "stones each player has (001: 'about twenty to thirty tokens of each')",
                minimum=4, maximum=400)


@register
class EZGryb(Game):
    id = "ez-gryb"
    name = "EZ GRYB"
    source = "000 EZ GRYB; 001 Quick & Easy GRYB"
    summary = ("Roll the GRYB die, then enter a stone on the top quadrangle, move one down, or capture "
               "sideways, always onto the colour rolled. First to cover a quadrangle wins its points.")
    die = COLOUR_DIE
    options = (DEPTH, STONES, TURN_LIMIT)

    def setup(self) -> None:
        self.in_hand = (self.settings["stones"],) * self.players

    def _actions(self) -> list[Action]:
        colour = self.roll
        board = self.space
        me = self.stones[self.to_move]
        occupied = self.occupied
        theirs = occupied & ~me
        actions = []
        if self.in_hand[self.to_move]:
            entry = nd.from_loci(colour)
            if not occupied >> entry & 1:
                actions.append(Action.place(entry))
        for s in bits(me):
            child = board.target_mask(MoveKind.DOWN, s)
            for t in bits(child & ~occupied):
                if nd.focus(t) == colour:
                    actions.append(Action.move(s, t))
            for t in bits(board.target_mask(MoveKind.SIDEWAYS, s) & theirs):
                if nd.focus(t) == colour:
                    actions.append(Action.move(s, t))
        return actions

    def _reason(self, action: Action) -> str | None:
        if action.kind == PLACE and nd.level(action.target) != 1:
            return "new stones enter on the top quadrangle (G, R, Y or B)"
        if action.kind == PLACE and not self.in_hand[self.to_move]:
            return "you have no stones left to enter"
        if action.kind == "move" and len(action.sources) == 1:
            s, t = action.source, action.target
            if self.space.target_mask(MoveKind.SIDEWAYS, s) >> t & 1 and self.owner(t) is None:
                return "sideways moves are only to capture an opponent's stone"
            if not self.space.moves_mask((MoveKind.DOWN, MoveKind.SIDEWAYS), s) >> t & 1:
                return f"{nd.name(t)} is neither one step down from {nd.name(s)} nor beside it"
        return None

    def _apply(self, action: Action) -> None:
        me = self.to_move
        t = action.target
        if action.kind == PLACE:
            self.add_to("in_hand", me, -1)
            self.set_stones(me, self.stones[me] | 1 << t)
        else:
            victim = self.owner(t)
            if victim is not None:  # a sideways capture: the stone goes back to its owner's supply
                self.set_stones(victim, self.stones[victim] & ~(1 << t))
                self.add_to("in_hand", victim, 1)
                self.add_to("captured", me, 1)
            self.set_stones(me, self.stones[me] & ~(1 << action.source) | 1 << t)
        self.last = action.sources + action.targets
        found = self.grybs_index.completed_by(t, self.stones[me], quadrangle_only=True)
        if found:
            self.grybs = tuple(found)
            points = [0] * self.players
            points[me] = max(self.gryb_points(g) for g in found)
            self.finish((me,), points)
            return
        self.end_turn()
