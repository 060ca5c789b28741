"""Connection: corners chosen and covered, colour-die moves, a chain through limited hyperspace wins."""

import pytest
import scenario
from scenario import names, refused

from companion.games.catalogue import find
from companion.games.engine import IllegalAction
from companion.rules.space import mask_of

CONNECTION = find("connection")


def play(script, game=None):
    return scenario.play(game or CONNECTION(), script)


def position(p0, p1, to_move=0, **options):
    """Player 0 on the GGGG-YYYY corners (of the board's depth), player 1 on RRRR-BBBB, plus these stones."""
    game = CONNECTION(**options)
    game.apply(game.legal_actions()[0])  # the G corner: GGGG with YYYY
    for player, extra in enumerate((p0, p1)):
        game.set_stones(player, game.stones[player] | mask_of(game.space.parse_many(extra)))
    game.to_move = to_move
    return game


def stones(game, player):
    return sorted(game.space.names(game.stones[player]))


def test_the_first_player_chooses_a_pair_of_opposite_corners_and_the_second_covers_the_other():
    game = CONNECTION()
    assert not game.is_chance and names(game.legal_actions()) == {"GGGG", "RRRR", "YYYY", "BBBB"}
    assert game.state_dict()["aims"] is None  # nobody's corners yet
    assert sorted(game.say(a) for a in game.legal_actions()) == [  # the buttons and the message name the pair
        "corners BBBB and RRRR",
        "corners GGGG and YYYY",
        "corners RRRR and BBBB",
        "corners YYYY and GGGG",
    ]
    with pytest.raises(
        IllegalAction,
        match=r"first choose your corners: place a stone on GGGG \(with YYYY\) or "
        r"RRRR \(with BBBB\)",
    ):
        game.apply("G")
    game.apply("BBBB")
    assert stones(game, 0) == ["BBBB", "RRRR"] and stones(game, 1) == ["GGGG", "YYYY"]
    assert game.to_move == 0 and game.is_chance and game.in_hand == (28, 28)
    assert {game.state_dict()["stones"][n]["kind"] for n in ("RRRR", "BBBB", "GGGG", "YYYY")} == {"endpoint"}
    assert game.state_dict()["aims"] == ["join RRRR and BBBB", "join GGGG and YYYY"]  # beside the names


def test_a_small_board_game_won_across_the_top_quadrangle():
    # Depth 2: player 0 takes the corners GG and YY. Player 1 only has its corner stones, which never move,
    # and rolls colours already taken on the top quadrangle: forced passes.
    game = play("GG roll:G G roll:G pass roll:R R roll:R", CONNECTION(depth=2))
    assert names(game.legal_actions()) == {"pass"}
    play("pass roll:Y Y", game)  # GG-G up, G-R-Y sideways, Y-YY down
    assert game.over and game.winner == 0 and game.scores == (1, 0)
    assert game.legal_actions() == []


def test_entry_is_on_the_top_quadrangle_onto_the_colour_rolled():
    game = play("GGGG roll:R")
    assert names(game.legal_actions()) == {"R"}
    with pytest.raises(IllegalAction, match="new stones enter on the top quadrangle"):
        game.apply("GGGR")
    with pytest.raises(IllegalAction, match="you rolled R: move onto a red node, and G is not one"):
        game.apply("G")


def test_moves_go_up_down_sideways_or_by_limited_hyperspace_onto_the_colour_rolled():
    game = position(["RG"], [])
    game.apply("roll:G")
    # Down to RGG; limited hyperspace steps the first locus R to G or Y (GG, YG); entry on G.
    assert names(game.legal_actions()) == {"G", "RG-RGG", "RG-GG", "RG-YG"}
    game.apply("RG-GG")
    assert stones(game, 0) == ["GG", "GGGG", "YYYY"]
    game = position(["RG"], [])
    game.apply("roll:R")
    assert names(game.legal_actions()) == {"R", "RG-R", "RG-RR", "RG-RGR"}
    with pytest.raises(
        IllegalAction, match=r"RG to RRR is not one move \(up, down, sideways, limited hyperspace\)"
    ):
        game.apply("RG-RRR")


def test_the_head_node_takes_any_colour_and_can_be_left_out():
    game = position(["G"], [])
    game.apply("roll:Y")
    assert names(game.legal_actions()) == {"Y", "G-0", "G-GY"}
    headless = position(["G"], [], headless=True)
    headless.apply("roll:Y")
    assert names(headless.legal_actions()) == {"Y", "G-GY"}


@pytest.mark.parametrize("colour", "GRYB")
def test_the_head_node_matches_every_colour_rolled_both_ways(colour):
    """docs/rules/game-space.md, "The head node's colour" (issue 45, one rule for every game): up onto it
    on every roll, and down from it to the top-level node of the colour rolled."""
    game = position(["G"], [])
    game.apply(f"roll:{colour}")
    assert "G-0" in names(game.legal_actions())
    game = position(["0"], [])
    game.apply(f"roll:{colour}")
    assert f"0-{colour}" in names(game.legal_actions())


