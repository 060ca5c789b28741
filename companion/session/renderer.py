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
- the die: a short tumble through G R Y B (under a second), then the result on the status pixels; while
  it waits for ROLL, its pixels blink slowly in the colour of whose turn it is;
- the status pixels show whose turn it is; at the end, the winner's colour sweeps the board;
- a pairing code: its colours on the four top-level nodes, each with a white light beside it in the
  corner of its colour, for players who cannot tell the colours apart.

A picture says when it next changes (``Picture.redraw``), and the runtime draws again then: a blink at its
next half period, the targets' dim pulse at ``TARGET_FPS``, what breathes brightly at every frame the
runtime draws (two thirds of the LEDs' frame rate, leaving the rest to the frames presses cause). What
depends only on the position (stones, targets, chores ...) is worked out once per change and kept
(``_Scene``), so a waiting board costs each frame only the brightness of what moves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from companion.games.engine import Game
from companion.rules import node as nd
from companion.rules.node import Node
from companion.rules.space import bits
from companion.session.hands import LIFT, Hands
from companion.session.palette import BOARD_COLOURS

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
TUMBLE_HZ = 12  # faces the die shows a second while it tumbles
SWEEP_LEVELS_PER_SECOND = 3
TARGET_FPS = 20  # frames a second the targets' dim pulse is drawn at (the runtime's LEDs take up to leds.fps)


@dataclass
class Effects:
    """Time-stamped effects the runtime starts; the renderer draws them while they last."""

    flash: tuple[Node | None, float] | None = None  # an illegal press: node (or None) and when
    die_started: float | None = None  # when the die animation began
    gryb_started: float | None = None  # when the newest GRYB was formed
    ended: float | None = None  # when the game ended
    night: bool = False
    code: tuple[str, ...] | None = None  # a pairing code being shown, one colour per top-level node


@dataclass
class Picture:
    nodes: dict[Node, RGB] = field(default_factory=dict)
    # What a pairing code lights (among ``nodes`` too): on the cloth whatever the game, a Giant one included.
    code: dict[Node, RGB] = field(default_factory=dict)
    status: list[RGB] = field(default_factory=lambda: [OFF] * STATUS_PIXELS)
    # When the picture next changes, on the clock of ``now``: the runtime draws again then (no sooner than the
    # LEDs' frame rate; ``now`` itself means as soon as that allows). None: nothing in it moves.
    redraw: float | None = None

    @property
    def animating(self) -> bool:
        return self.redraw is not None

    def to_dict(self) -> dict:
        return {
            "nodes": {nd.name(n): "#%02x%02x%02x" % c for n, c in self.nodes.items()},
            "status": ["#%02x%02x%02x" % c for c in self.status],
        }


def scale(colour: RGB, factor: float) -> RGB:
    factor = max(0.0, min(1.0, factor))
    return (round(colour[0] * factor), round(colour[1] * factor), round(colour[2] * factor))


def pulse(now: float, period: float, low: float = 0.25) -> float:
    return low + (1 - low) * (0.5 + 0.5 * math.sin(2 * math.pi * now / period))


def blink(now: float, hz: float) -> bool:
    return int(now * hz * 2) % 2 == 0


class _Frame:
    """A frame's time, and the soonest later time at which its picture changes (``Picture.redraw``): a blink
    at its next half period, a pulse at the rate it needs, a timed effect when it ends."""

    def __init__(self, now: float):
        self.now = now
        self.next: float | None = None

    def changes_at(self, when: float) -> None:
        if self.next is None or when < self.next:
            self.next = max(when, self.now)

    def blink(self, hz: float) -> bool:
        self.changes_at((int(self.now * hz * 2) + 1) / (hz * 2))
        return blink(self.now, hz)

    def pulse(self, period: float, low: float, fps: float | None = None) -> float:
        """``pulse`` now; it changes at ``fps`` frames a second, or (None) at every frame the runtime draws."""
        self.changes_at(self.now if fps is None else self.now + 1 / fps)
        return pulse(self.now, period, low)


@dataclass(frozen=True)
class _Scene:
    """What a picture holds that depends only on the position (the game, the table, the colours and a pairing
    code), worked out once when one of them changes and kept: a board waiting for a press then costs each
    frame only the brightness of what moves. (25 Men's GRYB waiting for a placement pulses every node: its
    targets, found among all the legal actions at every frame, took about 3 ms a frame, 30 times a second.)"""

    key: tuple
    still: dict[Node, RGB]  # markers, stones and the last move: the same in every frame
    mover: RGB
    picks: tuple[Node, ...]
    targets: tuple[Node, ...]  # where a press may go next, and the nodes a computer player's move fills
    lift: tuple[Node, ...]  # the stones a computer player's move still lifts
    hint: tuple[Node, ...]
    chores: tuple[tuple[Node, RGB], ...]  # each node to lift or put a stone on, in that stone's colour
    code: dict[Node, RGB]


# The last scene: a waiting board draws the same one at every frame. One for the process, read and replaced
# whole: a second runtime drawing in it (the tests start several) only has its scenes worked out again.
_kept: _Scene | None = None


def _scene(game: Game, table: Hands, colours: list[RGB], code: tuple[str, ...] | None) -> _Scene:
    global _kept
    # Everything the scene is made of: the game and its position (the state fields, which also make its
    # legal actions), the table's selection, proposal, hint and chores, the colours, the code.
    key = (
        game,
        game.state_key(),
        table.picks,
        table.proposal,
        table.hint,
        table.chores,
        tuple(colours),
        code,
    )
    kept = _kept
    if kept is None or kept.key != key:
        kept = _kept = _make_scene(key, game, table, colours, code)
    return kept


def _make_scene(key: tuple, game: Game, table: Hands, colours: list[RGB], code) -> _Scene:
    still: dict[Node, RGB] = {}
    for n in bits(game.markers()):
        still[n] = MARKER
    for player, mask in enumerate(game.shown_stones()):
        glow = scale(colours[player], 0.55)
        for n in bits(mask):
            still[n] = glow
    shown_last = game.shown_last()
    if shown_last:
        *trail, landed = shown_last
        owner = game.owner(landed)
        for n in trail:
            if game.owner(n) is None and owner is not None:
                still[n] = scale(colours[owner], 0.08)
        if owner is not None:
            still[landed] = colours[owner]
    lift, fill = table.proposed()
    hint = () if table.hint is None else table.hint.sources + table.hint.targets
    chores = tuple((c.node, colours[c.before if c.kind == LIFT else c.after]) for c in table.chores)
    return _Scene(
        key,
        still,
        colours[game.to_move],
        table.picks,
        tuple(bits(table.targets() | fill)),
        tuple(bits(lift)),
        hint,
        chores,
        code_picture(code) if code else {},
    )


def render(game: Game, table: Hands, colours: list[RGB], effects: Effects, now: float) -> Picture:
    scene = _scene(game, table, colours, effects.code)
    frame = _Frame(now)
    picture = Picture(nodes=dict(scene.still))
    lit = picture.nodes

    # A GRYB the last action formed: its four nodes blink gold, then stay gold until the next action, so that
    # one whose stones lie apart (an integrated GRYB, which players do not see as one) is found on the cloth.
    formed = game.formed()
    flashing = bool(formed) and effects.gryb_started is not None and now - effects.gryb_started < GRYB_SECONDS
    if flashing:
        frame.changes_at(effects.gryb_started + GRYB_SECONDS)
    if not flashing or frame.blink(2):
        for g in formed:
            for n in g.nodes:
                lit[n] = GOLD

    tumbling = effects.die_started is not None and now - effects.die_started < DIE_SECONDS
    if scene.picks:
        lit.update(dict.fromkeys(scene.picks, scale(scene.mover, frame.pulse(1.2, 0.35))))
    if scene.targets and not tumbling:  # the targets for a roll appear once the die has settled
        # A computer player's move pulses where it goes from the start, not only once its stone is lifted. The
        # pulse is dim (a fifth to a third of the colour): 20 frames a second show it as 30 do (a test says so).
        lit.update(dict.fromkeys(scene.targets, scale(scene.mover, 0.35 * frame.pulse(1.5, 0.2, TARGET_FPS))))
    if scene.lift:  # and its stones blink until they are lifted
        lit.update(dict.fromkeys(scene.lift, scene.mover if frame.blink(3) else OFF))
    if scene.hint:
        lit.update(dict.fromkeys(scene.hint, scale(HINT, frame.pulse(1.0, 0.3))))

    if scene.chores:
        on = frame.blink(4)
        for n, colour in scene.chores:
            lit[n] = colour if on else OFF

    if effects.flash is not None and now - effects.flash[1] < FLASH_SECONDS and effects.flash[0] is not None:
        lit[effects.flash[0]] = ALARM
        frame.changes_at(effects.flash[1] + FLASH_SECONDS)

    if scene.code:
        picture.code = dict(scene.code)
        lit.update(scene.code)
    picture.status = (
        _gryb_row(game, colours, formed, frame) if flashing else _status(game, colours, effects, frame)
    )
    if game.over and game.winners and effects.ended is not None:
        _sweep(game, lit, colours[game.winners[0]], effects.ended, frame)
    picture.redraw = frame.next
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


def _status(game: Game, colours: list[RGB], effects: Effects, frame: _Frame) -> list[RGB]:
    status = [OFF] * STATUS_PIXELS
    if game.over:
        fill = colours[game.winners[0]] if game.winners else (90, 90, 90)
        return [fill if frame.blink(1) else scale(fill, 0.3)] * STATUS_PIXELS
    turn = colours[game.to_move]
    for i in range(STATUS_PIXELS // 2):
        status[i] = turn
    since = None if effects.die_started is None else frame.now - effects.die_started
    if since is not None and since < DIE_SECONDS:
        face = int(since * TUMBLE_HZ)
        shown = BOARD_COLOURS["GRYB"[face % 4]]
        frame.changes_at(effects.die_started + min((face + 1) / TUMBLE_HZ, DIE_SECONDS))
    elif game.last_roll in BOARD_COLOURS and (game.roll is not None or not game.roll_offered):
        # A colour die's face; a node (GRYB Dice II) or a number (Grim Reaper's random life) is no colour.
        shown = BOARD_COLOURS[game.last_roll]
    elif game.roll_offered:
        # Waiting for ROLL: a slow blink in the colour of whose turn it is, two frames a second. (A pulse was
        # meant, but the runtime drew a board waiting for the die once a second, so it never showed; drawn
        # as meant, the commonest waiting state of the die games would cost every frame the LEDs take.)
        shown = turn if frame.blink(1) else scale(turn, 0.1)
    else:
        shown = OFF
    for i in range(STATUS_PIXELS // 2, STATUS_PIXELS):
        status[i] = shown
    return status


def _gryb_row(game: Game, colours: list[RGB], formed: tuple, frame: _Frame) -> list[RGB]:
    """A GRYB just formed, on the status pixels while its nodes blink: a pixel a level of the board from the
    top, read as the manuals check a GRYB, column by column. A level where its four loci step round G-R-Y-B
    blinks gold with the nodes (it scores that level's points); a level where they keep one colour shows that
    colour; the levels below its own are dark. So a quadrangle GRYB shows where it is and one gold pixel at
    the end, and any other row is an integrated GRYB. The pixels after the board's levels show who formed
    it. Of several formed at once, the one worth most."""
    best = max(formed, key=game.gryb_points)
    loci = nd.loci(best.nodes[0])
    gold = GOLD if frame.blink(2) else OFF
    row = [colours[game.played()[-1][1]]] * STATUS_PIXELS
    for level in range(1, game.space.depth + 1):
        kept = BOARD_COLOURS[loci[level - 1]] if level <= best.level else OFF
        row[level - 1] = gold if level in best.levels else kept
    return row


def _sweep(game: Game, lit: dict[Node, RGB], colour: RGB, ended: float, frame: _Frame) -> None:
    """The winner's colour washes over the board from the head node down, level by level."""
    reached = min(game.space.depth, int((frame.now - ended) * SWEEP_LEVELS_PER_SECOND))
    if reached < game.space.depth:
        frame.changes_at(ended + (reached + 1) / SWEEP_LEVELS_PER_SECOND)
    for n in game.space.nodes:
        if nd.level(n) <= reached and n not in lit:
            lit[n] = scale(colour, 0.2)
