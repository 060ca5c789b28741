"""Grim Reaper (004, W. Stansfeld): two populations that mate, give birth, age and die.

Played on the level-3 nodes as an 8x8 lattice (6x6: its centre), with the lattice's adjacency. Notation
(docs/notation.md): ``M10GGB`` a placement, ``+FGBG/GGB`` a birth with its mother, ``roll:7`` a random
life; squares as the source writes them (``a1``) too. Rules decisions: docs/rules/grim-reaper.md.
"""

from __future__ import annotations

import heapq
import math
import re
from dataclasses import dataclass

from companion.games.engine import (
    NO_DIE,
    NUMBER_DIE,
    TURN_LIMIT,
    DieByPhase,
    Game,
    IllegalAction,
    Option,
    register,
)
from companion.rules import node as nd
from companion.rules.action import END, MOVE, PASS, PLACE, REMOVE, ROLL, Action
from companion.rules.node import Bitboard, Node
from companion.rules.space import GameSpace, bits, space

RED, BLUE = 0, 1
SIDE_NAMES = ("red", "blue")
MALE, FEMALE = "M", "F"
GENDER_NAMES = {MALE: "male", FEMALE: "female"}
LEVEL = 3  # the lattice: level-3 nodes of the standard board
FIRST = nd.first_of_level(LEVEL)
LIFE_SLOTS = nd.count(LEVEL)  # lives are a tuple indexed by node; level-3 nodes are below this

SIZE = Option("size", 8, "board: 8 (the whole level-3 lattice) or 6 (its central 6x6)", choices=(6, 8))
MALE_LIFE = Option(
    "male_life", 12, "life turns a newborn male gets (the maximum with random life)", minimum=2, maximum=99
)
FEMALE_LIFE = Option(
    "female_life",
    12,
    "life turns a newborn female gets (the maximum with random life)",
    minimum=2,
    maximum=99,
)
RANDOM_LIFE = Option(
    "random_life", False, "newborns get a random life from 2 to their sex's maximum (a die roll)"
)
MOST_RESERVE = 3 * 99  # x3 with both maxima at 99: no reserve is larger
RESERVE = Option(
    "reserve", 1, "life reserve: 1, 2 or 3 times the average maximum lifespan", choices=(1, 2, 3)
)


class ReaperAction(Action):
    """A PLACE whose ``colour`` carries gender and life (``M10``) or, for a birth, ``+F`` with the mother
    as source."""

    __slots__ = ()

    def __str__(self) -> str:
        names = nd.NODE_NAMES
        if self.sources:
            return f"{self.colour}{names[self.targets[0]]}/{names[self.sources[0]]}"
        return f"{self.colour}{names[self.targets[0]]}"


# Placements by (gender, node): life L at index L-1, each row grown to the largest reserve asked for
# (a turn lists hundreds; functools.cache by (gender, node, most) would keep a row per reserve size).
_PLACEMENTS: dict[tuple[str, Node], list[ReaperAction]] = {}


def placements(gender: str, node: Node, most: int) -> list[ReaperAction]:
    """The placements of a piece of ``gender`` on ``node`` with 1 to ``most`` life turns."""
    row = _PLACEMENTS.setdefault((gender, node), [])
    while len(row) < most:
        row.append(ReaperAction(PLACE, (node,), (), f"{gender}{len(row) + 1}"))
    return row[:most]


def placement(gender: str, life: int, node: Node) -> ReaperAction:
    if not 1 <= life <= MOST_RESERVE:  # never legal: not worth a place in the table
        return ReaperAction(PLACE, (node,), (), f"{gender}{life}")
    return placements(gender, node, life)[life - 1]


def birth(gender: str, node: Node, mother: Node) -> ReaperAction:
    return ReaperAction(PLACE, (node,), (mother,), f"+{gender}")


def is_birth(action: Action) -> bool:
    return isinstance(action, ReaperAction) and bool(action.sources)


@dataclass(frozen=True)
class Lattice:
    """The square board on the level-3 nodes: names, adjacency and edges as bitboards of nodes."""

    size: int
    all: Bitboard
    square: dict[Node, tuple[int, int]]  # node -> (file, rank), 0-based, rank 0 at the bottom
    at: dict[tuple[int, int], Node]
    king: dict[Node, Bitboard]  # orthogonal and diagonal neighbours
    orth: dict[Node, Bitboard]  # orthogonal neighbours
    lines: dict[Node, tuple[tuple[Node, Node], ...]]  # the pairs of squares a square lies between
    top: Bitboard
    bottom: Bitboard
    left: Bitboard
    right: Bitboard

    def name(self, node: Node) -> str:
        f, r = self.square[node]
        return "abcdefgh"[f] + str(r + 1)


