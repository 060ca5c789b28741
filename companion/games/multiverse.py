"""Multiverse (000 "Multiverse", with "Conduits"): one board per player, linked by conduit markers.

Each player's rings are a bitboard of their own board, mapped onto the others' by ``Multispace``. Actions
name the mover's own nodes; the cloth shows the mover's board. Rules decisions: docs/rules/multiverse.md.
"""

from __future__ import annotations

import math
from functools import cache

from companion.games.engine import (
    COLOUR_DIE,
    COLOUR_NAMES,
    NODE_DIE,
    TURN_LIMIT,
    DieByPhase,
    Game,
    IllegalAction,
    Option,
    OptionError,
    register,
)
from companion.rules import node as nd
from companion.rules.action import END, MOVE, PASS, PLACE, REMOVE, Action, nth_move
from companion.rules.node import COLOURS, HEAD, Bitboard, Node
from companion.rules.space import MoveKind, bits, space

DEPTH = Option(
    "depth",
    4,
    "board depth: 4 standard, 5 Giant GRYB, 6 Super Giant GRYB (one board each)",
    minimum=2,
    maximum=6,
)
RINGS = Option(
    "rings", 20, "rings each player places in phase one (000: twenty each)", minimum=1, maximum=200
)
STALL = Option(
    "stall",
    100,
    "the game ends after this many turns each without a capture (a draw among the players still in)",
    minimum=1,
    maximum=10000,
)

PLACING, MOVING = "place", "move"
CONDUIT = "conduit"
KINDS = (MoveKind.SIDEWAYS, MoveKind.UP, MoveKind.DOWN, MoveKind.HYPERSPACE)
TOP = {c: nd.from_loci(c) for c in COLOURS}  # the top-level node of each colour: G 1, R 2, Y 3, B 4


class ConduitAction(Action):
    """The mover's conduit marker to the top-level node ``targets[0]``, written ``conduit:R``."""

    __slots__ = ()

    def __str__(self) -> str:
        return f"{CONDUIT}:{nd.NODE_NAMES[self.targets[0]]}"


def conduit(node: Node) -> ConduitAction:
    return ConduitAction(CONDUIT, (node,))


_CONDUITS = {n: conduit(n) for n in TOP.values()}
_PLACES = tuple(Action.place(n) for n in range(nd.count(nd.MAX_DEPTH)))
_ROLLS = tuple(Action.roll_node(n) for n in range(nd.count(nd.MAX_DEPTH)))
_COLOUR_ROLLS = tuple(Action.roll_colour(c) for c in COLOURS)


class Multispace:
    """For one depth: each colour's ring moves, and by conduit node ``k``, ``prefix(k, mask)`` (the nodes
    ``k+s`` for the nodes ``s`` of ``mask``) and ``strip`` (the reverse); ``*_node``: per node, for tests."""

    def __init__(self, depth: int):
        board = space(depth)
        # reach[colour][s]: nodes of that colour one move (KINDS) from s; the head node is any colour (000).
        self.reach = {
            c: tuple(
                board.moves_mask(KINDS, s) & (board.focus_masks[c] | 1 << HEAD) for s in range(board.size)
            )
            for c in COLOURS
        }
        firsts = [nd.first_of_level(lvl) for lvl in range(depth + 2)]
        # Per conduit k and level L: (first node of level L, width mask, first node of k's block at L+1).
        self.spans: dict[int, tuple[tuple[int, int, int], ...]] = {}
        for k in TOP.values():
            j = k - 1
            self.spans[k] = tuple(
                (firsts[lvl], (1 << 4**lvl) - 1, firsts[lvl + 1] + j * 4**lvl) for lvl in range(depth)
            )
        self.prefix_node: dict[int, tuple[Bitboard, ...]] = {HEAD: tuple(1 << x for x in range(board.size))}
        self.strip_node: dict[int, tuple[Bitboard, ...]] = {HEAD: self.prefix_node[HEAD]}
        for colour, k in TOP.items():
            pre, strip = [], []
            for x in range(board.size):
                loci = nd.loci(x)
                pre.append(1 << nd.from_loci(colour + loci) if len(loci) < depth else 0)
                strip.append(1 << nd.from_loci(loci[1:]) if loci[:1] == colour else 0)
            self.prefix_node[k], self.strip_node[k] = tuple(pre), tuple(strip)

    def prefix(self, k: Node, mask: Bitboard) -> Bitboard:
        if k == HEAD:
            return mask
        out = 0
        for low, width, high in self.spans[k]:
            out |= (mask >> low & width) << high
        return out

    def strip(self, k: Node, mask: Bitboard) -> Bitboard:
        if k == HEAD:
            return mask
        out = 0
        for low, width, high in self.spans[k]:
            out |= (mask >> high & width) << low
        return out

    def project(self, mask: Bitboard, c_from: Node, c_to: Node) -> Bitboard:
        """Board B's nodes simultaneous with A's ``mask``, A's conduit on ``c_from``, B's on ``c_to``."""
        return self.strip(c_from, mask) | self.prefix(c_to, mask)


