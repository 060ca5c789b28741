"""Battlefield (000 "Battlefield", with "Using Lines", "Using Shapes" and "Get a GRYB"): patriots enlist
in squads and platoons, and the larger military group captures the smaller.

A stone's unit follows from its level, so the state is the base bitboards plus the Monkeybusiness marks.
Groups are read off the board: a quadrangle's nibble says which of its stones are linked, and a group's
moves are a table per (quadrangle, nibble), built once per board. Rules decisions: docs/rules/battlefield.md.
"""

from __future__ import annotations

import math
from functools import cache

from companion.games.engine import NODE_DIE, Game, Option, OptionError, register
from companion.rules import node as nd
from companion.rules.action import END, MOVE, PASS, PLACE, REMOVE, Action, nth_move
from companion.rules.node import Bitboard, Node
from companion.rules.space import GameSpace, MoveKind, bits

DEPTH = Option(
    "depth",
    4,
    "board depth: 4 standard, 5 Giant GRYB, 6 Super Giant GRYB (the patriots are "
    "scattered on the bottom level)",
    minimum=4,
    maximum=6,
)
PATRIOTS = Option(
    "patriots",
    32,
    "patriots each player scatters on the bottom level (000: 32 each)",
    minimum=4,
    maximum=1000,
)
MONKEY = Option(
    "monkeybusiness",
    False,
    "the optional ancillary rule: military that comes onto an area "
    "encompassing the node GRYB acquires Private Monkeybusiness and can be captured by a group "
    "of its own size",
)
SUDDEN_DEATH = Option(
    "sudden_death",
    False,
    "capturing the opponent's last military wins at once, however many patriots they have left to enlist",
)
STALL = Option(
    "stall",
    40,
    "the game is a draw after this many turns each of battle without a squad or platoon formed or a capture",
    minimum=1,
    maximum=1000,
)
TURN_LIMIT = Option(
    "turn_limit",
    300,
    "the game is a draw after this many turns each of battle (the scattering not counted)",
    minimum=10,
    maximum=100000,
)

PLACING, BATTLE = "place", "battle"
PATRIOT, SERGEANT, LIEUTENANT = "patriot", "sergeant", "lieutenant"
PLATOON = 4  # squads in a platoon: a lieutenant weighs four sergeants
GRYB_NODE = "GRYB"  # Private Monkeybusiness: the node whose name is the game's name
_END = Action(END)
_face = cache(Action.roll_node)


def _rotate(nibble: int, step: int) -> int:
    """The stones of a quadrangle (bit c = colour c of G R Y B) each one sideways step round it."""
    return ((nibble << step) | (nibble >> (4 - step))) & 15


def _squads(k: int) -> str:
    return f"{k} squad" if k == 1 else f"{k} squads"


class Shift:
    """One way a group can move: the action, the nodes it then occupies, its lieutenant's node or -1."""

    __slots__ = ("action", "new", "lieutenant")

    def __init__(self, sources: tuple[Node, ...], targets: tuple[Node, ...], lieutenant: Node):
        self.action = Action.block(sources, targets)
        new = 0
        for t in targets:
            new |= 1 << t
        self.new = new
        self.lieutenant = lieutenant