def _lattice(size: int) -> Lattice:
    cut = (8 - size) // 2
    square, at = {}, {}
    for n in range(FIRST, nd.count(LEVEL)):
        x, y = nd.position(n, nd.STANDARD_DEPTH)  # -14..14 in steps of 4, y downwards
        col, row = (x + 14) // 4, (y + 14) // 4
        f, r = col - cut, (7 - row) - cut
        if 0 <= f < size and 0 <= r < size:
            square[n], at[(f, r)] = (f, r), n
    king, orth, lines = {}, {}, {}
    for n, (f, r) in square.items():
        k = o = 0
        for df in (-1, 0, 1):
            for dr in (-1, 0, 1):
                m = at.get((f + df, r + dr))
                if m is not None and m != n:
                    k |= 1 << m
                    if df == 0 or dr == 0:
                        o |= 1 << m
        king[n], orth[n] = k, o
        pairs = []
        for df, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
            a, b = at.get((f - df, r - dr)), at.get((f + df, r + dr))
            if a is not None and b is not None:
                pairs.append((a, b))
        lines[n] = tuple(pairs)

    def edge(test) -> Bitboard:
        return sum(1 << n for n, fr in square.items() if test(*fr))

    return Lattice(
        size,
        sum(1 << n for n in square),
        square,
        at,
        king,
        orth,
        lines,
        edge(lambda f, r: r == size - 1),
        edge(lambda f, r: r == 0),
        edge(lambda f, r: f == 0),
        edge(lambda f, r: f == size - 1),
    )


LATTICES = {size: _lattice(size) for size in SIZE.choices}

_PLACEMENT = re.compile(r"([MF])(\d+)(\w+)")
_BIRTH = re.compile(r"\+([MF])(\w+?)(?:/(\w+))?")
_SQUARE = re.compile(r"[a-h][1-8]")


def connected(lattice: Lattice, mine: Bitboard, start: Bitboard, goal: Bitboard) -> bool:
    """Whether ``mine`` joins ``start`` to ``goal`` through orthogonally adjacent squares."""
    reached = frontier = mine & start
    orth = lattice.orth
    while frontier:
        if reached & goal:
            return True
        grown = 0
        for n in bits(frontier):
            grown |= orth[n]
        frontier = grown & mine & ~reached
        reached |= frontier
    return bool(reached & goal)


def connection_gap(lattice: Lattice, mine: Bitboard, free: Bitboard, start: Bitboard, goal: Bitboard) -> int:
    """Fewest free squares that would complete the connection (0-1 breadth-first search), or a large
    number when cut off."""
    queue = [(0 if mine >> n & 1 else 1, n) for n in bits(start & (mine | free))]
    heapq.heapify(queue)
    done: set[Node] = set()
    while queue:
        c, n = heapq.heappop(queue)
        if n in done:
            continue
        done.add(n)
        if goal >> n & 1:
            return c
        for m in bits(lattice.orth[n] & (mine | free)):
            if m not in done:
                heapq.heappush(queue, (c + (0 if mine >> m & 1 else 1), m))
    return lattice.size * 2


