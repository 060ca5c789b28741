"""Battlefield: the node die scatters patriots, squads and platoons enlist, groups move and capture, the
counter-squad, two lieutenants, Private Monkeybusiness, reasons, and whole games."""

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from scenario import names, refused

from companion.games.catalogue import find
from companion.games.die import Die
from companion.games.engine import IllegalAction, OptionError
from companion.rules.space import mask_of

BATTLEFIELD = find("battlefield")


def nodes(game, *names_):
    return mask_of(game.space.parse_many(names_))


def kinds(game, player):
    """Each of the player's stones with its kind, by name."""
    return {n: s["kind"] for n, s in game.state_dict()["stones"].items() if s["player"] == player}


def position(p0, p1, **options):
    """A battle position with these stones (the level of a node says what stands there: patriots on the
    bottom level, sergeants one level up, lieutenants two), player 0 to move."""
    game = BATTLEFIELD(2, **options)
    game.set_stones(0, nodes(game, *p0))
    game.set_stones(1, nodes(game, *p1))
    game.phase, game.in_hand = "battle", (0, 0)
    game.start = game.since = game.turn
    return game


# Lone patriots out of everyone's way, and a far sergeant each so one capture does not end the game.
FAR0 = ["YYYY", "YBYB", "BYBY", "YGY"]
FAR1 = ["BBBB", "RBRB", "BRBR", "RGR"]


def test_the_node_die_scatters_32_patriots_each_on_the_bottom_level():
    game = BATTLEFIELD()
    assert game.is_chance and len(game.legal_actions()) == 256  # the bottom level only
    game.apply("roll:@GGBY")
    assert names(game.legal_actions()) == {"GGBY"}
    with pytest.raises(IllegalAction, match="the die chose GGBY: place your patriot there"):
        game.apply("GGBR")
    with pytest.raises(IllegalAction, match="the patriots are scattered first: place yours on GGBY"):
        game.apply("GGBR-GGBY")
    game.apply("GGBY")
    assert (
        game.in_hand == (31, 32)
        and game.to_move == 1
        and game.stone_kind(game.space.parse("GGBY")) == "patriot"
    )
    with pytest.raises(IllegalAction, match="the die cannot show @GGBY now"):
        game.apply("roll:@GGBY")  # occupied: the die is rolled again, so it is no face
    with pytest.raises(IllegalAction, match="the die cannot show @GGB now"):
        game.apply("roll:@GGB")  # not on the bottom level
    die = Die(5)
    while game.phase == "place":
        face = die.roll(game)
        game.apply(face)
        game.apply(str(face)[6:])
    patriots = [(s & game.space.bottom).bit_count() for s in game.stones]
    military = [game.strength(p) for p in (0, 1)]
    assert [p + 4 * m for p, m in zip(patriots, military)] == [32, 32]  # a squad scattered into being counts
    assert game.phase == "battle" and not game.is_chance and game.to_move == 0
    with pytest.raises(IllegalAction, match="every patriot is on the board"):
        game.apply("0")
    # The same seed scatters the same way.
    again = BATTLEFIELD()
    die = Die(5)
    again.apply("roll:@GGBY")
    again.apply("GGBY")
    while again.phase == "place":
        again.apply(die.roll(again))
        again.apply(again.legal_actions()[0])
    assert again.stones == game.stones


def test_four_patriots_on_a_quadrangle_enlist_as_a_squad_under_a_sergeant_above():
    game = position(["RRRG", "RRRR", "RRRY", "RRYB"] + FAR0, FAR1)
    assert "RRYB-RRRB" in names(game.legal_actions())  # hyperspace: the third locus Y to R
    game.apply("RRYB-RRRB")
    assert kinds(game, 0)["RRR"] == "sergeant"
    assert not game.stones[0] & nodes(game, "RRRG", "RRRR", "RRRY", "RRRB")  # the patriots are enlisted
    assert game.strength(0) == 2 and game.since == game.turn + 1  # the stall counts the turns after this one
    assert game.to_move == 0 and game.moves_left == 1  # a patriot's move: a second one may follow
    assert set(game.last) >= set(game.space.parse_many(["RRYB", "RRRB", "RRR", "RRRG"]))
    assert "end" in names(game.legal_actions())
    game.apply("end")
    assert game.to_move == 1 and game.moves_left == 2