def test_corner_stones_stay_and_occupied_nodes_block():
    game = position([], ["GGG"])
    game.apply("roll:G")
    with pytest.raises(IllegalAction, match="your corner stone on GGGG marks an endpoint and stays there"):
        game.apply("GGGG-GGGR")
    game = position(["GG"], ["GGG"])
    game.apply("roll:G")
    with pytest.raises(IllegalAction, match="GGG is occupied"):
        game.apply("GG-GGG")
    with pytest.raises(IllegalAction, match="the stone on GGG is not yours"):
        game.apply("GGG-GG")


def test_a_chain_joined_through_limited_hyperspace_wins():
    # GGG-GG-RG, RG-RB-RY sideways, RY~YY by limited hyperspace (the first locus R steps to Y), YY-YYY.
    chain = ["GGG", "GG", "RG", "RB", "YY", "YYY"]
    game = position(chain, [], depth=3)
    assert not game.connected(0) and game.moves_needed(0) == 2  # RY, on the second level
    play("roll:Y RB-RY", game)  # RB leaves the chain, so this does not join it
    assert not game.over
    game = position(chain, [], depth=3)
    game.set_stones(0, game.stones[0] | mask_of(game.space.parse_many(["RR"])))
    play("roll:Y RR-RY", game)  # RY joins RB and, through limited hyperspace, YY
    assert game.over and game.winner == 0 and game.scores == (1, 0)
    assert game.space.is_contiguous(game.space.parse_many(chain + ["RY"]), hyperspace=True)
    assert not game.space.is_contiguous(game.space.parse_many(chain + ["RY"]))


def test_moves_needed_counts_what_bringing_stones_from_the_hand_takes():
    game = play("GGGG")
    # GGG, GG, G, then R (or B) across the top, Y, YY, YYY: a stone enters on the top level and moves down
    # a level at a time, so each free node costs its level.
    assert game.moves_needed(0) == game.moves_needed(1) == 3 + 2 + 1 + 1 + 1 + 2 + 3
    # Both still need six free nodes, but the stone moved down the chain is a move nearer (a count of free
    # nodes, the evaluation before, saw no progress in it).
    on_top, lower = position(["G"], []), position(["GG"], [])
    assert (on_top.moves_needed(0), lower.moves_needed(0)) == (12, 11)
    assert lower.evaluate()[0] > on_top.evaluate()[0] > game.evaluate()[0] == game.evaluate()[1]
    values = position(["GGG", "GG", "G"], []).evaluate()
    assert values[0] > values[1] and 0 < sum(values) < 1  # the rest: the chance of a draw at the turn limit
    assert position([], ["0", "G", "R", "Y", "B"], depth=2).moves_needed(0) == 6  # round by GG-BG-YG-YB-YY
    cut = position([], ["G", "GR", "GB", "RG", "BG"], depth=2)
    assert cut.moves_needed(0) is None  # every node contiguous to GG is the opponent's
    assert position(["GGG", "GG", "G", "R", "Y", "YY", "YYY"], []).moves_needed(0) == 0  # joined
    # Round the opponent: with R and B taken the way runs through the head node (entering, then up: 2).
    assert position(["GGG", "GG", "G", "Y", "YY", "YYY"], ["R", "B"]).moves_needed(0) == 2
    assert position(["GGG", "GG", "G", "Y", "YY", "YYY"], ["R", "B"], headless=True).moves_needed(0) > 2


def test_a_player_whose_opponent_is_cut_off_still_values_every_move_nearer_a_join():
    # Player 0's stones round player 1's corner RRRR: player 1 can no longer join and cannot win.
    around = ["RRR", "RRGR", "RRRG", "RRRY", "RRYR"]
    far, nearer, nearest = (
        position(around, []),
        position(around + ["G"], []),
        position(around + ["GG", "G"], []),
    )
    assert far.moves_needed(1) is None and far.evaluate()[1] == 0.0
    assert [p.moves_needed(0) for p in (far, nearer, nearest)] == [13, 12, 10]
    # Sure not to lose, player 0 still gains by every move nearer a join (it used to value them all alike,
    # as won, and shuffled on to the turn limit): what is left is the chance of a draw there.
    assert far.evaluate()[0] + 0.01 < nearer.evaluate()[0] < nearest.evaluate()[0] < 1.0


@pytest.mark.parametrize(
    "script, bad, reason",
    [
        ("GGGG", "G", "roll the die first"),
        ("GGGG roll:G", "pass", "you may not pass"),
        ("GGGG roll:G", "GGG", "new stones enter on the top quadrangle"),
        ("GGGG roll:G G roll:R R roll:B", "G,R-B,Y", "one stone moves at a time"),
    ],
)
def test_illegal_moves_are_refused_with_the_reason(script, bad, reason):
    refused(play(script), bad, reason)
