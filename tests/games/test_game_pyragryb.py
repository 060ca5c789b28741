"""PyraGRYB: entry, the lifeline, lethal encounters, reincarnation, quadrangle wins, 2-4 players."""

import pytest
import scenario
from scenario import names

from companion.games.catalogue import find
from companion.games.engine import IllegalAction
from companion.rules.space import mask_of

PYRA = find("pyragryb")


def play(script, players=2, **options):
    return scenario.play(PYRA(players, **options), script)


def test_entry_is_a_large_pyramid_on_the_top_node_of_the_colour_rolled():
    game = play("roll:Y")
    assert names(game.legal_actions()) == {"Y", "pass"}
    game.apply("Y")
    assert game.stash == ((4, 5, 5), (5, 5, 5)) and game.in_hand == (14, 15)
    assert game.state_dict()["stones"]["Y"] == {"player": 0, "kind": "large"}
    assert game.to_move == 1 and game.is_chance
    # The page's panel shows the stash size by size: out of one size, a player must reincarnate.
    assert game.state_dict()["sizes"] == ["large", "medium", "small"]
    assert game.state_dict()["stash"] == [[4, 5, 5], [5, 5, 5]]


def test_an_occupied_entry_node_forces_a_pass():
    game = play("roll:Y Y roll:Y")
    assert names(game.legal_actions()) == {"pass"}
    with pytest.raises(IllegalAction, match="Y is occupied"):
        game.apply("Y")
    game.apply("pass")
    assert game.to_move == 0 and game.is_chance


def test_placing_off_the_rolled_colour_or_off_the_top_is_refused():
    game = play("roll:Y")
    with pytest.raises(IllegalAction, match="you rolled Y: move onto a yellow node, and G is not one"):
        game.apply("G")
    with pytest.raises(IllegalAction, match="lifeline to RY is broken at R"):
        game.apply("RY")


def test_second_level_quadrangle_wins_two_points():
    game = play(
        "roll:G G roll:G pass roll:G GG roll:G pass roll:R GR roll:G pass roll:Y GY roll:G pass roll:B GB"
    )
    assert game.over and game.winners == (0,) and game.scores == (2, 0)
    assert [g.names() for g in game.grybs] == [["GG", "GR", "GY", "GB"]]


def test_bottom_quadrangle_wins_eight_points_with_three_sizes():
    game = play(
        "roll:G G roll:G pass roll:G GG roll:G pass roll:G GGG roll:G pass roll:G GGGG roll:G pass "
        "roll:R GGGR roll:G pass roll:Y GGGY roll:G pass roll:B GGGB"
    )
    assert game.winners == (0,) and game.scores == (8, 0)
    kinds = {n: s["kind"] for n, s in game.state_dict()["stones"].items()}
    assert kinds == {
        "G": "large",
        "GG": "large",
        "GGG": "medium",
        "GGGG": "small",
        "GGGR": "small",
        "GGGY": "small",
        "GGGB": "small",
    }
    assert game.stash[0] == (3, 4, 1)


def test_top_quadrangle_wins_one_point():
    game = play("roll:G G roll:G pass roll:R R roll:G pass roll:Y Y roll:G pass roll:B B")
    assert game.winners == (0,) and game.scores == (1, 0)


def test_building_needs_your_own_piece_above():
    game = play("roll:G G roll:R R roll:R")
    assert names(game.legal_actions()) == {"GR", "G-R", "pass"}  # build under G, slide onto R, or not
    with pytest.raises(IllegalAction, match="lifeline to RR is broken at R"):
        game.apply("RR")


def test_lethal_encounter_slides_onto_the_opponent_who_gets_the_piece_back():
    game = play("roll:G G roll:R R roll:R G-R")
    assert game.owner(game.space.parse("R")) == 0 and game.owner(game.space.parse("G")) is None
    assert game.stash == ((4, 5, 5), (5, 5, 5)) and game.captured == (1, 0)
    assert game.last == tuple(game.space.parse_many(["G", "R"]))


def test_a_lethal_encounter_never_completes_a_quadrangle_it_leaves_a_node_of_it_free():
    game = play("roll:G G roll:B B roll:R R roll:R BR roll:Y Y roll:R BRR roll:B Y-B")
    assert not game.over and not game.grybs and game.owner(game.space.parse("Y")) is None


def test_lethal_encounter_needs_the_colour_the_opponent_sits_on_and_a_neighbour():
    game = play("roll:G G roll:R R roll:B")
    with pytest.raises(
        IllegalAction, match="you rolled B: a lethal encounter needs the colour the opponent sits on, red"
    ):
        game.apply("G-R")
    game = play("roll:G G roll:Y Y roll:Y")
    with pytest.raises(IllegalAction, match="Y is not beside G"):
        game.apply("G-Y")  # opposite corners of the quadrangle are two rods apart
    game = play("roll:G G roll:G pass roll:B")
    with pytest.raises(IllegalAction, match="only slides onto an opponent's piece"):
        game.apply("G-B")