def test_patriots_do_not_enlist_under_their_own_sergeant_until_it_moves_away():
    game = position(["RRRG", "RRRR", "RRRY", "RRYB", "RRR"] + FAR0, FAR1)
    game.apply("RRYB-RRRB")
    assert game.stones[0] & nodes(game, "RRRG", "RRRR", "RRRY", "RRRB") == nodes(
        game, "RRRG", "RRRR", "RRRY", "RRRB"
    )
    assert game.strength(0) == 2
    game.apply("end")
    game.apply("RBRB-RBRY")
    game.apply("end")
    game.apply("RRR-RRY")  # the sergeant steps aside: the GRYB under the free node enlists
    assert kinds(game, 0)["RRR"] == kinds(game, 0)["RRY"] == "sergeant" and game.strength(0) == 3


def test_a_waiting_gryb_whose_sergeant_is_captured_enlists_at_its_players_next_action():
    # Red's GRYB waits under red's own sergeant RRR; blue's pair captures that sergeant and stands on RRR.
    game = position(["RRG", "RRB"] + FAR0, ["RRR", "RRRG", "RRRR", "RRRY", "RRRB"] + FAR1)
    game.apply("RRG,RRB-RRR,RRG")
    assert game.captured == (1, 0) and game.stones[1] & nodes(game, "RRRG", "RRRR", "RRRY", "RRRB")
    before = game.state_key()
    game.apply("BBBB-BBBY")  # any action of red's: the GRYB enlists, right under blue's sergeant
    assert kinds(game, 1)["RRR"] == "sergeant" and kinds(game, 0).get("RRG") == "sergeant"
    assert not game.stones[0] & nodes(game, "RRR") and game.captured == (1, 1)
    game.undo()
    assert game.state_key() == before


def test_four_squads_on_a_quadrangle_form_a_platoon_under_a_lieutenant():
    game = position(["GGG", "GGR", "GGY", "GRB"] + FAR0, FAR1)
    game.apply("GRB-GGB")  # hyperspace: the second locus R to G completes the GRYB of sergeants
    assert kinds(game, 0)["GG"] == "lieutenant" and not game.stones[0] & nodes(
        game, "GGG", "GGR", "GGY", "GGB"
    )
    assert game.strength(0) == 4 + 1 and game.to_move == 1  # a military move ends the turn


def test_a_squad_completing_four_sergeants_makes_a_platoon_at_once():
    game = position(["GGG", "GGR", "GGY", "GGBG", "GGBR", "GGBY", "GGYB"] + FAR0, FAR1)
    game.apply("GGYB-GGBB")
    assert kinds(game, 0)["GG"] == "lieutenant" and game.strength(0) == 5


def test_patriot_and_military_groups_move_as_blocks():
    game = position(["RRRG", "RRRR", "BBG", "BBR", "YY", "YYB"], FAR1)
    legal = names(game.legal_actions())
    # A patriot group: one sideways step round its quadrangle either way, or the same hyperspace step.
    assert {
        "RRRG,RRRR-RRRR,RRRY",
        "RRRG,RRRR-RRRB,RRRG",
        "RRRG,RRRR-RRGG,RRGR",
        "RRRG,RRRR-GRRG,GRRR",
    } <= legal
    assert not any(a.startswith(("RRRG-", "RRRR-")) for a in legal)
    # A line of sergeants, and a platoon with the squad in its space.
    assert {"BBG,BBR-BBR,BBY", "BBG,BBR-BYG,BYR", "BBG,BBR-GBG,GBR"} <= legal
    assert {"YY,YYB-YR,YRB", "YY,YYB-YB,YBB", "YY,YYB-RY,RYB"} <= legal
    assert not any(a.startswith(("BBG-", "YY-", "YYB-")) for a in legal)
    game.apply("BBR,BBG-BYR,BYG")  # in any order
    assert game.stones[0] & nodes(game, "BYG", "BYR") and not game.stones[0] & nodes(game, "BBG", "BBR")
    assert game.to_move == 1
    game.apply("BBBB-BBBY")
    game.apply("end")
    game.apply("YY,YYB-YR,YRB")
    assert kinds(game, 0)["YR"] == "lieutenant" and kinds(game, 0)["YRB"] == "sergeant"
    game.apply("BBBY-BBBB")
    game.apply("end")
    game.apply("RRRG,RRRR-RRGG,RRGR")
    assert game.to_move == 1  # a patriot group's move is the whole turn


