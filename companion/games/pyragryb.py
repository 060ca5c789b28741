"""PyraGRYB, also called "Lifeline" (003, K. and D. Barnhart): 2-4 players build down with pyramids.

A piece's size follows from its level; each player's stash counts the sizes off the board. Rules
decisions and the computer player's race: docs/rules/pyragryb.md.
"""

from __future__ import annotations

import functools

from companion.games.engine import COLOUR_DIE, COLOUR_NAMES, TURN_LIMIT, Game, Option, register
from companion.rules import node as nd
from companion.rules.action import CHOOSE_ROLL, MOVE, PASS, PLACE, REMOVE, ROLL, Action
from companion.rules.node import Bitboard, Node
from companion.rules.space import GameSpace, MoveKind, bits, space

LARGE, MEDIUM, SMALL = 0, 1, 2
SIZE_NAMES = ("large", "medium", "small")
SIZE_OF_LEVEL = (None, LARGE, LARGE, MEDIUM, SMALL)  # 003: large on the top two levels
DEPTH = 4  # the sizes are tied to the four levels: no Giant boards

# evaluate() races the players over this many turns each.
HORIZON = 10
# A colour set: four bits in the order of a node's children, G R Y B (bit 0 is G).
# ROLLED[r][a]: the chance that r rolls of the colour die show exactly the colours of set a.
ROLLED: list[list[float]] = [[1.0] + [0.0] * 15]
for _ in range(HORIZON):
    ROLLED.append(
        [
            sum(ROLLED[-1][before] / 4 for before in range(16) for c in range(4) if before | 1 << c == shown)
            for shown in range(16)
        ]
    )
# COVERS[m]: the colour sets that include m, as a 16-bit mask over sets.
COVERS = [sum(1 << a for a in range(16) if a & m == m) for m in range(16)]


@functools.cache
def _covered(sets: int, rolls: int) -> float:
    """The chance that ``rolls`` rolls (at most HORIZON) show all colours of one of the COVERS ``sets``."""
    if rolls <= 0:
        return float(sets & 1)
    return sum(chance for shown, chance in enumerate(ROLLED[rolls]) if sets >> shown & 1)


PIECES = Option(
    "pieces", 5, "pyramids of each size per player (003: 5 large, 5 medium, 5 small)", minimum=1, maximum=16
)


