"""GRYBU (000 "GRYBU", after SHŌBU by Smirk & Laughter): four quadrant boards, passive and aggressive moves.

Every node's moves are tables built once per board; a passive move needs an aggressive move of its kind
to follow, checked per board and kind. Rules decisions: docs/rules/grybu.md.
"""

from __future__ import annotations

import math
from functools import cache

from companion.games.engine import TURN_LIMIT, Game, Option, register
from companion.rules import node as nd
from companion.rules.action import END, MOVE, PASS, PLACE, REMOVE, Action
from companion.rules.node import COLOURS, Bitboard, Node
from companion.rules.space import GameSpace, bits, space

DEPTH = Option(
    "depth",
    4,
    "board depth: 4 standard (quadrants three levels deep below their top node), 3 a "
    "SHŌBU-sized 4x4 bottom level, 5 Giant GRYB, 6 Super Giant GRYB",
    minimum=3,
    maximum=6,
)
HYPERSPACE = Option(
    "hyperspace",
    "full",
    "a hyperspace step varies any locus between the quadrant's and the "
    "focus (full) or only the penultimate locus (limited)",
    choices=("full", "limited"),
)
QUIET = Option(
    "quiet_turns", 50, "a draw after this many turns each without a ring pushed off", minimum=5, maximum=1000
)

UP, DOWN, SIDEWAYS, HYPER = range(4)
# kind * 2 + count - 1 of the moves that go either way round and push nothing.
LATERAL_TWO = (2 * SIDEWAYS + 1, 2 * HYPER + 1)
KIND_NAMES = ("up", "down", "sideways", "hyperspace")
BOARD_NAMES = tuple(f"{c}Q" for c in COLOURS)  # GQ RQ YQ BQ, indexed like COLOURS
DARK = (0, 3)  # GQ, BQ
LIGHT = (1, 2)  # RQ, YQ
HOMES = ((1, 0), (3, 2))  # player 0: RQ and GQ; player 1: BQ and YQ (in the source's order)
START_LOCI = ("GR", "BY")  # player 0's rings sit on X a b..b with a, b in G/R; player 1's in B/Y


def opposite(board: int) -> tuple[int, int]:
    """The boards of the other colour, for the aggressive move after a passive one on ``board``."""
    return LIGHT if board in DARK else DARK


def describe(kc: int) -> str:
    """'one up step', 'two sideways steps' ... for a kind-and-count code ``kind * 2 + count - 1``."""
    kind, count = divmod(kc, 2)
    return f"one {KIND_NAMES[kind]} step" if count == 0 else f"two {KIND_NAMES[kind]} steps"


def _boards_text(boards) -> str:
    return ", ".join(BOARD_NAMES[b] for b in boards)


class Entry(tuple):
    """A move from a node: (kc, target, target bit, passed, path, beyond, action): ``passed``, the node(s)
    it may pass; ``path``, where it pushes (0: nowhere); ``beyond``, where a pushed ring ends (0: off)."""

    __slots__ = ()