def test_one_patriot_twice_or_two_patriots_once_each():
    game = position(["GGGG", "RRRR"] + FAR0, FAR1)
    game.apply("GGGG-GGGR")
    legal = names(game.legal_actions())
    assert "GGGR-GGGY" in legal and "RRRR-RRRY" in legal and "end" in legal
    assert not any("," in a for a in legal) and "YGY-YGR" not in legal
    with pytest.raises(IllegalAction, match="the second move is a single patriot's"):
        game.apply("YGY-YGR")
    game.apply("GGGR-GGGY")
    assert game.to_move == 1


def test_a_larger_group_landing_on_part_of_a_smaller_one_captures_it_whole():
    game = position(["BBG", "BBR", "BBY"] + FAR0, ["BYY", "BYB"] + FAR1)
    game.apply("BBG,BBR,BBY-BYG,BYR,BYY")  # lands on BYY only; BYB is in the same group
    assert not game.stones[1] & nodes(game, "BYY", "BYB")
    assert game.captured == (2, 0) and not game.over
    assert game.space.parse("BYB") in game.last


def test_a_platoon_captures_the_squads_its_space_comes_over():
    game = position(["YY"] + FAR0, ["YRG", "YRB"] + FAR1)
    game.apply("YY-YR")  # the lieutenant's space YRG..YRB lands on the enemy's two sergeants
    assert not game.stones[1] & nodes(game, "YRG", "YRB") and game.captured == (2, 0)


def test_capturing_the_enemys_whole_army_wins():
    game = position(["BBG", "BBR"] + FAR0[:3], ["BYR"] + FAR1[:3])
    game.captured = (0, 3)  # the loser took three squads earlier: the game is still won or lost
    game.apply("BBG,BBR-BYG,BYR")
    assert game.over and game.winners == (0,) and game.scores == (1, 0) and game.captured == (1, 3)


def _last_squad_taken(**options):
    """Issue 45's game (patriots=12): Player 1's two squads take Player 2's only one, whose 8 patriots
    could still enlist two more."""
    p0 = ["GGG", "GGR", "YYYY", "YBYB", "BYBY", "GYGY"]
    p1 = ["RRG", "BBBB", "BBBY", "RBRB", "BRBR", "YGYG", "GBGB", "RYRY", "YRYR"]
    game = position(p0, p1, patriots=12, **options)
    for move in ("GGG,GGR-RGG,RGR", "BBBB,BBBY-BBBG,BBBB", "RGG,RGR-RRG,RRR"):
        game.apply(move)
    assert game.captured == (1, 0) and not game.stones[1] & game.t.military
    return game


def test_a_player_without_military_is_not_beaten_while_their_patriots_can_enlist():
    """000: "capture the enemy military"; patriots "may affect it if they form a Squad". A player loses
    when they have no military and fewer than four patriots (docs/rules/battlefield.md, "Who wins")."""
    game = _last_squad_taken()
    assert not game.over and game.to_move == 1 and (game.stones[1] & game.t.bottom).bit_count() == 8
    assert not BATTLEFIELD().settings["sudden_death"]
    game = position(["BBG", "BBR"] + FAR0[:3], ["BYR", "GGGG", "GYGY", "GBGB", "RRRR"])
    game.apply("BBG,BBR-BYG,BYR")  # four patriots are a squad yet
    assert not game.over
    game = position(["BBG", "BBR"] + FAR0[:3], ["BYR", "GGGG", "GYGY", "GBGB"])
    game.apply("BBG,BBR-BYG,BYR")  # three are not
    assert game.over and game.winners == (0,)


