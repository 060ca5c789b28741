"""25 Men's GRYB (002, J. Wood; 000 "25 Men's GRYB"): Nine Men's Morris on the GRYB board.

Rules decisions: docs/rules/25-mens-gryb.md.
"""

from __future__ import annotations

import math
from bisect import insort
from functools import cache

from companion.games.engine import TURN_LIMIT, Game, Option, OptionError, register
from companion.rules import gryb as gryb_mod
from companion.rules import node as nd
from companion.rules.action import MOVE, PLACE, REMOVE, Action
from companion.rules.gryb import Gryb
from companion.rules.node import Bitboard, Node
from companion.rules.space import GameSpace, MoveKind, bits

DEPTH = Option("depth", 4, "board depth: 4 standard, 5 Giant GRYB, 6 Super Giant GRYB", minimum=3, maximum=6)
HEADLESS = Option("headless", False, "play without the head node (001 'headless': 340 nodes)")
STONES = Option(
    "stones",
    25,
    "men each player brings into play in phase one (002: first tested with 16, expanded to 25)",
    minimum=4,
    maximum=400,
)
BLOCKED = Option(
    "blocked",
    "loses",
    "a player who cannot move in phase two loses (as in Nine Men's Morris) or passes",
    choices=("loses", "passes"),
)
HYPERSPACE = Option(
    "hyperspace",
    "full",
    "side-steps on any level (full, 002) or only on the penultimate locus (limited)",
    choices=("full", "limited"),
)

PLACING, MOVING = "place", "move"
LOSING_MEN = 3  # a player reduced to three men or fewer has lost

# One shared Action per node and kind: playouts build none.
_PLACES = tuple(Action.place(n) for n in range(nd.count(nd.MAX_DEPTH)))
_REMOVES = tuple(Action.remove(n) for n in range(nd.count(nd.MAX_DEPTH)))


@cache
def quadrangle_tables(board: GameSpace) -> tuple[tuple[Gryb | None, ...], tuple[Bitboard, ...]]:
    """For each node, the quadrangle GRYB through it (None for the head node) and that GRYB's mask."""
    index = gryb_mod.index(board)
    grybs: list[Gryb | None] = [None] * board.size
    masks = [0] * board.size
    for n in board.nodes:
        if n != nd.HEAD:
            g = index.quadrangle(nd.parent(n))
            grybs[n], masks[n] = g, g.mask
    return tuple(grybs), tuple(masks)


