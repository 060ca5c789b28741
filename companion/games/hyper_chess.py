"""Hyper-Chess (000 "Chess Variant: Hyper-Chess"): chess on the GRYB game space.

Every reach is a table per node built once per board. Every attack but the Queen's double move is a fixed
step nothing blocks, so legal moves come from bit operations, no move tried (``_candidates``). Rules
decisions and the computer player: docs/rules/hyper-chess.md.
"""

from __future__ import annotations

import math
from functools import cache, cached_property

from companion.games.engine import TURN_LIMIT, Game, Option, register
from companion.rules import node as nd
from companion.rules.action import MOVE, PLACE, REMOVE, Action
from companion.rules.node import Bitboard, Node
from companion.rules.space import GameSpace, MoveKind, bits, space

KING, QUEEN, ROOK, BISHOP, KNIGHT, PAWN = range(6)
KIND_NAMES = ("king", "queen", "rook", "bishop", "knight", "pawn")
SIDE_NAMES = ("blue", "red")

# The chart of starting nodes (000), per kind in the order above.
START = (
    {
        KING: ("BBBB",),
        QUEEN: ("BBYB",),
        KNIGHT: ("BBGB",),
        ROOK: ("BYBB",),
        BISHOP: ("BGBB",),
        PAWN: ("BBB", "BBY", "BBG", "BYB", "BGB"),
    },
    {
        KING: ("RRRR",),
        QUEEN: ("RRGR",),
        KNIGHT: ("RRYR",),
        ROOK: ("RGRR",),
        BISHOP: ("RYRR",),
        PAWN: ("RRR", "RRG", "RRY", "RGR", "RYR"),
    },
)

HYPERSPACE = Option(
    "hyperspace",
    "limited",
    "lateral moves vary only the penultimate locus (limited, as "
    "the chart says) or any locus above the focus (full)",
    choices=("limited", "full"),
)
HEADLESS = Option("headless", False, "play without the head node (001 'headless': 340 nodes)")
FIRST = Option(
    "first",
    "blue",
    "who begins (000: 'Chose who begins'): blue (player 0) or red (player 1)",
    choices=("blue", "red"),
)
QUIET = Option(
    "quiet_turns",
    50,
    "a draw after this many turns each without a capture (the fifty-move rule)",
    minimum=10,
    maximum=1000,
)

# In pawns of chess, from the nodes each reaches (the Queen's double moves: about R+B+N).
VALUES = (0.0, 9.0, 3.0, 4.0, 4.0, 0.0)
# evaluate()'s weights, named where it unpacks them (mobility and room per square root of nodes); the last
# is the score difference that makes a 73 % chance.
WEIGHTS = (0.2, 0.2, 0.1, 0.7, 0.8, 0.25, 1.0, 0.2, 3.0)
# _hunt()'s weights, named where it unpacks them; the last halves the value above HUNT_FLOOR.
HUNT_WEIGHTS = (1.0, 0.5, 0.3, 2.0, 8.0)
HUNT_FLOOR = 0.7
CHECK_ORDER = 0.5  # action_order(): what a check adds to a move's rank
# Tables.queen_reach(): answers kept per board (docs/performance.md, "Hyper-Chess: legal moves by bit
# operations").
QUEEN_KEPT = 20_000
KNIGHT_MOVE = (
    "one up and two sideways, two sideways and one down, two up and one sideways, or one "
    "sideways and two down"
)
BISHOP_MOVE = "one up or down and one limited-hyperspace step, in either order"
ROOK_MOVE = "one step up, down, sideways or via limited hyperspace"