def test_sudden_death_keeps_the_rule_that_the_last_squad_taken_wins_at_once():
    game = _last_squad_taken(sudden_death=True)
    assert game.over and game.winners == (0,)


def test_a_player_the_scattering_leaves_beaten_loses_when_the_battle_starts():
    """Blue's only squad is taken by red's last four patriots, placed by the die; blue is left with three
    patriots: beaten as the battle starts. With sudden_death the scattering beats nobody, as before."""
    blue = ["RRRG", "RRRR", "RRRY", "RRRB", "GGGG", "GYGY", "GBGB"]
    red = ["BBBB", "BYBY", "BGBG", "RRRG", "RRRR", "RRRY", "RRRB"]
    for options, over in (({}, True), ({"sudden_death": True}, False)):
        game = BATTLEFIELD(patriots=7, **options)
        for b, r in zip(blue, red):
            for n in (b, r):
                game.apply(f"roll:@{n}")
                game.apply(n)
        assert game.captured == (0, 1) and game.strength(0) == 0 and game.phase == "battle"
        assert game.over is over and game.winners == ((1,) if over else ())


def test_groups_the_same_size_are_safe_and_smaller_ones_cannot_capture():
    game = position(["BBG", "BBR", "GGG"] + FAR0, ["BYR", "BYY", "GGRR", "GRG", "GRR"] + FAR1)
    before = game.state_key()
    with pytest.raises(
        IllegalAction,
        match=r"the enemy group at BYR is as strong as yours \(2 squads\): groups "
        "the same size are safe",
    ):
        game.apply("BBG,BBR-BYG,BYR")
    with pytest.raises(
        IllegalAction,
        match="the enemy group at GRG is 2 squads strong, yours 1: only a larger "
        "group captures a smaller one",
    ):
        game.apply("GGG-GRG")
    assert game.state_key() == before
    assert "BBG,BBR-BYG,BYR" not in names(game.legal_actions())


def test_patriots_forming_a_squad_under_an_enemy_sergeant_capture_it():
    game = position(["RRRG", "RRRR", "RRRY", "RRYB"] + FAR0, ["RRR"] + FAR1)
    game.apply("RRYB-RRRB")
    assert kinds(game, 0)["RRR"] == "sergeant" and not game.stones[1] & nodes(game, "RRR")
    assert game.captured == (1, 0) and not game.over  # the enemy still has its far sergeant


def test_the_counter_squad_under_a_platoon_demotes_the_lieutenant_to_three_sergeants():
    game = position(["GGRG", "GGRR", "GGRY", "GGYB"] + FAR0, ["GG"] + FAR1)
    game.apply("GGYB-GGRB")
    assert kinds(game, 0)["GGR"] == "sergeant"
    assert {k: v for k, v in kinds(game, 1).items() if k.startswith("GG")} == {
        "GGG": "sergeant",
        "GGY": "sergeant",
        "GGB": "sergeant",
    }
    assert game.captured == (1, 0) and game.strength(1) == 3 + 1 and not game.over
    # Suicidal: the three sergeants are a group of three beside the lone new one.
    game.apply("end")
    assert "GGG,GGY,GGB-GGR,GGB,GGG" in names(game.legal_actions())
    game.apply("GGB,GGG,GGY-GGG,GGR,GGB")  # the same move, written in another order
    assert not game.stones[0] & nodes(game, "GGR") and game.captured == (1, 1)


def test_a_counter_squad_in_the_scattering_does_not_end_the_game():
    # Blue's only squad forms in the scattering; red's last patriots, placed by the die, form a GRYB right
    # under it. Blue loses the squad, but the battle has not begun: nobody has lost an army yet.
    game = BATTLEFIELD(patriots=8)
    blue = ["RRRG", "RRRR", "RRRY", "RRRB", "GGGG", "GGYY", "GYGY", "GBGB"]
    red = ["BBBB", "BYBY", "BGBG", "YYYY", "RRRG", "RRRR", "RRRY", "RRRB"]
    for b, r in zip(blue, red):
        for n in (b, r):
            game.apply(f"roll:@{n}")
            game.apply(n)
    assert game.captured == (0, 1) and kinds(game, 1)["RRR"] == "sergeant" and game.strength(0) == 0
    assert not game.over and game.phase == "battle" and game.to_move == 0