class MorrisGame(Game):
    """What 25 Men's GRYB, Shapes Morris and Lines Morris share. A subclass MUST override
    :meth:`_move_actions` and MAY override :meth:`_can_move` and :meth:`_move_reason`."""

    source = "002 25 Men's GRYB; 000 25 Men's GRYB"
    options = (DEPTH, HEADLESS, STONES, BLOCKED, TURN_LIMIT)
    finds_grybs = True
    score = None  # played win or lose (docs/rules/25-mens-gryb.md)
    piece_words = ("man", "men")
    # pieces: per player, their men's nodes, sorted (playouts pick a man without a scan).
    extra_fields = ("pieces",)

    def setup(self) -> None:
        men, room = self.settings["stones"], len(self.space.nodes)
        if 2 * men >= room:
            raise OptionError(f"{men} men each need more than {2 * men} nodes, and this board has {room}")
        self.phase = PLACING
        self.in_hand = (men, men)
        self.pieces = ((), ())
        self.quad_gryb, self.quad_mask = quadrangle_tables(self.space)
        self.turn_cap = self.settings["turn_limit"] * self.players
        self.blocked_loses = self.settings["blocked"] == "loses"

    def _move_actions(self, player: int) -> list[Action]:
        """Every phase-two move of ``player``. MUST override."""
        raise NotImplementedError

    def _can_move(self, player: int) -> bool:
        """Whether ``player`` has a phase-two move. MAY override with something cheaper."""
        return bool(self._move_actions(player))

    def _move_reason(self, action: Action) -> str | None:
        """Why a phase-two move of own men to free nodes is not legal. MAY override."""
        return None

    def _actions(self) -> list[Action]:
        if self.pending:
            return [_REMOVES[n] for n in self.pieces[1 - self.to_move]]
        if self.phase == PLACING:
            # Free nodes off the bitboard's binary digits, lowest first: half the time of a shift per node
            # (docs/performance.md, "25 Men's GRYB's placements").
            digits = format(self.stones[0] | self.stones[1], "b")[::-1]
            return [_PLACES[n] for n in self.space.nodes if n >= len(digits) or digits[n] == "0"]
        return self._move_actions(self.to_move)

    def deadlocked(self) -> bool:
        # Only after a pass (blocked=passes): once neither can move, nobody ever can.
        return self.phase == MOVING and not self._can_move(0) and not self._can_move(1)

    def _reason(self, action: Action) -> str | None:
        me = self.to_move
        if self.pending:
            many = (
                f"{self.pending} of your opponent's men" if self.pending > 1 else "one of your opponent's men"
            )
            if action.kind != REMOVE:
                return f"you formed a GRYB: first remove {many} (xNODE)"
            if self.owner(action.target) == me:
                return f"remove {many}, not one of your own"
            return None
        if action.kind == REMOVE:
            return "men are removed only after forming a GRYB"
        if self.phase == PLACING:
            if action.kind == MOVE:
                return "no man moves until all men are in play: place one on a free node"
            return None
        if action.kind == PLACE:
            return "every man is in play: move one of yours"
        if action.kind == MOVE and all(self.owner(s) == me for s in action.sources):
            vacated = self.occupied & ~sum(1 << s for s in action.sources)
            taken = [t for t in action.targets if vacated >> t & 1]
            if taken:
                return f"{nd.name(taken[0])} is occupied"
            return self._move_reason(action)
        return None

    def _apply(self, action: Action) -> None:
        me = self.to_move
        kind = action.kind
        if kind == REMOVE:
            self._remove(me, action.targets[0])
            return
        stones = self.stones
        before = stones[me]
        mine = list(self.pieces[me])
        targets = action.targets
        if kind == PLACE:
            t = targets[0]
            after = before | 1 << t
            self.in_hand = (
                (self.in_hand[0] - 1, self.in_hand[1]) if me == 0 else (self.in_hand[0], self.in_hand[1] - 1)
            )
            insort(mine, t)
        else:
            after = before
            for s in action.sources:
                after &= ~(1 << s)
                mine.remove(s)
            for t in targets:
                after |= 1 << t
                insort(mine, t)
        if me == 0:
            self.stones = (after, stones[1])
            self.pieces = (tuple(mine), self.pieces[1])
        else:
            self.stones = (stones[0], after)
            self.pieces = (self.pieces[0], tuple(mine))
        self.last = action.sources + targets
        # A GRYB formed: a quadrangle through a man just placed or moved is all the mover's now.
        quad_mask = self.quad_mask
        formed = None
        for t in targets:
            q = quad_mask[t]
            if q and after & q == q and before & q != q:
                g = self.quad_gryb[t]
                if formed is None:
                    formed = [g]
                elif g not in formed:
                    formed.append(g)
        if formed is None:
            if self.grybs:
                self.grybs = ()
            self._turn_over(me)
            return
        self.grybs = tuple(formed)
        theirs = self.stones[1 - me]
        # Each GRYB removes as many men as its level: 1 on the top quadrangle, 4 on the bottom.
        self.pending = min(sum(g.level for g in formed), theirs.bit_count())
        if not self.pending:
            self._turn_over(me)

    def arrange(self, men: tuple, to_move: int = 0) -> None:
        """Start from a phase-two position (puzzles, tests): ``men`` gives each player's node names."""
        masks = [0, 0]
        for player, names in enumerate(men):
            for node in self.space.parse_many(names):
                if (masks[0] | masks[1]) >> node & 1:
                    raise ValueError(f"{nd.name(node)} is given twice")
                masks[player] |= 1 << node
        self.stones = tuple(masks)
        self.pieces = tuple(tuple(bits(m)) for m in masks)
        self.in_hand = (0, 0)
        self.phase, self.to_move = MOVING, to_move
        self.history.clear()
        self.redo_stack.clear()

    def men(self, player: int) -> int:
        """The player's men on the board and still to be placed."""
        return self.stones[player].bit_count() + self.in_hand[player]

    def _remove(self, me: int, t: Node) -> None:
        victim = 1 - me
        pieces = list(self.pieces[victim])
        pieces.remove(t)
        gone = self.stones[victim] & ~(1 << t)
        if victim == 0:
            self.stones, self.pieces = (gone, self.stones[1]), (tuple(pieces), self.pieces[1])
            self.captured = (self.captured[0], self.captured[1] + 1)
        else:
            self.stones, self.pieces = (self.stones[0], gone), (self.pieces[0], tuple(pieces))
            self.captured = (self.captured[0] + 1, self.captured[1])
        self.last = (t,)
        self.pending -= 1
        if gone.bit_count() + self.in_hand[victim] <= LOSING_MEN:
            self.pending = 0
            self.finish((me,))
        elif not self.pending or not gone:
            self.pending = 0
            self._turn_over(me)

    def _turn_over(self, me: int) -> None:
        """The turn is done: phase two once every man is in play; a blocked next player may lose."""
        if self.phase == PLACING and not (self.in_hand[0] or self.in_hand[1]):
            self.phase = MOVING
        nxt = self.to_move = 1 - me
        self.turn += 1
        if self.turn >= self.turn_cap:
            self.finish((), draw="the turn limit")
        elif self.blocked_loses and self.phase == MOVING and not self._can_move(nxt):
            self.finish((me,))

    def end_turn(self) -> None:
        # A pass (blocked=passes) ends the turn through the engine; keep the phase and the turn cap.
        self._turn_over(self.to_move)

    def random_action(self, rng) -> Action:
        """A uniformly random legal action, without listing them all."""
        if self.over:
            return super().random_action(rng)
        draw = rng.random
        if self.pending:
            theirs = self.pieces[1 - self.to_move]
            return _REMOVES[theirs[int(draw() * len(theirs))]]
        if self.phase == PLACING:
            occupied = self.stones[0] | self.stones[1]
            nodes = self.space.nodes
            count = len(nodes)
            for _ in range(64):
                n = nodes[int(draw() * count)]
                if not occupied >> n & 1:
                    return _PLACES[n]
            return super().random_action(rng)
        return self._random_move(rng)

    def _random_move(self, rng) -> Action:
        """A uniformly random phase-two action. MAY override with a faster way."""
        return rng.choice(self.legal_actions())

    def threats(self, player: int) -> float:
        """Quadrangles the player covers but for one free node, by the men each would remove."""
        mine = self.stones[player]
        free = self.space.all & ~(self.stones[0] | self.stones[1])
        seen = 0
        total = 0.0
        quad_mask = self.quad_mask
        for n in self.pieces[player]:
            q = quad_mask[n]
            if q and not seen & q:
                seen |= q
                if (mine & q).bit_count() == 3 and q & free:
                    total += nd.LEVEL[n]
        return total

    def evaluate(self) -> list[float]:
        """Men left and GRYBs about to be formed, as a logistic of the difference."""
        if self.over:
            return self.outcome()
        lead = self.men(0) - self.men(1) + 0.5 * (self.threats(0) - self.threats(1))
        if self.pending:
            lead += self.pending if self.to_move == 0 else -self.pending
        first = 1.0 / (1.0 + math.exp(-0.5 * lead))
        return [first, 1.0 - first]

    def stone_kind(self, node: Node) -> str:
        return "man"


