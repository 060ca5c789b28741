"""Random playouts of EZ GRYB on bitboards: the same random game as the engine's, ten times faster.

The computer player ends every search iteration with a short random playout, and a whole random game is
the benchmark of issue 4 (>= 2k a second). Through the general engine (``random_action`` then
``push_legal``, a snapshot a ply) EZ GRYB runs about 130k plies a second; its games are 600 plies long.
Its rules are simple enough to play on two bitboards per player instead:

- **Moves down**, in the *down layout*: level L's nodes in a block of 4**L bits, the *last* colour of a
  node's name the most significant digit. The child of colour c of every node of level L is then the
  same shift, ``(c + 1) * 4**L`` (one shift a level finds every move down for a roll).
- **Captures sideways and entries**, in the engine's own layout (``node.py``: the four nodes of a
  quadrangle are neighbours, in G R Y B order): a stone's sibling of colour c is a shift by ``c - its
  colour``, the same for every quadrangle of every level.

A roll of colour c then lists its moves as three masks (moves down, captures from each side), one
uniformly random move is taken by its index, and the two layouts are kept in step. The rules are those
of :mod:`companion.composed` for EZ GRYB (docs/rules/ez-gryb.md): gravity, sideways moves only to
capture, entries on the top quadrangle, one move a turn onto the colour rolled, captured stones back to
their owner's supply, a quadrangle covered wins its points, a pass when nothing fits the roll, a draw
when nothing can ever move again (checked after a pass, as the engine does) or at the turn limit. Any
depth (2-6) and number of stones. tests/test_playout.py checks, position by position, that each roll
offers exactly the engine's moves, each as often, and that whole games end as the engine's do.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from . import node as nd
from .node import Bitboard, Node

# EZ GRYB's parameters (companion/compositions/ez-gryb.toml): a composition with these values plays here,
# whatever its depth, stones and turn limit (tests/test_playout.py keeps this list complete).
RULES = {
    "teams": False, "headless": True, "periodic": False, "enter": "top", "rolled": False, "phase": "mixed",
    "residents": (), "die": "colour", "colour_of": "target", "moves": 1, "through": False, "gravity": True,
    "levity": False, "lateral": True, "multi_level": False, "limited_hyperspace": False, "interjection": False,
    "limited_interjection": False, "excision": False, "limited_excision": False, "lateral_levels": (),
    "reincarnation": False, "exit": False, "hopping": "none", "hop_captures": False, "chain": False,
    "landing": "lethal", "lethal": ("sideways",), "capture_only": ("sideways",), "captured": "returned",
    "push": False, "pop": False, "win": ("gryb",), "integrated": False, "levels": (), "endian": "little",
    "capture": 0, "race": "bottom", "arrangement": (), "connect": (),
}


def plays(rules, players: int) -> bool:
    """Whether these rules are EZ GRYB's (any depth, stones, turn limit), for two players."""
    return players == 2 and all(getattr(rules, key) == value for key, value in RULES.items())


@dataclass
class End:
    """Where a playout stopped: the stones (engine layout) and supplies, and how the game stands."""

    stones: tuple[Bitboard, Bitboard]
    in_hand: tuple[int, int]
    over: bool
    winner: int | None  # None: a draw, or not over
    points: int  # the winner's points
    plies: int  # plies played (a roll is one, a move or a pass another)


