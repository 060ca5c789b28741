"""Square Deal (000 "Square Deal", with "Using Lines", "Using Shapes", "Moving Lines/Shapes", "Changing
Lines/Shapes"): GRYBs of anybody's stones, captured by whoever completes them.

Rules decisions: docs/rules/square-deal.md.
"""

from __future__ import annotations

from companion.games.engine import NODE_DIE, TURN_LIMIT, Game, Option, register
from companion.rules import node as nd
from companion.rules.action import MOVE, PASS, PLACE, Action, nth_move
from companion.rules.formation import BLOCK_SIZES, block_moves, change_reach
from companion.rules.node import Bitboard, Node
from companion.rules.space import GameSpace, MoveKind, bits

DEPTH = Option("depth", 4, "board depth: 4 standard, 5 Giant GRYB, 6 Super Giant GRYB", minimum=2, maximum=6)
HEADLESS = Option("headless", False, "play without the head node (001 'headless': 340 nodes)")
STONES = Option("stones", 20, "stones each player places in phase one", minimum=2, maximum=200)
EASY = Option("easy", False, "the easier version: moves only up, down, sideways and via hyperspace")
STALL = Option(
    "stall",
    20,
    "the last pieces are conceded (the game ends) after this many turns each without a GRYB",
    minimum=1,
    maximum=1000,
)

FULL_KINDS = (
    MoveKind.UP,
    MoveKind.DOWN,
    MoveKind.SIDEWAYS,
    MoveKind.HYPERSPACE,
    MoveKind.INTERJECTION,
    MoveKind.EXCISION,
)
EASY_KINDS = FULL_KINDS[:4]

_FACES = tuple(Action.roll_node(n) for n in range(nd.count(nd.MAX_DEPTH)))


