"""What the LEDs show: a pure function, the time an argument (docs/runtime.md, "What the LEDs show")."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from companion.games.engine import Game
from companion.rules import node as nd
from companion.rules.node import Node
from companion.rules.space import bits
from companion.session import match_code
from companion.session.hands import LIFT, Hands
from companion.session.palette import BOARD_COLOURS

RGB = tuple[int, int, int]
OFF: RGB = (0, 0, 0)
GOLD: RGB = (255, 190, 40)
ALARM: RGB = (255, 0, 0)
HINT: RGB = (120, 255, 120)
WHITE: RGB = (255, 255, 255)
MARKER: RGB = (70, 70, 70)  # not a stone (Multiverse's conduits)
STATUS_PIXELS = 8
DIE_SECONDS = 0.8
FLASH_SECONDS = 0.4
GRYB_SECONDS = 3.0
TUMBLE_HZ = 12  # faces the die shows a second while it tumbles
SWEEP_LEVELS_PER_SECOND = 3
TARGET_FPS = 20  # the targets' dim pulse (the LEDs take up to leds.fps)


@dataclass
class Effects:
    """Effects the runtime starts, drawn while they last."""

    flash: tuple[Node | None, float] | None = None  # an illegal press: node (or None) and when
    die_started: float | None = None
    gryb_started: float | None = None  # the newest GRYB's
    ended: float | None = None
    night: bool = False
    code: tuple[str, ...] | None = None  # a pairing code: one colour per top-level node
    match_code: str | None = None  # a linked match's code, drawn on the bottom two levels


@dataclass
class Picture:
    nodes: dict[Node, RGB] = field(default_factory=dict)
    code: dict[Node, RGB] = field(default_factory=dict)  # lit on a Giant game too (pairing and match codes)
    # The nodes as they would be without the code, for whoever may not see it (None: no code shown).
    plain: dict[Node, RGB] | None = None
    status: list[RGB] = field(default_factory=lambda: [OFF] * STATUS_PIXELS)
    # When it next changes, on the clock of ``now`` (``now``: as soon as the LEDs allow); None: never.
    redraw: float | None = None

    @property
    def animating(self) -> bool:
        return self.redraw is not None

    def to_dict(self) -> dict:
        return {
            "nodes": {nd.name(n): _hex(c) for n, c in self.nodes.items()},
            "status": [_hex(c) for c in self.status],
        }


def _hex(colour: RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*colour)


def scale(colour: RGB, factor: float) -> RGB:
    factor = max(0.0, min(1.0, factor))
    return (round(colour[0] * factor), round(colour[1] * factor), round(colour[2] * factor))


def pulse(now: float, period: float, low: float = 0.25) -> float:
    return low + (1 - low) * (0.5 + 0.5 * math.sin(2 * math.pi * now / period))


def blink(now: float, hz: float) -> bool:
    return int(now * hz * 2) % 2 == 0


class _Frame:
    """A frame's time, and the soonest later time its picture changes (``Picture.redraw``)."""

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
        """``pulse`` now, changing ``fps`` times a second (None: every frame)."""
        self.changes_at(self.now if fps is None else self.now + 1 / fps)
        return pulse(self.now, period, low)


@dataclass(frozen=True)
class _Scene:
    """What depends only on the position (docs/performance.md, "What the session keeps for speed")."""

    key: tuple
    still: dict[Node, RGB]  # the same in every frame
    mover: RGB
    picks: tuple[Node, ...]
    targets: tuple[Node, ...]  # and what a computer player's move fills
    removable: tuple[tuple[Node, RGB], ...]  # stones a removal owed may take, in their owner's colour
    lift: tuple[Node, ...]  # the stones a computer player's move still lifts
    hint: tuple[Node, ...]
    chores: tuple[tuple[Node, RGB], ...]  # in the colour of the stone to lift or put there
    code: dict[Node, RGB]  # the match code's, then the pairing code's over it


# The last scene, one for the process, read and replaced whole: a second runtime drawing (the tests start
# several) only has its scenes worked out again.
_kept: _Scene | None = None