class Tables:
    """Every piece's reach from every node of one board (``reach``, on an empty board), and the reverse
    tables for finding checks. ``queen_via[n]``: each node the Queen may pass, with the nodes beyond it;
    ``queen_between[q * size + k]``: the nodes she may pass from ``q`` to ``k``."""

    def __init__(self, board: GameSpace, lateral: MoveKind):
        size = board.size
        mask = board.target_mask

        def table(kind: MoveKind) -> list[Bitboard]:
            return [mask(kind, n) for n in range(size)]

        def then(first: list[Bitboard], second: list[Bitboard]) -> list[Bitboard]:
            out = []
            for n in range(size):
                m = 0
                for a in bits(first[n]):
                    m |= second[a]
                out.append(m & ~(1 << n))
            return out

        up, down, side, lat = (
            table(MoveKind.UP),
            table(MoveKind.DOWN),
            table(MoveKind.SIDEWAYS),
            table(lateral),
        )
        opposite = then(side, side)  # two sideways steps: the opposite corner of the quadrangle
        steps = [up[n] | down[n] | side[n] | lat[n] for n in range(size)]
        diagonals = (then(up, lat), then(lat, up), then(down, lat), then(lat, down))
        bishop = [d0 | d1 | d2 | d3 for d0, d1, d2, d3 in zip(*diagonals)]
        knight = [
            a | b | c | d
            for a, b, c, d in zip(
                then(up, opposite),
                then(opposite, down),
                then(then(up, up), side),
                then(side, then(down, down)),
            )
        ]
        king = [steps[n] | bishop[n] for n in range(size)]
        via: list[dict[Node, Bitboard]] = [{} for _ in range(size)]
        between: dict[int, Bitboard] = {}
        for kind in (up, down, side, lat) + diagonals:  # self-similar: the same kind of move twice
            for n in board.nodes:
                for m in bits(kind[n]):
                    beyond = kind[m] & ~(1 << n)
                    if beyond:
                        via[n][m] = via[n].get(m, 0) | beyond
                        for k in bits(beyond):
                            between[n * size + k] = between.get(n * size + k, 0) | 1 << m
        queen_double = []
        for n in range(size):
            m = 0
            for beyond in via[n].values():
                m |= beyond
            queen_double.append(m & ~king[n])
        self.size = size
        self.steps = tuple(steps)
        self.bishop = tuple(bishop)
        self.knight = tuple(knight)
        self.king = tuple(king)
        self.queen_via = tuple(tuple((1 << m, beyond) for m, beyond in sorted(v.items())) for v in via)
        self.queen_between = between
        queen = [king[n] | queen_double[n] for n in range(size)]
        self.reach = (self.king, tuple(queen), self.steps, self.bishop, self.knight, self.steps)
        # Per kind and node, every (target bit, target, move) on an empty board.
        self.moves = tuple(
            tuple(tuple((1 << t, t, Action.move(n, t)) for t in bits(forward[n])) for n in range(size))
            for forward in self.reach
        )

        def reverse(forward) -> tuple[Bitboard, ...]:
            out = [0] * size
            for n in range(size):
                for t in bits(forward[n]):
                    out[t] |= 1 << n
            return tuple(out)

        self._board = board
        self._queen_reach: dict[tuple[Node, Bitboard], Bitboard] = {}
        # reach_into[kind][k]: where a piece of that kind reaches k from, on an empty board.
        self.reach_into = tuple(reverse(forward) for forward in self.reach)
        # One-step attackers; the king's and queen's single moves are the same table.
        into = self.reach_into
        self.attackers = (into[KING], into[KING], into[ROOK], into[BISHOP], into[KNIGHT])

    def queen_reach(self, s: Node, occupied: Bitboard) -> Bitboard:
        """The Queen's reach from ``s``, kept by her occupied neighbours (a search asks again and again)."""
        key = (s, occupied & self.king[s])
        found = self._queen_reach.get(key)
        if found is None:
            found = self.king[s]
            for middle, beyond in self.queen_via[s]:
                if not middle & occupied:
                    found |= beyond
            if len(self._queen_reach) >= QUEEN_KEPT:
                self._queen_reach.clear()
            self._queen_reach[key] = found
        return found

    @cached_property
    def distance(self) -> tuple[bytes, ...]:
        """King-move distance ``distance[a][b]`` between any two nodes (for the hunt), built on first use."""
        board, king, size = self._board, self.king, self.size
        rows = []
        for start in range(size):
            row = bytearray([255]) * size
            if board.all >> start & 1:
                row[start] = 0
                reached, frontier, d = 1 << start, 1 << start, 0
                while frontier:
                    d += 1
                    grown = 0
                    for a in bits(frontier):
                        grown |= king[a]
                    frontier = grown & ~reached
                    reached |= frontier
                    for b in bits(frontier):
                        row[b] = d
            rows.append(bytes(row))
        return tuple(rows)


@cache
def tables(board: GameSpace, lateral: MoveKind) -> Tables:
    return Tables(board, lateral)


def _armed(masks: tuple[Bitboard, ...]) -> bool:
    """Whether a side still has a piece that can give check."""
    return bool(masks[QUEEN] | masks[ROOK] | masks[BISHOP] | masks[KNIGHT])