@register
class SquareDeal(Game):
    id = "square-deal"
    name = "Square Deal"
    source = "000 Square Deal; Using Lines; Using Shapes"
    summary = (
        "Place 20 stones each where the node die says, then move a stone, line or shape a turn. "
        "Completing any GRYB, of either player's stones, captures it whole; most opponent stones wins."
    )
    die = NODE_DIE
    options = (DEPTH, HEADLESS, STONES, EASY, STALL, TURN_LIMIT)
    finds_grybs = True
    # own_captured: own stones in each capture pile (they do not score); since: the turn of the last GRYB
    # or of phase two's start, for conceding a stalled game.
    extra_fields = ("own_captured", "since")

    def setup(self) -> None:
        self.phase = "place"
        self.in_hand = (self.settings["stones"],) * self.players
        self.own_captured = (0,) * self.players
        self.since = 0

    @property
    def kinds(self) -> tuple[MoveKind, ...]:
        return EASY_KINDS if self.settings["easy"] else FULL_KINDS

    def needs_roll(self) -> bool:
        # Only phase one rolls; "roll again" while occupied is a roll among the free nodes.
        return self.phase == "place" and self.roll is None

    def roll_faces(self) -> list[Action]:
        occupied = self.occupied
        return [_FACES[n] for n in self.space.nodes if not occupied >> n & 1]

    def random_action(self, rng) -> Action:
        if self.is_chance:  # playouts roll as the players do, again while the node is occupied
            occupied, nodes = self.occupied, self.space.nodes
            while True:
                n = rng.choice(nodes)
                if not occupied >> n & 1:
                    return Action.roll_node(n)
        if self.over or self.phase == "place":
            return super().random_action(rng)
        # Uniform over the legal actions without building every single-stone Action.
        singles = self._single_masks()
        blocks = self._block_actions()
        total = sum(m.bit_count() for _, m in singles) + len(blocks)
        if not total:
            return Action(PASS)
        r = rng.randrange(total)
        return nth_move(r, singles, blocks)

    def _single_targets(self, s: Node, mine: Bitboard, free: Bitboard) -> Bitboard:
        board: GameSpace = self.space
        reach = board.moves_mask(self.kinds, s)
        if not self.settings["easy"]:
            # Changing a line or shape, or hopping past a shape's far end.
            reach |= change_reach(board.contiguity, s, mine)
        return reach & free

    def _single_masks(self) -> list[tuple[Node, Bitboard]]:
        mine = self.stones[self.to_move]
        free = self.space.all & ~self.occupied
        return [(s, self._single_targets(s, mine, free)) for s in bits(mine)]

    def _block_actions(self) -> list[Action]:
        return block_moves(self.space, self.stones[self.to_move], self.occupied, self.settings["easy"])

    def _actions(self) -> list[Action]:
        if self.phase == "place":
            return [Action.place(self.roll)]
        actions = [Action.move(s, t) for s, reach in self._single_masks() for t in bits(reach)]
        return actions + self._block_actions()

    def _reason(self, action: Action) -> str | None:
        if self.phase == "place":
            if action.kind == PLACE:
                return f"the die chose {nd.name(self.roll)}: place your stone there"
            return f"all stones are placed first: place yours on {nd.name(self.roll)}"
        if action.kind == PLACE:
            return "every stone is placed: move a stone, line or shape"
        if action.kind != MOVE or any(self.owner(s) != self.to_move for s in action.sources):
            return None  # the base class names the missing or foreign stone
        occupied = self.occupied & ~sum(1 << s for s in action.sources)
        for t in action.targets:
            if occupied >> t & 1:
                return f"{nd.name(t)} is occupied"
        if len(action.sources) == 1:
            kinds = ", ".join(k.value for k in self.kinds)
            return f"{nd.name(action.source)} to {nd.name(action.target)} is not one move ({kinds})" + (
                "" if self.settings["easy"] else " nor a change of a line or shape"
            )
        if len(action.sources) not in BLOCK_SIZES or not self.space.is_contiguous(action.sources):
            return "a block move moves a line or shape: 2 or 3 of your stones on contiguous nodes"
        how = "via hyperspace" if self.settings["easy"] else "by interjection, excision or via hyperspace"
        return f"a line or shape moves in formation {how}, its foci unchanged, and this move does not"

    def _apply(self, action: Action) -> None:
        me = self.to_move
        mine = self.stones[me]
        for s in action.sources:
            mine &= ~(1 << s)
        for t in action.targets:
            mine |= 1 << t
        self.set_stones(me, mine)
        self.last = action.sources + action.targets
        if action.kind == PLACE:
            self.add_to("in_hand", me, -1)
        self._capture(action.targets)
        if self.phase == "place" and not any(self.in_hand):
            self.phase = "move"
            self.since = self.turn
        self.end_turn()
        if not self.over and self.phase == "move" and self.occupied.bit_count() < 4:
            self._finish_by_piles("fewer than four stones are left for a GRYB")

    def _capture(self, targets: tuple[Node, ...]) -> None:
        """Every GRYB the stones just placed or moved complete goes whole to the mover's capture pile."""
        occupied = self.occupied
        found, taken = [], 0
        for t in targets:
            for g in self.grybs_index.completed_by(t, occupied):
                if g not in found:
                    found.append(g)
                    taken |= g.mask
        if not found:
            return
        me = self.to_move
        self.grybs = tuple(found)
        for player in range(self.players):
            lost = self.stones[player] & taken
            if lost:
                self.set_stones(player, self.stones[player] & ~lost)
                self.add_to("own_captured" if player == me else "captured", me, lost.bit_count())
        self.scores = self.captured
        self.since = self.turn

    def end_turn(self) -> None:
        super().end_turn()
        # No GRYB for `stall` turns each: the last pieces are conceded.
        if (
            not self.over
            and self.phase == "move"
            and self.turn - self.since > self.settings["stall"] * self.players
        ):
            self._finish_by_piles(f"{self.settings['stall']} turns each without a GRYB")

    def _finish_by_piles(self, why: str) -> None:
        """The bigger capture pile wins; equal piles are a draw, for ``why`` the game ended."""
        best = max(self.captured)
        winners = [p for p, c in enumerate(self.captured) if c == best]
        self.finish(
            winners if len(winners) == 1 else (),
            self.captured,
            draw=f"{why}, and the capture piles are equal",
        )
