"""What the LEDs show: real games played through the table, each frame drawn at a chosen time.

Every look docs/runtime.md ("What the LEDs show") lists is checked here at the moments it is on and
off: a pulse at its brightest and its dimmest (a quarter and three quarters of its period), a blink in
its two halves. The colours are the seats' own as the companion ships them, so each seat's stones are
told apart."""

import random

import pytest

from companion.games.catalogue import find
from companion.games.die import Die
from companion.rules import node as nd
from companion.rules.space import bits
from companion.service.config import Config
from companion.session import renderer
from companion.session.hands import LIFT, PUT, SWAP, Hands
from companion.session.palette import BOARD_COLOURS
from companion.session.renderer import (
    ALARM,
    GOLD,
    HINT,
    MARKER,
    OFF,
    STATUS_PIXELS,
    TARGET_FPS,
    WHITE,
    Effects,
    pulse,
    render,
    scale,
)

COLOURS = [Config().players.rgb(i) for i in range(4)]


def play(game_id, script="", players=2, **options) -> Hands:
    """A table whose game has played ``script`` (notation, space-separated) through the table, as presses
    and the phone's moves are."""
    t = Hands(find(game_id)(players, **options))
    for text in script.split():
        action = t.game.parse(text)
        assert t.act(action, pressed=action.sources + action.targets).ok, (text, t.message)
    return t


def frame(t: Hands, at: float, effects: Effects | None = None):
    return render(t.game, t, COLOURS, effects or Effects(), at)


def N(t: Hands, name: str) -> int:
    return t.game.space.parse(name)


def stones_of(t: Hands, player: int) -> list[int]:
    return list(bits(t.game.stones[player]))


# -- stones, the last move, each seat's colour --------------------------------------------------------

EXODUS_FOUR = (
    "0 pass pass pass 0-B 0 pass pass B-BB 0-B 0 pass BB-BBB B-BB 0-B 0"  # a stone each, Player 4's last
)


def test_each_seat_glows_in_its_own_colour_and_the_last_move_brighter():
    t = play("exodus", EXODUS_FOUR, players=4)
    assert t.game.to_move == 0 and all(t.game.stones)
    lit = frame(t, 0.0).nodes
    landed = N(t, "0")  # Player 4 entered there last
    assert lit[landed] == COLOURS[3]
    for player in (1, 2):  # not to move, not moved last: the steady glow of a stone
        assert [lit[n] for n in stones_of(t, player)] == [scale(COLOURS[player], 0.55)] * len(
            stones_of(t, player)
        )
    seen = {lit[n] for p in (1, 2, 3) for n in stones_of(t, p)}
    assert len(seen) == 3  # three seats, three colours
    assert max(sum(c) for c in seen - {COLOURS[3]}) < sum(COLOURS[3])  # the last move is the brightest


def test_the_stone_last_moved_leaves_a_faint_trail_on_its_old_node():
    t = play("exodus", EXODUS_FOUR + " BBB-BBBB", players=4)
    lit = frame(t, 0.0).nodes
    assert lit[N(t, "BBBB")] == COLOURS[0]
    assert lit[N(t, "BBB")] == scale(COLOURS[0], 0.08)
    assert lit[N(t, "0")] == scale(COLOURS[3], 0.55)  # no longer the last move: back to the glow of any stone
    empty = set(t.game.space.nodes) - {n for p in range(4) for n in stones_of(t, p)} - {N(t, "BBB")}
    to_move = set(bits(t.targets()))
    assert not (empty - to_move) & set(lit)  # nothing else is lit


# -- a selection and its targets --------------------------------------------------------------------------


