"""Random playouts of EZ GRYB on bitboards, ten times faster than the engine's (docs/performance.md,
"How EZ GRYB's playouts reach it"); tests/games/test_playout.py checks them against the engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from companion.rules import node as nd
from companion.rules.node import Bitboard

# EZ GRYB's parameters (ez-gryb.toml) but depth, stones and turn limit.
RULES = {
    "teams": False,
    "headless": True,
    "periodic": False,
    "enter": "top",
    "rolled": False,
    "phase": "mixed",
    "residents": (),
    "die": "colour",
    "colour_of": "target",
    "moves": 1,
    "through": False,
    "gravity": True,
    "levity": False,
    "lateral": True,
    "multi_level": False,
    "limited_hyperspace": False,
    "interjection": False,
    "limited_interjection": False,
    "excision": False,
    "limited_excision": False,
    "lateral_levels": (),
    "reincarnation": False,
    "exit": False,
    "hopping": "none",
    "hop_captures": False,
    "chain": False,
    "landing": "lethal",
    "lethal": ("sideways",),
    "capture_only": ("sideways",),
    "captured": "returned",
    "push": False,
    "pop": False,
    "win": ("gryb",),
    "integrated": False,
    "levels": (),
    "endian": "little",
    "capture": 0,
    "race": "bottom",
    "arrangement": (),
    "connect": (),
}


def plays(rules, players: int) -> bool:
    """Whether these rules are EZ GRYB's, for two players."""
    return players == 2 and all(getattr(rules, key) == value for key, value in RULES.items())


@dataclass
class End:
    """Where a playout stopped: stones, supplies, and how the game stands."""

    stones: tuple[Bitboard, Bitboard]
    in_hand: tuple[int, int]
    over: bool
    winner: int | None  # None: a draw, or not over
    points: int  # the winner's points
    plies: int  # plies played (a roll is one, a move or a pass another)


class Board:
    """The tables of one depth (:func:`board`)."""

    def __init__(self, depth: int):
        size = nd.count(depth)
        self.all = (1 << size) - 2  # every node but the head
        colour = [sum(1 << n for n in range(1, size) if nd.loci(n)[-1] == c) for c in "GRYB"]
        # Each roll: its entry node, its colour's nodes, two captures (a side colour, its shifts left, right).
        rolls = []
        for c in range(4):
            captures = []
            for side in ((c - 1) % 4, (c + 1) % 4):  # 000: "to either side, on the same quadrangle"
                step = c - side
                captures += [colour[side], max(step, 0), max(-step, 0)]
            rolls.append((1 << (1 + c), colour[c], *captures))
        self.rolls = tuple(rolls)
        self.every_capture = tuple(r[i : i + 3] for r in self.rolls for i in (2, 5))
        self.top = sum(1 << (1 + c) for c in range(4))
        # Nodes one move down; a player's "below" is their union over the player's stones.
        self.children = [
            sum(1 << m for m in nd.children(n)) if nd.LEVEL[n] < depth else 0 for n in range(size)
        ]
        # A move down onto a node: its source, and the change to the mover's "below".
        self.down_move: list[tuple[Bitboard, Bitboard]] = [(0, 0)] * size
        for n in range(1, size):
            if nd.LEVEL[n] >= 2:
                parent = nd.parent(n)
                self.down_move[n] = (1 << parent, self.children[parent] ^ self.children[n])
        self.quadrangle = [0] * size  # node -> its quadrangle
        self.points = [0] * size  # node -> the points of its quadrangle (little endian)
        for n in range(1, size):
            self.quadrangle[n] = sum(1 << m for m in nd.quadrangle(n))
            self.points[n] = 2 ** (nd.LEVEL[n] - 1)

    def below(self, stones: Bitboard) -> Bitboard:
        """Every node one move down from these stones."""
        out, children = 0, self.children
        while stones:
            low = stones & -stones
            out |= children[low.bit_length() - 1]
            stones ^= low
        return out

    def stuck(self, a: Bitboard, z: Bitboard, below: Bitboard, in_hand: tuple[int, int]) -> bool:
        """Nobody can ever move again, whatever the die shows (ComposedGame.deadlocked)."""
        free = self.all ^ (a | z)
        if (in_hand[0] or in_hand[1]) and free & self.top or below & free:
            return False
        for side, left, right in self.every_capture:
            if (a & side) << left >> right & z:
                return False
        return True

    def play(
        self,
        rng,
        stones: tuple[Bitboard, Bitboard],
        in_hand: tuple[int, int],
        to_move: int,
        roll: int | None,
        turns_left: int,
        plies: int | None = None,
    ) -> End:
        """Random plies from a position: ``roll`` 0-3 (G R Y B) or None; ``turns_left`` this one included."""
        # A turn is two plies, the roll and the move (or pass).
        rolled = roll is not None
        if plies is None:
            turns, lone_roll = turns_left, False
        elif rolled:
            turns, lone_roll = (plies + 1) // 2, plies > 0 and plies % 2 == 0
        else:
            turns, lone_roll = plies // 2, plies % 2 == 1
        if not rolled:
            roll = rng.getrandbits(2)
        p, a, z, ha, hz, played, winner, points, over = _play(
            self,
            rng.getrandbits,
            stones[to_move],
            stones[1 - to_move],
            in_hand[to_move],
            in_hand[1 - to_move],
            to_move,
            roll,
            min(turns, turns_left),
            turns_left,
        )
        return End(
            (a, z) if p == 0 else (z, a),
            (ha, hz) if p == 0 else (hz, ha),
            over,
            winner,
            points,
            2 * played - rolled + (lone_roll and not over),
        )