class Tables:
    """Per board: the levels, each node's lateral reach, and every group's moves."""

    def __init__(self, board: GameSpace):
        d = self.depth = board.depth
        self.bottom: Bitboard = board.level_masks[d]
        self.sergeants: Bitboard = board.level_masks[d - 1]
        self.lieutenants: Bitboard = board.level_masks[d - 2]
        self.military = self.sergeants | self.lieutenants
        # The first (green) node of each quadrangle of these levels: where p & p>>1 & p>>2 & p>>3 is a GRYB.
        self.quads_bottom = board.focus_masks["G"] & self.bottom
        self.quads_sergeants = board.focus_masks["G"] & self.sergeants
        self.first_bottom = nd.first_of_level(d)
        self.side = tuple(board.target_mask(MoveKind.SIDEWAYS, n) for n in range(board.size))
        self.lateral = tuple(s | board.target_mask(MoveKind.HYPERSPACE, n) for n, s in enumerate(self.side))
        self.lateral_to = tuple(tuple(bits(m)) for m in self.lateral)
        # Military on an area encompassing the node GRYB: on it or on one of its ancestors.
        gryb = nd.from_loci(GRYB_NODE)
        zone = 0
        while gryb:
            zone |= 1 << gryb
            gryb = nd.parent(gryb)
        self.zone = zone & self.military
        # Per-instance caches, kept with the board's tables.
        self.pairs = cache(self._pairs)
        self.shifts = cache(self._shifts)

    def _pairs(self, n: Node) -> tuple[tuple[Node, Action], ...]:
        """Each node a lone stone on ``n`` reaches, with its shared Action."""
        return tuple((t, Action.move(n, t)) for t in self.lateral_to[n])

    def _shifts(self, base: Node, nibble: int, platoon: bool) -> tuple[Shift, ...]:
        """Every move of the group ``nibble`` under ``base`` on an empty board: a turn either way round its
        quadrangle, or ``base`` moving (a platoon's lieutenant, or the stones' common hyperspace step)."""
        colours = [c for c in range(4) if nibble >> c & 1]
        q = 4 * base + 1
        out = []
        if platoon:
            sources = (base,) + tuple(q + c for c in colours)
            for b in self.lateral_to[base]:
                out.append(Shift(sources, (b,) + tuple(4 * b + 1 + c for c in colours), b))
        else:
            sources = tuple(q + c for c in colours)
            for step in (1, 3):
                if _rotate(nibble, step) != nibble:  # a full quadrangle turning in place does not move
                    out.append(Shift(sources, tuple(q + (c + step) % 4 for c in colours), -1))
            for b in self.lateral_to[base]:
                out.append(Shift(sources, tuple(4 * b + 1 + c for c in colours), -1))
        return tuple(out)


@cache
def tables(board: GameSpace) -> Tables:
    return Tables(board)


# A military group: (its units, its lieutenant or -1, the node its quadrangle hangs from, the nibble of
# its sergeants there, its size in squads).
Group = tuple[Bitboard, Node, Node, int, int]