def test_a_selected_stone_breathes_and_the_nodes_it_may_go_to_pulse_in_the_movers_colour():
    t = play("drangles", "0")
    assert t.press(N(t, "0")).ok and t.picks == (N(t, "0"),)
    targets = [N(t, c) for c in "GRYB"]
    # The selected stone breathes over 1.2 s from 35 % to full; the targets pulse over 1.5 s, from a fifth
    # of their 35 % to all of it.
    bright, dim = frame(t, 0.3).nodes, frame(t, 0.9).nodes
    assert bright[N(t, "0")] == COLOURS[0] and dim[N(t, "0")] == scale(COLOURS[0], 0.35)
    top, bottom = frame(t, 0.375).nodes, frame(t, 1.125).nodes
    assert [top[n] for n in targets] == [scale(COLOURS[0], 0.35)] * 4
    assert [bottom[n] for n in targets] == [scale(COLOURS[0], 0.07)] * 4
    assert set(top) == {N(t, "0"), *targets}
    assert frame(t, 0.3).animating


def test_no_target_shows_while_the_die_tumbles_and_the_face_stays_once_it_settles():
    t = play("ez-gryb")
    before = frame(t, 0.25).status
    assert before[:4] == [COLOURS[0]] * 4  # Player 1 to move
    # Waiting for ROLL, the die's pixels blink slowly in the colour of whose turn it is: half a second each.
    assert before[4:] == frame(t, 0.45).status[4:] == [COLOURS[0]] * 4
    assert frame(t, 0.75).status[4:] == frame(t, 0.55).status[4:] == [scale(COLOURS[0], 0.1)] * 4
    assert t.roll(Die(5)).ok
    rolled = t.game.last_roll
    effects = Effects(die_started=10.0)
    for k in range(9):  # 12 faces a second through G R Y B for 0.8 s
        picture = frame(t, 10.0 + k / 12 + 0.01, effects)
        assert picture.status[4:] == [BOARD_COLOURS["GRYB"[k % 4]]] * 4, k
        assert picture.nodes == {}, k  # the targets wait for the die
    settled = frame(t, 10.81, effects)
    assert settled.status[4:] == [BOARD_COLOURS[rolled]] * 4
    assert set(settled.nodes) == set(bits(t.targets())) == {N(t, rolled)}


def test_a_marker_that_is_no_stone_shows_faintly():
    t = play("multiverse")  # each player's conduit marker starts on the head node
    assert list(bits(t.game.markers())) == [N(t, "0")]
    assert frame(t, 0.0).nodes == {N(t, "0"): MARKER}


# -- refusals and chores ----------------------------------------------------------------------------------


def test_an_illegal_press_flashes_its_node_red_for_a_moment():
    t = play("drangles")
    refused = t.press(N(t, "G"))
    assert not refused.ok and refused.node == N(t, "G")
    effects = Effects(flash=(refused.node, 5.0))
    assert frame(t, 5.1, effects).nodes[N(t, "G")] == ALARM
    assert N(t, "G") not in frame(t, 5.41, effects).nodes  # 0.4 s, then as before
    assert frame(t, 5.1, Effects(flash=(None, 5.0))).nodes == frame(t, 5.1).nodes  # a refusal of no node


def test_chores_blink_fast_in_the_colour_of_the_stone_to_lift_or_to_put_down():
    t = play("drangles", "0 0-G 0")  # Player 1 enters and moves on; Player 2 enters
    t.undo()
    assert [(c.node, c.kind, c.before) for c in t.chores] == [(N(t, "0"), LIFT, 1)]
    on, off = frame(t, 0.05).nodes, frame(t, 0.18).nodes  # four blinks a second
    assert on[N(t, "0")] == COLOURS[1] and off[N(t, "0")] == OFF
    assert t.press(N(t, "0")).ok and not t.chores
    t.undo()  # Player 1's 0-G: back from G to 0
    assert {(c.node, c.kind) for c in t.chores} == {(N(t, "G"), LIFT), (N(t, "0"), PUT)}
    on, off = frame(t, 0.30).nodes, frame(t, 0.40).nodes
    assert on[N(t, "0")] == COLOURS[0] and off[N(t, "0")] == OFF
    assert on[N(t, "G")] == COLOURS[0] and off[N(t, "G")] == OFF


