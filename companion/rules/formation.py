"""Lines and shapes (000 "Using Lines", "Using Shapes", "Moving Lines/Shapes", "Changing Lines/Shapes";
docs/rules/game-space.md, "Contiguity")."""

from __future__ import annotations

from functools import cache

from companion.rules import node as nd
from companion.rules.action import Action
from companion.rules.node import COLOURS, Bitboard, Node
from companion.rules.space import bits

BLOCK_SIZES = (2, 3)  # lines and the smallest shapes: few enough to list quickly


@cache  # they depend only on the geometry: computed once per block and board
def block_targets(depth: int, block: tuple[Node, ...], easy: bool) -> tuple:
    """Every way to move ``block`` in formation (its foci unchanged), as (targets, target mask)."""
    loci = [nd.loci(n) for n in block]
    shortest, longest = min(map(len, loci)), max(map(len, loci))
    results: list[list[str]] = []
    # Contiguous nodes share every locus above the shortest one's focus: changing one moves all alike.
    for i in range(shortest - 1):
        for step in (1, -1):
            results.append([s[:i] + COLOURS[(COLOURS.index(s[i]) + step) % 4] + s[i + 1 :] for s in loci])
        if not easy:
            results.append([s[:i] + s[i + 1 :] for s in loci])
    if not easy and longest < depth:
        # 000 "Moving Shapes": [0, G, R] to [G, GG, GR] ... "or interject Y or B as the first locus".
        for i in range(shortest or 1):
            for c in COLOURS:
                results.append([s[:i] + c + s[i:] for s in loci])
    if not easy and shortest == 1 and len({s[0] for s in loci}) == 1:
        results.append([s[1:] for s in loci])  # and back up: the shared first locus excised
    out, seen = [], set()
    for names in results:
        targets = tuple(nd.from_loci(s) for s in names)
        if targets not in seen:
            seen.add(targets)
            mask = 0
            for t in targets:
                mask |= 1 << t
            out.append((targets, mask))
    return tuple(out)


def formations(link, within: Bitboard) -> list[tuple[Node, ...]]:
    """Every line and three-stone shape of ``within``, sorted (``link``: the contiguity table)."""
    pairs = {(a, b) for a in bits(within) for b in bits(link[a] & within) if a < b}
    blocks = set(pairs)
    for a, b in pairs:
        for c in bits((link[a] | link[b]) & within & ~(1 << a | 1 << b)):
            blocks.add(tuple(sorted((a, b, c))))
    return sorted(blocks)


def block_moves(space, within: Bitboard, occupied: Bitboard, easy: bool = False) -> list[Action]:
    """Every line and shape of ``within`` moved as a block to nodes it leaves or that are free."""
    depth, board = space.depth, space.all
    actions = []
    for block in formations(space.contiguity, within):
        own = 0
        for n in block:
            own |= 1 << n
        blocked = occupied & ~own
        for targets, mask in block_targets(depth, block, easy):
            if not mask & blocked and not mask & ~board:
                actions.append(Action.block(block, targets))
    return actions


def change_reach(link, s: Node, mine: Bitboard) -> Bitboard:
    """Nodes the stone on ``s`` reaches by changing a line or shape it ends."""
    reach = 0
    for b in bits(link[s] & mine):
        reach |= link[b]
        for c in bits(link[b] & mine & ~(1 << s)):
            reach |= link[c]
    return reach