def test_two_lieutenants_win_automatically():
    game = position(["RR", "GGG", "GGR", "GGY", "GRB"] + FAR0, FAR1)
    game.apply("GRB-GGB")
    assert game.over and game.winners == (0,) and game.scores == (1, 0)  # no squad captured, still a win


def test_private_monkeybusiness_makes_an_equal_group_capturable():
    def play(**options):
        game = position(["GRB", "GGR", "YYYY"], ["GRR", "RGR", "BBBB"], **options)
        game.apply("YYYY-YYYR")
        game.apply("end")
        game.apply("GRR-GRY")  # onto GRY: its squad's area holds the node GRYB
        return game

    off = play()
    assert off.monkey == 0
    before = off.state_key()
    with pytest.raises(IllegalAction, match="as strong as yours"):
        off.apply("GRB-GRY")
    assert off.state_key() == before
    on = play(monkeybusiness=True)
    assert on.monkey == nodes(on, "GRY")
    on.apply("YYYR-YYYY")
    on.apply("end")
    on.apply("RGR-RGY")
    assert on.monkey == nodes(on, "GRY")
    # The sergeant keeps it after stepping away, and a unit of its own size captures it there.
    on.apply("YYYY-YYYR")
    on.apply("end")
    on.apply("GRY-GRR")
    assert on.monkey == nodes(on, "GRR")
    on.apply("GGR-GRR")
    assert on.captured == (1, 0) and on.monkey == 0 and not on.over


def test_illegal_actions_are_refused_with_their_reasons_and_change_nothing():
    game = position(["RRRG", "RRRR", "GGGG", "YY", "YYB", "BBG", "YYYY"], ["GGGR", "BBR", "BBY", "RGR"])
    for text, reason in [
        (
            "GGGG-GG",
            "GGGG to GG is not one move: a patriot moves sideways or via hyperspace (a patriot stays on "
            "its level)",
        ),
        ("GGGG-GGGY", "GGGG to GGGY is not one move"),  # two sideways steps
        ("GGGG-GGGR", "GGGR is occupied: patriots move only to free nodes"),
        ("RRRG-RRRB", "the patriot on RRRG is in the group RRRG,RRRR: the group moves together"),
        ("YYB-YYG", "the sergeant on YYB is in the group YY,YYB: the group moves together"),
        ("YY-YR", "the lieutenant on YY is in the group YY,YYB: the group moves together"),
        ("YY,YYB-YR,YRG", "a platoon moves with its lieutenant"),
        ("RRRG,RRRR-RRRY,RRRB", "a group moves as a block"),
        ("RRRG,GGGG-RRRR,GGGR", "that is not one group"),
        ("BBG-BBR", "the enemy group at BBR is 2 squads strong, yours 1"),
        ("BBG-BYY", "BBG to BYY is not one move"),
        ("YYYY-YYYR,YYYB", "1 stone moves but 2 targets are given"),
        ("GGGR-GGGY", "the stone on GGGR is not yours"),
        ("RRRY-RRRB", "there is no stone on RRRY"),
        ("GGGG", "every patriot is on the board"),
        ("xGGGR", "stones leave the board only when squads form and groups are captured"),
        ("end", "you may end your turn early only after a first patriot move"),
        ("pass", "you can move, so you may not pass"),
        ("roll:@GGGB", "the die has been rolled this turn"),
    ]:
        refused(game, text, reason)


def test_a_platoon_moving_over_its_own_sergeants_gathers_them():
    game = position(["YY", "YYB", "YRG"] + FAR0, FAR1)
    game.apply("YY,YYB-YR,YRB")  # YRG is in the new space: it joins the platoon's group
    group = next(g for g in game.army(0) if g[1] >= 0)
    assert group[0] == nodes(game, "YR", "YRG", "YRB") and group[4] == 6
    blocked = position(["YY", "YYB", "YRB"] + FAR0, FAR1)
    with pytest.raises(IllegalAction, match="YRB is occupied by your own sergeant"):
        blocked.apply("YY,YYB-YR,YRB")