def test_a_stone_to_swap_blinks_in_the_colour_of_the_stone_to_put_there():
    t = play("ez-gryb", "roll:G G roll:R R roll:R G-R")  # Player 1 captures sideways on R
    t.undo()  # Player 1 to move again; Player 2's stone goes back on R, Player 1's back on G
    assert t.game.to_move == 0
    assert {(c.node, c.kind, c.after) for c in t.chores} == {(N(t, "R"), SWAP, 1), (N(t, "G"), PUT, 0)}
    on, off = frame(t, 0.05).nodes, frame(t, 0.18).nodes
    assert on[N(t, "R")] == COLOURS[1] and off[N(t, "R")] == OFF
    assert on[N(t, "G")] == COLOURS[0]


# -- the computer's move and a hint ---------------------------------------------------------------------


def test_the_computers_move_blinks_its_stone_until_it_is_lifted_and_pulses_its_target_from_the_start():
    t = play("drangles", "0 0-G 0 0-R")
    move = t.game.parse("G-GG")
    assert t.propose(move).ok
    on, off = frame(t, 0.05).nodes, frame(t, 0.2).nodes  # three blinks a second
    assert on[N(t, "G")] == COLOURS[0] and off[N(t, "G")] == OFF
    # Where it goes pulses as a target does, before the stone is touched.
    assert frame(t, 0.375).nodes[N(t, "GG")] == scale(COLOURS[0], 0.35)
    assert frame(t, 1.125).nodes[N(t, "GG")] == scale(COLOURS[0], 0.07)
    assert frame(t, 0.375).nodes.keys() - {N(t, "GG")} == {N(t, c) for c in ("0", "G", "R")}  # nothing else
    assert t.press(N(t, "G")).ok  # lifted: it breathes as a selected stone does, and blinks no more
    assert frame(t, 0.3).nodes[N(t, "G")] == COLOURS[0] and frame(t, 0.9).nodes[N(t, "G")] == scale(
        COLOURS[0], 0.35
    )
    assert frame(t, 0.375).nodes[N(t, "GG")] == scale(COLOURS[0], 0.35)  # and its target pulses


def test_a_hint_breathes_pale_green_on_its_stone_and_its_target():
    t = play("drangles", "0")
    t.hint = t.game.parse("0-Y")
    top, bottom = frame(t, 0.25).nodes, frame(t, 0.75).nodes
    assert top[N(t, "0")] == top[N(t, "Y")] == HINT
    assert bottom[N(t, "0")] == bottom[N(t, "Y")] == scale(HINT, 0.3)


# -- GRYBs, the status pixels, the end -------------------------------------------------------------------

# Player 1 covers the top quadrangle; Player 2's rolls of G find nothing to do and pass by themselves.
EZ_GRYB = "roll:G G roll:G roll:R R roll:G roll:Y Y roll:G roll:B B"


def test_a_gryb_formed_blinks_gold_then_stays_gold_until_the_next_action():
    t = play("25-mens-gryb", "G GG R GR Y GY B")  # Player 1's men cover the top quadrangle: a man to remove
    four = [N(t, c) for c in "GRYB"]
    effects = Effects(gryb_started=20.0)
    assert [frame(t, 20.1, effects).nodes[n] for n in four] == [GOLD] * 4  # blinking twice a second
    assert frame(t, 20.3, effects).nodes[N(t, "G")] == scale(COLOURS[0], 0.55)  # the stone under it
    for at in (23.1, 23.4, 60.0):  # after three seconds, steady gold while nothing else is played
        assert [frame(t, at, effects).nodes[n] for n in four] == [GOLD] * 4
    assert frame(t, 23.1, effects).status == [COLOURS[0]] * 4 + [OFF] * 4  # whose turn again: the removal's
    removal = t.game.legal_actions()[0]
    assert t.act(removal, pressed=removal.targets).ok
    for at in (20.1, 23.1):  # the next action: a GRYB no more, whether or not its gold was still blinking
        assert frame(t, at, effects).nodes[N(t, "G")] == scale(COLOURS[0], 0.55)


