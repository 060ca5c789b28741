"""Interrupt and its variant Smack Down (000 "Interrupt", "Smack Down"): build unbroken chains down from the top.

Each turn a player rolls the colour die and places a stone on that colour: on the top quadrangle, or under
one of their own stones joined to the top quadrangle by an unbroken chain of their own stones. A stone may
move sideways only to capture an opponent's stone on the colour rolled, interrupting the chain it was part
of. The first to cover a quadrangle with their own stones scores it (1, 2, 4, 8 by level).

Smack Down: a player who rolls the colour of a top node held by the opponent may enter there and push the
opponent's stone down to a node under it of their choice; a stone it lands on is pushed on down the same way
(one ``FROM-TO`` action per step, the mover's stone entering at the top), and one pushed below the bottom
level leaves the board. Sideways captures are not allowed on the top level.
Rules decisions: docs/rules/interrupt.md, docs/rules/smack-down.md.
"""

from __future__ import annotations

from .. import node as nd
from ..action import MOVE, PLACE, Action
from ..engine import COLOUR_DIE, COLOUR_NAMES, TURN_LIMIT, Game, Option, register
from ..node import HEAD, Bitboard, Node
from ..space import MoveKind, bits

DEPTH = Option("depth", 4, "board depth: 4 standard, 5 Giant GRYB, 6 Super Giant GRYB", minimum=2, maximum=6)
STONES = Option("stones", 30, "stones each player has (001: 'about twenty to thirty tokens of each')",
                minimum=4, maximum=400)


def _under(node: Node) -> Bitboard:
    """The quadrangle directly under ``node`` (its four children)."""
    return 0b1111 << (4 * node + 1)


