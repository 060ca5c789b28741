"""The compositions of our own (docs/composer.md, 'Compositions of our own'): each decision of their pages in
docs/rules/ played out on the game itself, as a referee would check it."""

import random

import pytest
import scenario
from scenario import names, refused

from companion.games.catalogue import find
from companion.games.engine import OptionError
from companion.rules.space import mask_of

OWN = ("rising-tide", "kings-court", "samsara", "leapfrog", "exodus", "doubles", "siege")


def at(game_id, *per_seat, hand=None, players=2, **options):
    """A position to play from: each seat's stones, and ``hand`` stones each still to enter."""
    game = find(game_id)(players, **options)
    for seat, nodes in enumerate(per_seat):
        game.set_stones(seat, mask_of(game.space.parse_many(nodes)))
    if hand is not None:
        game.in_hand = (hand,) * players
    return game


def moves(game, prefix=""):
    return {a for a in names(game.legal_actions()) if "-" in a and a.startswith(prefix)}


@pytest.mark.parametrize(
    "game_id, players, options",
    [
        ("rising-tide", (2, 4), {"depth": (4, 3, 6), "stones": (8, 3, 40)}),
        ("kings-court", (2, 2), {"depth": (4, 2, 6), "stones": (24, 4, 400)}),
        ("samsara", (2, 2), {"depth": (4, 2, 6), "stones": (8, 6, 30), "capture": (6, 1, 8)}),
        ("leapfrog", (2, 2), {"capture": (5, 1, 8)}),
        ("exodus", (2, 4), {"stones": (6, 2, 20), "depth": (4, 2, 6)}),
        ("doubles", (4, 4), {"depth": (4, 3, 6), "stones": (20, 4, 100)}),
        ("siege", (2, 2), {"stones": (14, 4, 40), "depth": (3, 2, 5)}),
    ],
)
def test_players_and_options_are_what_the_rules_pages_say(game_id, players, options):
    cls = find(game_id)
    assert (cls.min_players, cls.max_players) == players
    options = options | {"turn_limit": (300, 10, 100000)}
    assert {o.name: (o.default, o.minimum, o.maximum) for o in cls.options} == options


@pytest.mark.parametrize("game_id", OWN)
def test_every_game_is_a_draw_after_its_turn_limit(game_id):
    cls = find(game_id)
    rng = random.Random(game_id)
    for players in range(cls.min_players, cls.max_players + 1):
        game = cls(players, turn_limit=10)
        while not game.over:
            game.push_legal(game.random_action(rng))
        assert game.winners or game.turn == 10 * players


# -- Rising Tide ---------------------------------------------------------------------------------------------


def test_rising_tide_stones_enter_on_the_bottom_and_climb_onto_the_colour_rolled():
    game = scenario.play(find("rising-tide")(2), "roll:G")
    assert len(game.legal_actions()) == 64 and all(
        str(a).endswith("G") and len(str(a)) == 4 for a in game.legal_actions()
    )
    refused(game, "GGG", "new stones enter on the bottom level")
    scenario.play(game, "GGGG roll:R RRRR roll:G GGGG-GGG")
    assert game.owner(game.space.parse("GGG")) == 0
    scenario.play(game, "roll:R RRRR-RRR roll:Y")
    refused(game, "GGG-GG", "you rolled Y")


def test_rising_tide_a_sideways_move_only_knocks_a_rival_back_to_their_supply():
    game = scenario.play(at("rising-tide", ["GGGR"], ["GGGG"], hand=5), "roll:G")
    assert moves(game) == {"GGGR-GGG", "GGGR-GGGG"}
    game.apply("GGGR-GGGG")
    assert game.owner(game.space.parse("GGGG")) == 0 and game.in_hand == (5, 6) and game.captured == (1, 0)
    game = scenario.play(at("rising-tide", ["GGGR"], ["YYYY"], hand=5), "roll:Y")
    refused(game, "GGGR-GGGY", "sideways moves are only to capture an opponent's stone")
    game = scenario.play(at("rising-tide", ["GGGR"], ["GGG"], hand=5), "roll:G")
    assert moves(game) == set()  # up onto a rival: stymied


def test_rising_tide_the_first_stone_on_the_top_quadrangle_wins_among_up_to_four():
    game = at("rising-tide", ["YYYY"], ["BBBB"], ["RR"], ["GGGG"], hand=5, players=4)
    game.to_move = 2  # the third seat's turn
    scenario.play(game, "roll:R RR-R")
    assert game.over and game.winners == (2,) and game.scores == (0, 0, 1, 0)
    assert find("rising-tide").score is None  # won or lost: no column of points


# -- King's Court --------------------------------------------------------------------------------------------


