"""Blobs and The Borg (000 "Blobs", "The Borg", with "Using Lines" and "Using Shapes"): four or more
contiguous pieces of one player form a blob (a collective) that oozes over the board, one piece at a time.

Blobs are not remembered: they are the position's groups (``GameSpace.groups``) of four or more. Rules
decisions: docs/rules/blobs.md and docs/rules/the-borg.md.
"""

from __future__ import annotations

import math

from companion.games.engine import NODE_DIE, TURN_LIMIT, Game, Option, OptionError, register
from companion.games.square_deal import FULL_KINDS
from companion.rules import node as nd
from companion.rules.action import MOVE, PASS, PLACE, Action, nth_move
from companion.rules.formation import block_moves, change_reach
from companion.rules.node import Bitboard, Node
from companion.rules.space import bits

DEPTH = Option("depth", 4, "board depth: 4 standard, 5 Giant GRYB, 6 Super Giant GRYB", minimum=2, maximum=6)
HEADLESS = Option("headless", False, "play without the head node (001 'headless')")
STONES = Option(
    "stones", 15, "pieces each player places in phase one (000: fifteen each)", minimum=4, maximum=200
)
STALL = Option(
    "stall",
    40,
    "the game is a draw after this many turns each without a piece devoured or "
    "assimilated (the players are unable to gobble one another up)",
    minimum=1,
    maximum=1000,
)

BLOB = 4  # "four or more nodes": the smallest blob or collective
PLACING, MOVING = "place", "move"
_FACES = tuple(Action.roll_node(n) for n in range(nd.count(nd.MAX_DEPTH)))