class Tables:
    """Every move of every node of one board depth, restricted to the node's own quadrant."""

    def __init__(self, board: GameSpace, limited: bool):
        depth, size = board.depth, board.size
        self.depth = depth
        self.quad_of = [-1] * size
        quads = [0, 0, 0, 0]
        for n in board.nodes:
            if n:
                q = COLOURS.index(nd.NODE_NAMES[n][0])
                self.quad_of[n] = q
                quads[q] |= 1 << n
        self.quads = tuple(quads)

        def vary(loci: str, i: int) -> list[Node]:
            k = COLOURS.index(loci[i])
            return [nd.from_loci(loci[:i] + COLOURS[(k + d) % 4] + loci[i + 1 :]) for d in (-1, 1)]

        step: list[list[list[Node]]] = [[[] for _ in range(size)] for _ in range(4)]
        for n in board.nodes:
            if not n:
                continue
            loci = nd.NODE_NAMES[n]
            level = len(loci)
            if level >= 2:
                step[UP][n] = [nd.parent(n)]
                step[SIDEWAYS][n] = vary(loci, level - 1)
            if level < depth:
                step[DOWN][n] = list(nd.children(n))
            lows = [level - 2] if limited else range(1, level - 1)
            step[HYPER][n] = [t for i in lows if i >= 1 for t in vary(loci, i)]

        def beyond(kind: int, n: Node, t: Node) -> Bitboard:
            """Where a ring pushed off ``t`` by a ``kind`` move from ``n`` lands: 0 off the board."""
            if kind in (SIDEWAYS, HYPER):  # one more step round the cycle, the locus that changed
                a, b = nd.NODE_NAMES[n], nd.NODE_NAMES[t]
                i = next(i for i in range(len(a)) if a[i] != b[i])
                on = COLOURS[(2 * COLOURS.index(b[i]) - COLOURS.index(a[i])) % 4]
                return 1 << nd.from_loci(b[:i] + on + b[i + 1 :])
            if kind == UP:
                return 1 << nd.parent(t) if nd.LEVEL[t] >= 2 else 0
            if nd.LEVEL[t] < depth:  # down, straight on: the node under t of t's own colour
                return 1 << nd.children(t)[COLOURS.index(nd.NODE_NAMES[t][-1])]
            return 0

        entries: list[tuple[Entry, ...]] = [()] * size
        by_kc: list[tuple[tuple[Entry, ...], ...]] = [((),) * 8] * size
        self.pair: dict[tuple[Node, Node], Entry] = {}
        for n in board.nodes:
            if not n:
                continue
            found: dict[Node, tuple[int, Bitboard]] = {}
            for kind in range(4):
                reach: dict[Node, tuple[int, Bitboard]] = {t: (kind * 2, 0) for t in step[kind][n]}
                for m in step[kind][n]:
                    for t in step[kind][m]:
                        if t != n:
                            reach[t] = (kind * 2 + 1, reach.get(t, (0, 0))[1] | 1 << m)
                # One target, one kind and length: FROM-TO names the move (docs/rules/grybu.md).
                assert not reach.keys() & found.keys(), "a target is reached by two kinds of move"
                found.update(reach)
            mine = []
            for t, (kc, passed) in sorted(found.items()):
                pushes = kc not in LATERAL_TWO
                path = (passed | 1 << t) if pushes else 0
                e = Entry(
                    (kc, t, 1 << t, passed, path, beyond(kc // 2, n, t) if pushes else 0, Action.move(n, t))
                )
                mine.append(e)
                self.pair[n, t] = e
            entries[n] = tuple(mine)
            by_kc[n] = tuple(tuple(e for e in mine if e[0] == kc) for kc in range(8))
        self.by_kc = tuple(by_kc)
        # Passive moves need only (kc, target bit, passed, action).
        self.passive = tuple(tuple((e[0], e[2], e[3], e[6]) for e in es) for es in entries)


@cache
def tables(depth: int, limited: bool) -> Tables:
    return Tables(space(depth), limited)


def _aggressive_ok(e: Entry, mine: Bitboard, occupied: Bitboard) -> bool:
    kc, _, tbit, passed, path, beyond, _ = e
    if kc in LATERAL_TWO:  # two sideways or hyperspace steps: to a free node, through a free node
        return not tbit & occupied and (not passed or bool(passed & ~occupied))
    hit = path & occupied
    if not hit:
        return True
    if hit & mine or hit & (hit - 1):  # your own ring, or two rings
        return False
    return not beyond & occupied


@register
class Grybu(Game):
    id = "grybu"
    name = "GRYBU"
    source = "000 GRYBU (patterned on SHŌBU by Smirk & Laughter)"
    summary = (
        "The four quadrants are four boards. Each turn: a passive move on one of your home boards, "
        "then the same kind of move (up, down, sideways or hyperspace; one or two steps) on a board of "
        "the other colour, where it may push an opponent's ring one step on. Push or pop all four of "
        "the opponent's rings off one board to win."
    )
    options = (DEPTH, HYPERSPACE, QUIET, TURN_LIMIT)
    hand = None  # every piece starts on the board
    score = None  # played win or lose: a win scores 1
    moves_per_turn = 2
    # passive: (board, kc) of the passive move once made, else None; quiet: turns since a ring left the board.
    extra_fields = ("passive", "quiet")

    def make_space(self) -> GameSpace:
        return space(self.settings["depth"])

    def setup(self) -> None:
        self.t = tables(self.settings["depth"], self.settings["hyperspace"] == "limited")
        depth = self.settings["depth"]
        stones = []
        for colours in START_LOCI:
            m = 0
            for q in COLOURS:
                for a in colours:
                    for b in colours:
                        m |= 1 << nd.from_loci(q + a + b * (depth - 2))
            stones.append(m)
        self.stones = tuple(stones)
        self.passive = None
        self.quiet = 0
        self._cache_key = None
        self._cache: tuple[Action, ...] = ()

    def set_position(self, rings: tuple, to_move: int = 0) -> None:
        """Start from another position (puzzles, tests): ``rings`` is two lists of node names. Only before
        the first move; bad input raises ValueError and changes nothing."""
        if self.history:
            raise ValueError("a position can be set only before the first move")
        if to_move not in (0, 1) or len(rings) != 2:
            raise ValueError("give two lists of nodes and to_move 0 or 1")
        masks = []
        for names in rings:
            m = 0
            for name in names:
                n = self.space.parse(name)
                if n == nd.HEAD:
                    raise ValueError("the head node is on no board")
                m |= 1 << n
            masks.append(m)
        if masks[0] & masks[1]:
            raise ValueError("two rings on one node")
        before = self._snapshot()
        self.stones = tuple(masks)
        self.to_move = to_move
        self.passive = None
        self.moves_left = self.moves_per_turn
        if not self._moves():
            self._restore(before)
            raise ValueError(f"player {to_move} would have no passive move with an aggressive one to follow")

    def _aggressive_kinds(self, player: int, board: int, mine: Bitboard, occupied: Bitboard) -> list[bool]:
        """For each kind-and-count, whether ``player`` has an aggressive move of it on ``board``."""
        ok = [False] * 8
        need = 8
        by_kc = self.t.by_kc
        for s in bits(mine & self.t.quads[board]):
            for kc, entries in enumerate(by_kc[s]):
                if ok[kc]:
                    continue
                for e in entries:
                    if _aggressive_ok(e, mine, occupied):
                        ok[kc] = True
                        need -= 1
                        break
                if not need:
                    return ok
        return ok

    def _passive_moves(self, player: int) -> list[Action]:
        mine = self.stones[player]
        occupied = self.stones[0] | self.stones[1]
        agg = [self._aggressive_kinds(player, b, mine, occupied) for b in range(4)]
        out = []
        passive = self.t.passive
        for b in HOMES[player]:
            o1, o2 = opposite(b)
            ok = [x or y for x, y in zip(agg[o1], agg[o2])]
            for s in bits(mine & self.t.quads[b]):
                for kc, tbit, passed, action in passive[s]:
                    if tbit & occupied or not ok[kc] or (passed and not passed & ~occupied):
                        continue
                    out.append(action)
        return out

    def _aggressive_moves(self) -> list[Action]:
        player = self.to_move
        board, kc = self.passive
        mine = self.stones[player]
        occupied = self.stones[0] | self.stones[1]
        o1, o2 = opposite(board)
        by_kc = self.t.by_kc
        return [
            e[6]
            for s in bits(mine & (self.t.quads[o1] | self.t.quads[o2]))
            for e in by_kc[s][kc]
            if _aggressive_ok(e, mine, occupied)
        ]

    def _moves(self) -> tuple[Action, ...]:
        key = (self.stones, self.to_move, self.passive)
        if key != self._cache_key:
            self._cache = tuple(
                self._passive_moves(self.to_move) if self.passive is None else self._aggressive_moves()
            )
            self._cache_key = key
        return self._cache

    def _actions(self) -> list[Action]:
        return list(self._moves())

    def random_action(self, rng) -> Action:
        if self.over:
            return super().random_action(rng)
        moves = self._moves()
        return rng.choice(moves) if moves else Action(PASS)

    def _apply(self, action: Action) -> None:
        me, you = self.to_move, 1 - self.to_move
        s, t = action.source, action.target
        e = self.t.pair[s, t]
        board = self.t.quad_of[s]
        mine = self.stones[me] & ~(1 << s) | 1 << t
        if self.passive is None:
            self.stones = (mine, self.stones[1]) if me == 0 else (self.stones[0], mine)
            self.passive = (board, e[0])
            self.last = (s, t)
            self.use_move()
            return
        theirs = self.stones[you]
        hit = e[4] & theirs
        removed = False
        self.last = (s, t)
        if hit:
            theirs &= ~hit
            beyond = e[5]
            if beyond:
                theirs |= beyond
                self.last = (s, t, beyond.bit_length() - 1)
            else:
                removed = True
                self.add_to("captured", me, 1)
        self.stones = (mine, theirs) if me == 0 else (theirs, mine)
        self.passive = None
        if removed and not theirs & self.t.quads[board]:
            self.finish((me,))
            return
        self.quiet = 0 if removed else self.quiet + 1
        self.use_move()
        if self.over:  # the turn limit
            return
        if self.quiet >= self.settings["quiet_turns"] * 2:
            self.finish((), draw=f"{self.settings['quiet_turns']} turns each without a ring pushed off")
        elif not self._moves():
            self.finish((me,))  # the player to move has no passive move with an aggressive one: they lose

    def rings(self) -> tuple[tuple[int, int, int, int], ...]:
        """Each player's rings on each board (GQ, RQ, YQ, BQ)."""
        quads = self.t.quads
        return tuple(tuple((m & q).bit_count() for q in quads) for m in self.stones)

    def evaluate(self) -> list[float]:
        """Rings left on each board, the weakest board counting most (one board emptied loses)."""
        if self.over:
            return self.outcome()
        worth = (0.0, 1.0, 1.7, 2.2, 2.6)
        score = []
        for counts in self.rings():
            values = [worth[min(c, 4)] for c in counts]
            score.append(sum(values) + 2.0 * min(values))
        p0 = 1.0 / (1.0 + math.exp(score[1] - score[0]))
        return [p0, 1.0 - p0]

    def _reason(self, action: Action) -> str | None:
        if action.kind in (PLACE, REMOVE):
            return "GRYBU rings only move: press a ring, then its target (FROM-TO, e.g. GGGG-GGG)"
        if action.kind == END:
            return "a GRYBU turn is a passive move and then an aggressive move: it cannot end early"
        if action.kind != MOVE:
            return None
        if len(action.sources) != 1:
            return "one ring moves at a time"
        me = self.to_move
        s, t = action.source, action.target
        if not self.stones[me] >> s & 1:
            if self.stones[1 - me] >> s & 1:
                return f"the ring on {nd.name(s)} is not yours"
            return f"there is no ring on {nd.name(s)}"
        board = self.t.quad_of[s]
        where = BOARD_NAMES[board]
        if self.passive is None:
            if board not in HOMES[me]:
                return f"the passive move is made on one of your home boards ({_boards_text(HOMES[me])})"
        else:
            pboard, pkc = self.passive
            if board not in opposite(pboard):
                colour = "light" if pboard in DARK else "dark"
                return (
                    f"the aggressive move is made on a {colour} board ({_boards_text(opposite(pboard))}), "
                    f"the other colour from your passive move on {BOARD_NAMES[pboard]}"
                )
        if s == t:
            return "a move must go somewhere"
        if self.t.quad_of[t] != board:
            return f"rings never leave their board: {nd.name(t)} is not on {where}"
        e = self.t.pair.get((s, t))
        if e is None:
            return (
                f"{nd.name(s)} to {nd.name(t)} is not one or two steps of one kind (up, down, sideways or "
                f"hyperspace)"
            )
        kc, _, tbit, passed, path, beyond, _ = e
        mine = self.stones[me]
        occupied = self.stones[0] | self.stones[1]
        names = " and ".join(nd.name(n) for n in bits(passed))
        names += " is" if passed & (passed - 1) == 0 else " are"
        if self.passive is None:
            if tbit & occupied:
                return f"the passive move cannot push: {nd.name(t)} is occupied"
            if passed and not passed & ~occupied:
                return f"the passive move cannot jump or push: {names} occupied"
            o1, o2 = opposite(board)
            return (
                f"you would have no aggressive move of {describe(kc)} on {BOARD_NAMES[o1]} or "
                f"{BOARD_NAMES[o2]} to go with it"
            )
        pkc = self.passive[1]
        if kc != pkc:
            return f"the aggressive move must be {describe(pkc)} like your passive move"
        if kc in LATERAL_TWO:
            if tbit & occupied:
                return f"{describe(kc)} do not push: {nd.name(t)} is occupied"
            if passed and not passed & ~occupied:
                return f"the move cannot jump over a ring: {names} occupied"
            return None
        hit = path & occupied
        if hit & mine:
            return f"you cannot push your own ring (on {nd.name(next(bits(hit & mine)))})"
        if hit & (hit - 1):
            return "you cannot push two rings"
        if hit and beyond & occupied:
            return (
                f"the ring on {nd.name(hit.bit_length() - 1)} cannot be pushed: "
                f"{nd.name(beyond.bit_length() - 1)} behind it is occupied"
            )
        return None

    def state_dict(self) -> dict:
        out = super().state_dict()
        counts = self.rings()
        out["boards"] = {BOARD_NAMES[b]: [counts[0][b], counts[1][b]] for b in range(4)}
        out["passive"] = (
            None
            if self.passive is None
            else {
                "board": BOARD_NAMES[self.passive[0]],
                "move": describe(self.passive[1]),
                "aggressive_boards": [BOARD_NAMES[b] for b in opposite(self.passive[0])],
            }
        )
        out["homes"] = [[BOARD_NAMES[b] for b in HOMES[p]] for p in (0, 1)]
        return out