def test_a_stall_without_squads_or_captures_is_a_draw():
    game = position(FAR0, FAR1, stall=1)
    game.apply("YYYY-YYYR")
    game.apply("end")
    assert not game.over
    game.apply("BBBB-BBBY")
    game.apply("end")
    assert game.over and game.winners == ()
    assert game.draw_reason() == "1 turns each of battle without a squad or platoon formed or a capture"


def test_a_capture_by_military_restarts_the_stall_count():
    game = position(["BBG", "BBR", "BBY"] + FAR0, ["BYY", "BYB"] + FAR1, stall=2)
    game.apply("YYYY-YYYR")
    game.apply("end")
    game.apply("BBBB-BBBY")
    game.apply("end")
    game.apply("BBG,BBR,BBY-BYG,BYR,BYY")  # the third turn: a capture, and no squad formed
    assert game.captured == (2, 0) and game.since == 3  # the quiet turns are those after the capture's
    for move in ("BBBY-BBBB", "YYYR-YYYY", "BBBB-BBBY"):
        game.apply(move)
        game.apply("end")
        assert not game.over  # until both have had two quiet turns (the capturer had only one: a draw
        # came a turn early, as in Blobs, until 2026-11-26)
    game.apply("YYYY-YYYR")
    game.apply("end")
    assert game.over and game.winners == ()


def test_the_turn_limit_counts_turns_of_battle():
    game = BATTLEFIELD(turn_limit=10, stall=1000)
    rng = random.Random(4)
    while not game.over:
        game.apply(game.random_action(rng))
    assert game.phase == "battle" and game.turn - game.start == 20 and game.winners == ()
    assert game.draw_reason() == "the turn limit"


def test_options_depth_and_patriots():
    with pytest.raises(OptionError, match="2 x 128 patriots leave no room to move on the 256 nodes"):
        BATTLEFIELD(patriots=128)
    with pytest.raises(OptionError, match="must be from 4 to 6"):
        BATTLEFIELD(depth=3)
    giant = BATTLEFIELD(depth=5, stall=5)
    assert len(giant.legal_actions()) == 1024
    rng = random.Random(2)
    while not giant.over:
        giant.apply(giant.random_action(rng))
    assert giant.phase == "battle" and all(
        len(n) == 5 for n, s in giant.state_dict()["stones"].items() if s["kind"] == "patriot"
    )
    assert giant.stone_kind(giant.space.parse("GGGG")) == "sergeant"
    assert giant.stone_kind(giant.space.parse("GGG")) == "lieutenant"


def test_the_computer_player_likes_capturing():
    game = position(["BBG", "BBR", "BBY"] + FAR0, ["BYY", "BYB"] + FAR1)
    before = game.evaluate()
    game.apply("BBG,BBR,BBY-BYG,BYR,BYY")
    assert game.evaluate()[0] > before[0] > 0.5


def test_playouts_pick_every_legal_action_and_nothing_else():
    game = position(["RRRG", "RRRR", "GGGG", "BBG", "BBR", "YY", "YYB"], ["BYY", "GRG", "BBBB"], depth=4)
    legal = names(game.legal_actions())
    rng = random.Random(8)
    picked = {str(game.random_action(rng)) for _ in range(60 * len(legal))}
    assert picked == legal
    game.apply("GGGG-GGGR")
    legal = names(game.legal_actions())
    picked = {str(game.random_action(rng)) for _ in range(60 * len(legal))}
    assert picked == legal and "end" in legal


def test_a_whole_random_game_through_the_command_line_ends():
    tool = Path(sys.executable).parent / "gryb-companion"
    command = [str(tool)] if tool.exists() else [sys.executable, "-m", "companion.cli"]
    done = subprocess.run(
        command + ["play", "battlefield", "--random", "2000", "--seed", "3"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    states = [json.loads(line) for line in done.stdout.splitlines()]
    assert states[-1]["over"] is True and states[0]["game"] == "battlefield"
    assert states[-1]["phase"] == "battle" and len(states) < 2000
