"""Grim Reaper: sex and lifespan, placements from a life reserve, 1-2 square moves, the alternating turn
sequence, births with the competition rule, ageing, death, both objects and the setup options."""

import json
import subprocess
import sys

import pytest
from scenario import names, play

from companion.games.catalogue import find
from companion.games.engine import IllegalAction
from companion.games.grim_reaper import LATTICES
from companion.rules import node as nd

REAPER = find("grim-reaper")


def node(square, size=8):
    """The node name of a square as the source names it (a1 bottom left)."""
    f, r = ord(square[0]) - ord("a"), int(square[1:]) - 1
    return nd.name(LATTICES[size].at[(f, r)])


STEPS = {"red moves": (0, 0), "blue moves": (1, 1), "blue births": (2, 1), "red births": (3, 0)}


def position(red="", blue="", at="red moves", reserve=(0, 0), **options):
    """A position in the first round: pieces written like 'Mb4:5' (a male on b4 with 5 life turns)."""
    game = REAPER(**options)
    lives = list(game.lives)
    stones = [0, 0]
    for player, pieces in enumerate((red, blue)):
        for piece in pieces.split():
            where, life = piece[1:].split(":")
            n = game.space.parse(node(where, game.lattice.size))
            stones[player] |= 1 << n
            lives[n] = int(life)
            if piece[0] == "M":
                game.males |= 1 << n
    game.stones, game.lives, game.in_hand = tuple(stones), tuple(lives), tuple(reserve)
    game.step, game.to_move = STEPS[at]
    game.phase = "move" if game.step < 2 else "birth"
    return game


def life(game, square):
    return game.lives[game.space.parse(node(square, game.lattice.size))]


# -- the board ---------------------------------------------------------------------------------------


def test_the_board_is_the_level_3_lattice_and_6x6_is_its_centre():
    big, small = REAPER(), REAPER(size=6)
    assert big.lattice.all.bit_count() == 64 and small.lattice.all.bit_count() == 36
    assert [node(s) for s in ("a8", "h8", "h1", "a1")] == ["GGG", "RRR", "YYY", "BBB"]
    assert [node(s, 6) for s in ("a6", "f6", "f1", "a1")] == ["GGY", "RRB", "YYG", "BBR"]
    assert small.lattice.all & ~big.lattice.all == 0
    with pytest.raises(IllegalAction, match="GGG is outside the central 6x6 the 6x6 board uses"):
        small.apply("M5GGG")
    with pytest.raises(IllegalAction, match="G is not a square: Grim Reaper is played on the level-3 nodes"):
        big.apply("M5G")
    with pytest.raises(IllegalAction, match="there is no square g1 on the 6x6 board"):
        small.apply("M5g1")
    with pytest.raises(
        IllegalAction, match="there is no square i9: on the 8x8 board squares run from a1 to h8"
    ):
        big.apply("M10i9")


# -- placement --------------------------------------------------------------------------------------


def test_a_placement_names_sex_and_life_and_draws_on_the_reserve():
    game = REAPER()
    assert game.in_hand == (12, 12)  # x1: the average maximum lifespan (12 and 12)
    first = game.legal_actions()
    assert len(first) == 64 * 2 * 12 and str(first[0]) == "M1GGG"
    game.apply("M10a1")  # the source's square notation
    assert str(game.history[-1][0]) == "M10BBB" and game.parse("M10BBB") == game.history[-1][0]
    assert (
        game.in_hand == (2, 12)
        and life(game, "a1") == 10
        and game.stone_kind(game.space.parse("BBB")) == "male"
    )
    assert game.to_move == 1 and game.phase == "move"
    with pytest.raises(IllegalAction, match="BBB is occupied"):
        game.apply("F2BBB")
    with pytest.raises(IllegalAction, match="you have only 12 life turns in reserve, not 13"):
        game.apply("F13b3")
    with pytest.raises(IllegalAction, match="a piece needs at least one life turn"):
        game.apply("F0b3")
    with pytest.raises(IllegalAction, match="name the new piece's sex and life turns: M3GGB or F3GGB"):
        game.apply("GGB")
    game.apply("F12b3")
    assert game.in_hand == (2, 0) and game.stone_kind(game.space.parse(node("b3"))) == "female"