def test_a_broken_lifeline_stops_building_deeper_until_restored():
    game = play("roll:G G roll:R R roll:G GG roll:G R-G roll:R")
    # Player 0 still has GG, but G above it is now player 1's: nothing may be built under GG.
    with pytest.raises(IllegalAction, match="lifeline to GGR is broken at G"):
        game.apply("GGR")
    assert "GGR" not in names(game.legal_actions())
    game.apply("R")  # re-enter on the free red node, the only move
    # Player 1 rules G now and builds under it beside player 0's GG.
    game.apply("roll:B")
    assert "GB" in names(game.legal_actions())
    game.apply("GB")
    # Player 0 restores the line by taking G back (G is beside R and rolled green), then builds again.
    game.apply("roll:G")
    game.apply("R-G")
    game.apply("roll:Y")
    game.apply("Y")
    game.apply("roll:R")
    assert "GGR" in names(game.legal_actions())


def test_reincarnation_takes_back_a_piece_of_the_size_you_ran_out_of():
    game = play("roll:G G roll:G pass", pieces=1)
    # No large pyramid left for the free top nodes: taking G back is offered before the roll (003: "No roll
    # of the die is needed for this type of move"), beside rolling; never instead of it.
    assert names(game.legal_actions()) == {"xG", "roll"} and not game.is_chance
    game.apply("xG")
    assert game.stones[0] == 0 and game.stash[0] == (1, 1, 1) and game.to_move == 1
    game = play("roll:G G roll:G pass roll roll:R", pieces=1)
    with pytest.raises(IllegalAction, match="no large pyramids left"):
        game.apply("GR")


def test_a_piece_taken_back_waits_in_the_stash_past_the_next_turn():
    # "for use on their next turn": the next roll (R, on player 1's piece) lets player 0 do nothing, and the
    # large pyramid is still theirs to enter a turn later.
    game = play("roll:G G roll:G pass xG roll:R R roll:R", pieces=1)
    assert names(game.legal_actions()) == {"pass"} and game.stash[0] == (1, 1, 1)
    scenario.play(game, "pass roll roll:G pass roll:B")
    assert game.to_move == 0 and names(game.legal_actions()) == {"B", "pass"}


def test_reincarnation_is_refused_while_you_still_have_that_size():
    game = play("roll:G G roll:G pass roll:R")
    with pytest.raises(IllegalAction, match="you still have large pyramids"):
        game.apply("xG")
    with pytest.raises(IllegalAction, match="not an opponent's"):
        play("roll:G G roll:R").apply("xG")


def test_reincarnation_is_refused_when_no_free_node_needs_that_size():
    game = play("roll:G")
    space = game.space
    game.set_stones(0, mask_of(space.parse_many(["G"])))
    game.set_stones(1, mask_of(space.parse_many(["R", "Y", "B", "GG", "GR", "GY", "GB"])))
    game.stash = ((0, 5, 5), (0, 5, 5))
    with pytest.raises(IllegalAction, match="no free node on your lifeline needs a large one"):
        game.apply("xG")


def test_four_players_take_turns_in_order_and_the_winner_alone_scores():
    game = PYRA(4)
    order = []
    for colour in "GRYB":
        order.append(game.to_move)
        game.apply(f"roll:{colour}")
        game.apply(colour)
    assert order == [0, 1, 2, 3] and game.to_move == 0
    game.apply("roll:R")
    game.apply("G-R")
    assert game.stash[1] == (5, 5, 5) and game.to_move == 1
    game2 = play(
        "roll:G G roll:G pass roll:G pass roll:R R roll:G pass roll:G pass roll:Y Y roll:G pass "
        "roll:G pass roll:B B",
        players=3,
    )
    assert game2.winners == (0,) and game2.scores == (1, 0, 0)


def test_options_and_players():
    assert PYRA(3).space.headless
    with pytest.raises(ValueError):
        PYRA(5)
    assert PYRA(2, pieces=3).stash == ((3, 3, 3), (3, 3, 3))


# -- the computer player's evaluation: a race to fill a quadrangle --------------------------------------


def test_the_chance_of_rolling_every_colour_of_a_set_matches_counting_every_sequence_of_rolls():
    from itertools import product

    from companion.games.pyragryb import COVERS, _covered

    families = [(0b0001,), (0b0011,), (0b1111,), (0b0011, 0b1100), (0b0111, 0b1000)]
    for family in families:
        sets = 0
        for colours in family:
            sets |= COVERS[colours]
        for rolls in range(5):
            hits = sum(
                any(all(colours >> c & 1 == 0 or c in seq for c in range(4)) for colours in family)
                for seq in product(range(4), repeat=rolls)
            )
            assert _covered(sets, rolls) == pytest.approx(hits / 4**rolls), (family, rolls)


def test_a_player_one_colour_from_a_quadrangle_leads_the_race_until_their_line_is_cut_at_the_top():
    game = play("roll:G G roll:R R roll:G GG roll:R RR roll:R GR roll:Y RY roll:Y GY")
    ahead = game.evaluate()  # player 0 needs B for GB; player 1 two colours for the R quadrangle
    assert sum(ahead) == pytest.approx(1.0) and ahead[0] > 0.6 > ahead[1]
    game.apply("roll:G")
    game.apply("R-G")  # player 1's lethal encounter on G cuts player 0's line: GG GR GY can grow no more
    cut = game.evaluate()
    assert sum(cut) == pytest.approx(1.0) and cut[0] < cut[1] and cut[0] < ahead[0] - 0.2


