""":class:`ComposedGame` plays any composition (docs/composer.md, "How a composed game is played") from
tables built once per board (:class:`Tables`)."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from functools import cache, lru_cache
from typing import Any

from companion.games.composed import ez_playout as fast
from companion.games.composed.schema import MOVE_KEYS, PARAMS, CompositionError, Rules
from companion.games.engine import (
    COLOUR_DIE,
    COLOUR_NAMES,
    NO_DIE,
    NODE_DIE,
    DieByPhase,
    Game,
    IllegalAction,
    Option,
    OptionError,
)
from companion.rules import node as nd
from companion.rules.action import MOVE, PASS, PLACE, REMOVE, ROLL, Action, nth_move
from companion.rules.node import COLOURS, HEAD, Bitboard, Node
from companion.rules.space import GameSpace, MoveKind, bits, mask_of, space

PLAYING, PLACING, MOVING = "play", "place", "move"
KIND_WORDS = {
    "down": "down",
    "up": "up",
    "sideways": "sideways",
    "hyperspace": "via hyperspace",
    "limited-hyperspace": "via limited hyperspace",
    "interjection": "by interjection",
    "limited-interjection": "by limited interjection",
    "excision": "by excision",
    "limited-excision": "by limited excision",
    "reincarnation": "by reincarnation",
    "hop": "by a hop",
}


_COLOUR_FACES = tuple(Action.roll_colour(c) for c in COLOURS)
_face = cache(Action.roll_node)  # one instance a node die face


class Hop(Action):
    """A hop over one stone: a MOVE whose ``colour`` field names the node hopped (``GG-GGGG/GGG``)."""

    __slots__ = ()

    def __str__(self) -> str:
        names = nd.NODE_NAMES
        return f"{names[self.sources[0]]}-{names[self.targets[0]]}/{self.colour}"


def _phrase(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


class Tables:
    """What one composition's board allows, whatever the position."""

    def __init__(self, rules: Rules):
        board = space(rules.depth, rules.headless, rules.periodic)
        self.board = board
        size = board.size
        kinds = rules.kinds
        lethal = set(rules.lethal) or set(kinds) | {"reincarnation"}
        capture_only = set(rules.capture_only)
        lateral_ok = mask_of(
            n for n in board.nodes if not rules.lateral_levels or nd.LEVEL[n] in rules.lateral_levels
        )
        self.kinds = kinds
        self.any = [0] * size  # every node one move reaches on an empty board
        self.free = [0] * size  # nodes a move may land on when they are free
        self.lethal = [0] * size  # nodes a move may land on when an opponent holds them
        for n in board.nodes:
            for kind in kinds:
                if kind == MoveKind.SIDEWAYS and not lateral_ok >> n & 1:
                    continue
                m = board.target_mask(kind, n)
                self.any[n] |= m
                if kind not in capture_only:
                    self.free[n] |= m
                if rules.landing != "stymie" and kind in lethal:
                    self.lethal[n] |= m
            if rules.reincarnation and nd.LEVEL[n] == board.depth:
                self.any[n] |= 1
                if "reincarnation" not in capture_only:
                    self.free[n] |= 1
                if rules.landing != "stymie" and "reincarnation" in lethal:
                    self.lethal[n] |= 1
        # Hops: (node hopped, nodes beyond it) by the same kind of move twice.
        self.hops: list[tuple[tuple[Node, Bitboard], ...]] = [()] * size
        if rules.hopping != "none":
            for n in board.nodes:
                over: dict[Node, Bitboard] = {}
                for kind in kinds:
                    if kind == MoveKind.SIDEWAYS and not lateral_ok >> n & 1:
                        continue
                    for m in board.targets(kind, n):
                        beyond = board.target_mask(kind, m) & ~(1 << n)
                        if beyond:
                            over[m] = over.get(m, 0) | beyond
                self.hops[n] = tuple(sorted(over.items()))
                for beyond in over.values():
                    self.any[n] |= beyond
        top = 1 << HEAD if not rules.headless else board.top
        self.entry = {
            "head": 1 << HEAD,
            "top": board.top,
            "bottom": board.bottom,
            "anywhere": board.all,
            "none": 0,
        }[rules.enter]
        self.entry_nodes = tuple(bits(self.entry))
        self.exit = (board.bottom if rules.gravity else 0) | (top if rules.levity else 0) if rules.exit else 0
        self.race = 0  # the nodes a race is won on
        if "race" in rules.win:
            self.race = {"bottom": board.bottom, "top": board.top}.get(rules.race) or 1 << board.parse(
                rules.race
            )
        self.arrangements = tuple(mask_of(board.parse_many(s)) for s in rules.arrangement)
        self.connect = tuple(tuple(board.parse_many(pair)) for pair in rules.connect)
        self.residents = tuple(mask_of(board.parse_many(s)) for s in rules.residents)
        self.rings = bool({"surround", "corner"} & set(rules.win))  # goals checked for everyone
        self.level_ok = mask_of(n for n in board.nodes if not rules.levels or nd.LEVEL[n] in rules.levels)
        self.goal_quadrangles = tuple(
            q for q in board.quadrangles if q & self.level_ok and q & board.all == q
        ) + tuple(mask_of(board.parse_many(s)) for s in rules.arrangement)
        shapes_of: list[list[int]] = [[] for _ in range(size)]
        for i, q in enumerate(self.goal_quadrangles):
            for n in bits(q):
                shapes_of[n].append(i)
        self.goal_shapes_of = [frozenset(found) for found in shapes_of]  # node -> goal shapes holding it
        self.hyper_links = rules.limited_hyperspace
        self.bitboards = fast.board(rules.depth) if fast.plays(rules, 2) else None  # EZ GRYB's playouts
        words = (
            [KIND_WORDS[k] for k in kinds]
            + (["by reincarnation"] if rules.reincarnation else [])
            + (["by a hop"] if rules.hopping != "none" else [])
        )
        self.kinds_phrase = _phrase(words) if words else "nowhere"


