"""Shapes Morris and Lines Morris (000): 25 Men's GRYB where men move only as shapes or as lines.

Only phase two's moves differ (000 "Using Lines", "Using Shapes", "Moving/Changing Lines/Shapes").
Rules decisions: docs/rules/shapes-morris.md and docs/rules/lines-morris.md.
"""

from __future__ import annotations

from functools import cache

from companion.games.engine import register
from companion.games.twenty_five_mens import MorrisGame
from companion.rules import node as nd
from companion.rules.action import PASS, Action, nth_move
from companion.rules.formation import block_targets
from companion.rules.node import Bitboard, Node
from companion.rules.space import GameSpace, bits


@cache
def _formation_moves(
    board: GameSpace, block: tuple[Node, ...]
) -> tuple[Bitboard, tuple[tuple[Action, Bitboard], ...]]:
    """The nodes of ``block`` and its moves in formation on an empty board (action, target mask)."""
    own = 0
    for n in block:
        own |= 1 << n
    moves = tuple(
        (Action.block(block, targets), mask)
        for targets, mask in block_targets(board.depth, block, False)
        if not mask & ~board.all
    )
    return own, moves


class FormationMorris(MorrisGame):
    """A Morris game whose men move only in formations of ``size`` contiguous men (2 lines, 3 shapes)."""

    size = 3
    formation = "shape"

    def _single_reach(self, s: Node, mine: Bitboard) -> Bitboard:
        """Nodes (free or not) the man on ``s`` reaches by changing a formation it is an end of."""
        link = self.space.contiguity
        others = mine & ~(1 << s)
        reach = 0
        for m in bits(link[s] & others):
            if self.size == 2:
                reach |= link[m]  # a line [s, m]: s goes anywhere contiguous to m
                continue
            far = link[m] & others  # a shape [s, m, f] with m in the middle
            if far:
                reach |= link[m]  # change: s goes anywhere contiguous to the middle man
                for f in bits(far):
                    reach |= link[f]  # hop: s goes past the far end f
        return reach

    def _formations(self, player: int) -> list[tuple[Node, ...]]:
        """Every set of ``size`` of the player's men on contiguous nodes, each sorted, in sorted order."""
        link = self.space.contiguity
        mine = self.stones[player]
        pairs = [(a, b) for a in self.pieces[player] for b in bits(link[a] & mine) if a < b]
        if self.size == 2:
            return pairs
        triples = set()
        for a, b in pairs:
            for c in bits((link[a] | link[b]) & mine & ~(1 << a | 1 << b)):
                triples.add((a, b, c) if b < c else (a, c, b) if a < c else (c, a, b))
        return sorted(triples)

    def _block_moves(self, player: int, first_only: bool = False) -> list[Action]:
        occupied = self.stones[0] | self.stones[1]
        actions = []
        board = self.space
        for block in self._formations(player):
            own, moves = _formation_moves(board, block)
            blocked = occupied & ~own
            for action, mask in moves:
                if not mask & blocked:
                    actions.append(action)
                    if first_only:
                        return actions
        return actions

    def _single_masks(self, player: int) -> list[tuple[Node, Bitboard]]:
        """Each man of ``player`` that can change a formation, with the free nodes it reaches."""
        mine = self.stones[player]
        free = self.space.all & ~(self.stones[0] | self.stones[1])
        found = []
        for s in self.pieces[player]:
            reach = self._single_reach(s, mine) & free
            if reach:
                found.append((s, reach))
        return found

    def _move_actions(self, player: int) -> list[Action]:
        actions = [Action.move(s, t) for s, reach in self._single_masks(player) for t in bits(reach)]
        return actions + self._block_moves(player)

    def _can_move(self, player: int) -> bool:
        mine = self.stones[player]
        free = self.space.all & ~(self.stones[0] | self.stones[1])
        return any(self._single_reach(s, mine) & free for s in self.pieces[player]) or bool(
            self._block_moves(player, first_only=True)
        )

    def _random_move(self, rng) -> Action:
        # Uniform over the legal moves without building an action for every single-man move.
        singles = self._single_masks(self.to_move)
        blocks = self._block_moves(self.to_move)
        total = sum(reach.bit_count() for _, reach in singles) + len(blocks)
        if not total:
            return Action(PASS)
        r = int(rng.random() * total)
        return nth_move(r, singles, blocks)

    def _move_reason(self, action: Action) -> str | None:
        what = self.formation
        if len(action.sources) == 1:
            s, t = action.source, action.target
            if not any(s in block for block in self._formations(self.to_move)):
                return f"the man on {nd.name(s)} is in no {what} of yours: men move only as {what}s"
            return f"{nd.name(s)} to {nd.name(t)} does not change a {what}: " + self._change_rule()
        if len(action.sources) != self.size or not self.space.is_contiguous(action.sources):
            return f"a {what} is {self.size} of your men on contiguous nodes"
        return (
            f"a {what} moves in formation by interjection, excision or via hyperspace, its foci unchanged, "
            "and this move does not"
        )

    def _change_rule(self) -> str:
        return "an end man moves to a free node contiguous to the middle man, or hops past the far end"


@register
class ShapesMorris(FormationMorris):
    id = "shapes-morris"
    name = "Shapes Morris"
    source = "000 Shapes Morris; Using Shapes; 25 Men's GRYB"
    summary = (
        "25 Men's GRYB where men move only as shapes (three contiguous men): the shape moves as a block, "
        "or an end man moves round the middle one or hops past the far end. GRYBs remove 1-4 men by "
        "level; reduce your opponent to three men to win."
    )


@register
class LinesMorris(FormationMorris):
    id = "lines-morris"
    name = "Lines Morris"
    source = "000 Lines Morris; Using Lines; 25 Men's GRYB"
    summary = (
        "25 Men's GRYB where men move only as lines (two contiguous men): the line moves as a block, or "
        "one end moves to a node contiguous to the other. GRYBs remove 1-4 men by level; reduce your "
        "opponent to three men to win."
    )
    size = 2
    formation = "line"

    def _change_rule(self) -> str:
        return "one end moves to a free node contiguous to the other end"