def test_with_the_reserve_used_up_a_piece_must_move_and_pass_only_when_nothing_can():
    game = position(red="Ma1:5", blue="Fh8:5", reserve=(0, 3))
    with pytest.raises(IllegalAction, match="your life reserve is used up: move a piece instead"):
        game.apply("M1c3")
    with pytest.raises(IllegalAction, match="you can place or move a piece, so you may not pass"):
        game.apply("pass")
    with pytest.raises(IllegalAction, match="placing or moving a piece is compulsory when you can"):
        game.apply("end")
    assert all(a.kind == "move" for a in game.legal_actions())
    blocked = position(red="Ma1:5", blue="Fa2:5 Fb1:5 Fb2:5 Fa3:5 Fb3:5 Fc1:5 Fc2:5 Fc3:5")
    assert names(blocked.legal_actions()) == {"pass"}
    with pytest.raises(IllegalAction, match="nothing can be placed or moved: write pass"):
        blocked.apply("end")


# -- movement ---------------------------------------------------------------------------------------


def test_the_sources_movement_example_one_or_two_squares_through_a_free_square():
    # 004's figure: the red male on B4 reaches A4, A3, A2, C3, C2, D4, D3 and D2; D4 jumps C4 by way of the
    # free C3; A6 is out of reach because A5 and B5 are taken.
    game = position(red="Mb4:5 Fb5:5 Mc4:5", blue="Fa5:5 Mb3:5 Fc5:5 Mb2:5", size=6)
    reach = {str(a).split("-")[1] for a in game.legal_actions() if str(a).startswith(node("b4", 6) + "-")}
    assert reach == {node(s, 6) for s in ("a4", "a3", "a2", "c3", "c2", "d4", "d3", "d2")}
    with pytest.raises(
        IllegalAction, match=f"{node('b4', 6)} to {node('a6', 6)} needs a free square on the way"
    ):
        game.apply("b4-a6")
    with pytest.raises(IllegalAction, match="a piece moves one or two squares, orthogonally or diagonally"):
        game.apply("b4-e4")
    with pytest.raises(IllegalAction, match=f"{node('c4', 6)} is occupied"):
        game.apply("b4-c4")
    game.apply("b4-d4")
    moved = game.space.parse(node("d4", 6))
    assert game.males >> moved & 1 and game.lives[moved] == 5 and life(game, "b4") == 0
    assert game.last == (game.space.parse(node("b4", 6)), moved) and game.to_move == 1


# -- the turn sequence ------------------------------------------------------------------------------


def test_the_turn_sequence_alternates_who_moves_just_before_the_births():
    game = REAPER()
    assert game.upcoming() == [
        "red places or moves",
        "blue places or moves",
        "blue gives birth",
        "red gives birth",
        "all pieces age",
    ]
    play(game, "M5a1 M5h8")  # round 1: red, then blue, places
    assert (game.phase, game.to_move) == ("birth", 1)
    assert names(game.legal_actions()) == {"pass"}  # no couple yet: blue's birth phase is only a pass
    with pytest.raises(IllegalAction, match="no birth is possible: write pass"):
        game.apply("end")
    game.apply("pass")
    assert (game.phase, game.to_move) == ("birth", 0)
    game.apply("pass")
    # Ageing ends the round; blue, who placed just before the births, opens the next one.
    assert game.turn == 1 and (game.phase, game.to_move) == ("move", 1)
    assert life(game, "a1") == 4 and life(game, "h8") == 4
    assert game.upcoming()[:4] == [
        "blue places or moves",
        "red places or moves",
        "red gives birth",
        "blue gives birth",
    ]
    play(game, "F4h7 F4a2")
    assert (game.phase, game.to_move) == ("birth", 0)
    play(game, "pass pass")
    assert game.turn == 2 and game.to_move == 0


# -- births -----------------------------------------------------------------------------------------