@lru_cache(maxsize=64)
def tables(rules: Rules) -> Tables:
    return Tables(rules)


def _option(key: str, rules: Rules, spec) -> Option:
    """The parameter as the game's option, with this composition's value, narrowed by ``spec``."""
    param = PARAMS[key]
    default = getattr(rules, key)
    if spec.minimum is not None:
        # A range that leaves 0 out leaves out what 0 means too ("capture: 1 to 8" has no "0: all").
        help = param.help if spec.minimum <= 0 else re.sub(r" \(0: [^)]*\)", "", param.help)
        return replace(param, default=default, help=help, minimum=spec.minimum, maximum=spec.maximum)
    if param.kind == "int":
        return replace(param, default=default)
    choices = spec.choices if spec.choices is not None else param.choices
    return replace(param, default=default, choices=choices)


def game_class(rules: Rules, shipped: bool = False) -> type[ComposedGame]:
    """A game class for this composition."""
    options = tuple(_option(s.key, rules, s) for s in rules.options if s.key != "turn_limit")
    options += (replace(PARAMS["turn_limit"], default=rules.turn_limit),)
    catalogue = (
        NODE_DIE
        if rules.rolled
        else COLOUR_DIE
        if rules.die == "colour" or rules.landing == "hold-court"
        else NO_DIE
    )
    die = DieByPhase(catalogue, ComposedGame.die_now)
    attrs: dict[str, Any] = {
        "id": rules.id,
        "name": rules.name,
        "source": rules.source,
        "summary": rules.summary,
        "min_players": rules.players[0],
        "max_players": rules.players[1],
        "die": die,
        "options": options,
        "moves_per_turn": rules.moves,
        "base_rules": rules,
        "shipped": shipped,
        "__module__": __name__,
        "hand": None if rules.enter == "none" else Game.hand,
        "finds_grybs": "gryb" in rules.win,
        "score": Game.score if "gryb" in rules.win else None,  # else a win scores 1 (``_wins``)
        "series_presets": rules.series,
        "wide_root": rules.computer.wide_root,  # [computer]: how companion/ai.py searches this game
        "computer_levels": rules.computer.level_changes(),
    }
    name = "".join(part.capitalize() for part in rules.id.split("-")) or "Composed"
    return type(f"Composed_{name}", (ComposedGame,), attrs)