def _play(b: Board, getrandbits, a, z, ha, hz, p, roll, turns, turns_left):
    """The turns: ``a``, ``ka``, ``ha``: stones, nodes below them and supply of the player to move; ``z``...
    the other's."""
    children, rolls, down_move, quadrangles, points = b.children, b.rolls, b.down_move, b.quadrangle, b.points
    ka, kz = b.below(a), b.below(z)
    free = b.all ^ (a | z)
    played = 0
    for played in range(1, turns + 1):
        top, colour, side1, left1, right1, side2, left2, right2 = rolls[roll]
        down = ka & colour & free
        take1 = (a & side1) << left1 >> right1 & z
        take2 = (a & side2) << left2 >> right2 & z
        enter = 1 if ha and free & top else 0
        n_down = down.bit_count()
        n_take1 = take1.bit_count()
        n = enter + n_down + n_take1 + take2.bit_count()
        if n:
            r = getrandbits(32) * n >> 32  # the r-th of the n moves: uniform to within n / 2**32
            if r < enter:
                ha -= 1
                a |= top
                free ^= top
                target = top
                ka ^= children[roll + 1]
            elif r < enter + n_down:
                for _ in range(r - enter):
                    down &= down - 1
                target = down & -down
                source, change = down_move[target.bit_length() - 1]
                a ^= target | source
                free ^= target | source
                ka ^= change
            else:  # a capture sideways: the stone lands on the opponent's, which goes back to its supply
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
                lost = children[target.bit_length() - 1]
                z ^= target
                kz ^= lost
                hz += 1
                a ^= target | source
                free ^= source
                ka ^= children[source.bit_length() - 1] ^ lost
            node = target.bit_length() - 1
            quadrangle = quadrangles[node]
            if a & quadrangle == quadrangle:
                return p, a, z, ha, hz, played, p, points[node], True
        elif b.stuck(a, z, ka | kz, (ha, hz)):
            return p, a, z, ha, hz, played, None, 0, True
        p ^= 1
        a, z, ka, kz, ha, hz = z, a, kz, ka, hz, ha
        roll = getrandbits(2)
    # Out of turns: the turn limit's draw, or the plies asked for.
    return p, a, z, ha, hz, played, None, 0, played == turns_left


@cache
def board(depth: int) -> Board:
    """The tables of one depth."""
    return Board(depth)
