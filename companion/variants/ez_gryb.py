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

    def evaluate(self) -> list[float]:
        return self.quadrangle_race()

    def setup(self) -> None:
        self.in_hand = (self.settings["stones"],) * self.players

    def _actions(self) -> list[Action]:
        board = self.space
        me = self.stones[self.to_move]
        occupied = self.occupied
        on_colour = board.focus_masks[self.roll]
        free = on_colour & ~occupied
        theirs = on_colour & occupied & ~me
        actions = []
        if self.in_hand[self.to_move] and free & board.top:
            actions.append(Action.place((free & board.top).bit_length() - 1))
        down, sideways = board.target_mask, board.target_mask
        for s in bits(me):
            for t in bits(down(MoveKind.DOWN, s) & free):
                actions.append(Action.move(s, t))
            for t in bits(sideways(MoveKind.SIDEWAYS, s) & theirs):
                actions.append(Action.move(s, t))
        return actions

    def deadlocked(self) -> bool:
        # Stones only go down, so once no player can enter, go down or capture whatever the roll, no
        # player ever can again: a draw now rather than passing until the turn limit.
        board = self.space
        occupied = self.occupied
        for player, mine in enumerate(self.stones):
            if self.in_hand[player] and board.top & ~occupied:
                return False
            theirs = occupied & ~mine
            for s in bits(mine):
                if board.target_mask(MoveKind.DOWN, s) & ~occupied or board.target_mask(MoveKind.SIDEWAYS, s) & theirs:
                    return False
        return True

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