class Board:
    """The tables of one depth. :func:`board` keeps one per depth."""

    def __init__(self, depth: int):
        self.depth = depth
        size = nd.count(depth)
        offsets = [0] * (depth + 2)  # down layout: level L starts at offsets[L]
        for level in range(1, depth + 1):
            offsets[level + 1] = offsets[level] + 4**level
        down_bit = [-1] * size  # engine node -> its bit in the down layout
        node_of = [0] * offsets[depth + 1]
        for n in range(1, size):
            loci = nd.loci(n)
            bit = offsets[len(loci)] + sum("GRYB".index(c) * 4**i for i, c in enumerate(loci))
            down_bit[n], node_of[bit] = bit, n
        self.down_bit = down_bit
        self.all_down = (1 << offsets[depth + 1]) - 1
        # Each roll, flat: its entry node, the shifts of levels 1..depth-1 for moves down, and the two
        # captures (stones of a neighbouring colour, and how far left and right they shift onto it).
        self.level_masks = tuple(((1 << 4**level) - 1) << offsets[level] for level in range(1, depth))
        colour = [sum(1 << n for n in range(1, size) if nd.loci(n)[-1] == c) for c in "GRYB"]
        rolls = []
        for c in range(4):
            captures = []
            for side in ((c - 1) % 4, (c + 1) % 4):  # 000: "to either side, on the same quadrangle"
                step = c - side
                captures += [colour[side], max(step, 0), max(-step, 0)]
            shifts = tuple((c + 1) * 4**level for level in range(1, depth))
            rolls.append((1 << (1 + c), *shifts, *captures))
        self.rolls = tuple(rolls)
        # A move down to the down-layout bit b: the target and the source in the engine layout, the
        # source in the down layout (as masks), and the target node.
        self.down_move: list[tuple[Bitboard, Bitboard, Bitboard, Node] | None] = [None] * offsets[depth + 1]
        for bit, n in enumerate(node_of):
            if nd.LEVEL[n] >= 2:
                parent = nd.parent(n)
                self.down_move[bit] = (1 << n, 1 << parent, 1 << down_bit[parent], n)
        self.quadrangle = [0] * size  # engine node -> its quadrangle
        self.points = [0] * size  # engine node -> the points of its quadrangle (little endian)
        for n in range(1, size):
            self.quadrangle[n] = sum(1 << m for m in nd.quadrangle(n))
            self.points[n] = 2 ** (nd.LEVEL[n] - 1)
        self.top = sum(1 << (1 + c) for c in range(4))
        self.every_capture = tuple(r[i:i + 3] for r in self.rolls for i in (depth, depth + 3))
        self.every_down = tuple((mask, shift) for r in self.rolls for mask, shift in zip(self.level_masks, r[1:depth]))
        self._play = _compile(depth)

    def to_down(self, stones: Bitboard) -> Bitboard:
        """A bitboard of the engine layout in the down layout."""
        out, down_bit = 0, self.down_bit
        while stones:
            low = stones & -stones
            out |= 1 << down_bit[low.bit_length() - 1]
            stones ^= low
        return out

    def stuck(self, down: tuple[Bitboard, Bitboard], stones: tuple[Bitboard, Bitboard],
              in_hand: tuple[int, int]) -> bool:
        """Nobody can ever move again, whatever the die shows (composed.ComposedGame.deadlocked): no stone
        in a supply with room on the top quadrangle, no stone above a free node, no two opponents side by
        side (either could take the other)."""
        a, z = stones
        if (in_hand[0] or in_hand[1]) and self.top & ~(a | z):
            return False
        every = down[0] | down[1]
        free = self.all_down ^ every
        for mask, shift in self.every_down:
            if free >> shift & mask & every:
                return False
        for side, left, right in self.every_capture:
            if (a & side) << left >> right & z:
                return False
        return True

    def play(self, rng, stones: tuple[Bitboard, Bitboard], in_hand: tuple[int, int], to_move: int,
             roll: int | None, turns_left: int, plies: int | None = None) -> End:
        """Play random plies from a position: ``roll`` is the colour (0-3, G R Y B) already rolled this
        turn or None; ``turns_left`` the turns to the turn limit (this one included); ``plies`` how many
        to play (None: to the end of the game)."""
        # A turn is two plies, the roll and the move (or pass). The plies to play become whole turns, the
        # first half played when its roll is in; a roll left over at the end changes no stone.
        rolled = roll is not None
        if plies is None:
            turns, lone_roll = turns_left, False
        elif rolled:
            turns, lone_roll = (plies + 1) // 2, plies > 0 and plies % 2 == 0
        else:
            turns, lone_roll = plies // 2, plies % 2 == 1
        if not rolled:
            roll = rng.getrandbits(2)
        p, a, z, ha, hz, played, winner, points, over = self._play(
            self, rng.getrandbits, stones[to_move], stones[1 - to_move], in_hand[to_move], in_hand[1 - to_move],
            to_move, roll, min(turns, turns_left), turns_left)
        return End((a, z) if p == 0 else (z, a), (ha, hz) if p == 0 else (hz, ha), over, winner, points,
                   2 * played - rolled + (lone_roll and not over))


