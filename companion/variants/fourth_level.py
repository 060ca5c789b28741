"""The Fourth Level (000 "The Fourth Level"): a GRYB on the bottom level, where every stone stays.

Phase one: players take turns rolling the node die (GRYB Dice II: a bottom-level node) and placing a stone
on the node rolled, 8 each. Phase two: each turn a player moves one stone sideways or via hyperspace to a
free node; stones never leave the fourth level. The first to cover a fourth-level quadrangle with their
own stones wins its 8 points (option ``integrated``: any GRYB of fourth-level nodes, scored by its levels).
Rules decisions: docs/rules/fourth-level.md.
"""

from __future__ import annotations

import math

from .. import node as nd
from ..action import MOVE, PASS, PLACE, Action
from ..engine import NODE_DIE, TURN_LIMIT, Game, Option, register
from ..node import Bitboard
from ..space import GameSpace, MoveKind, bits, space

DEPTH = 4  # the game is named after the fourth level: the standard board's bottom
STONES = Option("stones", 8, "stones each player places in phase one (000: eight each)", minimum=4, maximum=64)
INTEGRATED = Option("integrated", False, "integrated GRYBs of fourth-level nodes win too (scored by their levels), "
                    "not only a covered quadrangle")

KINDS = (MoveKind.SIDEWAYS, MoveKind.HYPERSPACE)
PLACING, MOVING = "place", "move"
_FACES = tuple(Action.roll_node(n) for n in range(nd.count(DEPTH)))
_PLACES = tuple(Action.place(n) for n in range(nd.count(DEPTH)))


@register
class FourthLevel(Game):
    id = "fourth-level"
    name = "The Fourth Level"
    source = "000 The Fourth Level"
    summary = ("Place 8 stones each on the bottom-level nodes the node die picks, then move one a turn sideways or "
               "via hyperspace. First to cover a fourth-level quadrangle wins its 8 points.")
    die = NODE_DIE
    options = (STONES, INTEGRATED, TURN_LIMIT)

    def make_space(self) -> GameSpace:
        return space(DEPTH)

    def setup(self) -> None:
        self.phase = PLACING
        self.in_hand = (self.settings["stones"],) * self.players

    # -- the die: phase one only ----------------------------------------------------------------------

    def needs_roll(self) -> bool:
        return self.phase == PLACING and self.roll is None

    def roll_faces(self) -> list[Action]:
        # "If the node is occupied, roll again" (the manual's node-die games) is a roll among the free ones.
        return [_FACES[n] for n in bits(self.space.bottom & ~self.occupied)]

    def random_action(self, rng) -> Action:
        if self.is_chance:  # roll as the players do, again while the node is occupied
            occupied, first = self.occupied, nd.first_of_level(DEPTH)
            while True:
                n = first + rng.randrange(4**DEPTH)
                if not occupied >> n & 1:
                    return _FACES[n]
        if self.over or self.phase == PLACING:
            return super().random_action(rng)
        reach = self._reach()
        total = sum(m.bit_count() for _, m in reach)
        if not total:
            return Action(PASS)
        r = rng.randrange(total)
        for s, m in reach:
            k = m.bit_count()
            if r < k:
                for t in bits(m):
                    if not r:
                        return Action.move(s, t)
                    r -= 1
            r -= k
        raise AssertionError("unreachable")

    # -- moves ----------------------------------------------------------------------------------------

    def _reach(self) -> list[tuple[int, Bitboard]]:
        board = self.space
        free = board.bottom & ~self.occupied
        return [(s, board.moves_mask(KINDS, s) & free) for s in bits(self.stones[self.to_move])]

    def _actions(self) -> list[Action]:
        if self.phase == PLACING:
            return [_PLACES[self.roll]]
        return [Action.move(s, t) for s, m in self._reach() for t in bits(m)]

    def _reason(self, action: Action) -> str | None:
        if self.phase == PLACING:
            if action.kind == PLACE:
                return f"the die chose {nd.name(self.roll)}: place your stone there"
            return f"every stone is placed first: place yours on {nd.name(self.roll)}"
        if action.kind == PLACE:
            return "every stone is placed: move one sideways or via hyperspace"
        if action.kind != MOVE:
            return None
        if len(action.sources) != 1:
            return "one stone moves at a time"
        s, t = action.source, action.target
        if self.owner(s) == self.to_move and not self.space.moves_mask(KINDS, s) >> t & 1:
            return (f"{nd.name(s)} to {nd.name(t)} is neither a sideways nor a hyperspace move: stones stay on the "
                    f"fourth level")
        return None

    def _apply(self, action: Action) -> None:
        me = self.to_move
        t = action.target
        mine = self.stones[me] | 1 << t
        if action.kind == PLACE:
            self.add_to("in_hand", me, -1)
        else:
            mine &= ~(1 << action.source)
        self.set_stones(me, mine)
        self.last = action.sources + action.targets
        found = self.grybs_index.completed_by(t, mine, quadrangle_only=not self.settings["integrated"])
        if found:
            self.grybs = tuple(found)
            points = [0] * self.players
            points[me] = max(self.gryb_points(g) for g in found)
            self.finish((me,), points)
            return
        if self.phase == PLACING and not any(self.in_hand):
            self.phase = MOVING
        self.end_turn()

    # -- the computer player's sense of progress ------------------------------------------------------

    def evaluate(self) -> list[float]:
        """How close each player is to a fourth-level quadrangle they can still cover: stones on it, and
        half a stone for each missing corner one of their other stones can move onto next."""
        if self.over:
            return self.outcome()
        board = self.space
        occupied = self.occupied
        free = board.bottom & ~occupied
        best = []
        for mine in self.stones:
            theirs = occupied & ~mine
            reach = [(1 << s, board.moves_mask(KINDS, s) & free) for s in bits(mine)]
            top = 0.0
            for q in board.quadrangles[-(4 ** (DEPTH - 1)):]:
                if q & theirs:
                    continue
                have = (q & mine).bit_count()
                if have + 0.5 * (4 - have) <= top:
                    continue
                missing = q & free
                helpers = sum(1 for s, m in reach if not s & q and m & missing)
                top = max(top, have + 0.5 * min(helpers, missing.bit_count()))
            best.append(top)
        weights = [math.exp(1.5 * b) for b in best]
        total = sum(weights)
        return [w / total for w in weights]