@register
class PyraGryb(Game):
    id = "pyragryb"
    # Easy: no random moves, 2-ply playouts (docs/performance.md, "Three players (PyraGRYB)").
    computer_levels = {"easy": {"blunder": 0.0, "playout": 2}}
    name = "PyraGRYB"
    piece_words = ("pyramid", "pyramids")
    source = "003 PyraGRYB"
    summary = (
        "Roll the colour die and enter a large pyramid on the top quadrangle, build under your own "
        "unbroken line of pieces, or slide onto a neighbouring opponent (lethal encounter). First to "
        "fill a quadrangle with their own pieces wins 1, 2, 4 or 8 points."
    )
    min_players, max_players = 2, 4
    die = COLOUR_DIE
    options = (PIECES, TURN_LIMIT)
    finds_grybs = True
    # stash: per player, the pyramids off the board as (large, medium, small); rolling: roll chosen this turn.
    extra_fields = ("stash", "rolling")

    def make_space(self) -> GameSpace:
        return space(DEPTH, headless=True)  # the head node is never used: entry is on the top quadrangle

    def setup(self) -> None:
        n = self.settings["pieces"]
        self.stash = ((n, n, n),) * self.players
        self.in_hand = (3 * n,) * self.players
        self.rolling = False

    def needs_roll(self) -> bool:
        # 003: reincarnation needs "no roll of the die": offered before the roll, beside ``roll``.
        return self.roll is None and (self.rolling or not self._needed_sizes(self.to_move))

    @property
    def roll_offered(self) -> bool:
        return not self.over and self.roll is None

    def end_turn(self) -> None:
        self.rolling = False
        super().end_turn()

    def stone_kind(self, node: Node) -> str:
        return SIZE_NAMES[SIZE_OF_LEVEL[nd.LEVEL[node]]]

    def state_dict(self) -> dict:
        """With each player's stash by size (out of one size, a player must reincarnate)."""
        out = super().state_dict()
        out["sizes"] = list(SIZE_NAMES)
        out["stash"] = [list(counts) for counts in self.stash]
        return out

    def evaluate(self) -> list[float]:
        """Each player's chance of filling a quadrangle first: their ``_finish_curve`` raced turn by turn in
        the order of play; what is left after ``HORIZON`` turns is shared."""
        if self.over:
            return self.outcome()
        n = self.players
        curves = [self._finish_curve(p) for p in range(n)]
        order = [(self.to_move + i) % n for i in range(n)]
        first = [0.0] * n
        for t in range(1, HORIZON + 1):
            for i, p in enumerate(order):
                chance = curves[p][t] - curves[p][t - 1]  # done on exactly this turn
                if chance <= 0.0:
                    continue
                for j, q in enumerate(order):
                    if q != p:  # and no one before them is done: this round for earlier seats
                        chance *= 1.0 - curves[q][t if j < i else t - 1]
                first[p] += chance
        rest = (1.0 - sum(first)) / n
        return [f + rest for f in first]

    def _finish_curve(self, player: int) -> list[float]:
        """The chance that the player fills a quadrangle within t of their own turns, t = 0..HORIZON, if
        no one gets in the way (docs/rules/pyragryb.md, "The computer players")."""
        board = self.space
        mine = self.stones[player]
        theirs = self.occupied & ~mine
        stash = self.stash[player]
        alive = self._alive(player)
        wanted: dict[int, int] = {}  # turns lost first -> the colour sets (as a COVERS mask) that finish
        # A quadrangle's four nodes are bits shift..shift+3 of a bitboard: the top one's shift is 1.
        quadrangles = [(1, LARGE)]
        quadrangles += [(4 * p + 1, SIZE_OF_LEVEL[nd.LEVEL[p] + 1]) for p in bits(alive & ~board.bottom)]
        for shift, size in quadrangles:
            lacking = ~mine >> shift & 0b1111
            held = (theirs >> shift & 0b1111).bit_count()
            delay = max(0, lacking.bit_count() - stash[size]) + held
            wanted[delay] = wanted.get(delay, 0) | COVERS[lacking]
        if not alive & board.top and board.top & ~self.occupied:
            wanted[1] = wanted.get(1, 0) | COVERS[0b1111]  # enter first, then the quadrangle beneath
        return [
            max((_covered(sets, t - delay) for delay, sets in wanted.items()), default=0.0)
            for t in range(HORIZON + 1)
        ]

    def _alive(self, player: int) -> Bitboard:
        """The player's pieces joined to the top quadrangle by an unbroken line of their own."""
        board = self.space
        mine = self.stones[player]
        alive = level = mine & board.top
        for _ in range(DEPTH - 1):
            below = 0
            for p in bits(level):
                below |= 0b1111 << (4 * p + 1)
            level = below & mine
            alive |= level
        return alive

    def _buildable(self, player: int) -> Bitboard:
        """Free nodes the player may build on, stash permitting."""
        board = self.space
        room = board.top
        for p in bits(self._alive(player) & ~board.bottom):
            room |= 0b1111 << (4 * p + 1)
        room &= ~self.occupied
        stash = self.stash[player]
        for lvl in range(1, DEPTH + 1):
            if not stash[SIZE_OF_LEVEL[lvl]]:
                room &= ~board.level_masks[lvl]
        return room

    def _needed_sizes(self, player: int) -> set[int]:
        """Sizes the player has run out of while a free node on their lifeline needs one."""
        board = self.space
        stash = self.stash[player]
        if all(stash):
            return set()
        room = board.top
        for p in bits(self._alive(player) & ~board.bottom):
            room |= 0b1111 << (4 * p + 1)
        room &= ~self.occupied
        return {
            SIZE_OF_LEVEL[lvl]
            for lvl in range(1, DEPTH + 1)
            if room & board.level_masks[lvl] and not stash[SIZE_OF_LEVEL[lvl]]
        }

    def _size_mask(self, size: int) -> Bitboard:
        levels = self.space.level_masks
        return levels[1] | levels[2] if size == LARGE else levels[3] if size == MEDIUM else levels[4]

    def _moves(self, player: int, colour: str) -> list[Action]:
        board = self.space
        on_colour = board.focus_masks[colour]
        mine = self.stones[player]
        actions = [Action.place(t) for t in bits(self._buildable(player) & on_colour)]
        prey = on_colour & self.occupied & ~mine
        if prey:
            for s in bits(mine):
                for t in bits(board.target_mask(MoveKind.SIDEWAYS, s) & prey):
                    actions.append(Action.move(s, t))
        actions.append(Action(PASS))  # 003: every move "may" be made (docs/rules/pyragryb.md)
        return actions

    def _actions(self) -> list[Action]:
        if self.roll is not None:
            return self._moves(self.to_move, self.roll)
        mine = self.stones[self.to_move]
        out = [CHOOSE_ROLL]
        for size in self._needed_sizes(self.to_move):
            out.extend(Action.remove(n) for n in bits(mine & self._size_mask(size)))
        return out

    # No deadlock override: someone can always move on some roll (docs/rules/pyragryb.md).

    def _reason(self, action: Action) -> str | None:
        me = self.to_move
        if self.roll is None and action.kind in (PLACE, MOVE, PASS):
            return "roll first (roll), or take back a piece of the size you have run out of (no roll needed)"
        if (
            action.kind == REMOVE
            and self.roll is not None
            and self.owner(action.target) == me
            and SIZE_OF_LEVEL[nd.LEVEL[action.target]] in self._needed_sizes(me)
        ):
            return "reincarnation needs no roll: it is offered before the roll, instead of rolling"
        if action.kind == PLACE:
            t = action.target
            if nd.focus(t) != self.roll or self.occupied >> t & 1:
                return None  # the base class says why
            size = SIZE_OF_LEVEL[nd.LEVEL[t]]
            if nd.LEVEL[t] > 1:
                line = []
                up = nd.parent(t)
                while up:
                    line.append(up)
                    up = nd.parent(up)
                broken = [p for p in reversed(line) if not self.stones[me] >> p & 1]
                if broken:
                    return (
                        f"you may only build under your own pieces: the lifeline to {nd.name(t)} is broken "
                        f"at {nd.name(broken[0])}"
                    )
            if not self.stash[me][size]:
                return (
                    f"you have no {SIZE_NAMES[size]} pyramids left: take one back from the board "
                    f"(reincarnation) to use next turn"
                )
        if action.kind == MOVE:
            if len(action.sources) != 1:
                return "one piece moves at a time"
            s, t = action.source, action.target
            if self.owner(s) != me:
                return None
            if not self.space.target_mask(MoveKind.SIDEWAYS, s) >> t & 1:
                return (
                    f"a piece only slides to a node beside it on its quadrangle, and {nd.name(t)} is not "
                    f"beside {nd.name(s)}"
                )
            if self.owner(t) is None:
                return (
                    "a piece only slides onto an opponent's piece (a lethal encounter); build to go elsewhere"
                )
            if self.owner(t) == me:
                return f"{nd.name(t)} is your own piece"
            if nd.focus(t) != self.roll:
                return (
                    f"you rolled {self.roll}: a lethal encounter needs the colour the opponent sits on, "
                    f"{COLOUR_NAMES[nd.focus(t)]}"
                )
        if action.kind == REMOVE:
            t = action.target
            if self.owner(t) is None:
                return None
            if self.owner(t) != me:
                return "reincarnation takes back one of your own pieces, not an opponent's"
            size = SIZE_OF_LEVEL[nd.LEVEL[t]]
            if self.stash[me][size]:
                return (
                    "reincarnation is for a size you have run out of: "
                    f"you still have {SIZE_NAMES[size]} pyramids"
                )
            return (
                "reincarnation is for a size you need: "
                f"no free node on your lifeline needs a {SIZE_NAMES[size]} one"
            )
        return None

    def _apply(self, action: Action) -> None:
        if action.kind == ROLL:  # the roll chosen over reincarnation
            self.rolling = True
            return
        me = self.to_move
        t = action.target
        if action.kind == REMOVE:  # reincarnation: the piece goes back to the stash for a later turn
            self.set_stones(me, self.stones[me] & ~(1 << t))
            self._restash(me, t, +1)
            self.last = (t,)
            self.end_turn()
            return
        if action.kind == PLACE:
            self._restash(me, t, -1)
            self.set_stones(me, self.stones[me] | 1 << t)
        else:  # lethal encounter: the opponent's piece goes back to its owner's stash
            victim = self.owner(t)
            self.set_stones(victim, self.stones[victim] & ~(1 << t))
            self._restash(victim, t, +1)
            self.add_to("captured", me, 1)
            self.set_stones(me, self.stones[me] & ~(1 << action.source) | 1 << t)
        self.last = action.sources + action.targets
        found = self.grybs_index.completed_by(t, self.stones[me], quadrangle_only=True)
        if found:
            self.grybs = tuple(found)
            points = [0] * self.players
            points[me] = self.gryb_points(found[0])
            self.finish((me,), points)
            return
        self.end_turn()

    def _restash(self, player: int, node: Node, amount: int) -> None:
        size = SIZE_OF_LEVEL[nd.LEVEL[node]]
        stash = list(self.stash)
        counts = list(stash[player])
        counts[size] += amount
        stash[player] = tuple(counts)
        self.stash = tuple(stash)
        self.add_to("in_hand", player, amount)