def test_kings_court_sideways_moves_go_to_free_nodes_too_and_entries_never_land_on_a_rival():
    game = scenario.play(at("kings-court", ["GG"], ["YYYY"], hand=5), "roll:R")
    assert names(game.legal_actions()) == {"GG-GR", "GG-GGR", "R"}  # EZ GRYB has no GG-GR
    game = scenario.play(at("kings-court", ["YYYY"], ["G"], hand=5), "roll:G")
    refused(game, "G", "G is occupied")


@pytest.mark.parametrize(
    "roll, mover, rival, captured",
    [
        ("G", "GG", None, (1, 0)),  # the node's own colour: taken, back to its owner's supply
        ("R", "GG", "GR", (0, 0)),  # a colour beside: the rival is bumped there
        ("Y", "GY", "GG", (0, 0)),  # the opposite colour: the mover goes across instead
        ("B", "G", "GG", (0, 0)),  # beside, but GB is the mover's own: both stay, the move is spent
    ],
)
def test_kings_court_landing_on_a_rival_holds_court(roll, mover, rival, captured):
    game = scenario.play(at("kings-court", ["G", "GB"], ["GG"], hand=5), "roll:G G-GG")
    assert game.is_chance and game.to_move == 0
    assert game.state_dict()["encounter"] == {"from": "G", "to": "GG", "player": 0}  # holding court
    game.apply(f"roll:{roll}")
    assert game.state_dict()["encounter"] is None
    parse = game.space.parse
    assert game.owner(parse(mover)) == 0 and game.captured == captured and game.to_move == 1
    if rival is None:
        assert game.stones[1] == 0 and game.in_hand == (5, 6)
    else:
        assert game.owner(parse(rival)) == 1


def test_kings_court_a_quadrangle_wins_its_points():
    game = scenario.play(at("kings-court", ["GG", "GR", "GY", "G"], ["YYYY"], hand=5), "roll:B G-GB")
    assert game.winners == (0,) and game.scores == (2, 0)


# -- Samsara ------------------------------------------------------------------------------------------------


def test_samsara_two_moves_a_turn_through_the_head_node():
    game = find("samsara")(2)
    assert names(game.legal_actions()) == {"0"}
    game.apply("0")
    assert game.to_move == 0 and names(game.legal_actions()) == {"0-G", "0-R", "0-Y", "0-B"}
    game.apply("0-G")
    assert game.to_move == 1 and names(game.legal_actions()) == {"0"}


def test_samsara_moving_down_or_being_reborn_onto_a_rival_takes_it_for_good():
    game = at("samsara", ["G"], ["GG", "R"], hand=5)
    assert moves(game, "G-") == {"G-B", "G-GG", "G-GR", "G-GY", "G-GB"}  # not sideways onto R
    refused(game, "G-R", "R is occupied")
    game.apply("G-GG")
    assert game.captured == (1, 0) and game.in_hand == (5, 5) and game.stones[1].bit_count() == 1
    game = at("samsara", ["GGGG"], ["0"], hand=5)
    game.apply("GGGG-0")
    assert game.owner(0) == 0 and game.captured == (1, 0)
    game = at("samsara", ["GGGG", "0"], ["YYYY"], hand=5)
    assert "GGGG-0" not in names(game.legal_actions())


def test_samsara_the_sixth_capture_wins_at_once_even_mid_turn():
    game = at("samsara", ["G", "R"], ["GG", "RR"], hand=5)
    game.captured = (5, 0)
    game.apply("G-GG")
    assert game.over and game.winners == (0,) and game.scores == (1, 0)


# -- Leapfrog -----------------------------------------------------------------------------------------------


def test_leapfrog_starts_with_eight_residents_each_and_no_stones_to_enter():
    game = find("leapfrog")(2)
    assert game.space.depth == 3 and game.in_hand == (0, 0)
    assert sorted(game.space.names(game.stones[0])) == sorted(
        a + b + c for a in "G" for b in "GR" for c in "GRYB"
    )
    assert sorted(game.space.names(game.stones[1])) == sorted("Y" + b + c for b in "YB" for c in "GRYB")
    assert len(game.legal_actions()) == 24 and all(a.kind == "move" for a in game.legal_actions())


def test_leapfrog_hops_over_a_rival_take_it_and_are_not_compulsory():
    game = at("leapfrog", ["GGG"], ["RGG", "GGR", "YYY"])
    assert {a for a in names(game.legal_actions()) if "/" in a} == {
        "GGG-GGY/GGR",  # sideways twice: the opposite corner
        "GGG-YGG/RGG",
        "GGG-RRG/RGG",
        "GGG-RBG/RGG",
    }  # through hyperspace twice: any node one step beyond
    assert {"GGG-GRG", "GGG-GBG", "GGG-BGG", "GGG-GGB"} <= names(game.legal_actions())
    game.apply("GGG-RRG/RGG")
    assert game.captured == (1, 0) and game.owner(game.space.parse("RGG")) is None and game.to_move == 1
    game = at("leapfrog", ["GGG", "RGG"], ["YYY"])
    assert not any("/" in a for a in names(game.legal_actions()))  # never over your own