# The loop of a playout, written once and compiled for each depth (as dataclasses writes out an __init__):
# the moves down of each level above the bottom written out (``{down}``), and the turn written twice, for
# each player (``{a}`` the player to move, ``{z}`` the other), so no names are swapped between turns. A
# loop over the levels inside the turn, and the swap, cost a quarter of the speed on the standard board.
_PLAY = """
def play(b, getrandbits, a, z, ha, hz, p, roll, turns, turns_left):
    # a, da, ha: the stones of the first player to move (engine layout, down layout) and their supply;
    # z, dz, hz: the other player's. Returns the player to move, their stones and supply, the other's,
    # the turns played and how the game stands.
    da, dz = b.to_down(a), b.to_down(z)
    free = b.all_down ^ (da | dz)  # empty nodes, down layout
    ({levels},) = b.level_masks
    rolls, down_move, down_bit, quadrangles, points = b.rolls, b.down_move, b.down_bit, b.quadrangle, b.points
    q = 1 - p
    played = 0
    while True:
{first}
{second}
"""

_TURN = """
        if played == turns:  # the turn limit (a draw, as the engine's end_turn) or the plies asked for
            return {p}, {a}, {z}, h{a}, h{z}, played, None, 0, played == turns_left
        top, {shifts}, side1, left1, right1, side2, left2, right2 = rolls[roll]
        down = ({down}) & free
        take1 = ({a} & side1) << left1 >> right1 & {z}
        take2 = ({a} & side2) << left2 >> right2 & {z}
        enter = 1 if h{a} and free >> roll & 1 else 0  # the top quadrangle: bits 0-3 of the down layout
        n_down = down.bit_count()
        n_take1 = take1.bit_count()
        n = enter + n_down + n_take1 + take2.bit_count()
        played += 1
        if n:
            r = getrandbits(32) * n >> 32  # the r-th of the n moves: uniform to within n / 2**32
            if r < enter:
                h{a} -= 1
                {a} |= top
                t_down = 1 << roll
                d{a} |= t_down
                free ^= t_down
                node = roll + 1
            elif r < enter + n_down:
                for _ in range(r - enter):
                    down &= down - 1
                bit = down & -down
                target, s_node, s_down, node = down_move[bit.bit_length() - 1]
                d{a} ^= bit | s_down
                free ^= bit | s_down
                {a} ^= target | s_node
            else:
                r -= enter + n_down
                if r < n_take1:
                    take, left, right = take1, left1, right1
                else:
                    take, left, right = take2, left2, right2
                    r -= n_take1
                for _ in range(r):
                    take &= take - 1
                target = take & -take
                source = target << right >> left
                node = target.bit_length() - 1
                t_down = 1 << down_bit[node]
                s_down = 1 << down_bit[source.bit_length() - 1]
                {z} ^= target
                d{z} ^= t_down
                h{z} += 1
                {a} ^= target | source
                d{a} ^= t_down | s_down
                free ^= s_down
            quadrangle = quadrangles[node]
            if {a} & quadrangle == quadrangle:
                return {p}, {a}, {z}, h{a}, h{z}, played, {p}, points[node], True
        elif b.stuck((d{a}, d{z}), ({a}, {z}), (h{a}, h{z})):
            return {p}, {a}, {z}, h{a}, h{z}, played, None, 0, True
        roll = getrandbits(2)
"""


def _compile(depth: int):
    above = range(1, depth)  # the levels a stone can move down from
    levels = ", ".join(f"l{i}" for i in above)
    shifts = ", ".join(f"s{i}" for i in above)
    down = " | ".join(f"(da & l{i}) << s{i}" for i in above)
    first = _TURN.format(p="p", a="a", z="z", shifts=shifts, down=down)
    second = _TURN.format(p="q", a="z", z="a", shifts=shifts, down=down.replace("da &", "dz &"))
    source = _PLAY.format(levels=levels, first=first, second=second)
    scope: dict = {}
    exec(compile(source, f"<EZ GRYB playout, depth {depth}>", "exec"), scope)
    return scope["play"]


@lru_cache(maxsize=None)
def board(depth: int) -> Board:
    """The tables and the playout loop of EZ GRYB on a board ``depth`` levels deep."""
    return Board(depth)