class ComposedGame(Game):
    """A game defined by a composition (``base_rules``, set by :func:`game_class`)."""

    base_rules: Rules
    composed = True
    shipped = False  # one of the companion's own compositions, not a saved one
    # transit: a stone passing through ('Drangles); encounter: (from, to) holding court; pushing: (node,
    # owner, entry node) of a stone pushed on down; exited: stones off the board.
    extra_fields = ("transit", "encounter", "pushing", "exited")

    # -- set-up

    def make_space(self) -> GameSpace:
        changes = {k: v for k, v in self.settings.items() if k != "turn_limit"}
        try:
            self.rules = self.base_rules.with_values(changes) if changes else self.base_rules
        except CompositionError as err:
            raise OptionError(str(err)) from None
        if self.rules.teams and self.players != 4:
            raise OptionError(f"{self.name} is played by two teams of two: 4 players")
        self.t = tables(self.rules)
        return self.t.board

    def setup(self) -> None:
        rules = self.rules
        self.transit = self.encounter = self.pushing = None
        self.exited = (0,) * self.players
        self.in_hand = (rules.stones if rules.enter != "none" else 0,) * self.players
        if self.t.residents:
            self.stones = tuple(self.t.residents[: self.players])
        self.phase = PLACING if rules.phase == "first" else PLAYING

    def gryb_points(self, found) -> int:
        return found.points(self.space.depth, self.rules.endian == "big")

    def state_dict(self) -> dict:
        """The base state, and a stone pushed, passing through or holding court."""
        out = super().state_dict()
        names = nd.NODE_NAMES
        if self.pushing is None:
            out["pushing"] = None
        else:
            node, owner, entered = self.pushing
            out["pushing"] = {
                "node": names[node],
                "player": owner,
                "kind": "stone",
                "entered": names[entered],
            }
        out["through"] = (
            None
            if self.transit is None
            else {"node": names[self.transit], "player": self.to_move, "kind": "stone"}
        )
        out["encounter"] = (
            None
            if self.encounter is None
            else {"from": names[self.encounter[0]], "to": names[self.encounter[1]], "player": self.to_move}
        )
        return out

    # -- teams

    def side(self, player: int) -> tuple[int, ...]:
        """The player alone, or their team."""
        return (player % 2, player % 2 + 2) if self.rules.teams else (player,)

    def _friends(self, player: int) -> Bitboard:
        if not self.rules.teams:
            return self.stones[player]
        m = 0
        for p in self.side(player):
            m |= self.stones[p]
        return m

    def _transit_origin(self) -> Bitboard:
        """Where the stone passing through came from: it may not land back there (a turn changing nothing)."""
        return 1 << self.last[0] if len(self.last) == 2 else 0

    # -- the die

    def needs_roll(self) -> bool:
        if self.encounter is not None:
            return True
        if self.roll is not None or self.transit is not None or self.pushing is not None:
            return False
        if self.rules.rolled and self.phase == PLACING:
            return True
        return self.rules.die == "colour" and self.moves_left == self.moves_per_turn

    def die_now(self) -> str:
        """GRYB Dice II while stones are placed, then the colour die (prescribed moves, encounters)."""
        if self.rules.rolled and self.phase == PLACING and self.encounter is None:
            return NODE_DIE
        return COLOUR_DIE if self.rules.die == "colour" or self.rules.landing == "hold-court" else NO_DIE

    def roll_faces(self) -> list[Action]:
        if self.rules.rolled and self.phase == PLACING and self.encounter is None:
            return [_face(n) for n in bits(self.t.entry & ~self.occupied)]
        return list(_COLOUR_FACES)

    def _push(self, action: Action) -> None:
        if action.kind == ROLL and self.encounter is not None:
            # Holding court: this roll settles the encounter; the turn's own roll stays.
            self.history.append((action, self._snapshot()))
            self.last_roll = action.colour
            self._hold_court(action.colour)
            return
        super()._push(action)

    # -- listing moves

    def _actions(self) -> list[Action]:
        return self._actions_for(self.to_move, self.roll)

    def _colour_masks(self, roll) -> tuple[Bitboard, Bitboard]:
        """Where the roll lets a stone land, and start from."""
        board = self.space
        if not isinstance(roll, str):
            return board.all, board.all
        # The head node is of every colour (docs/rules/game-space.md, "The head node's colour").
        colour = board.focus_masks[roll] | board.all & 1 << HEAD
        if self.rules.colour_of == "source":
            return board.all, colour
        return colour, board.all

    def _room(self, player: int) -> Bitboard:
        """Nodes where the player may enter a stone, free or not, the die aside."""
        t = self.t
        if not self.rules.chain:
            return t.entry
        # 000 "Chain moves": next to an unbroken chain of own stones from the entry nodes.
        mine = self.stones[player]
        chained = level = mine & t.entry
        up = self.rules.enter == "bottom"
        room = t.entry
        while level:
            grown = 0
            for p in bits(level):
                grown |= self._onward(p, up)
            room |= grown
            level = grown & mine & ~chained
            chained |= level
        return room

    def _onward(self, node: Node, up: bool) -> Bitboard:
        if up:
            parent = nd.parent(node)
            return 0 if parent is None or not self.space.all >> parent & 1 else 1 << parent
        return self.space.target_mask(MoveKind.DOWN, node)

    def _actions_for(self, player: int, roll) -> list[Action]:
        singles, others = self._choices(player, roll)
        return others + [Action.move(s, n) for s, reach in singles for n in bits(reach)]

    def random_action(self, rng) -> Action:
        """A random legal action, without listing them all."""
        if self.over:
            return Action(PASS)
        if self.needs_roll():
            if self.encounter is None and self.rules.rolled and self.phase == PLACING:
                # GRYB Dice II is rolled again while the node shown is taken.
                entry, occupied = self.t.entry_nodes, self.occupied
                if self.t.entry & ~occupied:
                    while True:
                        n = entry[rng.randrange(len(entry))]
                        if not occupied >> n & 1:
                            return _face(n)
            return rng.choice(self.roll_faces())
        singles, others = self._choices(self.to_move, self.roll)
        total = len(others) + sum(reach.bit_count() for _, reach in singles)
        if not total:
            return Action(PASS)
        return nth_move(rng.randrange(total), singles, others)

    def _choices(self, player: int, roll) -> tuple[list[tuple[Node, Bitboard]], list[Action]]:
        """What ``player`` may do after ``roll`` (None: any): (stone, nodes it may go to), other actions."""
        board, t, rules = self.space, self.t, self.rules
        if self.pushing is not None:
            node = self.pushing[0]
            return [(node, self._push_targets(node))], []
        stones = self.stones
        occupied = 0
        for m in stones:
            occupied |= m
        empty = board.all & ~occupied
        friends = self._friends(player)
        foes = occupied & ~friends
        land, start = self._colour_masks(roll)
        if self.transit is not None:
            return [(self.transit, t.free[self.transit] & empty & land & ~self._transit_origin())], []
        first = self.moves_left == self.moves_per_turn
        others: list[Action] = []
        singles: list[tuple[Node, Bitboard]] = []
        if self.in_hand[player] and self.phase != MOVING:
            if rules.rolled:
                room = 1 << roll if isinstance(roll, int) else t.entry if roll is None else 0
            else:
                room = self._room(player) & land & (start if rules.colour_of == "source" else board.all)
            others += [Action.place(n) for n in bits(room & empty)]
            if rules.push:  # onto an opponent's stone where stones enter (not down a chain)
                for n in bits(room & t.entry & foes):
                    singles.append((n, self._push_targets(n, player)))
            elif rules.pop:
                others += [Action.place(n) for n in bits(room & t.entry & foes) if self._pop_room(n, player)]
            elif rules.through and first:
                others += [Action.place(n) for n in bits(room & occupied) if t.free[n] & empty & land]
        if self.phase == PLACING:
            return singles, others
        mine = stones[player] & start
        free, lethal, hops = t.free, t.lethal, t.hops
        for s in bits(mine):
            reach = free[s] & empty
            if lethal[s]:
                reach |= lethal[s] & foes
            if rules.through and first:
                # Passing through: onto a stone now, on to a free node with the next move.
                for n in bits(t.any[s] & occupied & land):
                    if free[n] & empty & land:  # a free node past it, its own node not counted
                        reach |= 1 << n
            if reach & land:
                singles.append((s, reach & land))
            for over, beyond in hops[s]:
                if not occupied >> over & 1:
                    continue
                own = bool(friends >> over & 1)
                if rules.hopping == "own" and not own or rules.hopping == "opponents" and own:
                    continue
                name = nd.NODE_NAMES[over]
                others += [Hop(MOVE, (n,), (s,), name) for n in bits(beyond & empty & land)]
        if t.exit:
            others += [Action.remove(s) for s in bits(mine & t.exit & land)]
        return singles, others

    def _push_targets(self, node: Node, player: int | None = None) -> Bitboard:
        """Where a stone pushed off ``node`` may go: under it, not onto the pusher's, where the push can end
        (docs/composer.md)."""
        player = self.to_move if player is None else player
        under = self.space.target_mask(MoveKind.DOWN, node) & ~self._friends(player)
        blocked = under & self.occupied & ~self.space.bottom  # off the bottom, a stone leaves the board
        for n in bits(blocked):
            if self._push_targets(n, player):
                blocked &= ~(1 << n)
        return under & ~blocked

    def _push_refusal(self, target: Node) -> str | None:
        """Why a pushed stone may not go down to ``target``, if it may not."""
        if self._friends(self.to_move) >> target & 1:
            return f"{nd.name(target)} is your own stone: a push goes onto a free node or an opponent's stone"
        if not self._push_targets(nd.parent(target)) >> target & 1:
            return (
                f"the stone on {nd.name(target)} could be pushed no further: every way down from it ends on "
                "your own stones"
            )
        return None

    def _pop_room(self, node: Node, player: int) -> bool:
        """Whether entering on ``node`` can pop its stone up: the stones above are its owner's."""
        victim = self.owner(node)
        up = nd.parent(node)
        while up is not None and self.space.all >> up & 1 and self.occupied >> up & 1:
            if self.owner(up) != victim:
                return False
            up = nd.parent(up)
        return True

    # -- applying

    def _apply(self, action: Action) -> None:
        me = self.to_move
        rules = self.rules
        moved: list[tuple[int, Node]] = []  # (player, node) of stones that arrived somewhere
        if self.pushing is not None:
            node, victim, entered = self.pushing
            self.pushing = None
            moved.append((me, entered))  # the mover's stone that started the push, for its GRYB
            self._land_pushed(victim, action.target, moved, entered)
        elif action.kind == REMOVE:
            self.set_stones(me, self.stones[me] & ~(1 << action.target))
            self.add_to("exited", me, 1)
        elif action.kind == PLACE:
            t = action.target
            self.add_to("in_hand", me, -1)
            owner = self.owner(t)
            if owner is None:
                self.set_stones(me, self.stones[me] | 1 << t)
                moved.append((me, t))
            elif rules.pop:
                self._pop(owner, t)
                self.set_stones(me, self.stones[me] | 1 << t)
                moved.append((me, t))
            else:
                self.transit = t  # through: on top of a stone, it must move on with the next move
        elif self.transit is not None:
            self.transit = None
            self.set_stones(me, self.stones[me] | 1 << action.target)
            moved.append((me, action.target))
        else:
            s, t = action.source, action.target
            owner = self.owner(s)
            if owner != me:  # a push: enter on the opponent's node, their stone goes down
                self.add_to("in_hand", me, -1)
                self.set_stones(owner, self.stones[owner] & ~(1 << s))
                self.set_stones(me, self.stones[me] | 1 << s)
                moved.append((me, s))
                self._land_pushed(owner, t, moved, s)
            else:
                victim = self.owner(t)
                if isinstance(action, Hop):
                    over = nd.parse(action.colour, self.space.depth, self.space.headless)
                    taken = self.owner(over)
                    if rules.hop_captures and taken is not None and taken not in self.side(me):
                        self._capture(taken, over)
                if victim is not None and rules.landing == "hold-court":
                    self.encounter = (s, t)
                    self.last = (s, t)
                    return  # the encounter roll decides (see _hold_court)
                if victim is not None and not rules.through:
                    self._capture(victim, t)
                self.set_stones(me, self.stones[me] & ~(1 << s))
                if victim is not None and rules.through:
                    self.transit = t
                else:
                    self.set_stones(me, self.stones[me] | 1 << t)
                    moved.append((me, t))
        self.last = action.sources + action.targets
        self._after(moved)

    def _capture(self, victim: int, node: Node) -> None:
        self.set_stones(victim, self.stones[victim] & ~(1 << node))
        self.add_to("captured", self.to_move, 1)
        if self.rules.captured == "returned":
            self.add_to("in_hand", victim, 1)

    def _land_pushed(self, victim: int, node: Node, moved: list, entered: Node) -> None:
        """The pushed stone lands on ``node``, pushing on a stone there."""
        there = self.owner(node)
        if there is None:
            self.set_stones(victim, self.stones[victim] | 1 << node)
            moved.append((victim, node))
        elif nd.LEVEL[node] == self.space.depth:
            self._capture(there, node)  # the stone under it is pushed off the bottom
            self.set_stones(victim, self.stones[victim] | 1 << node)
            moved.append((victim, node))
        else:
            if there != victim:  # a third player's stone: the pushed one takes its node, it is pushed on
                self.set_stones(there, self.stones[there] & ~(1 << node))
                self.set_stones(victim, self.stones[victim] | 1 << node)
            self.pushing = (node, there, entered)

    def _pop(self, victim: int, node: Node) -> None:
        """Entering on ``node`` pops the stones above it up a level each, off the top too."""
        chain = [node]
        up = nd.parent(node)
        while up is not None and self.space.all >> up & 1 and self.occupied >> up & 1:
            chain.append(up)
            up = nd.parent(up)
        mask = self.stones[victim]
        for n in chain:
            mask &= ~(1 << n)
        for n in chain:
            parent = nd.parent(n)
            if parent is not None and self.space.all >> parent & 1:
                mask |= 1 << parent
        self.set_stones(victim, mask)
        off = len(chain) - (1 if up is None or not self.space.all >> up & 1 else 0)
        if off != len(chain):  # the top stone of the chain was popped off the board
            self.add_to("captured", self.to_move, 1)
            if self.rules.captured == "returned":
                self.add_to("in_hand", victim, 1)

    def _hold_court(self, colour: str) -> None:
        """000 'hold court': the roll against the node held (docs/composer.md, "Hold court")."""
        s, t = self.encounter
        self.encounter = None
        me, victim = self.to_move, self.owner(t)
        moved: list[tuple[int, Node]] = []
        held = nd.focus(t)
        siblings = {nd.focus(n): n for n in self._quadrangle(t)}
        if held is None or colour == held:
            self._capture(victim, t)
            self.set_stones(me, self.stones[me] & ~(1 << s) | 1 << t)
            moved.append((me, t))
        else:
            other = siblings.get(colour)
            free = other is not None and self.space.all >> other & 1 and not self.occupied >> other & 1
            opposite = COLOURS[(COLOURS.index(held) + 2) % 4] == colour
            if free and not opposite:
                self.set_stones(victim, self.stones[victim] & ~(1 << t) | 1 << other)
                self.set_stones(me, self.stones[me] & ~(1 << s) | 1 << t)
                moved += [(me, t), (victim, other)]
            elif free and other != s:
                self.set_stones(me, self.stones[me] & ~(1 << s) | 1 << other)
                moved.append((me, other))
        self.last = (s, moved[0][1]) if moved else (s,)
        self._after(moved)

    def _quadrangle(self, node: Node) -> tuple[Node, ...]:
        return nd.children(nd.parent(node)) if node != HEAD else (HEAD,)

    def _after(self, moved: list[tuple[int, Node]]) -> None:
        """After a move: the goals (the mover's first), the first phase's end, the turn."""
        if self.pushing is not None:
            return  # the mover pushes on with the next action, in the same move
        if self.transit is not None:
            self.use_move()  # passing through a stone is this move; landing is the next
            return
        me = self.to_move
        players = [me] + [p for p, _ in moved]
        if self.t.rings:  # a stone that walks into a ring: the side that closed it wins now
            players += range(self.players)
        for player in dict.fromkeys(players):
            if self._wins(player, [n for p, n in moved if p in self.side(player)]):
                return
        if self.phase == PLACING and not any(self.in_hand):
            self.phase = MOVING
        self.use_move()

    # -- goals

    def _wins(self, player: int, arrived: list[Node]) -> bool:
        rules, t = self.rules, self.t
        side = self.side(player)
        mine = self._friends(player)
        for goal in rules.win:
            points = 1
            if goal == "gryb":
                found = []
                for n in arrived:
                    found += [
                        g
                        for g in self.grybs_index.completed_by(n, mine, quadrangle_only=not rules.integrated)
                        if t.level_ok >> g.nodes[0] & 1
                    ]
                if not found:
                    continue
                self.grybs = tuple(found)
                points = max(self.gryb_points(g) for g in found)
            elif goal == "capture":
                foes = [p for p in range(self.players) if p not in side]
                taken = sum(self.captured[p] for p in side)
                if rules.capture:
                    if taken < rules.capture:
                        continue
                elif any(self.stones[p] or self.in_hand[p] for p in foes):
                    continue
            elif goal == "race":
                if not any(t.race >> n & 1 for n in arrived):
                    continue
            elif goal == "arrangement":
                if not any(a & mine == a for a in t.arrangements):
                    continue
            elif goal == "connection":
                if not any(self._connected(p) for p in side):
                    continue
            elif goal == "vacate":
                if any(self.stones[p] or self.in_hand[p] for p in side) or not any(
                    self.exited[p] for p in side
                ):
                    continue
            elif goal == "surround":
                if not self._surrounds(player):
                    continue
            elif goal == "corner":
                if self.phase == PLACING or not self._corners(player):
                    continue
            self.finish(side, [points if p in side else 0 for p in range(self.players)])
            return True
        return False

    def _connected(self, player: int) -> bool:
        a, b = self.t.connect[player]
        mine = self.stones[player]
        if not (mine >> a & 1 and mine >> b & 1):
            return False
        return bool(self.space.group(a, mine, hyperspace=self.t.hyper_links) >> b & 1)

    def _surrounds(self, player: int) -> bool:
        """An opponent's group whose every neighbouring node holds the player's side's stones."""
        board = self.space
        mine = self._friends(player)
        foes = self.occupied & ~mine
        for group in board.groups(foes):
            rim = 0
            for n in bits(group):
                rim |= board.neighbours(n)
            rim &= ~group
            if rim and rim & mine == rim:
                return True
        return False

    def _corners(self, player: int) -> bool:
        """An opponent's stone that could move on an empty board but nowhere now, whatever the die."""
        t = self.t
        occupied = self.occupied
        empty = self.space.all & ~occupied
        for foe in range(self.players):
            if foe in self.side(player):
                continue
            theirs = self._friends(foe)
            for s in bits(self.stones[foe]):
                if not t.any[s]:
                    continue
                if t.free[s] & empty or t.lethal[s] & occupied & ~theirs or t.exit >> s & 1:
                    continue
                if any(beyond & empty for over, beyond in t.hops[s] if occupied >> over & 1):
                    continue
                return True
        return False

    # -- the end of the road

    def deadlocked(self) -> bool:
        """No player can act whatever the die shows. Roll None stands for every colour, except where a stone
        passes through one colour onto another."""
        rolls = list(COLOURS) if self.rules.die == "colour" and self.rules.through else [None]
        for player in range(self.players):
            for roll in rolls:
                singles, others = self._choices(player, roll)
                if others or any(reach for _, reach in singles):
                    return False
        return True

    # -- random playouts

    def playout(self, rng, plies: int | None = None) -> list[float]:
        """EZ GRYB's rules play on bitboards (ez_playout), ten times faster."""
        board = self.t.bitboards if self.players == 2 else None
        if board is None or self.over:
            return super().playout(rng, plies)
        roll = None if self.roll is None else COLOURS.index(self.roll)
        end = board.play(
            rng,
            self.stones,
            self.in_hand,
            self.to_move,
            roll,
            self.settings["turn_limit"] * 2 - self.turn,
            plies,
        )
        if end.over:  # as outcome(): 1 to the winner, a draw shared
            return [0.5, 0.5] if end.winner is None else [float(p == end.winner) for p in (0, 1)]
        return self._gryb_race(end.stones)

    # -- evaluation

    def evaluate(self) -> list[float]:
        """How each player stands (0..1 each): the mean progress towards the goals."""
        if self.over:
            return self.outcome()
        goals = self.rules.win
        parts = []
        if "gryb" in goals or "arrangement" in goals:
            parts.append(self._gryb_race())
        if "capture" in goals:
            parts.append(
                _share([sum(self.captured[q] for q in self.side(p)) + 1.0 for p in range(self.players)])
            )
        if "race" in goals or "vacate" in goals:
            parts.append(self._progress("vacate" in goals))
        if "surround" in goals:
            parts.append(self._enclosure())
        if not parts:
            return super().evaluate()
        return [sum(part[p] for part in parts) / len(parts) for p in range(self.players)]

    def _enclosure(self) -> list[float]:
        """Surround: how near each side is to closing a rival group (the fewest free nodes round one);
        without it the search saw nothing until a ring closed."""
        board = self.space
        occupied = self.occupied
        empty = board.all & ~occupied
        free = []
        for p in range(self.players):
            mine = self._friends(p)
            fewest = ENCLOSURE_OPEN  # no rival stone on the board: nothing to close yet
            for group in board.groups(occupied & ~mine):
                rim = 0
                for n in bits(group):
                    rim |= board.neighbours(n)
                fewest = min(fewest, (rim & empty).bit_count())
            free.append(min(fewest, ENCLOSURE_OPEN))
        least = min(free)
        return _share([math.exp(least - f) for f in free])

    def _gryb_race(self, stones: tuple[Bitboard, ...] | None = None) -> list[float]:
        """How close each side is to a goal quadrangle it can still cover: its stones on it, and half a stone
        for each missing corner another can move onto next (docs/performance.md, "The GRYB race").
        ``stones``: a playout's, not the game's."""
        t = self.t
        if stones is None:
            stones = self.stones
        occupied = 0
        for m in stones:
            occupied |= m
        empty = self.space.all & ~occupied
        shapes, shapes_of, free = t.goal_quadrangles, t.goal_shapes_of, t.free
        best = []
        for p in range(self.players):
            mine = self._friends(p) if stones is self.stones else stones[p]
            theirs = occupied & ~mine
            helpers: dict[int, int] = {}  # goal shape -> stones outside it that can move onto it next
            candidates: set[int] = set()  # goal shapes holding a stone of the side
            for s in bits(mine):
                home = shapes_of[s]
                candidates |= home
                reach = free[s] & empty
                if reach:
                    onto: set[int] = set()
                    for n in bits(reach):
                        onto |= shapes_of[n]
                    for i in onto - home:
                        helpers[i] = helpers.get(i, 0) + 1
            top = 0.0
            for i in candidates.union(helpers):
                q = shapes[i]
                if q & theirs:
                    continue
                missing = q & empty
                top = max(top, (q & mine).bit_count() + 0.5 * min(helpers.get(i, 0), missing.bit_count()))
            best.append(top)
        return _share([math.exp(1.5 * b) for b in best])

    def _progress(self, leaving: bool) -> list[float]:
        """Races and vacating: the levels each side's stones have travelled."""
        depth = self.space.depth
        toward_top = self.rules.race == "top" or (leaving and self.rules.levity and not self.rules.gravity)
        scores = []
        for p in range(self.players):
            total = 0.0
            for q in self.side(p):
                levels = [nd.LEVEL[n] for n in bits(self.stones[q])]
                steps = [depth - lv if toward_top else lv for lv in levels]
                if leaving:
                    total += self.exited[q] * (depth + 1) + sum(steps)
                else:
                    total += max(steps, default=0) * 2 + sum(steps) / max(1, len(steps))
            scores.append(math.exp(0.5 * total / (depth + 1)))
        return _share(scores)

    # -- notation and reasons

    def parse(self, text: str) -> Action:
        raw = text.strip()
        if "/" in raw and "-" in raw:
            move, _, over = raw.rpartition("/")
            plain = super().parse(move)
            try:
                hopped = nd.parse(over.strip(), self.space.depth, self.space.headless)
            except nd.NodeError as err:
                raise IllegalAction(f"{raw!r}: {err}") from None
            if plain.kind != MOVE or len(plain.sources) != 1:
                raise IllegalAction(f"{raw!r}: a hop is FROM-TO/OVER, one stone over one node")
            return Hop(MOVE, plain.targets, plain.sources, nd.NODE_NAMES[hopped])
        return super().parse(raw)

    def _reason(self, action: Action) -> str | None:
        rules, t = self.rules, self.t
        me = self.to_move
        if self.transit is not None and (action.kind != MOVE or action.source != self.transit):
            return f"the stone passing through {nd.name(self.transit)} must move on to a free node"
        if self.transit is not None and self._transit_origin() >> action.target & 1:
            return (
                f"the stone passing through {nd.name(self.transit)} must land past it, not back on "
                f"{nd.name(action.target)}"
            )
        if self.pushing is not None:
            where = nd.name(self.pushing[0])
            if action.kind != MOVE or action.sources != (self.pushing[0],):
                return f"finish the push: the stone on {where} goes down to a node under {where}"
            if nd.parent(action.target) != self.pushing[0]:
                return f"a pushed stone goes down to one of the four nodes under {where}"
            return self._push_refusal(action.target)
        if action.kind == PLACE:
            return self._place_reason(action.target)
        if action.kind == REMOVE:
            if self.owner(action.target) != me:
                return None
            if not t.exit:
                return "stones do not leave the board in this game"
            return (
                "only a stone at the far end of the board can leave it"
                if not t.exit >> action.target & 1
                else None
            )
        if action.kind != MOVE:
            return None
        if self.phase == PLACING:
            if rules.rolled and isinstance(self.roll, int):
                return f"every stone is placed first: place yours on {nd.name(self.roll)}"
            return "every stone enters before any stone moves: enter a new stone"
        if len(action.sources) != 1:
            return "one stone moves at a time"
        s, target = action.source, action.target
        owner = self.owner(s)
        if rules.push and owner is not None and owner not in self.side(me) and t.entry >> s & 1:
            if isinstance(self.roll, str) and nd.focus(s) not in (self.roll, None):
                colour = COLOUR_NAMES[self.roll]
                return f"you rolled {self.roll}: only a stone on the {colour} entry node can be pushed down"
            if not self.in_hand[me]:
                return "you have no stones left to take its place"
            if nd.parent(target) != s:
                return f"a pushed stone goes down to one of the four nodes under {nd.name(s)}"
            return self._push_refusal(target)
        if owner != me:
            return None  # the engine names the missing or foreign stone
        if (
            isinstance(self.roll, str)
            and rules.colour_of == "source"
            and nd.focus(s) not in (self.roll, None)
        ):
            return f"you rolled {self.roll}: move a stone that stands on a {COLOUR_NAMES[self.roll]} node"
        if (
            rules.lateral_levels
            and self.space.target_mask(MoveKind.SIDEWAYS, s) >> target & 1
            and nd.LEVEL[s] not in rules.lateral_levels
        ):
            where = "the top level" if nd.LEVEL[s] == 1 else f"level {nd.LEVEL[s]}"
            return f"sideways moves are not permitted on {where}"
        if not t.any[s] >> target & 1:
            return f"{nd.name(s)} to {nd.name(target)} is not one move ({t.kinds_phrase})"
        there = self.owner(target)
        if there is None and not t.free[s] >> target & 1 and t.lethal[s] >> target & 1:
            words = [w for k, w in KIND_WORDS.items() if k in rules.capture_only]
            return f"{_phrase(words)} moves are only to capture an opponent's stone".replace("via ", "")
        if there is not None and rules.through and self.moves_left != self.moves_per_turn:
            return f"{nd.name(target)} is occupied: only the first move of a turn may pass through a stone"
        return None

    def _break(self, node: Node) -> str:
        """Where the chain from the entry nodes to ``node`` is broken."""
        mine = self.stones[self.to_move]
        line = []
        if self.rules.enter == "bottom":
            return f"{nd.name(node)} is not above one of your chained stones"
        up = nd.parent(node)
        while up is not None and not self.t.entry >> up & 1:
            line.append(up)
            up = nd.parent(up)
        if up is not None:
            line.append(up)
        for n in reversed(line):
            if not mine >> n & 1:
                return f"the chain to {nd.name(node)} is broken at {nd.name(n)}"
        return f"{nd.name(node)} is not under one of your chained stones"

    def _place_reason(self, node: Node) -> str | None:
        rules, t = self.rules, self.t
        me = self.to_move
        if self.phase == MOVING:
            return f"every stone is placed: move one {t.kinds_phrase}"
        if rules.rolled and isinstance(self.roll, int):
            return f"the die chose {nd.name(self.roll)}: place your stone there"
        if not t.entry >> node & 1 and not (rules.chain and self._room(me) >> node & 1):
            where = {
                "head": "through the head node 0",
                "top": "on the top quadrangle (G, R, Y or B)",
                "bottom": "on the bottom level",
                "anywhere": "anywhere",
            }.get(rules.enter)
            if where is None:
                return "no new stones enter in this game"
            if rules.chain:
                return f"you may only build on an unbroken chain of your own stones: {self._break(node)}"
            return f"new stones enter {where}"
        if not self.in_hand[me]:
            return "you have no stones left to enter"
        if isinstance(self.roll, str) and nd.focus(node) not in (self.roll, None):
            return None  # the engine's "you rolled Y ..."
        if self.occupied >> node & 1:
            if rules.push and self.owner(node) not in self.side(me):
                if nd.LEVEL[node] == self.space.depth:
                    return (
                        f"{nd.name(node)} is occupied, and a stone on the bottom level has no node under it "
                        "to be pushed to"
                    )
                targets = self._push_targets(node, me)
                if not targets:
                    return (
                        f"{nd.name(node)} is occupied, and its stone could be pushed no further: every way "
                        "down from it ends on your own stones"
                    )
                return (
                    f"{nd.name(node)} is occupied: push its stone down by moving it to a node under it "
                    f"(e.g. {nd.name(node)}-{nd.name(next(bits(targets)))})"
                )
            if rules.through and self.moves_left != self.moves_per_turn:
                return f"{nd.name(node)} is occupied: only the first move of a turn may pass through a stone"
        return None


# A rival group with this many free nodes round it is in no danger yet (a node has 7 neighbours).
ENCLOSURE_OPEN = 8


def _share(weights: list[float]) -> list[float]:
    total = sum(weights)
    return [w / total for w in weights]


__all__ = ["ComposedGame", "Hop", "game_class", "tables", "MOVE_KEYS", "PASS"]