def test_leapfrog_the_fifth_capture_wins():
    game = at("leapfrog", ["GGG"], ["GGR", "YYY"])
    game.captured = (4, 0)
    game.apply("GGG-GGY/GGR")
    assert game.winners == (0,)


# -- Exodus --------------------------------------------------------------------------------------------------


def test_exodus_stones_enter_one_at_a_time_through_the_head_node():
    game = scenario.play(find("exodus")(2), "0")
    assert names(game.legal_actions()) == {"pass"}  # the head node is taken: the second player passes


def test_exodus_hops_over_any_stone_take_nothing():
    game = at("exodus", ["GG", "GGG"], ["GR"], hand=0)
    hops = {a for a in names(game.legal_actions()) if "/" in a}
    assert {"GG-GY/GR", "GG-GGGG/GGG"} <= hops
    game.apply("GG-GY/GR")
    assert game.owner(game.space.parse("GR")) == 1 and game.captured == (0, 0)


def test_exodus_the_first_to_bring_every_stone_off_the_bottom_wins():
    game = at("exodus", ["GGG", "GGGG"], ["YYYY"], hand=1)
    refused(game, "xGGG", "only a stone at the far end of the board can leave it")
    game.apply("xGGGG")
    assert not game.over and game.exited == (1, 0)  # a stone still to enter
    game = at("exodus", ["GGGG"], ["YYYY"], hand=0)
    game.apply("xGGGG")
    assert game.winners == (0,) and game.scores == (1, 0)


# -- Doubles -------------------------------------------------------------------------------------------------


def test_doubles_partners_win_together():
    with pytest.raises(OptionError, match="Doubles is for 4 players"):
        find("doubles")(2)
    game = at("doubles", ["GG", "GR", "G"], ["YYYY"], ["GY"], ["BBBB"], hand=3, players=4)
    game.apply("G-GB")
    assert game.winners == (0, 2) and game.scores == (2, 0, 2, 0)


def test_doubles_passes_through_a_partner_or_a_rival_and_then_the_next_seat_plays():
    game = at("doubles", ["G"], ["GG"], ["GR"], ["BBBB"], hand=3, players=4)
    assert {"G-GG", "G-GR"} <= moves(game, "G-")
    game.apply("G-GR")
    refused(game, "0", "the stone passing through GR must move on to a free node")
    game.apply("GR-GRY")
    assert game.to_move == 1 and game.owner(game.space.parse("GR")) == 2


# -- Siege ---------------------------------------------------------------------------------------------------


def test_siege_enters_anywhere_and_moves_up_down_or_sideways_onto_free_nodes():
    game = find("siege")(2)
    assert game.space.depth == 3 and len(game.legal_actions()) == 85 and "0" in names(game.legal_actions())
    game = at("siege", ["G"], ["GG"], hand=3)
    assert moves(game, "G-") == {"G-0", "G-R", "G-B", "G-GR", "G-GY", "G-GB"}


def test_siege_closing_every_node_round_a_rival_stone_or_group_wins():
    game = at("siege", ["G", "R", "Y"], ["0"], hand=3)
    game.apply("B")  # the head node's neighbours are the top quadrangle
    assert game.winners == (0,)
    game = at("siege", ["GG", "GGY"], ["GGG", "GGR", "YYY"], hand=3)
    game.apply("GGB")  # the group GGG GGR: GG above, GGY and GGB beside (depth 3: nothing below)
    assert game.winners == (0,)
    # B closes the ring round the head node and at once its own group G R Y B is closed in: the mover wins.
    level_2 = [a + b for a in "GRYB" for b in "GRYB"]
    game = at("siege", ["G", "R", "Y"], ["0"] + level_2, hand=3)
    game.apply("B")
    assert game.winners == (0,)


def test_siege_a_stone_that_walks_into_a_ring_loses_at_once():
    game = at("siege", ["YYY"], ["GG", "GGR", "GGB"], hand=3)
    game.apply("GGG")
    assert game.winners == (1,)


def test_siege_the_computer_player_sees_a_ring_closing():
    """evaluate(), the computer player's sense of the game, counts the free nodes round the rival group
    nearest to being closed in, against the rival's: Siege had none (every position short of a closed
    ring was even), and the search played it little better than at random."""
    game = at("siege", ["G", "R"], ["0", "YYY"], hand=3)  # two free nodes round the head node: Y and B
    before = game.evaluate()
    assert before[0] > 0.9
    game.apply("Y")  # one left
    assert game.evaluate()[0] > before[0]
    swapped = at("siege", ["0", "YYY"], ["G", "R"], hand=3)
    assert swapped.evaluate() == pytest.approx(before[::-1])
    assert at("siege", ["GGG"], ["RRR"], hand=3).evaluate() == [0.5, 0.5]