class OozeGame(Game):
    """Blobs and The Borg share everything but what an oozing piece does to the opponent's pieces.

    A subclass MUST set ``word`` (a group of four or more), ``verb`` and ``done``, and MAY override
    :meth:`_prey` and :meth:`_after_ooze`, which get the moving blob's size before the move.
    """

    word = "blob"
    verb = "devour"
    done = "devoured"  # the verb's past participle, for the stall's draw
    die = NODE_DIE
    options = (DEPTH, HEADLESS, STONES, STALL, TURN_LIMIT)
    # since: the first turn after the last piece devoured or assimilated (or phase two's first turn), for the
    # stall draw: the quiet turns are those from it on (the devouring turn itself is not one).
    extra_fields = ("since",)

    def setup(self) -> None:
        stones, room = self.settings["stones"], len(self.space.nodes)
        if stones * self.players > room:
            raise OptionError(
                f"{self.players} x {stones} pieces do not fit on a board of {room} nodes: "
                f"choose fewer stones or a deeper board"
            )
        self.phase = PLACING
        self.in_hand = (stones,) * self.players
        self.since = 0

    def blobs(self, player: int) -> list[Bitboard]:
        """The player's blobs (collectives), largest first."""
        return [g for g in self.space.groups(self.stones[player]) if g.bit_count() >= BLOB]

    def _group_size(self, node: Node, player: int) -> int:
        return self.space.group(node, self.stones[player]).bit_count()

    def _sizes(self, player: int) -> dict[Node, int]:
        """The size of the group each of the player's pieces is in."""
        sizes = {}
        for g in self.space.groups(self.stones[player]):
            k = g.bit_count()
            for n in bits(g):
                sizes[n] = k
        return sizes

    def stone_kind(self, node: Node) -> str:
        player = self.owner(node)
        if player is not None and self._group_size(node, player) >= BLOB:
            return self.word
        return "stone"

    def needs_roll(self) -> bool:
        # Only phase one rolls; "roll again" while occupied is a roll among the free nodes.
        return self.phase == PLACING and self.roll is None

    def roll_faces(self) -> list[Action]:
        occupied = self.occupied
        return [_FACES[n] for n in self.space.nodes if not occupied >> n & 1]

    def _prey(self, size: int, theirs: Bitboard) -> Bitboard:
        """Opponent nodes a piece of a blob of ``size`` may ooze onto. The default: none."""
        return 0

    def _after_ooze(self, target: Node, size: int) -> Bitboard:
        """Act on the opponent once an oozing piece has landed on ``target``; return the nodes affected."""
        return 0

    def _single_targets(self, s: Node, mine: Bitboard, free: Bitboard) -> Bitboard:
        """Free nodes a loose piece reaches: one move of any kind, or a change of its line or shape."""
        board = self.space
        return (board.moves_mask(FULL_KINDS, s) | change_reach(board.contiguity, s, mine)) & free

    def _block_moves(self, loose: Bitboard, occupied: Bitboard) -> list[Action]:
        """Lines and shapes (2 or 3 contiguous loose pieces) moved in formation."""
        return block_moves(self.space, loose, occupied)

    def _edge_reach(self, blob: Bitboard, s: Node) -> Bitboard | None:
        """The nodes linked to the rest of ``blob`` without ``s``; None when taking ``s`` would break it."""
        board = self.space
        rest = blob & ~(1 << s)
        if board.group((rest & -rest).bit_length() - 1, rest) != rest:
            return None
        link, reach = board.contiguity, 0
        for n in bits(rest):
            reach |= link[n]
        return reach

    def _oozes(self, blob: Bitboard, theirs: Bitboard, free: Bitboard) -> list[tuple[Node, Bitboard]]:
        """For each edge piece of ``blob``, the nodes it may ooze to."""
        landing = (free | self._prey(blob.bit_count(), theirs)) & ~blob
        out = []
        for s in bits(blob):
            reach = self._edge_reach(blob, s)
            if reach and reach & landing:
                out.append((s, reach & landing))
        return out

    def _moves(self) -> tuple[list[tuple[Node, Bitboard]], list[Action]]:
        """Phase two: each piece that may move alone with its targets, and the block moves."""
        me = self.to_move
        mine = self.stones[me]
        theirs = self.occupied & ~mine
        occupied = mine | theirs
        free = self.space.all & ~occupied
        loose, blobs = 0, []
        for g in self.space.groups(mine):
            if g.bit_count() >= BLOB:
                blobs.append(g)
            else:
                loose |= g
        singles = [(s, reach) for s in bits(loose) if (reach := self._single_targets(s, loose, free))]
        oozes = sorted(pair for g in blobs for pair in self._oozes(g, theirs, free))
        return singles + oozes, self._block_moves(loose, occupied)

    def _actions(self) -> list[Action]:
        if self.phase == PLACING:
            return [Action.place(self.roll)]
        singles, blocks = self._moves()
        return [Action.move(s, t) for s, reach in singles for t in bits(reach)] + blocks

    def random_action(self, rng) -> Action:
        if self.is_chance:  # playouts roll as the players do, again while the node is occupied
            occupied, nodes = self.occupied, self.space.nodes
            while True:
                n = rng.choice(nodes)
                if not occupied >> n & 1:
                    return _FACES[n]
        if self.over or self.phase == PLACING:
            return super().random_action(rng)
        # Uniform over the legal actions without building every single-piece Action.
        singles, blocks = self._moves()
        total = sum(reach.bit_count() for _, reach in singles) + len(blocks)
        if not total:
            return Action(PASS)
        r = rng.randrange(total)
        return nth_move(r, singles, blocks)

    def _reason(self, action: Action) -> str | None:
        name = nd.name
        if self.phase == PLACING:
            if action.kind == PLACE:
                return f"the die chose {name(self.roll)}: place your piece there"
            return f"all pieces are placed first: place yours on {name(self.roll)}"
        if action.kind == PLACE:
            return f"every piece is placed: move a piece, line, shape or {self.word}"
        if action.kind != MOVE or any(self.owner(s) != self.to_move for s in action.sources):
            return None  # the base class names the missing or foreign piece
        board = self.space
        mine = self.stones[self.to_move]
        theirs = self.occupied & ~mine
        in_blob = {s: board.group(s, mine) for s in action.sources}
        in_blob = {s: g for s, g in in_blob.items() if g.bit_count() >= BLOB}
        if len(action.sources) > 1:
            if in_blob:
                return f"the pieces of a {self.word} move only by oozing, one piece at a time"
            for t in action.targets:
                if theirs >> t & 1:
                    return f"only a {self.word} can {self.verb}: a line or shape moves to free nodes"
                if mine >> t & 1 and t not in action.sources:
                    return f"{name(t)} is occupied"
            if len(action.sources) > 3 or not board.is_contiguous(action.sources):
                return "a block move moves a line or shape: 2 or 3 of your pieces on contiguous nodes"
            return (
                "a line or shape moves in formation by interjection, excision or via hyperspace, its foci "
                "unchanged, and this move does not"
            )
        s, t = action.source, action.target
        if s in in_blob:
            blob = in_blob[s]
            reach = self._edge_reach(blob, s)
            if reach is None:
                return (
                    f"{name(s)} is not on an edge of its {self.word}: "
                    f"taking it away would break the {self.word}"
                )
            if mine >> t & 1:
                return f"{name(t)} is occupied"
            if not reach >> t & 1:
                return (
                    f"a {self.word} oozes: the piece from {name(s)} must land on a node linked up, down or "
                    f"sideways to the rest of its {self.word}"
                )
            if theirs >> t & 1:
                return self._prey_reason(t, blob.bit_count())
            return None
        if theirs >> t & 1:
            return f"only a {self.word} can {self.verb}: a piece, line or shape moves to free nodes"
        if mine >> t & 1:
            return f"{name(t)} is occupied"
        kinds = ", ".join(k.value for k in FULL_KINDS)
        return f"{name(s)} to {name(t)} is not one move ({kinds}) nor a change of a line or shape"

    def _prey_reason(self, target: Node, size: int) -> str:
        return f"{nd.name(target)} is occupied"

    def _apply(self, action: Action) -> None:
        me = self.to_move
        mine = self.stones[me]
        self.last = action.sources + action.targets
        if action.kind == PLACE:
            self.set_stones(me, mine | 1 << action.target)
            self.add_to("in_hand", me, -1)
            if not any(self.in_hand):
                self.phase = MOVING
                self.since = self.turn + 1
                self._judge()
        else:
            size = 0
            if len(action.sources) == 1:
                size = self.space.group(action.source, mine).bit_count()
                size = size if size >= BLOB else 0
            for s in action.sources:
                mine &= ~(1 << s)
            for t in action.targets:
                mine |= 1 << t
            self.set_stones(me, mine)
            if size:
                hit = self._after_ooze(action.target, size)
                if hit:
                    self.add_to("captured", me, hit.bit_count())
                    self.scores = self.captured
                    self.since = self.turn + 1
                    self.last += tuple(n for n in bits(hit) if n != action.target)
            self._judge()
        if not self.over:
            self.end_turn()

    def end_turn(self) -> None:
        super().end_turn()
        if (
            not self.over
            and self.phase == MOVING
            and self.turn - self.since >= self.settings["stall"] * self.players
        ):
            self.finish(
                (), self.captured, draw=f"{self.settings['stall']} turns each without a piece {self.done}"
            )

    def _judge(self) -> None:
        """End the game when a player can never win (docs/rules/blobs.md, "Who can still win")."""
        counts = [s.bit_count() for s in self.stones]
        whole = [c >= BLOB and self.space.is_contiguous(bits(s)) for c, s in zip(counts, self.stones)]
        for p, q in ((0, 1), (1, 0)):
            if counts[q] < BLOB <= counts[p]:
                return self.finish((p,), self.captured)  # q can never form a blob again
        for p, q in ((0, 1), (1, 0)):
            if whole[p] and counts[p] > counts[q]:
                return self.finish((p,), self.captured)  # q can never build a blob big enough to bite it
        if all(whole) and counts[0] == counts[1]:  # mutually unable to gobble one another up
            self.finish(
                (),
                self.captured,
                draw=f"one {self.word} each, of the same size: neither can {self.verb} the other",
            )
        elif max(counts) < BLOB:
            self.finish((), self.captured, draw=f"neither player has pieces enough for a {self.word}")

    def evaluate(self) -> list[float]:
        """Pieces on the board and in hand, and a little for the biggest group, through a softmax."""
        if self.over:
            return self.outcome()
        values = []
        for p, s in enumerate(self.stones):
            groups = self.space.groups(s)
            biggest = groups[0].bit_count() if groups else 0
            values.append(s.bit_count() + self.in_hand[p] + 0.4 * biggest)
        top = max(values)
        weights = [math.exp(0.5 * (v - top)) for v in values]
        total = sum(weights)
        return [w / total for w in weights]