@register
class GrimReaper(Game):
    id = "grim-reaper"
    name = "Grim Reaper"
    source = "004 Grim Reaper (W. Stansfeld)"
    summary = (
        "Two populations on the level-3 lattice: place pieces of a chosen sex and lifespan from a "
        "life reserve, move them one or two squares, give birth between a male and a female, age "
        "and die. Join your two sides (red top-bottom, blue left-right) or outlive the other side."
    )
    options = (SIZE, MALE_LIFE, FEMALE_LIFE, RANDOM_LIFE, RESERVE, TURN_LIMIT)
    hand = "Life reserve"  # in_hand: life turns left to give placed pieces
    score = None  # played win or lose: a win scores 1
    # No die, but with random_life a newborn's life turns are rolled (2 to its sex's maximum).
    die = DieByPhase(NO_DIE, lambda g: NUMBER_DIE if g.awaiting is not None else NO_DIE)
    # males: the male pieces; lives: life turns left, by node; step: the part of the round, 0-3; newborn:
    # born in the latest birth phase; mothers: who bore in it; rip: who died at the latest ageing;
    # awaiting: the newborn the die is to give its life, or None.
    extra_fields = ("males", "lives", "step", "newborn", "mothers", "rip", "awaiting")

    def make_space(self) -> GameSpace:
        return space(nd.STANDARD_DEPTH)

    def setup(self) -> None:
        self.lattice = LATTICES[self.settings["size"]]
        s = self.settings
        reserve = ((s["male_life"] + s["female_life"]) * s["reserve"] + 1) // 2
        self.in_hand = (reserve,) * self.players
        self.males = 0
        self.lives = (0,) * LIFE_SLOTS
        self.step = 0
        self.phase = "move"
        self.newborn = self.mothers = self.rip = 0
        self.awaiting = None

    def _mover(self, step: int) -> int:
        first = self.turn % 2  # red opens the first round, blue the second, and so on
        return first if step in (0, 3) else 1 - first

    def end_turn(self) -> None:
        """Go on to the next part of the round."""
        self.step += 1
        if self.step == 4:
            self._age()
            return
        if self.step == 2:
            self.phase = "birth"
            self.newborn = self.mothers = 0
        self.to_move = self._mover(self.step)

    def _age(self) -> None:
        lives = list(self.lives)
        dead = 0
        for n in bits(self.occupied):
            lives[n] -= 1
            if lives[n] <= 0:
                dead |= 1 << n
        self.lives = tuple(lives)
        self.rip = dead
        if dead:
            self.stones = tuple(mask & ~dead for mask in self.stones)
            self.males &= ~dead
        self.turn += 1
        self.step = 0
        self.phase = "move"
        self.to_move = self._mover(0)
        self._judge()

    def _judge(self) -> None:
        """The objects of the game, assessed after the ageing and deaths."""
        lat = self.lattice
        alive = [p for p in range(self.players) if self.stones[p] or self.in_hand[p] > 0]
        if not alive:
            self.finish((), draw="both populations died out together")
            return
        winners = set()
        if len(alive) == 1:
            winners.add(alive[0])
        if connected(lat, self.stones[RED], lat.top, lat.bottom):
            winners.add(RED)
        if connected(lat, self.stones[BLUE], lat.left, lat.right):
            winners.add(BLUE)
        if winners:
            self.finish(sorted(winners))
        elif self.turn >= self.settings["turn_limit"]:
            self.finish((), draw="the turn limit")

    def needs_roll(self) -> bool:
        return self.awaiting is not None

    def roll_faces(self) -> list[Action]:
        top = self.settings["male_life" if self.males >> self.awaiting & 1 else "female_life"]
        return [Action(ROLL, colour=str(life)) for life in range(2, top + 1)]

    def _push(self, action: Action) -> None:
        super()._push(action)
        if action.kind == ROLL:
            lives = list(self.lives)
            lives[self.awaiting] = int(action.colour)
            self.lives = tuple(lives)
            self.awaiting = None
            self.roll = None

    def _parents(self, player: int) -> tuple[Bitboard, Bitboard]:
        """The player's males and females that may be parents in this birth phase."""
        mine = self.stones[player] & ~self.newborn
        return mine & self.males, mine & ~self.males

    def _competed(self) -> Bitboard:
        """Free squares both sides have a couple across: nobody may give birth there."""
        free = self.lattice.all & ~self.occupied
        wanted = [0, 0]
        for player in (RED, BLUE):
            males, females = self._parents(player)
            for x in bits(free):
                for a, b in self.lattice.lines[x]:
                    if (males >> a & 1 and females >> b & 1) or (females >> a & 1 and males >> b & 1):
                        wanted[player] |= 1 << x
                        break
        return wanted[0] & wanted[1]

    def _births(self, player: int) -> list[tuple[Node, Node]]:
        """(square, mother) of every birth the player may give now."""
        males, females = self._parents(player)
        females &= ~self.mothers
        if not males or not females:
            return []
        free = self.lattice.all & ~self.occupied & ~self._competed()
        found = []
        for x in bits(free):
            for a, b in self.lattice.lines[x]:
                if males >> a & 1 and females >> b & 1:
                    found.append((x, b))
                elif females >> a & 1 and males >> b & 1:
                    found.append((x, a))
        return found

    def _reach(self, s: Node, free: Bitboard) -> Bitboard:
        """Squares a piece on ``s`` reaches in one or two steps over free squares."""
        king = self.lattice.king
        one = king[s] & free
        reach = one
        for m in bits(one):
            reach |= king[m] & free
        return reach

    def _actions(self) -> list[Action]:
        me = self.to_move
        free = self.lattice.all & ~self.occupied
        if self.phase == "birth":
            found = self._births(me)
            if not found:
                return []
            return [birth(g, x, m) for x, m in found for g in (FEMALE, MALE)] + [Action(END)]
        actions: list[Action] = []
        reserve = self.in_hand[me]
        if reserve > 0:
            for n in bits(free):
                for g in (MALE, FEMALE):
                    actions.extend(placements(g, n, reserve))
        for s in bits(self.stones[me]):
            actions.extend(Action.move(s, t) for t in bits(self._reach(s, free)))
        return actions

    def random_action(self, rng) -> Action:
        """Uniform over the legal actions without listing every placement."""
        if self.over or self.is_chance or self.phase == "birth":
            return super().random_action(rng)
        me = self.to_move
        free = self.lattice.all & ~self.occupied
        reserve = self.in_hand[me]
        placements = free.bit_count() * 2 * reserve if reserve > 0 else 0
        reaches = [(s, self._reach(s, free)) for s in bits(self.stones[me])]
        total = placements + sum(r.bit_count() for _, r in reaches)
        if not total:
            return Action(PASS)
        k = rng.randrange(total)
        if k < placements:
            square, rest = divmod(k, 2 * reserve)
            gender, life = divmod(rest, reserve)
            return placement((MALE, FEMALE)[gender], life + 1, list(bits(free))[square])
        k -= placements
        for s, reach in reaches:
            if k < reach.bit_count():
                return Action.move(s, list(bits(reach))[k])
            k -= reach.bit_count()
        raise AssertionError("unreachable")

    def _apply(self, action: Action) -> None:
        me = self.to_move
        if action.kind == END:
            self.last = ()
            self.end_turn()
            return
        lives = list(self.lives)
        target = action.target
        if action.kind == MOVE:
            s = action.source
            self.set_stones(me, self.stones[me] & ~(1 << s) | 1 << target)
            if self.males >> s & 1:
                self.males = self.males & ~(1 << s) | 1 << target
            lives[target], lives[s] = lives[s], 0
            self.lives = tuple(lives)
            self.last = (s, target)
            self.end_turn()
            return
        self.set_stones(me, self.stones[me] | 1 << target)
        gender = action.colour[1] if is_birth(action) else action.colour[0]
        if gender == MALE:
            self.males |= 1 << target
        self.last = (target,)
        if is_birth(action):
            self.newborn |= 1 << target
            self.mothers |= 1 << action.source
            if self.settings["random_life"]:
                self.awaiting = target  # the die gives its life next
            else:
                lives[target] = self.settings["male_life" if gender == MALE else "female_life"]
            self.lives = tuple(lives)
            return  # the player may give more births, then ends them
        life = int(action.colour[1:])
        lives[target] = life
        self.lives = tuple(lives)
        self.add_to("in_hand", me, -life)
        self.end_turn()

    def _node(self, raw: str, text: str) -> Node:
        if _SQUARE.fullmatch(text):
            f, r = ord(text[0]) - ord("a"), int(text[1:]) - 1
            node = self.lattice.at.get((f, r))
            if node is None:
                raise IllegalAction(
                    f"{raw!r}: there is no square {text} on the {self.lattice.size}x{self.lattice.size} board"
                )
            return node
        if re.fullmatch(r"[a-z]\d+", text):  # a square's name, off this board
            size = self.lattice.size
            raise IllegalAction(
                f"{raw!r}: there is no square {text}: on the {size}x{size} board squares run "
                f"from a1 to {chr(ord('a') + size - 1)}{size}"
            )
        try:
            return nd.parse(text, self.space.depth)
        except nd.NodeError as err:
            raise IllegalAction(f"{raw!r}: {err}") from None

    def parse(self, text: str) -> Action:
        raw = text.strip()
        found = _PLACEMENT.fullmatch(raw)
        if found:
            gender, life, where = found.groups()
            return placement(gender, int(life), self._node(raw, where))
        found = _BIRTH.fullmatch(raw)
        if found:
            gender, where, mother = found.groups()
            square = self._node(raw, where)
            if mother is not None:
                return birth(gender, square, self._node(raw, mother))
            if self.over or self.is_chance or self.phase != "birth":
                raise IllegalAction(self.why_illegal(birth(gender, square, square)))
            mothers = sorted({m for x, m in self._births(self.to_move) if x == square})
            if len(mothers) == 1:
                return birth(gender, square, mothers[0])
            if mothers:
                ways = " or ".join(f"+{gender}{nd.name(square)}/{nd.name(m)}" for m in mothers)
                raise IllegalAction(f"two or more females could be the mother: write {ways}")
            raise IllegalAction(
                self._birth_reason(square, None) or f"no birth is possible on {nd.name(square)}"
            )
        if re.fullmatch(r"roll:\d+", raw):
            return Action(ROLL, colour=str(int(raw[5:])))
        if "-" in raw and all(_SQUARE.fullmatch(p) for p in raw.split("-", 1)):
            a, b = raw.split("-", 1)
            return Action.move(self._node(raw, a), self._node(raw, b))
        return super().parse(text)

    def say(self, action: Action) -> str:
        """A piece's sex and life in words: ``male, 10 turns, on GGG``, ``female born on GGR, mother on
        GGG``, ``a life of 7 turns``."""
        if action.kind == ROLL and action.colour.isdigit():
            return f"a life of {action.colour} turns"
        if is_birth(action):
            return (
                f"{GENDER_NAMES[action.colour[1]]} born on {nd.name(action.targets[0])}, "
                f"mother on {nd.name(action.sources[0])}"
            )
        if isinstance(action, ReaperAction):
            life = int(action.colour[1:])
            return (
                f"{GENDER_NAMES[action.colour[0]]}, {life} turn{'' if life == 1 else 's'}, "
                f"on {nd.name(action.targets[0])}"
            )
        return super().say(action)

    def why_illegal(self, action: Action) -> str:
        if action.kind == ROLL and not self.over and not self.is_chance:
            return "there is nothing to roll: the die only gives a newborn its random life"
        if self.is_chance and not self.over and action.kind != ROLL:
            return f"roll the die first: it gives the newborn on {nd.name(self.awaiting)} its life turns"
        if self.is_chance and action.kind == ROLL:
            top = len(self.roll_faces()) + 1
            return f"a newborn's random life is from 2 to {top}, not {action.colour}"
        return super().why_illegal(action)

    def _off_board(self, action: Action) -> str | None:
        lat = self.lattice
        for n in action.targets + action.sources:
            if not lat.all >> n & 1:
                if nd.LEVEL[n] != LEVEL:
                    return (
                        f"{nd.name(n)} is not a square: Grim Reaper is played on the level-3 nodes "
                        f"(three letters, e.g. GGB)"
                    )
                return f"{nd.name(n)} is outside the central 6x6 the 6x6 board uses"
        return None

    def _reason(self, action: Action) -> str | None:
        me = self.to_move
        if action.kind == REMOVE:
            return "pieces are never taken off by a player: they die of old age"
        off = self._off_board(action)
        if off:
            return off
        if action.kind == PASS:
            if self.phase == "birth":
                return "you can give birth: give births, or write end when you want no more"
            return "you can place or move a piece, so you may not pass"
        if action.kind == END:
            if self.phase == "move":
                if not self._actions():
                    return "nothing can be placed or moved: write pass"
                return "placing or moving a piece is compulsory when you can"
            return "no birth is possible: write pass"
        if self.phase == "birth":
            if is_birth(action):
                return self._birth_reason(action.target, action.source)
            return (
                f"it is {SIDE_NAMES[me]}'s birth phase: give birth (e.g. +F{nd.name(action.targets[0])}) "
                "or end it; pieces are placed and moved before it"
            )
        if is_birth(action):
            return "births come after both players have placed or moved a piece"
        if action.kind == PLACE:
            t = action.target
            if self.occupied >> t & 1:
                return f"{nd.name(t)} is occupied"
            if not isinstance(action, ReaperAction):
                return f"name the new piece's sex and life turns: M3{nd.name(t)} or F3{nd.name(t)}"
            life, reserve = int(action.colour[1:]), self.in_hand[me]
            if reserve <= 0:
                return "your life reserve is used up: move a piece instead"
            if life < 1:
                return "a piece needs at least one life turn"
            return f"you have only {reserve} life turns in reserve, not {life}"
        if action.kind == MOVE:
            if len(action.sources) != 1:
                return "one piece moves at a time"
            s, t = action.source, action.target
            if self.owner(s) != me:
                return None  # the base class names the missing or foreign piece
            if self.occupied >> t & 1:
                return f"{nd.name(t)} is occupied"
            king = self.lattice.king
            if king[s] >> t & 1:
                return None
            if any(king[m] >> t & 1 for m in bits(king[s])):
                return f"{nd.name(s)} to {nd.name(t)} needs a free square on the way"
            return "a piece moves one or two squares, orthogonally or diagonally"
        return None

    def _birth_reason(self, square: Node, mother: Node | None) -> str | None:
        me = self.to_move
        name = nd.name(square)
        if self.phase != "birth":
            return "births come after both players have placed or moved a piece"
        if self.occupied >> square & 1:
            return f"{name} is occupied"
        if self._competed() >> square & 1:
            return f"both sides have parents across {name}: nobody may give birth there"
        if mother is None:
            return f"no couple of yours has {name} free between them"
        mname = nd.name(mother)
        if not self.stones[me] >> mother & 1:
            return f"the mother on {mname} must be one of your pieces"
        if self.males >> mother & 1:
            return f"the piece on {mname} is male: name the mother"
        if self.newborn >> mother & 1:
            return f"the female on {mname} was just born: she is fertile from the next birth phase"
        if self.mothers >> mother & 1:
            return f"the female on {mname} has already given birth this turn"
        for a, b in self.lattice.lines[square]:
            if mother in (a, b):
                father = b if mother == a else a
                if not (self.stones[me] & self.males & ~self.newborn) >> father & 1:
                    return (
                        f"a male of yours on {nd.name(father)}, opposite the mother across {name}, is needed"
                    )
                return None
        return f"{name} is not the square between the mother on {mname} and a male two squares from her"

    def stone_kind(self, node: Node) -> str:
        return GENDER_NAMES[MALE if self.males >> node & 1 else FEMALE]

    def upcoming(self, count: int = 5) -> list[str]:
        """The next parts of the round, as the aide-memoire beside the source's board shows them."""
        if self.over:
            return []
        out, turn, step = [], self.turn, self.step
        while len(out) < count:
            first = turn % 2
            who = first if step in (0, 3) else 1 - first
            out.append(f"{SIDE_NAMES[who]} {'places or moves' if step < 2 else 'gives birth'}")
            step += 1
            if step == 4:
                out.append("all pieces age")
                turn, step = turn + 1, 0
        return out[:count]

    def aims(self) -> list[str]:
        return ["join top and bottom", "join left and right"]  # red, blue; either wins by outliving

    def state_dict(self) -> dict:
        out = super().state_dict()
        lat = self.lattice
        for n in bits(self.occupied):
            info = out["stones"][nd.name(n)]
            info["life"] = self.lives[n] if n != self.awaiting else None
            info["square"] = lat.name(n)
        out.update(
            {
                "reserve": list(self.in_hand),
                "newborn": [nd.name(n) for n in bits(self.newborn)],
                "rip": [nd.name(n) for n in bits(self.rip)],
                "size": lat.size,
                "upcoming": self.upcoming(),
            }
        )
        return out

    def evaluate(self) -> list[float]:
        """Life on the board and in reserve, both sexes present, and how few squares each side lacks for
        its connection, as a logistic of the difference."""
        if self.over:
            return self.outcome()
        lat = self.lattice
        free = lat.all & ~self.occupied
        strength = []
        for p in (RED, BLUE):
            mine = self.stones[p]
            life = sum(self.lives[n] for n in bits(mine))
            pairs = 4 if mine & self.males and mine & ~self.males else 0
            start, goal = (lat.top, lat.bottom) if p == RED else (lat.left, lat.right)
            gap = connection_gap(lat, mine, free, start, goal)
            strength.append(life / 4 + self.in_hand[p] / 4 + pairs + 2 * (lat.size - gap))
        x = max(-30.0, min(30.0, (strength[0] - strength[1]) / 6))
        red = 1 / (1 + math.exp(-x))
        return [red, 1 - red]
