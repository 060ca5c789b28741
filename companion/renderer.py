"""What the LEDs show: a pure function of the game, the table, the effects under way and the time.

``render(...)`` returns a :class:`Picture`: a colour per lit node and a row of status pixels. The
runtime hands it to the LED surface; the web page draws the same picture. Nothing here touches
hardware or reads a clock: the time is an argument, so animations are testable frame by frame.

The look, as players at the table want it:
- stones glow in their player's colour; the stone last moved glows brighter and its old node keeps a
  faint trail;
- the selected stone breathes, the nodes it may go to pulse softly in the mover's colour;
- chores (a stone to lift, put back or swap) blink fast until pressed;
- a computer player's move: its stone blinks in its colour until lifted, its target pulses from the start
  until the move is carried out;
- a hint: the suggested stone and target breathe pale green;
- an illegal press flashes that node red for a moment;
- a GRYB just formed: its four nodes blink gold for three seconds while the status pixels show its levels
  (which score, so its points, and whether it is integrated) and who formed it; then they stay gold until
  the next action;
- the die: a short tumble through G R Y B (under a second), then the result on the status pixels;
- the status pixels show whose turn it is; at the end, the winner's colour sweeps the board;
- a pairing code: its colours on the four top-level nodes, each with a white light beside it in the
  corner of its colour, for players who cannot tell the colours apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from . import node as nd
from .config import BOARD_COLOURS
from .engine import Game
from .node import Node
from .space import bits
from .table import LIFT, Table

RGB = tuple[int, int, int]
OFF: RGB = (0, 0, 0)
GOLD: RGB = (255, 190, 40)
ALARM: RGB = (255, 0, 0)
HINT: RGB = (120, 255, 120)  # a hint's stone and target breathe in pale green
WHITE: RGB = (255, 255, 255)  # beside a pairing code's colour, the corner that names it
MARKER: RGB = (70, 70, 70)  # a marker that is not a stone (Multiverse's conduits): faint white
STATUS_PIXELS = 8
DIE_SECONDS = 0.8
FLASH_SECONDS = 0.4
GRYB_SECONDS = 3.0


@dataclass
class Effects:
    """Time-stamped effects the runtime starts; the renderer draws them while they last."""

    flash: tuple[Node | None, float] | None = None  # an illegal press: node (or None) and when
    die_started: float | None = None  # when the die animation began
    gryb_started: float | None = None  # when the newest GRYB was formed
    ended: float | None = None  # when the game ended
    night: bool = False
    code: tuple[str, ...] | None = None  # a pairing code being shown, one colour per top-level node

    def busy(self, now: float) -> bool:
        """Whether something is still moving (the runtime keeps drawing frames while it is)."""
        return any(
            t is not None and now - t < span
            for t, span in (
                (self.flash[1] if self.flash else None, FLASH_SECONDS),
                (self.die_started, DIE_SECONDS),
                (self.gryb_started, GRYB_SECONDS),
                (self.ended, 4.0),
            )
        )


@dataclass
class Picture:
    nodes: dict[Node, RGB] = field(default_factory=dict)
    # What a pairing code lights (among ``nodes`` too): on the cloth whatever the game, a Giant one included.
    code: dict[Node, RGB] = field(default_factory=dict)
    status: list[RGB] = field(default_factory=lambda: [OFF] * STATUS_PIXELS)
    animating: bool = False

    def to_dict(self) -> dict:
        return {"nodes": {nd.name(n): "#%02x%02x%02x" % c for n, c in self.nodes.items()},
                "status": ["#%02x%02x%02x" % c for c in self.status]}


def scale(colour: RGB, factor: float) -> RGB:
    factor = max(0.0, min(1.0, factor))
    return (round(colour[0] * factor), round(colour[1] * factor), round(colour[2] * factor))


def pulse(now: float, period: float, low: float = 0.25) -> float:
    return low + (1 - low) * (0.5 + 0.5 * math.sin(2 * math.pi * now / period))


def blink(now: float, hz: float) -> bool:
    return int(now * hz * 2) % 2 == 0


def render(game: Game, table: Table, colours: list[RGB], effects: Effects, now: float) -> Picture:
    picture = Picture()
    lit = picture.nodes
    mover = game.to_move

    for n in bits(game.markers()):
        lit[n] = MARKER
    for player, mask in enumerate(game.shown_stones()):
        for n in bits(mask):
            lit[n] = scale(colours[player], 0.55)
    shown_last = game.shown_last()
    if shown_last:
        *trail, landed = shown_last
        owner = game.owner(landed)
        for n in trail:
            if game.owner(n) is None and owner is not None:
                lit[n] = scale(colours[owner], 0.08)
        if owner is not None:
            lit[landed] = colours[owner]

    # A GRYB the last action formed: its four nodes blink gold, then stay gold until the next action, so that
    # one whose stones lie apart (an integrated GRYB, which players do not see as one) is found on the cloth.
    formed = game.formed()
    flashing = bool(formed) and effects.gryb_started is not None and now - effects.gryb_started < GRYB_SECONDS
    if not flashing or blink(now, 2):
        for g in formed:
            for n in g.nodes:
                lit[n] = GOLD

    tumbling = effects.die_started is not None and now - effects.die_started < DIE_SECONDS
    lift, fill = table.proposed()
    for n in table.picks:
        lit[n] = scale(colours[mover], pulse(now, 1.2, 0.35))
    if not tumbling:  # the targets for a roll appear once the die has settled
        # A computer player's move pulses where it goes from the start, not only once its stone is lifted.
        for n in bits(table.targets() | fill):
            lit[n] = scale(colours[mover], 0.35 * pulse(now, 1.5, 0.2))
    for n in bits(lift):  # and its stones blink until they are lifted
        lit[n] = colours[mover] if blink(now, 3) else OFF
    if table.hint is not None:
        for n in table.hint.sources + table.hint.targets:
            lit[n] = scale(HINT, pulse(now, 1.0, 0.3))

    for chore in table.chores:
        who = chore.before if chore.kind == LIFT else chore.after
        lit[chore.node] = colours[who] if blink(now, 4) else OFF

    if effects.flash is not None and now - effects.flash[1] < FLASH_SECONDS and effects.flash[0] is not None:
        lit[effects.flash[0]] = ALARM

    if effects.code:
        picture.code = code_picture(effects.code)
        lit.update(picture.code)
    picture.status = _gryb_row(game, colours, formed, now) if flashing else _status(game, colours, effects, now)
    if game.over and game.winners and effects.ended is not None:
        _sweep(game, lit, colours[game.winners[0]], now - effects.ended)
    picture.animating = effects.busy(now) or bool(table.picks) or bool(table.chores) or bool(table.targets()) \
        or table.hint is not None
    return picture


def code_picture(code: tuple[str, ...]) -> dict[Node, RGB]:
    """A pairing code on the cloth. The four top-level nodes, read in the order G, R, Y, B (top-left,
    top-right, bottom-right, bottom-left), show its colours; and beside each, the small node of its
    quadrangle in the corner of that colour (G top-left, R top-right, Y bottom-right, B bottom-left, as on
    every quadrangle of the cloth) shines white, so that a player who cannot tell the colours apart reads
    the code from where the white lights are."""
    lit: dict[Node, RGB] = {}
    for n, letter in zip(nd.children(nd.HEAD), code):
        lit[n] = BOARD_COLOURS[letter]
        lit[nd.children(n)[nd.COLOURS.index(letter)]] = WHITE
    return lit


def _status(game: Game, colours: list[RGB], effects: Effects, now: float) -> list[RGB]:
    status = [OFF] * STATUS_PIXELS
    if game.over:
        fill = colours[game.winners[0]] if game.winners else (90, 90, 90)
        return [fill if blink(now, 1) else scale(fill, 0.3)] * STATUS_PIXELS
    turn = colours[game.to_move]
    for i in range(STATUS_PIXELS // 2):
        status[i] = turn
    if effects.die_started is not None and now - effects.die_started < DIE_SECONDS:
        tumble = "GRYB"[int((now - effects.die_started) * 12) % 4]
        shown = BOARD_COLOURS[tumble]
    elif game.last_roll in BOARD_COLOURS and (game.roll is not None or not game.is_chance):
        # A colour die's face; a node (GRYB Dice II) or a number (Grim Reaper's random life) is no colour.
        shown = BOARD_COLOURS[game.last_roll]
    elif game.is_chance:
        shown = scale(turn, pulse(now, 1.0, 0.1))  # waiting for ROLL
    else:
        shown = OFF
    for i in range(STATUS_PIXELS // 2, STATUS_PIXELS):
        status[i] = shown
    return status


def _gryb_row(game: Game, colours: list[RGB], formed: tuple, now: float) -> list[RGB]:
    """A GRYB just formed, on the status pixels while its nodes blink: a pixel a level of the board from the
    top, read as the manuals check a GRYB, column by column. A level where its four loci step round G-R-Y-B
    blinks gold with the nodes (it scores that level's points); a level where they keep one colour shows that
    colour; the levels below its own are dark. So a quadrangle GRYB shows where it is and one gold pixel at
    the end, and any other row is an integrated GRYB. The pixels after the board's levels show who formed
    it. Of several formed at once, the one worth most."""
    best = max(formed, key=game.gryb_points)
    loci = nd.loci(best.nodes[0])
    gold = GOLD if blink(now, 2) else OFF
    row = [colours[game.played()[-1][1]]] * STATUS_PIXELS
    for level in range(1, game.space.depth + 1):
        kept = BOARD_COLOURS[loci[level - 1]] if level <= best.level else OFF
        row[level - 1] = gold if level in best.levels else kept
    return row


def _sweep(game: Game, lit: dict[Node, RGB], colour: RGB, since: float) -> None:
    """The winner's colour washes over the board from the head node down, level by level."""
    reached = min(game.space.depth, int(since * 3))
    for n in game.space.nodes:
        if nd.level(n) <= reached and n not in lit:
            lit[n] = scale(colour, 0.2)
