"""Connection (000 "Connection"): join your two extreme opposite corners with a chain of your own stones.

A chain is ``GameSpace`` contiguity with limited hyperspace. Rules decisions: docs/rules/connection.md.
"""

from __future__ import annotations

import math
from functools import cache

from companion.games.engine import COLOUR_DIE, TURN_LIMIT, Game, Option, register
from companion.rules import node as nd
from companion.rules.action import MOVE, PLACE, Action
from companion.rules.node import COLOURS, HEAD, Bitboard, Node
from companion.rules.space import GameSpace, MoveKind, bits

DEPTH = Option("depth", 4, "board depth: 4 standard, 5 Giant GRYB, 6 Super Giant GRYB", minimum=2, maximum=6)
HEADLESS = Option("headless", False, "play without the head node (001 'headless')")
STONES = Option(
    "stones",
    30,
    "stones each player has, the two on their corners included (001: 30 each)",
    minimum=4,
    maximum=400,
)

KINDS = (MoveKind.UP, MoveKind.DOWN, MoveKind.SIDEWAYS, MoveKind.LIMITED_HYPERSPACE)
OPPOSITE = {"G": "Y", "Y": "G", "R": "B", "B": "R"}
CHOOSING, PLAYING = "choose", "play"
AHEAD_SLOPE = 0.35  # evaluate(): per move nearer a join than the opponent, in the exponent of being ahead
FINISH_SLOPE = 0.05  # evaluate(): per move still needed, in the exponent of joining before the turn limit