@register
class Interrupt(Game):
    """Interrupt; :class:`SmackDown` sets ``smack`` to add the push and forbid top-level captures."""

    id = "interrupt"
    name = "Interrupt"
    source = "000 Interrupt"
    summary = ("Roll the colour die and place a stone on that colour: on the top quadrangle or under an unbroken "
               "chain of your own stones. Capture sideways to interrupt the opponent's chain. First to cover a "
               "quadrangle wins its points.")
    die = COLOUR_DIE
    options = (DEPTH, STONES, TURN_LIMIT)
    smack = False
    # pushing: Smack Down only, the node a pushed stone has landed on while its occupant waits to be pushed
    # on down (the mover's next action); None otherwise.
    extra_fields = ("pushing",)

    def setup(self) -> None:
        self.in_hand = (self.settings["stones"],) * self.players
        self.pushing = None

    def evaluate(self) -> list[float]:
        return self.quadrangle_race()

    # -- geometry of the chains -----------------------------------------------------------------------

    def _chained(self, player: int) -> Bitboard:
        """The player's stones joined to the top quadrangle by an unbroken chain of their own stones."""
        board = self.space
        mine = self.stones[player]
        chained = level = mine & board.top
        while level:
            below = 0
            for p in bits(level & ~board.bottom):
                below |= _under(p)
            level = below & mine
            chained |= level
        return chained

    def _room(self, player: int) -> Bitboard:
        """Free nodes (any colour) the player may place on: the top quadrangle and under their chains."""
        board = self.space
        room = board.top
        for p in bits(self._chained(player) & ~board.bottom):
            room |= _under(p)
        return room & ~self.occupied

    def _capturers(self, mine: Bitboard) -> Bitboard:
        """The stones that may move sideways (Smack Down: none on the top level)."""
        return mine & ~self.space.top if self.smack else mine

    def _push_targets(self, node: Node) -> Bitboard:
        """Where the stone pushed from ``node`` may go: any node under it but the mover's own stones."""
        return _under(node) & self.space.all & ~self.stones[self.to_move]

    # -- moves ----------------------------------------------------------------------------------------

    def _actions(self) -> list[Action]:
        if self.pushing is not None:
            return [Action.move(self.pushing, t) for t in bits(self._push_targets(self.pushing))]
        board = self.space
        me = self.to_move
        mine = self.stones[me]
        on_colour = board.focus_masks[self.roll]
        theirs = on_colour & self.occupied & ~mine
        actions = []
        if self.in_hand[me]:
            actions.extend(Action.place(t) for t in bits(self._room(me) & on_colour))
            if self.smack:
                for t in bits(theirs & board.top):
                    actions.extend(Action.move(t, c) for c in bits(self._push_targets(t)))
        if theirs:
            sideways = board.target_mask
            for s in bits(self._capturers(mine)):
                for t in bits(sideways(MoveKind.SIDEWAYS, s) & theirs):
                    actions.append(Action.move(s, t))
        return actions

    def deadlocked(self) -> bool:
        # Checked after a pass: nobody can place, push or capture whatever the die shows, now or later
        # (nothing changes the board until someone can), so the game is a draw at once.
        board = self.space
        occupied = self.occupied
        for player, mine in enumerate(self.stones):
            theirs = occupied & ~mine
            if self.in_hand[player] and (self._room(player) or (self.smack and board.top & theirs)):
                return False
            for s in bits(self._capturers(mine)):
                if board.target_mask(MoveKind.SIDEWAYS, s) & theirs:
                    return False
        return True

    def _reason(self, action: Action) -> str | None:
        me = self.to_move
        if self.pushing is not None:
            where = nd.name(self.pushing)
            if action.kind != MOVE or action.sources != (self.pushing,):
                return f"finish the push: the stone on {where} goes down to a node under {where}"
            return self._push_reason(self.pushing, action.target)
        if action.kind == PLACE:
            t = action.target
            if nd.focus(t) != self.roll:
                return None  # the base class says "you rolled Y ..."
            if self.occupied >> t & 1:
                if self.smack and nd.LEVEL[t] == 1 and self.owner(t) != me:
                    return (f"{nd.name(t)} is occupied: push its stone down by moving it to a node under it "
                            f"(e.g. {nd.name(t)}-{nd.name(nd.children(t)[0])})")
                return None  # "RG is occupied"
            if not self.in_hand[me]:
                return "you have no stones left to place"
            broken = [p for p in self._ancestors(t) if not self.stones[me] >> p & 1]
            if broken:
                return (f"you may only build under an unbroken chain of your own stones: the chain to "
                        f"{nd.name(t)} is broken at {nd.name(broken[0])}")
            return None
        if action.kind != MOVE:
            return None
        if len(action.sources) != 1:
            return "one stone moves at a time"
        s, t = action.source, action.target
        owner = self.owner(s)
        if self.smack and owner is not None and owner != me and nd.LEVEL[s] == 1:
            if nd.focus(s) != self.roll:
                return (f"you rolled {self.roll}: only a stone on the {COLOUR_NAMES[self.roll]} top node "
                        f"can be pushed down")
            if not self.in_hand[me]:
                return "you have no stones left to take its place"
            return self._push_reason(s, t)
        if owner != me:
            return None  # the base class names the missing or foreign stone
        if not self.space.target_mask(MoveKind.SIDEWAYS, s) >> t & 1:
            return (f"{nd.name(t)} is not beside {nd.name(s)} on its quadrangle: stones move only sideways, "
                    f"to capture; new stones are placed")
        if self.smack and nd.LEVEL[s] == 1:
            return "sideways moves are not permitted on the top level"
        if nd.focus(t) != self.roll:
            return None  # "you rolled ..."
        if self.owner(t) is None:
            return "sideways moves are only to capture an opponent's stone"
        if self.owner(t) == me:
            return f"{nd.name(t)} is your own stone"
        return None

    def _push_reason(self, source: Node, target: Node) -> str | None:
        if nd.parent(target) != source:
            return f"a pushed stone goes down to one of the four nodes under {nd.name(source)}"
        if self.owner(target) == self.to_move:
            return f"{nd.name(target)} is your own stone: a push goes onto a free node or an opponent's stone"
        return None

    @staticmethod
    def _ancestors(node: Node) -> list[Node]:
        """The nodes above ``node`` from the top level down (the head node excluded)."""
        line = []
        up = nd.parent(node)
        while up:
            line.append(up)
            up = nd.parent(up)
        return line[::-1]

    # -- applying -------------------------------------------------------------------------------------

    def _apply(self, action: Action) -> None:
        me = self.to_move
        t = action.target
        self.last = action.sources + action.targets
        if action.kind == PLACE:
            self.add_to("in_hand", me, -1)
            self.set_stones(me, self.stones[me] | 1 << t)
            self._after(self.grybs_index.completed_by(t, self.stones[me], quadrangle_only=True), ())
            return
        s = action.source
        owner = self.owner(s)
        if self.pushing is not None:
            self._push_down(owner, t)  # the stone under the pushed one goes down in turn
            return
        if owner != me:
            # Smack Down: the mover enters on the top node and pushes the opponent's stone down.
            self.add_to("in_hand", me, -1)
            self.set_stones(me, self.stones[me] | 1 << s)
            self.set_stones(owner, self.stones[owner] & ~(1 << s))
            self._push_down(owner, t)
            return
        victim = self.owner(t)
        # A sideways capture: the captured stone goes back to its owner's supply.
        self.set_stones(victim, self.stones[victim] & ~(1 << t))
        self.add_to("in_hand", victim, 1)
        self.add_to("captured", me, 1)
        self.set_stones(me, self.stones[me] & ~(1 << s) | 1 << t)
        self._after(self.grybs_index.completed_by(t, self.stones[me], quadrangle_only=True), ())

    def _push_down(self, victim: int, t: Node) -> None:
        """A stone of ``victim`` lands on ``t``: free, it stays; on another of their stones, that one is
        pushed next (off the board from the bottom level)."""
        me = self.to_move
        theirs = self.stones[victim]
        if not theirs >> t & 1:
            self.pushing = None
            self.set_stones(victim, theirs | 1 << t)
            landed = self.grybs_index.completed_by(t, self.stones[victim], quadrangle_only=True)
        elif nd.LEVEL[t] == self.space.depth:
            self.pushing = None  # the stone under it is pushed off the board, back to its owner's supply
            self.add_to("in_hand", victim, 1)
            self.add_to("captured", me, 1)
            landed = []
        else:
            self.pushing = t
            return
        # The mover's new stone is on the top quadrangle: it can only have completed that one.
        mine = [self.grybs_index.quadrangle(HEAD)] if not self.space.top & ~self.stones[me] else []
        self._after(mine, landed, victim)

    def _after(self, mine: list, theirs: list, victim: int | None = None) -> None:
        """End of a move: the mover's GRYB wins; failing that, one the opponent's pushed stone made."""
        for found, player in ((mine, self.to_move), (theirs, victim)):
            if found:
                self.grybs = tuple(found)
                points = [0] * self.players
                points[player] = max(self.gryb_points(g) for g in found)
                self.finish((player,), points)
                return
        self.end_turn()


@register
class SmackDown(Interrupt):
    id = "smack-down"
    name = "Smack Down"
    source = "000 Smack Down (a variant of Interrupt)"
    summary = ("Interrupt, but rolling the colour of a top node the opponent holds lets you enter there and push "
               "their stone down (and any of theirs it lands on, off the bottom). No sideways moves on the top "
               "level.")
    smack = True