def test_the_sources_birth_example_one_birth_per_female_males_fertilise_several():
    # 004: females on A2, A4 and E4, males on C4 and C2 (the figure's red pieces).
    game = position(red="Fa2:5 Fa4:5 Fe4:5 Mc4:5 Mc2:5", at="red births", size=6)
    a2, a4, b3 = node("a2", 6), node("a4", 6), node("b3", 6)
    births = names(game.legal_actions())
    # A2 could bear on B3 with C4 or on B2 with C2; C2 could father with A2, A4 and E4.
    for square, mother in (
        ("b3", "a2"),
        ("b3", "a4"),
        ("b2", "a2"),
        ("b4", "a4"),
        ("d3", "e4"),
        ("d4", "e4"),
    ):
        assert f"+F{node(square, 6)}/{node(mother, 6)}" in births
    assert "end" in births and "pass" not in births
    with pytest.raises(IllegalAction, match="two or more females could be the mother") as err:
        game.apply("+Fb3")  # two mothers could bear on B3: the player says which
    assert f"+F{b3}/{a2}" in err.value.reason and f"+F{b3}/{a4}" in err.value.reason
    game.apply(f"+F{b3}/{a2}")
    assert game.to_move == 0 and game.phase == "birth"  # more births may follow
    with pytest.raises(IllegalAction, match=f"the female on {a2} has already given birth this turn"):
        game.apply(f"+M{node('b2', 6)}/{a2}")
    game.apply("+Mb4")  # C4 fathers again, with A4: the only mother left for B4
    game.apply("+Md3")  # and C2 with E4
    assert f"+F{node('d4', 6)}/{node('e4', 6)}" not in names(game.legal_actions())  # E4 has borne
    assert (
        life(game, "b3") == 12
        and life(game, "b4") == 12
        and game.stone_kind(game.space.parse(node("b4", 6))) == "male"
    )
    assert names(game.legal_actions()) == {"pass"}  # every female has borne: the player still says so
    game.apply("pass")
    # Ageing: every piece, newborns too, loses a turn.
    assert game.turn == 1 and life(game, "b3") == 11 and life(game, "a2") == 4


def test_competing_parents_block_a_square_for_both_sides():
    # 004: red's pair C5-E3 and blue's pair C4-E4 both want D4, so neither side may give birth there,
    # even if red's female bears elsewhere.
    game = position(red="Fc5:5 Me3:5 Ma5:5", blue="Mc4:5 Fe4:5", at="blue births", size=6)
    d4 = node("d4", 6)
    assert not any(str(a).startswith(f"+F{d4}") or str(a).startswith(f"+M{d4}") for a in game.legal_actions())
    with pytest.raises(
        IllegalAction, match=f"both sides have parents across {d4}: nobody may give birth there"
    ):
        game.apply(f"+F{d4}/{node('e4', 6)}")
    game.apply("pass")  # blue has no other birth
    game.apply(f"+M{node('b5', 6)}/{node('c5', 6)}")  # red's C5 bears with A5 instead
    with pytest.raises(IllegalAction, match="both sides have parents across"):
        game.apply(f"+M{d4}")


def test_a_newborn_is_fertile_only_from_the_next_turn():
    game = position(red="Ma1:9 Fa3:9 Mc2:9", blue="Mf6:20", at="red births", size=6)
    game.apply("+Fa2")  # a1 and a3 across a2
    born, b2 = node("a2", 6), node("b2", 6)
    assert game.newborn == 1 << game.space.parse(born)
    with pytest.raises(
        IllegalAction, match=f"the female on {born} was just born: she is fertile from the next"
    ):
        game.apply(f"+M{b2}/{born}")
    assert names(game.legal_actions()) == {"pass"}
    game.apply("pass")
    play(game, "f6-f5 a3-b4")  # the next round: blue moves, red moves, then red's births
    assert game.phase == "birth" and game.to_move == 0 and game.newborn == 0
    assert {f"+M{b2}/{born}", f"+F{b2}/{born}", "end"} <= names(game.legal_actions())  # with the male on c2


def test_births_rejected_with_reasons():
    game = position(red="Ma1:9 Fa3:9 Mc3:9", blue="Fh8:9", at="red births", size=8)
    with pytest.raises(IllegalAction, match=f"the piece on {node('a1')} is male: name the mother"):
        game.apply(f"+F{node('a2')}/{node('a1')}")
    with pytest.raises(IllegalAction, match=f"the mother on {node('h8')} must be one of your pieces"):
        game.apply(f"+F{node('g7')}/{node('h8')}")
    with pytest.raises(IllegalAction, match=f"no couple of yours has {node('e5')} free between them"):
        game.apply("+Fe5")
    with pytest.raises(IllegalAction, match=f"{node('a3')} is occupied"):
        game.apply("+Fa3")
    with pytest.raises(IllegalAction, match="births come after both players have placed or moved a piece"):
        position(red="Ma1:9 Fa3:9").apply("+Fa2")
    with pytest.raises(IllegalAction, match="it is red's birth phase: give birth"):
        game.apply("a1-b1")


# -- ageing, death and the objects -----------------------------------------------------------------