# The status pixels while a GRYB's gold blinks: a letter a level from the top (* where its loci step round
# G-R-Y-B and it scores, blinking gold; the colour its four loci keep; - below its own level), then who
# formed it.
ROWS = [
    ("ez-gryb", {}, EZ_GRYB, "*---", 0),  # the top quadrangle: 1 point
    (
        "fourth-level",
        {},
        "roll:@YBRG YBRG roll:@GGGG GGGG roll:@YBRR YBRR roll:@GGGR GGGR roll:@YBRY YBRY "
        "roll:@GGGY GGGY roll:@YBRB YBRB",
        "YBR*",
        0,
    ),  # a bottom-level quadrangle under YBR: 8 points
    (
        "fourth-level",
        {"integrated": True},
        "roll:@GGGG GGGG roll:@GGBR GGBR roll:@GGGR GGGR roll:@GRBR GRBR "
        "roll:@GGGY GGGY roll:@GYBR GYBR roll:@RRRR RRRR roll:@GBBR GBBR",
        "G*BR",
        1,
    ),  # the manuals' L: 2 points
    (
        "fourth-level",
        {"integrated": True},
        "roll:@GRYR GRYR roll:@YYYY YYYY roll:@RGBG RGBG roll:@YYYR YYYR "
        "roll:@YBGB YBGB roll:@YYYB YYYB roll:@BYRY BYRY",
        "****",
        0,
    ),  # the manuals' K: all four levels, 15
    # Square Deal: GG completes the quadrangle under G (2 points) and GG RR YY BB (3): the one worth most.
    ("square-deal", {}, " ".join(f"roll:@{n} {n}" for n in "GR GY GB RR YY BB GG".split()), "**--", 0),
]


@pytest.mark.parametrize("game_id, options, script, row, former", ROWS)
def test_while_a_gryb_blinks_the_status_pixels_show_its_levels_and_who_formed_it(
    game_id, options, script, row, former
):
    t = play(game_id, script, **options)
    assert t.game.formed()
    effects = Effects(gryb_started=40.0)
    on, off = frame(t, 40.1, effects), frame(t, 40.3, effects)
    level = {"*": GOLD, "-": OFF} | BOARD_COLOURS
    assert on.status == [level[c] for c in row] + [COLOURS[former]] * 4
    assert off.status == [OFF if c == "*" else level[c] for c in row] + [COLOURS[former]] * 4
    if not t.chores:  # Square Deal's GRYBs are captured: their stones blink to be lifted
        assert all(on.nodes[n] == GOLD for g in t.game.formed() for n in g.nodes)
    assert frame(t, 43.1, effects).status != on.status  # after three seconds, the turn or the end again


def test_the_status_pixels_show_whose_turn_it_is():
    t = play("drangles", "0")
    assert frame(t, 0.0).status == [COLOURS[0]] * 4 + [OFF] * 4  # no die: its pixels stay dark
    t = play("drangles", "0 0-G")
    assert frame(t, 0.0).status == [COLOURS[1]] * 4 + [OFF] * 4
    assert len(frame(t, 0.0).status) == STATUS_PIXELS


def test_at_the_end_the_winners_colour_sweeps_the_board_from_the_head_node_down():
    t = play("ez-gryb", EZ_GRYB)
    effects = Effects(ended=30.0)
    space = t.game.space
    by_level = {lvl: [n for n in space.nodes if nd.level(n) == lvl] for lvl in range(space.depth + 1)}
    early, later, done = (frame(t, 30.0 + s, effects).nodes for s in (0.1, 0.7, 1.4))
    assert not set(by_level[2]) & set(early)
    assert [later[n] for n in by_level[2]] == [scale(COLOURS[0], 0.2)] * 16  # three levels a second
    assert not set(by_level[3]) & set(later)
    assert set(done) == set(space.nodes)
    assert [done[n] for n in by_level[1]] == [GOLD] * 4  # the winning GRYB keeps its gold under it
    # The status pixels blink in the winner's colour, once a second.
    assert frame(t, 31.2, effects).status == [COLOURS[0]] * 8
    assert frame(t, 31.7, effects).status == [scale(COLOURS[0], 0.3)] * 8