@cache
def _move_tables(board: GameSpace, kinds: tuple[MoveKind, ...]) -> tuple:
    """Each node's reach and targets, the actions to them, and the most targets of any node."""
    reach = tuple(board.moves_mask(kinds, n) for n in range(board.size))
    targets = tuple(tuple(bits(m)) for m in reach)
    actions = tuple(tuple(Action.move(n, t) for t in ts) for n, ts in enumerate(targets))
    return reach, targets, actions, max(map(len, targets))


@register
class TwentyFiveMensGryb(MorrisGame):
    id = "25-mens-gryb"
    name = "25 Men's GRYB"
    summary = (
        "Nine Men's Morris on the GRYB board: place 25 men each, then move one a turn up, down, sideways "
        "or via hyperspace. A GRYB (a quadrangle of your men) removes 1-4 of your opponent's men by its "
        "level; reduce your opponent to three men to win."
    )
    options = (DEPTH, HEADLESS, STONES, HYPERSPACE, BLOCKED, TURN_LIMIT)

    def setup(self) -> None:
        super().setup()
        side_step = (
            MoveKind.HYPERSPACE if self.settings["hyperspace"] == "full" else MoveKind.LIMITED_HYPERSPACE
        )
        self.kinds = (MoveKind.UP, MoveKind.DOWN, MoveKind.SIDEWAYS, side_step)
        self.reach, self.targets, self.move_table, self.most_targets = _move_tables(self.space, self.kinds)

    def _move_actions(self, player: int) -> list[Action]:
        occupied = self.stones[0] | self.stones[1]
        targets, table = self.targets, self.move_table
        return [
            table[s][j]
            for s in self.pieces[player]
            for j, t in enumerate(targets[s])
            if not occupied >> t & 1
        ]

    def _can_move(self, player: int) -> bool:
        free = self.space.all & ~(self.stones[0] | self.stones[1])
        reach = self.reach
        for s in self.pieces[player]:
            if reach[s] & free:
                return True
        return False

    def _move_reason(self, action: Action) -> str | None:
        if len(action.sources) != 1:
            return "one man moves at a time"
        s, t = action.source, action.target
        kinds = ", ".join(k.value for k in self.kinds)
        return f"{nd.name(s)} to {nd.name(t)} is not one move ({kinds})"

    def _random_move(self, rng) -> Action:
        """Uniform by rejection: a random man and slot of its move table, again while empty or occupied."""
        draw = rng.random
        occupied = self.stones[0] | self.stones[1]
        mine = self.pieces[self.to_move]
        count, width = len(mine), self.most_targets
        targets, table = self.targets, self.move_table
        for _ in range(64):
            s = mine[int(draw() * count)]
            j = int(draw() * width)
            ts = targets[s]
            if j < len(ts) and not occupied >> ts[j] & 1:
                return table[s][j]
        return rng.choice(self.legal_actions())  # crowded or blocked: list them all