@register
class Connection(Game):
    id = "connection"
    name = "Connection"
    source = "000 Connection"
    summary = (
        "Choose a pair of opposite corners (GGGG-YYYY or RRRR-BBBB); the opponent takes the other. Roll "
        "the colour die, enter on the top quadrangle or move up, down, sideways or by limited hyperspace "
        "onto that colour. First to join their corners with a chain of their own stones wins."
    )
    die = COLOUR_DIE
    score = None  # played win or lose: a win scores 1
    options = (DEPTH, HEADLESS, STONES, TURN_LIMIT)
    # ends: per player, their two corner stones (endpoints, never moved).
    extra_fields = ("ends",)

    def setup(self) -> None:
        self.phase = CHOOSING
        self.ends = (0,) * self.players
        self.in_hand = (self.settings["stones"] - 2,) * self.players

    def corner(self, colour: str) -> Node:
        """The bottom-level node whose every locus is ``colour``."""
        return nd.from_loci(colour * self.space.depth)

    def stone_kind(self, node: Node) -> str:
        return "endpoint" if any(e >> node & 1 for e in self.ends) else "stone"

    def aims(self) -> list[str] | None:
        """Each player's corners once chosen: ``join GGGG and YYYY``."""
        if not any(self.ends):
            return None
        return ["join " + " and ".join(nd.name(n) for n in bits(ends)) for ends in self.ends]

    def say(self, action: Action) -> str:
        """A choice of corners (a bottom-level placement) names the pair: ``corners GGGG and YYYY``."""
        if action.kind == PLACE and nd.LEVEL[action.target] == self.space.depth:
            colour = nd.focus(action.target)
            return f"corners {nd.name(action.target)} and {nd.name(self.corner(OPPOSITE[colour]))}"
        return super().say(action)

    def needs_roll(self) -> bool:
        return self.phase == PLAYING and self.roll is None

    def _landing(self) -> Bitboard:
        """Free nodes of the colour rolled, and the head node (its colour is any the player wishes)."""
        board = self.space
        return (board.focus_masks[self.roll] | (board.all & 1)) & ~self.occupied

    def _actions(self) -> list[Action]:
        if self.phase == CHOOSING:
            return [Action.place(self.corner(c)) for c in COLOURS]
        board = self.space
        me = self.to_move
        landing = self._landing()
        actions = []
        if self.in_hand[me]:
            actions.extend(Action.place(t) for t in bits(landing & board.top))
        for s in bits(self.stones[me] & ~self.ends[me]):
            for t in bits(board.moves_mask(KINDS, s) & landing):
                actions.append(Action.move(s, t))
        return actions

    def _reason(self, action: Action) -> str | None:
        if self.phase == CHOOSING:
            g, r, y, b = (nd.name(self.corner(c)) for c in COLOURS)
            return f"first choose your corners: place a stone on {g} (with {y}) or {r} (with {b})"
        me = self.to_move
        if action.kind == PLACE:
            if nd.LEVEL[action.target] != 1:
                return "new stones enter on the top quadrangle (G, R, Y or B)"
            if not self.in_hand[me]:
                return "you have no stones left to enter"
            return None
        if action.kind != MOVE:
            return None
        if len(action.sources) != 1:
            return "one stone moves at a time"
        s, t = action.source, action.target
        if self.owner(s) != me:
            return None  # the base class names the missing or foreign stone
        if self.ends[me] >> s & 1:
            return f"your corner stone on {nd.name(s)} marks an endpoint and stays there"
        if not self.space.moves_mask(KINDS, s) >> t & 1:
            return f"{nd.name(s)} to {nd.name(t)} is not one move (up, down, sideways, limited hyperspace)"
        if t == HEAD:
            return "0 is occupied" if self.occupied & 1 else None
        return None

    def _apply(self, action: Action) -> None:
        me = self.to_move
        t = action.target
        if self.phase == CHOOSING:
            # The other player's covering is forced: the chooser rolls first (docs/rules/connection.md).
            colour = nd.focus(t)
            chosen = 1 << self.corner(colour) | 1 << self.corner(OPPOSITE[colour])
            other = 0
            for c in COLOURS:
                if c not in (colour, OPPOSITE[colour]):
                    other |= 1 << self.corner(c)
            ends = [0] * self.players
            ends[me], ends[1 - me] = chosen, other
            self.ends = tuple(ends)
            for player in range(self.players):
                self.set_stones(player, self.ends[player])
            self.phase = PLAYING
            self.last = tuple(bits(chosen))
            return
        mine = self.stones[me] | 1 << t
        if action.kind == PLACE:
            self.add_to("in_hand", me, -1)
        else:
            mine &= ~(1 << action.source)
        self.set_stones(me, mine)
        self.last = action.sources + action.targets
        if self.connected(me):
            self.finish((me,))
            return
        self.end_turn()

    def connected(self, player: int) -> bool:
        """Whether the player's stones join their two corners."""
        ends = self.ends[player]
        if not ends:
            return False
        a = (ends & -ends).bit_length() - 1
        return bool(self.space.group(a, self.stones[player], hyperspace=True) & ends == ends)

    def moves_needed(self, player: int) -> int | None:
        """About how many moves the player still needs to join their corners (None: cut off), by a
        Dijkstra search over bitboards, a bucket of nodes per cost (docs/rules/connection.md)."""
        ends = self.ends[player]
        if not ends:
            return None
        links = self.space.contiguity_hyper
        mine = self.stones[player]
        free = self.space.all & ~self.occupied
        costs = _fill_costs(self.space)
        buckets = {0: ends & -ends}
        settled = 0
        while buckets:
            cost = min(buckets)
            frontier = buckets.pop(cost) & ~settled
            settled |= frontier
            reach = 0
            while frontier:  # the nodes of this cost and every own stone contiguous to them
                grown = 0
                for n in bits(frontier):
                    grown |= links[n]
                reach |= grown
                frontier = grown & mine & ~settled
                settled |= frontier
            if settled & ends == ends:
                return cost
            step = reach & free & ~settled
            for fill, mask in costs:
                if step & mask:
                    buckets[cost + fill] = buckets.get(cost + fill, 0) | step & mask
        return None

    def evaluate(self) -> list[float]:
        """Each player's chance of being ahead by ``moves_needed``, times that of joining before the turn
        limit, which keeps a player whose opponent is cut off moving (docs/rules/connection.md)."""
        if self.over:
            return self.outcome()
        if self.phase == CHOOSING:
            return [1.0 / self.players] * self.players
        needed = [self.moves_needed(player) for player in range(self.players)]
        if all(m is None for m in needed):  # nobody can join: a draw at the turn limit
            return [1.0 / self.players] * self.players
        weights = [math.exp(-AHEAD_SLOPE * m) if m is not None else 0.0 for m in needed]
        total = sum(weights)
        return [
            w / total * math.exp(-FINISH_SLOPE * m) if m is not None else 0.0 for w, m in zip(weights, needed)
        ]


@cache
def _fill_costs(board: GameSpace) -> tuple[tuple[int, Bitboard], ...]:
    """(moves, nodes) pairs: what bringing a stone from the hand to each node takes."""
    pairs = [(level, board.level_masks[level]) for level in range(1, board.depth + 1)]
    if board.level_masks[0]:
        pairs.append((2, board.level_masks[0]))
    return tuple(pairs)