def test_a_pairing_code_lights_the_top_quadrangle_with_a_white_light_in_the_corner_of_each_colour():
    t = play("drangles", "0 0-G")  # a stone on G: the code is shown over the game
    picture = frame(t, 0.0, Effects(code=("R", "B", "G", "Y")))
    expect = {
        N(t, "G"): BOARD_COLOURS["R"],
        N(t, "GR"): WHITE,
        N(t, "R"): BOARD_COLOURS["B"],
        N(t, "RB"): WHITE,
        N(t, "Y"): BOARD_COLOURS["G"],
        N(t, "YG"): WHITE,
        N(t, "B"): BOARD_COLOURS["Y"],
        N(t, "BY"): WHITE,
    }
    assert picture.code == expect
    assert {n: picture.nodes[n] for n in expect} == expect
    # What no guest may see (issue 44, 1): the picture as it is without the code, the stone on G too.
    assert picture.plain == frame(t, 0.0, Effects()).nodes and picture.plain[N(t, "G")] != expect[N(t, "G")]
    assert frame(t, 0.0, Effects()).plain is None


@pytest.mark.parametrize("game_id", ["drangles", "ez-gryb", "25-mens-gryb"])
def test_every_colour_is_three_bytes(game_id):
    t = play(game_id)
    picture = frame(t, 0.4)
    for colour in list(picture.nodes.values()) + picture.status:
        assert len(colour) == 3 and all(isinstance(c, int) and 0 <= c <= 255 for c in colour)


# -- when the picture next changes, and the scene kept between frames ---------------------------------


def test_a_frame_says_when_its_picture_next_changes():
    # 25 Men's GRYB waiting for a placement: only the targets' dim pulse moves, drawn TARGET_FPS times a
    # second.
    assert frame(play("25-mens-gryb"), 10.0).redraw == pytest.approx(10.0 + 1 / TARGET_FPS)
    # the die's slow blink, at its next half
    assert frame(play("ez-gryb"), 10.2).redraw == pytest.approx(10.5)
    t = play("drangles", "0 0-G 0")
    t.undo()  # a chore: its blink, four a second, changes at the next eighth of a second
    assert frame(t, 0.05).redraw == pytest.approx(0.125)
    t = play("drangles", "0")
    t.press(N(t, "0"))  # a selected stone breathes brightly: at the next frame the LEDs take
    assert frame(t, 3.0).redraw == 3.0
    t = play("drangles", "0")
    t.hint = t.game.parse("0-Y")  # so does a hint
    assert frame(t, 3.0).redraw == 3.0

    t = play("ez-gryb")
    assert t.roll(Die(5)).ok
    tumbling = Effects(die_started=10.0)
    assert frame(t, 10.01, tumbling).redraw == pytest.approx(10.0 + 1 / 12)  # the die's next face
    assert frame(t, 10.79, tumbling).redraw == pytest.approx(10.8)  # it settles, and the targets appear

    t = play("ez-gryb", EZ_GRYB)  # over: the status pixels blink once a second
    assert frame(t, 5.1).redraw == pytest.approx(5.5)
    assert frame(t, 5.1, Effects(flash=(N(t, "GG"), 5.0))).redraw == pytest.approx(5.4)  # the flash ends
    assert frame(t, 30.1, Effects(ended=30.0)).redraw == pytest.approx(30.0 + 1 / 3)  # the sweep's next level
    assert frame(t, 31.6, Effects(ended=30.0)).redraw == pytest.approx(32.0)  # swept: the blink alone
    gryb = Effects(gryb_started=20.1)
    assert frame(t, 20.2, gryb).redraw == pytest.approx(20.25)  # the gold's next blink
    assert frame(t, 23.05, gryb).redraw == pytest.approx(
        23.1
    )  # its three seconds end: the status pixels change