def test_pieces_die_when_their_life_runs_out_and_the_square_is_free_again():
    game = position(red="Ma1:1 Fh8:3", blue="Fc3:2", at="red births", reserve=(0, 4))
    game.apply("pass")
    a1 = game.space.parse(node("a1"))
    assert not game.occupied >> a1 & 1 and game.rip == 1 << a1 and not game.over
    assert life(game, "h8") == 2 and life(game, "c3") == 1
    assert game.state_dict()["rip"] == [node("a1")]
    game.apply("M1a1")  # blue places on the RIP square
    assert game.occupied >> a1 & 1


def test_the_last_population_alive_wins_and_a_reserve_keeps_a_side_alive():
    game = position(red="Mb2:3", blue="Fg7:1", at="red births", reserve=(0, 1))
    game.apply("pass")
    assert not game.over and game.stones[1] == 0  # blue has no piece but one life turn in reserve
    play(game, "F1a8 b2-b3 pass pass")
    assert game.over and game.winners == (0,)  # blue's last piece died with nothing in reserve


def test_both_populations_dying_together_is_a_draw():
    game = position(red="Mb2:1", blue="Fg7:1", at="red births")
    game.apply("pass")
    assert game.over and game.winners == () and game.outcome() == [0.5, 0.5]
    assert game.draw_reason() == "both populations died out together"


SOURCE_WIN = dict(
    red="Mc6:9 Mc5:10 Fc4:9 Fc3:10 Mc2:9 Fd2:8 Fd1:5",
    blue="Mb6:7 Md6:12 Fe6:11 Ff6:7 Fb5:11 Fd5:7 Me5:11 Md4:5 Fe4:10 Ff4:9",
)


def test_the_sources_connection_example_red_joins_top_and_bottom():
    # 004's figure on the 6x6 board, one turn before the ageing: red joins rank 6 to rank 1 orthogonally.
    game = position(**SOURCE_WIN, at="red births", size=6)
    assert not game.over  # a connection counts only after the ageing
    game.apply("pass" if names(game.legal_actions()) == {"pass"} else "end")
    assert game.over and game.winners == (0,)
    assert life(game, "c2") == 8


def test_without_c2_the_diagonal_step_does_not_connect():
    red = SOURCE_WIN["red"].replace("Mc2:9 ", "")
    game = position(red=red, blue=SOURCE_WIN["blue"], at="red births", size=6)
    game.apply("pass" if names(game.legal_actions()) == {"pass"} else "end")
    assert not game.over


def test_a_connection_broken_by_a_death_at_the_ageing_does_not_win():
    red = SOURCE_WIN["red"].replace("Fc3:10", "Fc3:1")
    game = position(red=red, blue=SOURCE_WIN["blue"], at="red births", size=6)
    game.apply("pass" if names(game.legal_actions()) == {"pass"} else "end")
    assert not game.over


def test_blue_connects_left_and_right():
    row = " ".join(f"F{f}4:5" for f in "abcdefgh")
    game = position(red="Ma1:5", blue=row, at="red births")
    game.apply("pass")
    assert game.over and game.winners == (1,)


def test_the_turn_limit_ends_an_endless_game_in_a_draw():
    game = position(red="Ma1:99", blue="Mh8:99", turn_limit=10)
    while not game.over:
        game.apply(game.legal_actions()[0])
    assert game.winners == () and game.turn == 10 and game.draw_reason() == "the turn limit"


# -- setup options ----------------------------------------------------------------------------------


@pytest.mark.parametrize("reserve, expected", [(1, 12), (2, 23), (3, 35)])
def test_the_reserve_is_the_average_maximum_lifespan_times_one_two_or_three(reserve, expected):
    game = REAPER(male_life=10, female_life=13, reserve=reserve)
    assert game.in_hand == (expected, expected)


def test_maximum_life_per_sex_sets_a_newborns_life():
    game = position(red="Ma1:9 Fa3:9 Fc1:9", at="red births", male_life=6, female_life=9)
    play(game, "+Ma2 +Fb1")
    assert life(game, "a2") == 6 and life(game, "b1") == 9