def _low(mask: Bitboard) -> Node:
    return (mask & -mask).bit_length() - 1


def _lost(castle: tuple[bool, bool], player: int) -> tuple[bool, bool]:
    return (False, castle[1]) if player == 0 else (castle[0], False)


@register
class HyperChess(Game):
    id = "hyper-chess"
    # Shorter playouts (the evaluation counts hanging pieces) and a capped medium space the levels
    # (docs/performance.md, "Levels per game").
    computer_levels = {"medium": {"iterations": 180, "playout": 4}, "hard": {"playout": 2}}
    name = "Hyper-Chess"
    source = "000 Chess Variant: Hyper-Chess"
    summary = (
        "Chess on the GRYB board: King, Queen, Rook, Bishop, Knight and five Pawns each, moving by "
        "up, down, sideways and limited-hyperspace steps. Pawns are diplomats: they block but never "
        "capture or get captured. Checkmate the opponent's King to win."
    )
    options = (HYPERSPACE, HEADLESS, FIRST, QUIET, TURN_LIMIT)
    hand = None  # every piece starts on the board
    score = None  # played win or lose: a win scores 1
    # pieces: per player, a bitboard per kind (KING .. PAWN); stones[p] is their union.
    # castle: per player, whether King and Rook are both unmoved; quiet: turns since the last capture;
    # seen: hashes of the positions since the last capture or castling (for repetition);
    # check: whether the side to move is in check.
    extra_fields = ("pieces", "castle", "quiet", "seen", "check")

    def make_space(self) -> GameSpace:
        return space(nd.STANDARD_DEPTH, self.settings["headless"])

    _kept = None  # the last answer of _candidates, with the position it was asked in

    def setup(self) -> None:
        lateral = (
            MoveKind.HYPERSPACE if self.settings["hyperspace"] == "full" else MoveKind.LIMITED_HYPERSPACE
        )
        self.t = tables(self.space, lateral)
        pieces = []
        for side in START:
            masks = [0] * 6
            for kind, names in side.items():
                for name in names:
                    masks[kind] |= 1 << self.space.parse(name)
            pieces.append(tuple(masks))
        self.pieces = tuple(pieces)
        self.stones = tuple(self._union(p) for p in self.pieces)
        self.castle = (True, True)
        self.quiet = 0
        self.to_move = 0 if self.settings["first"] == "blue" else 1
        self.seen = (self._position_hash(),)
        self.check = False

    def set_position(self, placement: dict[str, str], to_move: int = 0) -> None:
        """Start from another position (puzzles, tests): ``placement`` maps node names to K Q R B N P,
        capitals blue (player 0), small red; castling stays where King and Rook stand charted. Only before
        the first move; a bad position raises ValueError, saying why, and changes nothing."""
        if self.history:
            raise ValueError("a position can be set only before the first move")
        if to_move not in (0, 1):
            raise ValueError(f"to_move is 0 (blue) or 1 (red), not {to_move!r}")
        masks = [[0] * 6, [0] * 6]
        for name, letter in placement.items():
            n = self.space.parse(name)
            if not isinstance(letter, str) or len(letter) != 1 or letter.upper() not in "KQRBNP":
                raise ValueError(
                    f"{name}: a piece is one of K Q R B N P (capitals blue, small red), not {letter!r}"
                )
            player = 0 if letter.isupper() else 1
            masks[player]["KQRBNP".index(letter.upper())] |= 1 << n
        for player, side in enumerate(masks):
            for kind in (KING, QUEEN, ROOK, BISHOP, KNIGHT):
                count = side[kind].bit_count()
                if count > 1 or (kind == KING and count != 1):
                    raise ValueError(
                        f"{SIDE_NAMES[player]} needs {'exactly' if kind == KING else 'at most'} "
                        f"one {KIND_NAMES[kind]}, not {count}"
                    )
        pieces = tuple(tuple(side) for side in masks)
        occupied = self._union(pieces[0]) | self._union(pieces[1])
        waiting = 1 - to_move
        if self._attacked(_low(pieces[waiting][KING]), pieces[to_move], occupied):
            raise ValueError(f"{SIDE_NAMES[waiting]} is in check but it is {SIDE_NAMES[to_move]}'s move")
        start = (
            [self.space.parse(START[p][KING][0]) for p in (0, 1)],
            [self.space.parse(START[p][ROOK][0]) for p in (0, 1)],
        )
        before = self._snapshot()
        self.pieces = pieces
        self.stones = tuple(self._union(p) for p in pieces)
        self.castle = tuple(
            bool(pieces[p][KING] >> start[0][p] & 1 and pieces[p][ROOK] >> start[1][p] & 1) for p in (0, 1)
        )
        self.to_move = to_move
        self.quiet = 0
        self.seen = (self._position_hash(),)
        self.check = self._attacked(_low(pieces[to_move][KING]), pieces[waiting], occupied)
        if not self._any_legal(to_move):
            how = "checkmated" if self.check else "stalemated"
            self._restore(before)
            raise ValueError(f"{SIDE_NAMES[to_move]} is already {how}")

    @staticmethod
    def _union(masks: tuple[Bitboard, ...]) -> Bitboard:
        k, q, r, b, n, p = masks
        return k | q | r | b | n | p

    def _position_hash(self) -> int:
        return hash((self.pieces, self.to_move, self.castle))

    def _attacked(self, k: Node, theirs: tuple[Bitboard, ...], occupied: Bitboard) -> bool:
        """Whether the pieces ``theirs`` could capture on ``k`` with ``occupied`` the occupied nodes."""
        att = self.t.attackers
        if (
            att[KING][k] & theirs[KING]
            or att[ROOK][k] & theirs[ROOK]
            or att[BISHOP][k] & theirs[BISHOP]
            or att[KNIGHT][k] & theirs[KNIGHT]
        ):
            return True
        queen = theirs[QUEEN]
        if queen:
            if att[QUEEN][k] & queen:
                return True
            between = self.t.queen_between.get(_low(queen) * self.t.size + k)
            if between and between & ~occupied:
                return True
        return False

    def _checkers(self, player: int) -> list[Node]:
        """The opponent's pieces giving check to ``player``'s King."""
        mine, theirs = self.pieces[player], self.pieces[1 - player]
        k = _low(mine[KING])
        occupied = self.occupied
        return [
            s
            for kind in (KING, QUEEN, ROOK, BISHOP, KNIGHT)
            for s in bits(theirs[kind])
            if self._reach(kind, s, occupied) >> k & 1
        ]

    def _reach(self, kind: int, s: Node, occupied: Bitboard) -> Bitboard:
        """Nodes a piece of ``kind`` on ``s`` reaches now, whoever stands there."""
        if kind != QUEEN:
            return self.t.reach[kind][s]
        return self.t.queen_reach(s, occupied)

    def _attack_map(self, masks: tuple[Bitboard, ...], occupied: Bitboard) -> Bitboard:
        m = 0
        for kind in (KING, QUEEN, ROOK, BISHOP, KNIGHT):
            for s in bits(masks[kind]):
                m |= self._reach(kind, s, occupied)
        return m

    def _candidates(self, player: int) -> tuple[list[tuple[Node, int, Bitboard]], bool]:
        """Every piece of ``player`` that can move with its legal targets, and whether ``player`` is in check
        (docs/rules/hyper-chess.md, "The computer player"). Kept for the position, known by its ``pieces``
        and ``castle`` objects: a move asks, then a playout's next ply."""
        kept = self._kept
        if kept is not None and kept[0] is self.pieces and kept[1] is self.castle and kept[2] == player:
            return kept[3]
        t = self.t
        mine, theirs = self.pieces[player], self.pieces[1 - player]
        own = self.stones[player]
        occupied = own | self.stones[1 - player]
        free = ~occupied
        barred = own | theirs[PAWN] | theirs[KING]  # never a target: own pieces, diplomats, the King
        king_bit = mine[KING]
        k = _low(king_bit)
        att = t.attackers
        checkers = (
            att[KING][k] & theirs[KING]
            | att[ROOK][k] & theirs[ROOK]
            | att[BISHOP][k] & theirs[BISHOP]
            | att[KNIGHT][k] & theirs[KNIGHT]
        )
        allowed = -1  # the targets a piece other than the King may take, as far as the fixed steps go
        if checkers:
            allowed = 0 if checkers & (checkers - 1) else checkers  # two checkers: only the King moves
        queen = theirs[QUEEN]
        q = _low(queen)  # -1 without her
        between = 0  # the nodes the Queen's double move to the King may pass
        in_check = bool(checkers)
        if queen:
            if att[QUEEN][k] & queen:
                allowed &= queen
                in_check = True
            else:
                between = t.queen_between.get(q * t.size + k, 0)
                if between & free:
                    in_check = True
        # The King: every node the opponent attacks once the King has left his.
        reach = t.reach
        attacked = 0
        for kind in (KING, ROOK, BISHOP, KNIGHT):
            m = theirs[kind]
            while m:
                low = m & -m
                m ^= low
                attacked |= reach[kind][low.bit_length() - 1]
        if queen:
            attacked |= t.queen_reach(q, occupied & ~king_bit)
        king = t.king[k] & ~barred & ~attacked
        rook = mine[ROOK]
        if rook and self.castle[player] and not in_check:  # castling: the same nodes stay occupied
            if not self._attacked(_low(rook), theirs, occupied):
                king |= rook
        found = [(k, KING, king)] if king else []
        for kind in (QUEEN, ROOK, BISHOP, KNIGHT, PAWN):
            pieces = mine[kind]
            while pieces:
                low = pieces & -pieces
                pieces ^= low
                s = low.bit_length() - 1
                if kind == QUEEN:
                    targets = t.queen_reach(s, occupied) & ~barred & allowed
                elif kind == PAWN:
                    targets = t.steps[s] & free & allowed
                else:
                    targets = reach[kind][s] & ~barred & allowed
                if between and targets:
                    gap = between & (free | low)  # free once this piece has left
                    if gap:  # she reaches the King unless taken, or her one free node is filled
                        targets &= queen | (0 if gap & (gap - 1) else gap)
                if targets:
                    found.append((s, kind, targets))
        answer = (found, in_check)
        self._kept = (self.pieces, self.castle, player, answer)
        return answer

    def _legal(self, player: int) -> list[Action]:
        found, _ = self._candidates(player)
        table = self.t.moves
        moves = []
        for s, kind, reach in found:
            if kind == KING:  # castling's target, the Rook's node, is not one of his steps
                moves += [Action.move(s, t) for t in bits(reach)]
            else:
                moves += [action for bit, _, action in table[kind][s] if bit & reach]
        return moves

    def _any_legal(self, player: int) -> bool:
        return bool(self._candidates(player)[0])

    def _actions(self) -> list[Action]:
        return self._legal(self.to_move)

    def random_action(self, rng) -> Action:
        """A uniformly random legal move: the r-th of all pieces' targets."""
        if self.over:
            return super().random_action(rng)
        found, _ = self._candidates(self.to_move)
        counts = [reach.bit_count() for _, _, reach in found]
        r = rng.randrange(sum(counts))
        i = 0
        while r >= counts[i]:
            r -= counts[i]
            i += 1
        s, _, reach = found[i]
        for target in bits(reach):
            if not r:
                return Action.move(s, target)
            r -= 1
        raise AssertionError("unreachable: r is below the count of targets")

    def kind_at(self, node: Node) -> tuple[int, int] | None:
        """(player, kind) of the piece on ``node``, or None."""
        for player, masks in enumerate(self.pieces):
            for kind, m in enumerate(masks):
                if m >> node & 1:
                    return player, kind
        return None

    def stone_kind(self, node: Node) -> str:
        found = self.kind_at(node)
        return KIND_NAMES[found[1]] if found else "stone"

    def _apply(self, action: Action) -> None:
        me, you = self.to_move, 1 - self.to_move
        s, target = action.source, action.target
        sbit, tbit = 1 << s, 1 << target
        mine, theirs = list(self.pieces[me]), self.pieces[you]
        stones = list(self.stones)
        for kind in range(6):
            if mine[kind] & sbit:
                break
        castle = self.castle
        irreversible = False
        if kind == KING and mine[ROOK] & tbit:  # castling: switch places (the same nodes stay occupied)
            mine[KING] = tbit
            mine[ROOK] = sbit
            irreversible = True
        else:
            mine[kind] ^= sbit | tbit
            stones[me] ^= sbit | tbit
        if castle[me] and (kind == KING or kind == ROOK):
            castle = _lost(castle, me)
        captured = stones[you] & tbit
        if captured:
            theirs = tuple(m & ~tbit for m in theirs)
            stones[you] ^= tbit
            self.add_to("captured", me, 1)
            if castle[you] and not theirs[ROOK]:
                castle = _lost(castle, you)
        self.pieces = (tuple(mine), theirs) if me == 0 else (theirs, tuple(mine))
        self.stones = tuple(stones)
        self.castle = castle
        self.quiet = 0 if captured else self.quiet + 1
        self.last = (s, target)
        found, self.check = self._candidates(you)
        replies = bool(found)
        if not replies and self.check:  # checkmate: the King cannot escape capture
            self.finish((me,))
            return
        self.end_turn()
        key = self._position_hash()
        self.seen = (key,) if captured or irreversible else self.seen + (key,)
        if self.over:  # the turn limit
            return
        if not replies:
            self.finish((), draw="stalemate")
        elif self.seen.count(key) >= 3:
            self.finish((), draw="threefold repetition")
        elif self.quiet >= self.settings["quiet_turns"] * 2:
            self.finish((), draw=f"{self.settings['quiet_turns']} turns each without a capture")
        elif self._bare_kings():
            self.finish((), draw="neither side has a piece that can give check")

    def _bare_kings(self) -> bool:
        return not any(map(_armed, self.pieces))

    def evaluate(self) -> list[float]:
        """Material, mobility and King safety as each side's chance of winning; the hunt (``_hunt``) once
        only one side can give check."""
        if self.over:
            return self.outcome()
        occupied = self.occupied
        t = self.t
        pieces = self.pieces
        armed = _armed(pieces[0])
        if armed != _armed(pieces[1]):
            return self._hunt(0 if armed else 1, occupied)
        w_mobility, w_hunt, w_hang_to_move, w_hang, w_room, w_pressure, w_check, w_tempo, w_scale = WEIGHTS
        attacks = (self._attack_map(pieces[0], occupied), self._attack_map(pieces[1], occupied))
        kings = (_low(pieces[0][KING]), _low(pieces[1][KING]))
        score = [0.0, 0.0]
        for p in (0, 1):
            mine, theirs = pieces[p], pieces[1 - p]
            mine_attacks, their_attacks = attacks[p], attacks[1 - p]
            barred = self.stones[p] | theirs[PAWN]
            target_king = kings[1 - p]
            distance = t.distance[target_king]
            value = 0.0
            for kind in (QUEEN, ROOK, BISHOP, KNIGHT):
                m = mine[kind]
                if not m:
                    continue
                s = _low(m)
                worth = VALUES[kind]
                # Mobility, and closeness to the opponent's King (the hunt).
                value += worth + w_mobility * math.sqrt(
                    (self._reach(kind, s, occupied) & ~barred).bit_count()
                )
                value -= w_hunt * distance[s]
                if their_attacks >> s & 1 and not mine_attacks >> s & 1:
                    # Hanging: as good as lost when the opponent is to move.
                    value -= worth * (w_hang_to_move if p == self.to_move else w_hang)
            # King safety: room to escape, the opponent's hold on the nodes round him, check.
            k = kings[p]
            around = t.king[k]
            room = (around & ~self.stones[p] & ~theirs[PAWN] & ~their_attacks).bit_count()
            value += w_room * math.sqrt(room) - w_pressure * (around & their_attacks).bit_count()
            if their_attacks >> k & 1:
                value -= w_check
            score[p] = value
        score[self.to_move] += w_tempo  # the side to move gets its threats in first
        p0 = 1.0 / (1.0 + math.exp((score[1] - score[0]) / w_scale))
        return [p0, 1.0 - p0]

    def action_order(self, actions: list[Action]) -> list[float]:
        """The search's order (companion/ai.py): captures, escapes and checks first, a piece stepping where
        it hangs last (docs/rules/hyper-chess.md, "The computer player")."""
        me = self.to_move
        mine, theirs = self.pieces[me], self.pieces[1 - me]
        occupied = self.occupied
        their_attacks = self._attack_map(theirs, occupied)
        my_attacks = self._attack_map(mine, occupied)
        king = _low(theirs[KING])
        reach_into = self.t.reach_into
        # Per piece: its value, what leaving its node earns (it hangs there), the nodes it would check from.
        sources = {}
        for kind in (KING, QUEEN, ROOK, BISHOP, KNIGHT, PAWN):
            worth = VALUES[kind]
            checks = 0 if kind == KING or kind == PAWN else reach_into[kind][king]
            for s in bits(mine[kind]):
                sources[s] = (
                    worth,
                    worth if their_attacks >> s & 1 and not my_attacks >> s & 1 else 0.0,
                    checks,
                )
        prey = {s: VALUES[kind] for kind in (QUEEN, ROOK, BISHOP, KNIGHT) for s in bits(theirs[kind])}
        out = []
        for action in actions:
            target = action.target
            worth, escape, checks = sources[action.source]
            bit = 1 << target
            score = prey.get(target, 0.0) + (-worth if their_attacks & bit else escape)
            if checks & bit:
                score += CHECK_ORDER
            out.append(score)
        return out

    def _hunt(self, hunter: int, occupied: Bitboard) -> list[float]:
        """The hunter's chance of mating a King left with Pawns only, from HUNT_FLOOR (no progress) towards
        1 (docs/rules/hyper-chess.md, "The computer player")."""
        t = self.t
        pieces = self.pieces
        prey = 1 - hunter
        k = _low(pieces[prey][KING])
        attacks = self._attack_map(pieces[hunter], occupied)
        open_nodes = self.space.all & ~(self.stones[prey] | pieces[hunter][PAWN] | attacks)
        ring = t.king[k] & open_nodes
        beyond = 0
        for a in bits(ring):
            beyond |= t.king[a]
        beyond &= open_nodes & ~ring & ~(1 << k)
        w_room, w_beyond, w_near, w_check, w_scale = HUNT_WEIGHTS
        distance = t.distance[k]
        near = sum(
            distance[s] for kind in (KING, QUEEN, ROOK, BISHOP, KNIGHT) for s in bits(pieces[hunter][kind])
        )
        x = w_room * ring.bit_count() + w_beyond * beyond.bit_count() + w_near * near
        if attacks >> k & 1:
            x -= w_check
        value = HUNT_FLOOR + (1.0 - HUNT_FLOOR) * math.exp(-x / w_scale)
        out = [0.0, 0.0]
        out[hunter], out[prey] = value, 1.0 - value
        return out

    def _reason(self, action: Action) -> str | None:
        if action.kind in (PLACE, REMOVE):
            return "Hyper-Chess pieces only move: write FROM-TO, e.g. BBB-BB"
        if action.kind != MOVE:
            return None
        if len(action.sources) != 1:
            return "one piece moves at a time"
        s, target = action.source, action.target
        found = self.kind_at(s)
        if found is None or found[0] != self.to_move:
            return None  # the base class names the missing or foreign stone
        kind = found[1]
        piece = f"the {KIND_NAMES[kind]} on {nd.name(s)}"
        me = self.to_move
        mine = self.pieces[me]
        if s == target:
            return "a move must go somewhere else"
        if kind == KING and mine[ROOK] >> target & 1:
            if not self.castle[me]:
                return "you may castle only while your King and Rook have not moved"
            if self.check:
                return "you may not castle out of check"
            return f"castling would put your King in check on {nd.name(target)}"
        if not self.t.reach[kind][s] >> target & 1:
            how = {
                KING: f"{ROOK_MOVE}, or like a Bishop ({BISHOP_MOVE})",
                QUEEN: "like a Rook or a Bishop, once or twice the same way",
                ROOK: ROOK_MOVE,
                BISHOP: BISHOP_MOVE,
                KNIGHT: KNIGHT_MOVE,
                PAWN: ROOK_MOVE,
            }[kind]
            return f"{piece} moves {how}; {nd.name(target)} is not one such move away"
        there = self.kind_at(target)
        if there is not None:
            owner, victim = there
            if owner == me:
                return f"{nd.name(target)} is occupied by your own {KIND_NAMES[victim]}"
            if victim == PAWN:
                return f"the pawn on {nd.name(target)} is a diplomat: it cannot be captured"
            if kind == PAWN:
                return "a pawn is a diplomat: it cannot capture"
        if kind == QUEEN and not self._reach(QUEEN, s, self.occupied) >> target & 1:
            passes = self.t.queen_between.get(s * self.t.size + target, 0)
            names = " or ".join(nd.name(m) for m in bits(passes))
            blocked = "it is" if passes.bit_count() == 1 else "each is"
            return f"the queen's two moves to {nd.name(target)} pass {names}, and {blocked} occupied"
        if self.check:
            return "your King is in check: this move does not get him out of it"
        return "that would leave your King in check"

    def state_dict(self) -> dict:
        out = super().state_dict()
        out["check"] = self.check and not self.over
        out["castling"] = list(self.castle)
        return out