@register
class Blobs(OozeGame):
    id = "blobs"
    wide_root = True  # a median 195 moves to hard's 54 iterations (docs/performance.md, "Wide games")
    name = "Blobs"
    source = "000 Blobs; Using Lines; Using Shapes"
    summary = (
        "Place 15 pieces each where the node die says, then move pieces, lines and shapes to build blobs "
        "of four or more. A blob oozes one piece a turn and devours opponent pieces and smaller blobs; "
        "leave the opponent unable to win."
    )
    word, verb, done = "blob", "devour", "devoured"

    def _prey(self, size: int, theirs: Bitboard) -> Bitboard:
        # Any opponent piece outside a blob, or in a blob smaller than the devourer.
        prey = 0
        for g in self.space.groups(theirs):
            k = g.bit_count()
            if k < BLOB or k < size:
                prey |= g
        return prey

    def _prey_reason(self, target: Node, size: int) -> str:
        k = self._group_size(target, 1 - self.to_move)
        return (
            f"the piece on {nd.name(target)} is in a blob of {k}, not smaller than yours of {size}: a blob "
            f"devours only smaller blobs and pieces outside a blob"
        )

    def _after_ooze(self, target: Node, size: int) -> Bitboard:
        them = 1 - self.to_move
        theirs = self.stones[them]
        if theirs >> target & 1:
            self.set_stones(them, theirs & ~(1 << target))  # devoured: gone from the game
            return 1 << target
        return 0


@register
class Borg(OozeGame):
    id = "the-borg"
    wide_root = True  # a median 183 moves to hard's 88 iterations (docs/performance.md, "Wide games")
    name = "The Borg"
    source = "000 The Borg; Blobs; Using Lines; Using Shapes"
    summary = (
        "Place 15 pieces each where the node die says, then move pieces, lines and shapes to build "
        "collectives of four or more. A collective oozes one piece a turn and assimilates the opponent "
        "pieces next to where it lands; turn the opponent's pieces into yours."
    )
    word, verb, done = "collective", "assimilate", "assimilated"

    def _prey_reason(self, target: Node, size: int) -> str:
        return (
            f"{nd.name(target)} is occupied: a collective lands on a free node and assimilates the pieces "
            f"next to it"
        )

    def _after_ooze(self, target: Node, size: int) -> Bitboard:
        me, them = self.to_move, 1 - self.to_move
        theirs = self.stones[them]
        sizes = self._sizes(them)
        taken = 0
        for n in bits(self.space.contiguity[target] & theirs):
            if sizes[n] < BLOB or sizes[n] < size:
                taken |= 1 << n  # a lone piece, line, shape or smaller collective: it becomes the mover's
        if taken:
            self.set_stones(them, theirs & ~taken)
            self.set_stones(me, self.stones[me] | taken)
        return taken