def test_random_life_rolls_a_newborns_life_and_undo_takes_it_back():
    game = position(red="Ma1:9 Fa3:9", at="red births", random_life=True, male_life=5)
    before = game.state_key()
    game.apply("+Ma2")
    assert game.is_chance and names(game.legal_actions()) == {"roll:2", "roll:3", "roll:4", "roll:5"}
    assert game.state_dict()["stones"][node("a2")]["life"] is None
    with pytest.raises(IllegalAction, match="roll the die first: it gives the newborn on"):
        game.apply("end")
    with pytest.raises(IllegalAction, match="a newborn's random life is from 2 to 5, not 9"):
        game.apply("roll:9")
    game.apply("roll:4")
    assert life(game, "a2") == 4 and not game.is_chance and game.state_dict()["die"] == "4"
    with pytest.raises(IllegalAction, match="there is nothing to roll"):
        game.apply("roll:3")
    after = game.state_key()
    game.undo()
    assert game.is_chance and life(game, "a2") == 0
    game.undo()
    assert game.state_key() == before
    game.redo()
    game.redo()
    assert game.state_key() == after


def test_options_are_checked():
    from companion.games.engine import OptionError

    with pytest.raises(OptionError, match="option size is one of 6, 8"):
        REAPER(size=7)
    with pytest.raises(OptionError, match="option reserve is one of 1, 2, 3"):
        REAPER(reserve=4)
    with pytest.raises(OptionError, match="option male_life must be from 2 to 99"):
        REAPER(male_life=1)


# -- the record, the computer player and the command line --------------------------------------------


def test_removing_a_piece_and_foreign_rolls_are_refused():
    game = REAPER()
    with pytest.raises(IllegalAction, match="pieces are never taken off by a player: they die of old age"):
        game.apply("xGGG")
    with pytest.raises(IllegalAction, match="there is nothing to roll"):
        game.apply("roll:G")


def test_evaluate_favours_the_stronger_population():
    game = position(red="Ma1:9 Fa3:9 Ma5:9 Fb5:9", blue="Fh8:2")
    red, blue = game.evaluate()
    assert red > 0.7 and abs(red + blue - 1) < 1e-9
    even = REAPER()
    assert even.evaluate() == [0.5, 0.5]


def test_a_game_plays_through_the_command_line_in_the_sources_notation():
    script = "M6a1\nM6f6\nM6f5\nF6a3\n+Fa2\n"  # the forced passes are applied by themselves
    done = subprocess.run(
        [sys.executable, "-m", "companion.cli", "play", "grim-reaper", "--option", "size=6"],
        input=script,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    states = [json.loads(line) for line in done.stdout.splitlines()]
    a1, f6, f5, a3, a2 = (node(s, 6) for s in ("a1", "f6", "f5", "a3", "a2"))
    assert [s["action"] for s in states] == [
        f"M6{a1}",
        f"M6{f6}",
        "pass",
        "pass",
        f"M6{f5}",
        f"F6{a3}",
        f"+F{a2}/{a3}",
    ]
    last = states[-1]
    assert last["reserve"] == [0, 0] and last["newborn"] == [a2]
    assert last["stones"][a2] == {"player": 0, "kind": "female", "life": 12, "square": "a2"}
    assert last["stones"][a1]["life"] == 5 and last["upcoming"][0] == "red gives birth"


@pytest.mark.parametrize(
    "options",
    [
        {"size": 6},
        {"random_life": True},
        {"reserve": 3, "male_life": 4},
        {"size": 6, "random_life": True, "female_life": 20},
    ],
)
def test_random_games_with_each_option_end_and_undo_and_replay_exactly(options):
    import random

    for seed in range(12):
        rng = random.Random(seed)
        game = REAPER(**options)
        keys = [game.state_key()]
        while not game.over:
            game.push_legal(game.random_action(rng))
            keys.append(game.state_key())
        replay = REAPER(**options)
        for (action, _), key in zip(game.history, keys[1:]):
            replay.apply(str(action))
            assert replay.state_key() == key
        for key in reversed(keys[:-1]):
            game.undo()
            assert game.state_key() == key


def test_placements_births_and_rolls_said_in_words_for_the_phones_buttons():
    game = position(red="Ma1:9 Fa3:9", at="red births", random_life=True, male_life=5)
    a1, a2, a3 = node("a1"), node("a2"), node("a3")
    assert game.say(game.parse(f"M10{a1}")) == f"male, 10 turns, on {a1}"
    assert game.say(game.parse(f"F1{a1}")) == f"female, 1 turn, on {a1}"
    assert game.say(game.parse(f"+M{a2}/{a3}")) == f"male born on {a2}, mother on {a3}"
    game.apply("+Ma2")
    assert [game.say(a) for a in game.legal_actions()] == [f"a life of {n} turns" for n in (2, 3, 4, 5)]
    assert game.say(game.parse("end")) == "end"