@cache
def multispace(depth: int) -> Multispace:
    return Multispace(depth)


@register
class Multiverse(Game):
    id = "multiverse"
    name = "Multiverse"
    source = "000 Multiverse; Conduits"
    summary = (
        "One board each, linked by conduit markers into simultaneous space. Place 20 rings each where "
        "GRYB Dice II says, then roll the colour die and move a ring (sideways, up, down, hyperspace) "
        "or your conduit marker to a top-level node; a ring that comes into an opponent's space "
        "captures it. Eliminate the opponents' rings."
    )
    min_players, max_players = 2, 4
    die = DieByPhase(NODE_DIE, lambda g: NODE_DIE if g.phase == PLACING else COLOUR_DIE)
    options = (DEPTH, RINGS, STALL, TURN_LIMIT)
    physical_stones = False  # 2-4 boards of rings do not fit one cloth: the LEDs are the rings
    score = None  # played win or lose (docs/rules/multiverse.md, "Scores")
    # conduits: each player's marker on their own board; moved_last: whose board the cloth shows at the
    # end; since: the turn of the last capture or of phase two's start (the stall).
    extra_fields = ("conduits", "moved_last", "since")

    def setup(self) -> None:
        rings, room = self.settings["rings"], len(self.space.nodes)
        if rings > room:
            raise OptionError(
                f"{rings} rings do not fit on a board of {room} nodes: choose fewer rings or a deeper board"
            )
        self.multi = multispace(self.space.depth)
        self.phase = PLACING
        self.in_hand = (rings,) * self.players
        self.conduits: tuple[Node, ...] = (HEAD,) * self.players
        self.moved_last: int | None = None
        self.since = 0

    def in_play(self, player: int) -> bool:
        """Whether the player has rings on their board or still to place."""
        return bool(self.stones[player] or self.in_hand[player])

    def players_in(self) -> tuple[int, ...]:
        return tuple(p for p in range(self.players) if self.in_play(p))

    def project(self, mask: Bitboard, source: int, target: int) -> Bitboard:
        """``target``'s nodes simultaneous with ``source``'s nodes ``mask``."""
        if source == target:
            return mask
        return self.multi.project(mask, self.conduits[source], self.conduits[target])

    def simultaneous(self, a: int, x: Node, b: int, y: Node) -> bool:
        """Whether a's node ``x`` and b's node ``y`` are the same space."""
        return bool(self.project(1 << x, a, b) >> y & 1)

    def _hits(self, me: int, mine: Bitboard) -> list[tuple[int, Bitboard]]:
        """Per opponent, their rings simultaneous with ``me``'s nodes ``mine``."""
        out = []
        for q in range(self.players):
            if q != me and self.stones[q]:
                hit = self.stones[q] & self.project(mine, me, q)
                if hit:
                    out.append((q, hit))
        return out

    @property
    def shown_board(self) -> int:
        """The player whose board the cloth shows: a linked board's own player (docs/linking.md); else the
        player to move; after the game, the last mover."""
        if self.viewer is not None:
            return self.viewer
        if self.over and self.moved_last is not None:
            return self.moved_last
        return self.to_move

    def shown_stones(self) -> tuple[Bitboard, ...]:
        """Per player, their rings on the shown board (an opponent's where simultaneous with its nodes)."""
        b = self.shown_board
        return tuple(self.project(mask, q, b) if mask else 0 for q, mask in enumerate(self.stones))

    def shown_last(self) -> tuple[Node, ...]:
        """The last move's nodes where they fall on the shown board."""
        last = 0
        if self.moved_last is not None:
            for n in self.last:
                last |= self.project(1 << n, self.moved_last, self.shown_board)
        return tuple(bits(last))

    def markers(self) -> Bitboard:
        """The shown player's conduit marker, and the opponents' on its head node."""
        return 1 << self.conduits[self.shown_board] | (1 << HEAD if self.players > 1 else 0)

    @property
    def occupied(self) -> Bitboard:
        """Nodes of the shown board holding a ring, anyone's."""
        m = 0
        for s in self.shown_stones():
            m |= s
        return m

    def owner(self, node: Node) -> int | None:
        """Whose ring is on ``node`` of the shown board (the shown player first, then the lowest seat)."""
        shown = self.shown_stones()
        b = self.shown_board
        if shown[b] >> node & 1:
            return b
        for q, mask in enumerate(shown):
            if mask >> node & 1:
                return q
        return None

    def stone_kind(self, node: Node) -> str:
        return "ring"

    def roll_node_mask(self) -> Bitboard:
        # "If you roll the same node you already occupy, roll again": the faces are the mover's free nodes.
        return self.space.all & ~self.stones[self.to_move]

    def roll_faces(self) -> list[Action]:
        if self.phase == MOVING:
            return list(_COLOUR_ROLLS)
        return [_ROLLS[n] for n in bits(self.roll_node_mask())]

    def parse(self, text: str) -> Action:
        raw = text.strip()
        if raw.startswith(CONDUIT + ":"):
            where = raw[len(CONDUIT) + 1 :]
            try:
                return conduit(nd.parse(where, self.space.depth))
            except nd.NodeError as err:
                raise IllegalAction(f"{raw!r}: {err}") from None
        return super().parse(raw)

    def _ring_moves(self) -> list[tuple[Node, Bitboard]]:
        """Each of the mover's rings with the nodes of the rolled colour it may move to."""
        mine = self.stones[self.to_move]
        reach = self.multi.reach[self.roll]
        out = []
        for s in bits(mine):
            r = reach[s] & ~mine
            if r:
                out.append((s, r))
        return out

    def _conduit_move(self) -> Action | None:
        top = TOP[self.roll]
        return None if self.conduits[self.to_move] == top else _CONDUITS[top]

    def _actions(self) -> list[Action]:
        if self.phase == PLACING:
            return [_PLACES[self.roll]]
        actions = [Action.move(s, t) for s, reach in self._ring_moves() for t in bits(reach)]
        move = self._conduit_move()
        if move is not None:
            actions.append(move)
        return actions

    def random_action(self, rng) -> Action:
        if self.over:
            return super().random_action(rng)
        if self.is_chance:
            if self.phase == MOVING:
                return _COLOUR_ROLLS[rng.randrange(4)]
            mine, size = self.stones[self.to_move], self.space.size
            while True:  # roll again on a node of your own, as the players do
                n = rng.randrange(size)
                if not mine >> n & 1:
                    return _ROLLS[n]
        if self.phase == PLACING:
            return _PLACES[self.roll]
        singles = self._ring_moves()
        move = self._conduit_move()
        extra = [move] if move is not None else []
        total = sum(r.bit_count() for _, r in singles) + len(extra)
        if not total:
            return Action(PASS)
        return nth_move(rng.randrange(total), singles, extra)

    def _reason(self, action: Action) -> str | None:
        name = nd.name
        rings = self.settings["rings"]
        if action.kind == REMOVE:
            return "rings are captured by coming into simultaneous space, never lifted"
        if action.kind == END:
            return "a turn is one move: there is no end of turn to call"
        if self.phase == PLACING:
            if action.kind == PLACE:
                return f"the die chose {name(self.roll)}: place your ring there"
            return f"every player places {rings} rings first: place yours on {name(self.roll)}"
        colour = COLOUR_NAMES[self.roll]
        if action.kind == PLACE:
            return (
                f"every ring is placed: move a ring onto a {colour} node (FROM-TO) or your conduit marker "
                f"(conduit:{self.roll})"
            )
        if action.kind == CONDUIT:
            t = action.target
            if nd.LEVEL[t] != 1:
                return "the conduit marker moves only to a top-level node: G, R, Y or B"
            if nd.focus(t) != self.roll:
                return f"you rolled {self.roll}: your conduit marker may move only to {self.roll}"
            return f"your conduit marker is already on {name(t)}"
        if action.kind != MOVE:
            return None
        if len(action.sources) != 1:
            return "move one ring at a time"
        me = self.to_move
        mine = self.stones[me]
        s, t = action.source, action.target
        if not mine >> s & 1:
            return f"you have no ring on {name(s)} (your board: name the nodes of your own board)"
        if t != HEAD and nd.focus(t) != self.roll:
            return f"you rolled {self.roll}: move onto a {colour} node, and {name(t)} is not one"
        if mine >> t & 1:
            return f"you already have a ring on {name(t)}"
        return f"{name(s)} to {name(t)} is not one sideways, up, down or hyperspace move"

    def _apply(self, action: Action) -> None:
        me = self.to_move
        mine = self.stones[me]
        self.moved_last = me
        if action.kind == PLACE:
            t = action.target
            mine |= 1 << t
            self.set_stones(me, mine)
            self.add_to("in_hand", me, -1)
            self.last = (t,)
            self._capture(me, 1 << t)
            if not any(self.in_hand):
                self.phase = MOVING
                self.since = self.turn + 1  # the stall count starts with phase two
        elif action.kind == MOVE:
            s, t = action.source, action.target
            mine = mine & ~(1 << s) | 1 << t
            self.set_stones(me, mine)
            self.last = (s, t)
            self._capture(me, 1 << t)
        else:  # a conduit move
            conduits = list(self.conduits)
            conduits[me] = action.target
            self.conduits = tuple(conduits)
            self.last = (action.target,)
            hitters = self._capture(me, mine)
            self.last += tuple(bits(hitters & ~(1 << action.target)))
        self._judge()
        if not self.over:
            self.end_turn()

    def _capture(self, me: int, mine: Bitboard) -> Bitboard:
        """Capture what shares space with ``mine``; return the nodes that took."""
        hitters, taken = 0, 0
        for q, hit in self._hits(me, mine):
            self.set_stones(q, self.stones[q] & ~hit)
            taken += hit.bit_count()
            hitters |= self.project(hit, q, me) & mine
        if taken:
            self.add_to("captured", me, taken)
            self.since = self.turn + 1
        return hitters

    def _judge(self) -> None:
        alive = self.players_in()
        if len(alive) == 1:
            self.finish(alive)

    def end_turn(self) -> None:
        """The next player still in moves; a draw at the turn limit or a stall (docs/rules/multiverse.md)."""
        self.roll = None
        self.moves_left = self.moves_per_turn
        self.turn += 1
        limit = self.settings["turn_limit"] * self.players
        quiet = self.settings["stall"] * len(self.players_in())
        stalled = self.phase == MOVING and self.turn - self.since >= quiet
        if self.turn >= limit or stalled:
            alive = self.players_in()
            why = (
                "the turn limit"
                if self.turn >= limit
                else f"{self.settings['stall']} turns each without a capture"
            )
            self.finish(() if len(alive) == self.players else alive, draw=why)
            return
        for step in range(1, self.players + 1):
            q = (self.to_move + step) % self.players
            if self.in_play(q):
                self.to_move = q
                return

    def evaluate(self) -> list[float]:
        """A softmax of the rings each player has left, on the board and to place."""
        if self.over:
            return self.outcome()
        values = [s.bit_count() + h for s, h in zip(self.stones, self.in_hand)]
        top = max(values)
        weights = [math.exp(0.25 * (v - top)) if v else 0.0 for v in values]
        total = sum(weights)
        return [w / total for w in weights]

    def state_dict(self) -> dict:
        """``stones`` and ``last`` for the shown board, and every board in ``boards``."""
        out = super().state_dict()
        name = nd.name
        b = self.shown_board
        shown = self.shown_stones()
        stones: dict[str, dict] = {}
        order = [b] + [q for q in range(self.players) if q != b]
        for q in order:
            for n in bits(shown[q]):
                key = name(n)
                if key in stones:
                    stones[key].setdefault("players", [stones[key]["player"]]).append(q)
                else:
                    stones[key] = {"player": q, "kind": "ring"}
        out["stones"] = stones
        out["last"] = [name(n) for n in self.shown_last()]
        out["last_move"] = {"board": self.moved_last, "nodes": [name(n) for n in self.last]}
        out["shown_board"] = b
        out["conduits"] = [name(self.conduits[q]) if q == b else nd.HEAD_NAME for q in range(self.players)]
        out["boards"] = [
            {
                "rings": [name(n) for n in bits(self.stones[q])],
                "conduit": name(self.conduits[q]),
                "in_hand": self.in_hand[q],
                "out": not self.in_play(q),
            }
            for q in range(self.players)
        ]
        return out