@register
class Battlefield(Game):
    id = "battlefield"
    name = "Battlefield"
    source = "000 Battlefield; Using Lines; Using Shapes; Get a GRYB"
    summary = (
        "The node die scatters 32 patriots each on the bottom level. Four patriots on a quadrangle "
        "enlist as a squad (a sergeant on the node above), four squads as a platoon (a lieutenant). "
        "Move sideways or via hyperspace; a larger military group captures a smaller one it lands on. "
        "Capture the enemy's whole army when they have too few patriots to raise another, or raise two "
        "lieutenants."
    )
    die = NODE_DIE
    options = (DEPTH, PATRIOTS, MONKEY, SUDDEN_DEATH, STALL, TURN_LIMIT)
    moves_per_turn = 2  # a turn may be two patriot moves; everything else ends it at once
    score = None  # played win or lose (docs/rules/battlefield.md, "Points")
    # monkey: military with Private Monkeybusiness; start: the battle's first turn (the turn limit counts
    # from it); since: the first turn after the last squad or platoon formed or capture (the stall).
    extra_fields = ("monkey", "start", "since")

    def setup(self) -> None:
        self.t = tables(self.space)
        self.monkeybusiness = self.settings["monkeybusiness"]
        patriots, room = self.settings["patriots"], self.t.bottom.bit_count()
        if 2 * patriots >= room:
            raise OptionError(
                f"2 x {patriots} patriots leave no room to move on the {room} nodes of the bottom "
                f"level: choose fewer patriots or a deeper board"
            )
        self.phase = PLACING
        self.in_hand = (patriots, patriots)
        self.monkey = 0
        self.start = self.since = 0

    def stone_kind(self, node: Node) -> str:
        level = nd.LEVEL[node] - self.t.depth
        return PATRIOT if level == 0 else SERGEANT if level == -1 else LIEUTENANT if level == -2 else "stone"

    def strength(self, player: int) -> int:
        """The player's military in squads: a sergeant is one, a lieutenant four."""
        st = self.stones[player]
        return PLATOON * (st & self.t.lieutenants).bit_count() + (st & self.t.sergeants).bit_count()

    def _squads(self, units: Bitboard) -> int:
        return PLATOON * (units & self.t.lieutenants).bit_count() + (units & self.t.sergeants).bit_count()

    def army(self, player: int) -> list[Group]:
        """The player's military groups: each lieutenant with the sergeants of its space, then the rest."""
        t = self.t
        st = self.stones[player]
        sergeants = st & t.sergeants
        out: list[Group] = []
        for lt in bits(st & t.lieutenants):
            q = 4 * lt + 1
            joined = (sergeants >> q) & 15
            sergeants &= ~(joined << q)
            out.append((1 << lt | joined << q, lt, lt, joined, PLATOON + joined.bit_count()))
        side, seen = t.side, 0
        for n in bits(sergeants):
            base = (n - 1) >> 2
            q = 4 * base + 1
            if not side[n] & sergeants:
                out.append((1 << n, -1, base, 1 << (n - q), 1))
            elif not seen >> base & 1:
                seen |= 1 << base
                nibble = (sergeants >> q) & 15  # two or more linked on a four-cycle: all one group
                out.append((nibble << q, -1, base, nibble, nibble.bit_count()))
        return out

    def _patriots(self, player: int) -> tuple[list[Node], list[tuple[Node, int]]]:
        """Single patriots, and patriot groups as (the node above their quadrangle, nibble)."""
        t = self.t
        p = self.stones[player] & t.bottom
        side = t.side
        singles, groups, seen = [], [], 0
        for n in bits(p):
            if not side[n] & p:
                singles.append(n)
                continue
            base = (n - 1) >> 2
            if not seen >> base & 1:
                seen |= 1 << base
                groups.append((base, (p >> (4 * base + 1)) & 15))
        return singles, groups

    def needs_roll(self) -> bool:
        # Only the scattering rolls; "roll again" while occupied is a roll among the free nodes.
        return self.phase == PLACING and self.roll is None

    def roll_node_mask(self) -> Bitboard:
        return self.t.bottom & ~self.occupied

    def roll_faces(self) -> list[Action]:
        return [_face(n) for n in bits(self.roll_node_mask())]

    def _landing(
        self, player: int, group: Group, shift: Shift, enemy: list[Group]
    ) -> tuple[Bitboard, Group | None]:
        """What a military move of ``group`` by ``shift`` captures, and the enemy group that stops it
        (None when it is legal). Landing: docs/rules/battlefield.md, "Landing and capture"."""
        t = self.t
        theirs = self.stones[1 - player] & t.military
        if not theirs:
            return 0, None
        new, lt = shift.new, shift.lieutenant
        hit = (new | (15 << 4 * lt + 1 if lt >= 0 else 0)) & theirs
        for n in bits(new & t.sergeants):
            above = (n - 1) >> 2
            if theirs >> above & 1:
                hit |= 1 << above  # into the space of an enemy platoon
        if not hit:
            return 0, None
        size, taken = group[4], 0
        for other in enemy:
            if other[0] & hit:
                if other[4] < size or (self.monkeybusiness and other[4] == size and other[0] & self.monkey):
                    taken |= other[0]
                else:
                    return 0, other
        return taken, None

    def _military_moves(self, player: int) -> list[Action]:
        mine = self.army(player)
        if not mine:
            return []
        enemy = self.army(1 - player)
        own = self.stones[player]
        shifts = self.t.shifts
        out = []
        for group in mine:
            units = group[0]
            for shift in shifts(group[2], group[3], group[1] >= 0):
                if shift.new & own & ~units:
                    continue
                if self._landing(player, group, shift, enemy)[1] is None:
                    out.append(shift.action)
        return out

    def _moves(self) -> tuple[list[tuple[Node, Bitboard]], list[Action]]:
        """Each single patriot with the nodes it may move to, and every other action (after a first
        patriot move, only ending the turn)."""
        t = self.t
        me = self.to_move
        occupied = self.stones[0] | self.stones[1]
        free = t.bottom & ~occupied
        lateral = t.lateral
        singles, groups = self._patriots(me)
        reach = [(s, m) for s in singles if (m := lateral[s] & free)]
        if self.moves_left < self.moves_per_turn:
            return reach, [_END]
        blocks = []
        for base, nibble in groups:
            own = nibble << (4 * base + 1)
            for shift in t.shifts(base, nibble, False):
                if not shift.new & occupied & ~own:
                    blocks.append(shift.action)
        blocks.extend(self._military_moves(me))
        return reach, blocks

    def _actions(self) -> list[Action]:
        if self.phase == PLACING:
            return [Action.place(self.roll)]
        reach, blocks = self._moves()
        pairs = self.t.pairs
        out = [a for s, m in reach for n, a in pairs(s) if m >> n & 1]
        out.extend(blocks)
        return out

    def random_action(self, rng) -> Action:
        t = self.t
        if self.is_chance:  # playouts roll as the players do, again while the node is occupied
            occupied, first, count = self.occupied, t.first_bottom, 4**t.depth
            while True:
                n = first + rng.randrange(count)
                if not occupied >> n & 1:
                    return _face(n)
        if self.over or self.phase == PLACING:
            return super().random_action(rng)
        # Uniform over the legal actions without building every single patriot's Action.
        reach, blocks = self._moves()
        total = sum(m.bit_count() for _, m in reach) + len(blocks)
        if not total:
            return Action(PASS)
        return nth_move(rng.randrange(total), reach, blocks)

    def _apply(self, action: Action) -> None:
        me, t = self.to_move, self.t
        before = self.stones
        took = 0
        if action.kind == END:
            self.last = ()
            self.end_turn()
            return
        if action.kind == PLACE:
            self.set_stones(me, self.stones[me] | 1 << action.target)
            self.add_to("in_hand", me, -1)
        elif nd.LEVEL[action.sources[0]] == t.depth:  # patriots: a single one or a group, to free nodes
            mine = self.stones[me]
            for s in action.sources:
                mine &= ~(1 << s)
            for n in action.targets:
                mine |= 1 << n
            self.set_stones(me, mine)
        else:
            took = self._move_military(me, action)
        took += self._enlist(me)
        if took:
            self.add_to("captured", me, took)
            self.since = self.turn + 1  # a capture by military restarts the stall count, as enlisting does
        if self.monkeybusiness:
            self._mark_monkeybusiness()
        moved = set(action.sources + action.targets)
        changed = 0
        for a, b in zip(before, self.stones):
            changed |= a ^ b
        self.last = action.sources + action.targets + tuple(n for n in bits(changed) if n not in moved)
        self._judge(me, took)
        if self.over:
            return
        if action.kind == PLACE:
            if not any(self.in_hand):
                self.phase = BATTLE
                self.start = self.since = self.turn + 1
                self._judge(me, 0)  # the scattering may have left a player beaten
                if self.over:
                    return
            self.end_turn()
        elif len(action.sources) == 1 and nd.LEVEL[action.source] == t.depth and self.moves_left == 2:
            self.moves_left = 1  # one more single patriot's move may follow
        else:
            self.end_turn()

    def _move_military(self, me: int, action: Action) -> int:
        """Move a military unit or group; return the squads it captured."""
        t = self.t
        group = next(g for g in self.army(me) if g[0] >> action.sources[0] & 1)
        lt = action.targets[0] if group[1] >= 0 else -1
        shift = next(s for s in t.shifts(group[2], group[3], lt >= 0) if s.action == action)
        taken, _ = self._landing(me, group, shift, self.army(1 - me))
        self.set_stones(me, self.stones[me] & ~group[0] | shift.new)
        monkey = self.monkey
        if monkey & group[0]:
            carried = 0
            for s, n in zip(action.sources, action.targets):
                if monkey >> s & 1:
                    carried |= 1 << n
            monkey = monkey & ~group[0] | carried
        if taken:
            self.set_stones(1 - me, self.stones[1 - me] & ~taken)
            monkey &= ~taken
        self.monkey = monkey
        return self._squads(taken)

    def _enlist(self, me: int) -> int:
        """Enlist the player's GRYBs whose node above holds none of their stones, with the counter-squad's
        captures; return the squads captured."""
        t = self.t
        mine, theirs = self.stones[me], self.stones[1 - me]
        monkey, took, formed = self.monkey, 0, False
        p = mine & t.bottom
        for g in bits(p & p >> 1 & p >> 2 & p >> 3 & t.quads_bottom):
            above = (g - 1) >> 2
            if mine >> above & 1:
                continue  # your own sergeant stands there: no room for another
            mine = mine & ~(15 << g) | 1 << above
            formed = True
            if theirs >> above & 1:  # right under an enemy sergeant: that squad is captured
                theirs &= ~(1 << above)
                monkey &= ~(1 << above)
                took += 1
            lt = (above - 1) >> 2
            if theirs >> lt & 1:  # in an enemy platoon's space: its squad here is captured
                theirs &= ~(1 << lt)
                took += 1
                q = 4 * lt + 1
                for n in range(q, q + 4):
                    if n != above and not theirs >> n & 1:
                        theirs |= 1 << n  # the lieutenant is demoted: sergeants on the other squads
                        if monkey >> lt & 1:
                            monkey |= 1 << n
                monkey &= ~(1 << lt)
        s = mine & t.sergeants
        for g in bits(s & s >> 1 & s >> 2 & s >> 3 & t.quads_sergeants):
            above = (g - 1) >> 2
            if (mine | theirs) >> above & 1:
                continue
            mine = mine & ~(15 << g) | 1 << above
            formed = True
            if monkey & 15 << g:
                monkey = monkey & ~(15 << g) | 1 << above
        if formed or took:
            self.set_stones(me, mine)
            self.set_stones(1 - me, theirs)
            self.monkey = monkey
            self.since = self.turn + 1  # the quiet turns are those after this one
        return took

    def _mark_monkeybusiness(self) -> None:
        """Military on an area encompassing the node GRYB: its whole group acquires Private Monkeybusiness."""
        zone = self.t.zone
        for player in (0, 1):
            if self.stones[player] & zone:
                for group in self.army(player):
                    if group[0] & zone:
                        self.monkey |= group[0]

    def _judge(self, me: int, took: int) -> None:
        lieutenants = self.t.lieutenants
        for player in (me, 1 - me):
            if (self.stones[player] & lieutenants).bit_count() >= 2:
                return self.finish((player,))  # two lieutenants win automatically
        if self.phase != BATTLE:
            return  # the die's scattering beats nobody
        if self.settings["sudden_death"]:
            if took and not self.stones[1 - me] & self.t.military:
                self.finish((me,))  # the enemy's whole army is captured
            return
        for player in (1 - me, me):  # no military, and too few patriots to enlist (docs/rules/battlefield.md)
            if (
                not self.stones[player] & self.t.military
                and (self.stones[player] & self.t.bottom).bit_count() < 4
            ):
                return self.finish((1 - player,))

    def end_turn(self) -> None:
        """The next player's turn; a draw at the turn limit or a stall (both count battle turns)."""
        self.to_move = 1 - self.to_move
        self.roll = None
        self.moves_left = self.moves_per_turn
        self.turn += 1
        if self.phase == BATTLE:
            if self.turn - self.start >= self.settings["turn_limit"] * self.players:
                self.finish((), draw="the turn limit")
            elif self.turn - self.since >= self.settings["stall"] * self.players:
                self.finish(
                    (),
                    draw=f"{self.settings['stall']} turns each of battle without a squad or platoon "
                    "formed or a capture",
                )

    def _reason(self, action: Action) -> str | None:
        name = nd.name
        if self.phase == PLACING:
            if action.kind == PLACE:
                return f"the die chose {name(self.roll)}: place your patriot there"
            return f"the patriots are scattered first: place yours on {name(self.roll)}"
        if action.kind == PLACE:
            return "every patriot is on the board: move a patriot, a patriot group or your military"
        if action.kind == REMOVE:
            return "stones leave the board only when squads form and groups are captured"
        if action.kind == END:
            if self.moves_left == self.moves_per_turn:
                return "you may end your turn early only after a first patriot move"
            return None
        if action.kind != MOVE or any(self.owner(s) != self.to_move for s in action.sources):
            return None  # the base class names the missing or foreign stone
        return self._move_reason(action)

    def _group_of(self, node: Node) -> tuple[Bitboard, Node, int, bool, int]:
        """The mover's group holding ``node``: (nodes, base, nibble, is a platoon, size in squads)."""
        t = self.t
        me = self.to_move
        if nd.LEVEL[node] == t.depth:
            p = self.stones[me] & t.bottom
            base = (node - 1) >> 2
            q = 4 * base + 1
            nibble = (p >> q) & 15 if t.side[node] & p else 1 << (node - q)
            return nibble << q, base, nibble, False, nibble.bit_count()
        group = next(g for g in self.army(me) if g[0] >> node & 1)
        return group[0], group[2], group[3], group[1] >= 0, group[4]

    def _move_reason(self, action: Action) -> str:
        t, name = self.t, nd.name
        me = self.to_move
        sources, targets = action.sources, action.targets
        kind = self.stone_kind(sources[0])
        if self.moves_left < self.moves_per_turn and (len(sources) > 1 or kind != PATRIOT):
            return "after a patriot's move the second move is a single patriot's: move one, or end your turn"
        units, base, nibble, platoon, size = self._group_of(sources[0])
        chosen = 0
        for s in sources:
            chosen |= 1 << s
        if chosen != units:
            members = ",".join(self.space.names(units))
            if chosen & ~units:
                return (
                    "that is not one group: a group is 2 or 3 patriots or sergeants linked by one sideways "
                    "move on a quadrangle, or a lieutenant with the sergeants in its platoon's space"
                )
            if len(sources) > 1:
                return f"the group is {members}: it moves together"
            if self.moves_left < self.moves_per_turn:
                return (
                    f"the patriot on {name(sources[0])} is in the group {members}: the second move is a "
                    f"single patriot's"
                )
            return f"the {kind} on {name(sources[0])} is in the group {members}: the group moves together"
        wanted = dict(zip(sources, targets))
        shift = next(
            (
                s
                for s in t.shifts(base, nibble, platoon)
                if dict(zip(s.action.sources, s.action.targets)) == wanted
            ),
            None,
        )
        if shift is None:
            if len(sources) == 1:
                s, n = sources[0], targets[0]
                stays = "" if nd.LEVEL[n] == nd.LEVEL[s] else f" (a {kind} stays on its level)"
                return (
                    f"{name(s)} to {name(n)} is not one move: "
                    f"a {kind} moves sideways or via hyperspace{stays}"
                )
            if platoon:
                return (
                    "a platoon moves with its lieutenant: the lieutenant takes one step sideways or via "
                    "hyperspace and the sergeants in its space keep their places under it"
                )
            return (
                "a group moves as a block: each stone one sideways step the same way round its quadrangle, "
                "or all the same hyperspace step"
            )
        own = shift.new & self.stones[me] & ~units
        if own:
            n = (own & -own).bit_length() - 1
            return f"{name(n)} is occupied by your own {self.stone_kind(n)}"
        if kind == PATRIOT:
            busy = shift.new & self.occupied & ~units
            if busy:
                return (
                    f"{name((busy & -busy).bit_length() - 1)} is occupied: patriots move only to free nodes"
                )
            return "that move is not legal now"
        group = next(g for g in self.army(me) if g[0] == units)
        enemy = self.army(1 - me)
        _, blocker = self._landing(me, group, shift, enemy)
        if blocker is None:
            return "that move is not legal now"
        at = name((blocker[0] & -blocker[0]).bit_length() - 1)
        if blocker[4] == size:
            return (
                f"the enemy group at {at} is as strong as yours ({_squads(size)}): groups the same size are "
                f"safe from one another"
            )
        return (
            f"the enemy group at {at} is {_squads(blocker[4])} strong, yours {size}: only a larger group "
            f"captures a smaller one"
        )

    def evaluate(self) -> list[float]:
        """A softmax of military strength, the biggest group and patriots gathering on free quadrangles."""
        if self.over:
            return self.outcome()
        t = self.t
        values = []
        for player in (0, 1):
            st = self.stones[player]
            theirs = self.stones[1 - player] & t.bottom
            counts: dict[int, int] = {}
            for n in bits(st & t.bottom):
                base = (n - 1) >> 2
                counts[base] = counts.get(base, 0) + 1
            gathering = sum(
                (k - 1) ** 2 for b, k in counts.items() if k > 1 and not theirs >> (4 * b + 1) & 15
            )
            biggest = max((g[4] for g in self.army(player)), default=0)
            values.append(
                self.strength(player) + 0.3 * biggest + 0.08 * gathering + self.in_hand[player] / 16
            )
        top = max(values)
        weights = [math.exp(0.8 * (v - top)) for v in values]
        total = sum(weights)
        return [w / total for w in weights]