def test_an_opponents_piece_in_a_quadrangle_costs_a_turn_but_does_not_close_it():
    from companion.games.pyragryb import HORIZON

    # Player 1 builds GB under G; player 0 slides onto G (a lethal encounter) and builds GG GR GY: player
    # 1's GB is left in the quadrangle. Player 0 can still fill it: a B roll slides GG or GY onto GB, and
    # the node left is built on again, a turn more than a quadrangle lacking only B (1 - (3/4)^t).
    game = play(
        "roll:R R roll:G G roll:Y RY roll:B GB roll:G R-G roll:Y Y roll:G GG roll:Y YY roll:R GR "
        "roll:G YG roll:Y GY",
        pieces=8,
    )
    assert game.owner(game.space.parse("GB")) == 1 and game.stash[0][0] == 3
    curve = game._finish_curve(0)
    assert curve[:2] == [0.0, 0.0]
    for t in range(2, HORIZON + 1):
        assert curve[t] == pytest.approx(1 - 0.75 ** (t - 1)), t


def test_of_two_players_needing_the_same_last_colour_the_one_who_rolls_first_leads():
    game = play("roll:G G roll:R R roll:G GG roll:G RG roll:R GR roll:R RR roll:Y GY roll:Y RY")
    assert game.is_chance and game.to_move == 0
    # Each needs a B (a chance of 1/4 a turn), so the first to roll wins with 1/4 + (3/4)^2 1/4 + ... = 4/7
    # (less what is left after the race's horizon, shared).
    first, second = game.evaluate()
    assert first == pytest.approx(4 / 7, abs=0.005) and second == pytest.approx(3 / 7, abs=0.005)


def test_a_finished_game_is_judged_by_its_result():
    game = play(
        "roll:G G roll:G pass roll:G GG roll:G pass roll:R GR roll:G pass roll:Y GY roll:G pass roll:B GB"
    )
    assert game.evaluate() == [1.0, 0.0]


# -- issue 45: every move is optional; reincarnation needs no roll ----------------------------------------


def test_after_the_roll_a_player_may_always_pass_even_where_a_move_would_cut_their_own_line():
    """003: "they may remove their opponents piece", "each player may make only one move per turn". Here
    the only move, the slide G-R, would cut Player 1's GR, GRR and GRRR from their parent."""
    game = play("roll:G G roll:R R roll:R GR roll:G RG roll:R GRR roll:B RGB roll:R GRRR roll:Y RY roll:R")
    assert names(game.legal_actions()) == {"G-R", "pass"}
    game.apply("pass")
    assert game.to_move == 1 and game.is_chance and game.owner(game.space.parse("G")) == 0


def test_a_game_in_which_nobody_moves_still_ends_at_the_turn_limit():
    game = PYRA(3, turn_limit=10)
    while not game.over:
        game.apply("roll:G" if game.is_chance else "pass")
    assert game.draw == "the turn limit" and game.turn == 30 and not game.stones[0]


def test_reincarnation_is_offered_before_the_roll_and_the_roll_is_then_a_choice():
    game = play("roll:G G roll:G pass", pieces=1)
    state = game.state_dict()
    # The die waits (blank, ROLL lit) though no roll is due yet: ROLL chooses it.
    assert not game.is_chance and game.roll_offered and state["awaiting_roll"] and state["die_shown"] is None
    scenario.refused(game, "roll:R", "choose to roll first (roll)")
    scenario.refused(game, "pass", "roll first (roll), or take back a piece")
    scenario.refused(game, "R", "roll first (roll), or take back a piece")
    game.apply("roll")
    assert game.is_chance and game.to_move == 0 and game.state_dict()["awaiting_roll"]
    scenario.refused(game, "roll", "the die is rolled now")
    game.apply("roll:B")
    scenario.refused(game, "xG", "reincarnation needs no roll: it is offered before the roll")
    assert names(game.legal_actions()) == {"pass"}
    game.undo()
    game.undo()
    assert names(game.legal_actions()) == {"xG", "roll"}  # undo takes the choice back too


def test_the_player_choosing_reincarnation_sees_no_roll_and_the_turn_has_none():
    game = play("roll:G G roll:G pass xG", pieces=1)
    assert [str(a) for a, _ in game.history[-2:]] == ["pass", "xG"]
    assert game.state_dict()["die_shown"] is None and game.is_chance and game.to_move == 1


@pytest.mark.parametrize("level", ["easy", "hard"])
def test_the_computer_enters_rather_than_passes(level):
    """Passing is a choice now: a computer player still takes an open top node (and a level does not
    stall: bench/bench_ai.py, docs/performance.md "Every move optional (issue 45)")."""
    import random

    from companion import ai

    for colour in "GRYB":
        game = play(f"roll:{colour}", players=3)
        assert (
            str(ai.search(game, ai.level(level, game=game, repeatable=True), random.Random(1)).action)
            == colour
        )