def _scene(game: Game, table: Hands, colours: list[RGB], code: tuple, match: str | None) -> _Scene:
    global _kept
    # state_key() stands for the position and so for its legal actions too.
    key = (
        game,
        game.state_key(),
        table.picks,
        table.proposal,
        table.hint,
        table.chores,
        tuple(colours),
        code,
        match,
    )
    kept = _kept
    if kept is None or kept.key != key:
        kept = _kept = _make_scene(key, game, table, colours, code, match)
    return kept


def _make_scene(key: tuple, game: Game, table: Hands, colours: list[RGB], code, match) -> _Scene:
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
    removable = table.removable()
    hint = () if table.hint is None else table.hint.sources + table.hint.targets
    chores = tuple((c.node, colours[c.before if c.kind == LIFT else c.after]) for c in table.chores)
    return _Scene(
        key,
        still,
        colours[game.to_move],
        table.picks,
        tuple(bits(table.targets() & ~removable | fill)),
        tuple((n, colours[game.owner(n)]) for n in bits(removable)),
        tuple(bits(lift)),
        hint,
        chores,
        (match_code.picture(match) if match else {}) | (code_picture(code) if code else {}),
    )


def render(game: Game, table: Hands, colours: list[RGB], effects: Effects, now: float) -> Picture:
    scene = _scene(game, table, colours, effects.code, effects.match_code)
    frame = _Frame(now)
    picture = Picture(nodes=dict(scene.still))
    lit = picture.nodes

    # Gold until the next action, so an integrated GRYB is seen.
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
    if scene.targets and not tumbling:  # a roll's targets once the die has settled
        # Dim (a fifth to a third of the colour), so 20 frames a second show it as 30 do (a test says so).
        lit.update(dict.fromkeys(scene.targets, scale(scene.mover, 0.35 * frame.pulse(1.5, 0.2, TARGET_FPS))))
    if scene.removable:  # bright to dark and back: a target's dim pulse would hide whose stone it is
        level = frame.pulse(1.0, 0.15)
        lit.update((n, scale(colour, level)) for n, colour in scene.removable)
    if scene.lift:  # a computer player's stones, until lifted
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

    picture.status = (
        _gryb_row(game, colours, formed, frame) if flashing else _status(game, colours, effects, frame)
    )
    if game.over and game.winners and effects.ended is not None:
        _sweep(game, lit, colours[game.winners[0]], effects.ended, frame)
    if scene.code:
        picture.code, picture.plain = dict(scene.code), dict(lit)
        lit.update(scene.code)
    picture.redraw = frame.next
    return picture


def code_picture(code: tuple[str, ...]) -> dict[Node, RGB]:
    """A pairing code: its colours on the top-level nodes, a white light in each colour's corner."""
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
        # Not a node (GRYB Dice II) nor a number (Grim Reaper's random life): no colour.
        shown = BOARD_COLOURS[game.last_roll]
    elif game.roll_offered:
        # A blink, not a pulse (docs/runtime.md, "What the LEDs show").
        shown = turn if frame.blink(1) else scale(turn, 0.1)
    else:
        shown = OFF
    for i in range(STATUS_PIXELS // 2, STATUS_PIXELS):
        status[i] = shown
    return status


def _gryb_row(game: Game, colours: list[RGB], formed: tuple, frame: _Frame) -> list[RGB]:
    """The status row of the GRYB just formed worth most (docs/runtime.md, "Colours")."""
    best = max(formed, key=game.gryb_points)
    loci = nd.loci(best.nodes[0])
    gold = GOLD if frame.blink(2) else OFF
    row = [colours[game.played()[-1][1]]] * STATUS_PIXELS
    for level in range(1, game.space.depth + 1):
        kept = BOARD_COLOURS[loci[level - 1]] if level <= best.level else OFF
        row[level - 1] = gold if level in best.levels else kept
    return row


def _sweep(game: Game, lit: dict[Node, RGB], colour: RGB, ended: float, frame: _Frame) -> None:
    """The winner's colour, from the head node down."""
    reached = min(game.space.depth, int((frame.now - ended) * SWEEP_LEVELS_PER_SECOND))
    if reached < game.space.depth:
        frame.changes_at(ended + (reached + 1) / SWEEP_LEVELS_PER_SECOND)
    for n in game.space.nodes:
        if nd.level(n) <= reached and n not in lit:
            lit[n] = scale(colour, 0.2)