def test_the_targets_pulse_drawn_at_its_rate_jumps_no_more_on_the_leds_than_at_30_frames_a_second():
    """Why TARGET_FPS looks the same as the LEDs' 30: the targets' pulse is dim, and through the LEDs' gamma
    (at full brightness, where it has the most steps) no frame drawn at TARGET_FPS jumps more duty steps
    than at 30, wherever in the pulse the frames fall."""
    from hardware.leds import GAMMA, gamma_table

    duty = gamma_table(1.0, GAMMA)

    def largest_jump(fps: float) -> int:
        jumps = []
        for offset in range(40):
            times = [offset / 40 / fps + i / fps for i in range(int(1.5 * fps) + 2)]
            seq = [max(duty[c] for c in scale(COLOURS[0], 0.35 * pulse(at, 1.5, 0.2))) for at in times]
            jumps += [abs(a - b) for a, b in zip(seq, seq[1:])]
        return max(jumps)

    assert largest_jump(TARGET_FPS) <= largest_jump(30)
    assert TARGET_FPS < 30  # and it is fewer frames


@pytest.mark.parametrize(
    "game_id, players",
    [
        ("drangles", 2),
        ("ez-gryb", 2),
        ("25-mens-gryb", 2),
        ("square-deal", 2),
        ("multiverse", 3),
        ("hyper-chess", 2),
    ],
)
def test_the_scene_kept_between_frames_draws_what_a_fresh_one_would(game_id, players):
    """A random game at the table (presses, good and bad, the die, undo, the computer's proposals, hints,
    chores, a pairing code, the colours changed): after every change, the frame drawn with the scene kept
    from the frame before equals the one drawn from nothing, at several times."""
    rng, die = random.Random(7), Die(7)
    t = Hands(find(game_id)(players))
    effects = Effects(code=("R", "G", "B", "Y"))
    for step in range(120):
        game = t.game
        r = rng.random()
        if t.chores and r < 0.6:
            t.press(t.chores[0].node)
        elif game.over or r < 0.05:
            t.undo()
        elif game.is_chance:
            t.roll(die)
        elif r < 0.15 and t.proposal is None and not t.chores:
            t.propose(rng.choice(game.legal_actions()))
        elif r < 0.22:
            t.hint = None if t.hint else rng.choice(game.legal_actions())
        elif r < 0.3:
            effects.code = None if effects.code else ("Y", "Y", "G", "B")
        else:
            t.press(rng.choice(game.space.nodes))
        colours = COLOURS if step % 20 < 15 else COLOURS[::-1]  # the page changed the stone colours
        for at in (step * 0.37, step * 0.37 + 0.11):
            kept = render(t.game, t, colours, effects, at)
            renderer._kept = None
            fresh = render(t.game, t, colours, effects, at)
            assert (kept.nodes, kept.code, kept.status, kept.redraw) == (
                fresh.nodes,
                fresh.code,
                fresh.status,
                fresh.redraw,
            ), (step, str(t.proposal))


def test_a_position_reached_again_in_as_many_actions_is_drawn_anew():
    """UNDO and another move bring the game back to as many actions in another position, with no frame
    drawn between when it all comes in one go: the scene kept is not that of the position before."""
    t = play("drangles", "0 0-G")
    assert frame(t, 0.0).nodes[N(t, "G")] == COLOURS[0]
    t.undo()
    for chore in t.chores:  # the stone goes back from G to the head node
        t.press(chore.node)
    other = t.game.parse("0-R")
    assert t.act(other, pressed=other.sources + other.targets).ok and len(t.game.history) == 2
    lit = frame(t, 0.0).nodes
    assert lit[N(t, "R")] == COLOURS[0] and N(t, "G") not in lit


def test_the_men_a_gryb_lets_the_player_remove_pulse_in_their_owners_colour():
    """Issue 46: after a GRYB the men that may be removed pulse, bright to dark, each in its owner's colour
    (as targets they were a dim pulse in the mover's colour, and whose man it was could not be seen)."""
    t = play("25-mens-gryb", "G GG R RR Y YY B", depth=3, stones=4)
    assert t.owed() == "Player 1 made a GRYB: remove one of Player 2's men"
    theirs = stones_of(t, 1)
    bright, dark = frame(t, 0.25).nodes, frame(t, 0.75).nodes
    assert [bright[n] for n in theirs] == [COLOURS[1]] * 3
    assert [dark[n] for n in theirs] == [scale(COLOURS[1], 0.15)] * 3
    assert {bright[n] for n in stones_of(t, 0)} == {GOLD}  # the GRYB's own men
