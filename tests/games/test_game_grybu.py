"""GRYBU: the four quadrant boards, passive and aggressive moves, pushing, popping, winning, the reasons."""

import json
import random
import subprocess
import sys

import pytest
from scenario import refused

from companion import ai
from companion.games.catalogue import find
from companion.games.engine import OptionError

GRYBU = find("grybu")


def position(p0, p1, to_move=0, **options):
    game = GRYBU(**options)
    game.set_position((p0.split(), p1.split()), to_move)
    return game


def rings(game, player):
    return set(game.space.names(game.stones[player]))


def targets(game, source):
    return {str(a).split("-")[1] for a in game.legal_actions() if str(a).split("-")[0] == source}


# Rings elsewhere that keep every board occupied for both players (so no test ends by accident).
P0_REST = "YGGG BGGG"
P1_REST = "RBBB YBBB BBBB"


def refused_after(p0, p1, passive, aggressive, message):
    """The rings (besides P0_REST and P1_REST), a passive move, and an aggressive move that is refused."""
    game = position(f"{p0} {P0_REST}".strip(), f"{p1} {P1_REST}".strip())
    game.apply(passive)
    refused(game, aggressive, message)
    return game


# -- the start ----------------------------------------------------------------------------------------


def test_the_start_puts_four_rings_of_each_player_on_each_quadrant_board():
    game = GRYBU()
    assert rings(game, 0) == {q + r for q in "GRYB" for r in ("GGG", "GRR", "RGG", "RRR")}
    assert rings(game, 1) == {q + r for q in "GRYB" for r in ("BBB", "BYY", "YBB", "YYY")}
    state = game.state_dict()
    assert state["boards"] == {"GQ": [4, 4], "RQ": [4, 4], "YQ": [4, 4], "BQ": [4, 4]}
    assert state["homes"] == [["RQ", "GQ"], ["BQ", "YQ"]]
    assert game.to_move == 0 and game.moves_left == 2 and state["passive"] is None
    assert GRYBU.describe()["players"] == {"min": 2, "max": 2}


def test_other_depths_put_the_rings_on_their_bottom_level():
    shobu = GRYBU(depth=3)  # the quadrant's bottom level is SHŌBU's 4x4 board: the rings on its near row
    assert rings(shobu, 0) == {q + r for q in "GRYB" for r in ("GG", "GR", "RG", "RR")}
    giant = GRYBU(depth=5)
    assert rings(giant, 1) == {q + r for q in "GRYB" for r in ("BBBB", "BYYY", "YBBB", "YYYY")}
    with pytest.raises(OptionError):
        GRYBU(depth=2)


def test_the_first_passive_moves_of_a_ring():
    # From RGGG: up once or twice, sideways once or twice (the opposite corner), hyperspace once or twice;
    # RRGG holds player 0's own ring; down is impossible from the bottom level.
    expected = {
        "RGG",
        "RG",
        "RGGR",
        "RGGB",
        "RGGY",
        "RBGG",
        "RGRG",
        "RGBG",
        "RYGG",
        "RGYG",
        "RRRG",
        "RRBG",
        "RBRG",
        "RBBG",
    }
    assert targets(GRYBU(), "RGGG") == expected
    limited = {"RGG", "RG", "RGGR", "RGGB", "RGGY", "RGRG", "RGBG", "RGYG"}
    assert targets(GRYBU(hyperspace="limited"), "RGGG") == limited


# -- passive moves -------------------------------------------------------------------------------------


def test_the_passive_move_is_on_a_home_board_only():
    game = GRYBU()
    passive_boards = {str(a)[0] for a in game.legal_actions()}
    assert passive_boards == {"R", "G"}
    refused(game, "BGGG-BGG", "the passive move is made on one of your home boards (RQ, GQ)")
    refused(game, "YRRR-YRR", "the passive move is made on one of your home boards (RQ, GQ)")
    game.apply("RGGG-RGG")
    game.apply("GGGG-GGG")
    assert {str(a)[0] for a in game.legal_actions()} == {"B", "Y"}
    refused(game, "RBBB-RBB", "the passive move is made on one of your home boards (BQ, YQ)")


def test_the_passive_move_never_pushes_nor_jumps():
    game = position("RG GG " + P0_REST, "RGG GGR " + P1_REST)
    refused(game, "RG-RGG", "the passive move cannot push: RGG is occupied")
    assert "RGG" not in targets(game, "RG")
    # Two steps down to RGGG would pass RGG.
    refused(game, "RG-RGGG", "the passive move cannot jump or push: RGG is occupied")
    # Two sideways steps go either way round: one free corner is enough, two rings block.
    game = position("RGGG " + P0_REST, "RGGR " + P1_REST)
    assert "RGGY" in targets(game, "RGGG")
    game = position("RGGG " + P0_REST, "RGGR RGGB " + P1_REST)
    refused(game, "RGGG-RGGY", "the passive move cannot jump or push: RGGR and RGGB are occupied")


def test_a_passive_move_needs_an_aggressive_move_of_its_kind_to_follow():
    # R can only go down, but every ring of player 0 on the dark boards is on the bottom level.
    game = position("R GGGG YGGG BGGG", "GBBB RBBB YBBB BBBB")
    assert targets(game, "R") == set()
    refused(game, "R-RG", "you would have no aggressive move of one down step on GQ or BQ to go with it")
    refused(game, "R-RGG", "you would have no aggressive move of two down steps on GQ or BQ to go with it")
    refused(game, "R-RGGG", "R to RGGG is not one or two steps of one kind")
    refused(game, "R-GG", "rings never leave their board: GG is not on RQ")


# -- aggressive moves -------------------------------------------------------------------------------------


def test_the_aggressive_move_mirrors_the_passive_one_on_the_other_colour():
    game = GRYBU()
    game.apply("RGGG-RGGY")  # two sideways steps on RQ, a light board
    assert game.state_dict()["passive"] == {
        "board": "RQ",
        "move": "two sideways steps",
        "aggressive_boards": ["GQ", "BQ"],
    }
    refused(
        game,
        "YGGG-YGGY",
        "the aggressive move is made on a dark board (GQ, BQ), the other colour from your passive move on RQ",
    )
    refused(game, "GGGG-GGGR", "the aggressive move must be two sideways steps like your passive move")
    refused(game, "GGGG-GGG", "the aggressive move must be two sideways steps like your passive move")
    legal = {str(a) for a in game.legal_actions()}
    # Any ring on either dark board, either colour of node, as long as it is two sideways steps.
    assert legal == {
        f"{q}{r}-{q}{r[:-1]}{'GRYB'[('GRYB'.index(r[-1]) + 2) % 4]}"
        for q in "GB"
        for r in ("GGG", "GRR", "RGG", "RRR")
    }
    game.apply("BRRR-BRRB")
    assert game.to_move == 1 and game.state_dict()["passive"] is None
    # A passive move on the dark home board sends the aggressive move to a light board.
    game.apply("BBBB-BBB")
    assert game.state_dict()["passive"]["aggressive_boards"] == ["RQ", "YQ"]
    refused(game, "GBBB-GBB", "the aggressive move is made on a light board (RQ, YQ)")
    game.apply("RBBB-RBB")
    assert game.to_move == 0 and game.turn == 2


def test_one_sideways_or_hyperspace_step_pushes_a_ring_one_step_on_round_the_cycle():
    # 000: "Aggressive moves may push an opponent's ring unless there is another ring blocking it."
    game = position("RGGG GGGG " + P0_REST, "GGGR GYGG " + P1_REST)
    game.apply("RGGG-RGGR")  # one sideways step (G to R at the focus)
    game.apply("GGGG-GGGR")  # the same way pushes GGGR's ring on round the quadrangle, R to Y
    assert "GGGR" in rings(game, 0) and "GGGY" in rings(game, 1) and "GGGR" not in rings(game, 1)
    assert game.last == tuple(game.space.parse_many(["GGGG", "GGGR", "GGGY"])) and game.captured == (0, 0)
    game = position("RGGG GGGG " + P0_REST, "GGBG GYGG " + P1_REST)
    game.apply("RGGG-RGRG")  # one hyperspace step
    game.apply("GGGG-GGBG")  # G to B at the third locus: GGBG's ring goes on to GGYG
    assert "GGBG" in rings(game, 0) and "GGYG" in rings(game, 1)
    # Blocked by a ring behind, as any push; never your own ring.
    refused_after(
        "RGGG GGGG",
        "GGGR GGGY",
        "RGGG-RGGR",
        "GGGG-GGGR",
        "the ring on GGGR cannot be pushed: GGGY behind it is occupied",
    )
    refused_after("RGGG GGGG GGGR", "", "RGGG-RGGR", "GGGG-GGGR", "you cannot push your own ring (on GGGR)")


def test_two_sideways_or_hyperspace_steps_neither_push_nor_jump():
    # They go either way round, each way pushing differently, which FROM-TO could not tell apart.
    refused_after(
        "RGGG GGGG", "GGGY", "RGGG-RGGY", "GGGG-GGGY", "two sideways steps do not push: GGGY is occupied"
    )
    # Nor do they jump: two sideways steps need one free corner to pass.
    refused_after(
        "RGGG GGGG",
        "GGGR GGGB",
        "RGGG-RGGY",
        "GGGG-GGGY",
        "the move cannot jump over a ring: GGGR and GGGB are occupied",
    )


def test_a_push_down_moves_the_ring_one_step_further_the_same_way():
    game = position("RG GG " + P0_REST, "GGR " + P1_REST)
    game.apply("RG-RGB")
    game.apply("GG-GGR")
    assert "GGR" in rings(game, 0) and "GGRR" in rings(game, 1) and "GGR" not in rings(game, 1)
    assert game.captured == (0, 0) and game.last == tuple(game.space.parse_many(["GG", "GGR", "GGRR"]))


def test_a_push_is_blocked_by_a_ring_behind_and_never_takes_two_or_your_own():
    game = refused_after(
        "R RG GG",
        "GGR GGRR",
        "RG-RGB",
        "GG-GGR",
        "the ring on GGR cannot be pushed: GGRR behind it is occupied",
    )
    assert "GGR" not in targets(game, "GG") and "GGG" in targets(game, "GG")
    # Two steps down through GR to GRY would push two rings.
    refused_after("R G", "GR GRY", "R-RGG", "G-GRY", "you cannot push two rings")
    # Your own ring is never pushed.
    refused_after("RG GG GGR", "", "RG-RGB", "GG-GGR", "you cannot push your own ring (on GGR)")


def test_a_ring_pushed_down_off_the_bottom_level_is_removed():
    game = position("RGG GGR " + P0_REST, "GGRY GGGG " + P1_REST)
    game.apply("RGG-RGGB")
    game.apply("GGR-GGRY")
    assert "GGRY" in rings(game, 0) and "GGRY" not in rings(game, 1)
    assert game.captured == (1, 0) and game.state_dict()["boards"]["GQ"] == [1, 1] and not game.over


def test_a_two_step_push_carries_the_ring_ahead_of_the_mover():
    # G goes down through GR to GRY; the ring on GR is carried ahead: to GRY, then one more step the way
    # of the last step (Y), to GRYY.
    game = position("R G " + P0_REST, "GR " + P1_REST)
    game.apply("R-RGG")
    game.apply("G-GRY")
    assert "GRY" in rings(game, 0) and "GRYY" in rings(game, 1) and "GR" not in rings(game, 1)
    # Two steps down to the bottom level carry it off the board.
    game = position("R GG " + P0_REST, "GGR GGGG " + P1_REST)
    game.apply("R-RGG")
    game.apply("GG-GGRB")
    assert rings(game, 1) & {"GGR", "GGRB"} == set() and game.captured == (1, 0)


def test_a_ring_pushed_up_off_the_quadrants_top_node_is_popped():
    game = position("RGG GG " + P0_REST, "G GGGG " + P1_REST)
    game.apply("RGG-RG")
    game.apply("GG-G")
    assert "G" in rings(game, 0) and game.captured == (1, 0)
    assert rings(game, 1) == {"GGGG"} | set(P1_REST.split())
    # Two steps up carry it: GGR to G through GG, the ring on GG goes to G, then off the top.
    game = position("RGGG GGR " + P0_REST, "GG GGGG " + P1_REST)
    game.apply("RGGG-RG")
    game.apply("GGR-G")
    assert "G" in rings(game, 0) and "GG" not in rings(game, 1) and game.captured == (1, 0)
    # A push up that stays on the board: to the parent, blocked when that is occupied.
    game = position("RGGG GGRY " + P0_REST, "GGR GGGG " + P1_REST)
    game.apply("RGGG-RGG")
    game.apply("GGRY-GGR")
    assert "GG" in rings(game, 1) and game.captured == (0, 0)
    game = position("RGGG GGRY " + P0_REST, "GGR GG GGGG " + P1_REST)
    game.apply("RGGG-RGG")
    refused(game, "GGRY-GGR", "the ring on GGR cannot be pushed: GG behind it is occupied")


def test_a_ring_never_leaves_its_board_by_its_own_move():
    game = position("R GG " + P0_REST, P1_REST)
    assert targets(game, "R") == {"RG", "RR", "RY", "RB"} | {f"R{a}{b}" for a in "GRYB" for b in "GRYB"}
    refused(game, "R-0", "0 is not on RQ")
    refused(game, "R-G", "rings never leave their board: G is not on RQ")


# -- the end -------------------------------------------------------------------------------------------


def test_clearing_all_four_rings_off_one_board_wins():
    game = position("RGG GGR " + P0_REST, "GGRY " + P1_REST)
    game.apply("RGG-RGGB")
    game.apply("GGR-GGRY")
    assert game.over and game.winners == (0,) and game.winner == 0
    state = game.state_dict()
    assert state["boards"]["GQ"] == [1, 0] and state["draw"] is None and state["over"]
    refused(game, "RGGB-RGG", "the game is over")


def test_a_whole_game_of_pushes_ends_when_a_board_is_cleared():
    # Player 1's four rings on GQ at the start, pushed off one by one from the rows above them.
    game = position("R RR GBB GBY GYB GYY " + P0_REST, "GBBB GBYY GYBB GYYY BBBB YBBB")
    replies = iter((("BBBB-BBB", "YBBB-YBB"), ("BBB-BBBB", "YBB-YBBB"), ("BBBB-BBB", "YBBB-YBB")))
    for number, (passive, aggressive) in enumerate(
        (("R-RG", "GBB-GBBB"), ("RG-RGG", "GBY-GBYY"), ("RGG-RGGG", "GYB-GYBB"), ("RR-RRR", "GYY-GYYY")), 1
    ):
        game.apply(passive)
        game.apply(aggressive)
        assert game.captured == (number, 0) and game.state_dict()["boards"]["GQ"][1] == 4 - number
        if number < 4:
            assert not game.over
            for reply in next(replies):
                game.apply(reply)
    assert game.over and game.winners == (0,)


def test_a_player_without_a_passive_and_aggressive_pair_loses():
    game = position("RGGG GGGG", "GBBB RBBB")  # player 1 has no ring on a home board
    game.apply("RGGG-RGG")
    game.apply("GGGG-GGG")
    assert game.over and game.winners == (0,)


def test_a_long_run_without_a_ring_pushed_off_is_a_draw():
    rng = random.Random(3)
    game = GRYBU(quiet_turns=5)
    while not game.over:
        game.apply(rng.choice(game.legal_actions()))
    assert game.winners == () and game.draw_reason() == "5 turns each without a ring pushed off"
    assert game.quiet == 10
    game = GRYBU(turn_limit=10, quiet_turns=50)
    while not game.over:
        game.apply(rng.choice(game.legal_actions()))
    assert game.draw_reason() == "the turn limit"


# -- reasons and the notation --------------------------------------------------------------------------


def test_illegal_actions_are_refused_with_reasons_and_change_nothing():
    game = GRYBU()
    refused(game, "RGGG", "GRYBU rings only move")
    refused(game, "xRGGG", "GRYBU rings only move")
    refused(game, "end", "cannot end early")
    refused(game, "pass", "you can move, so you may not pass")
    refused(game, "RGGG,RGRR-RGG,RGR", "one ring moves at a time")
    refused(game, "RGG-RG", "there is no ring on RGG")
    refused(game, "RBBB-RBB", "the ring on RBBB is not yours")
    refused(game, "RGGG-RGGG", "a move must go somewhere")
    refused(game, "RGGG-RYYY", "RGGG to RYYY is not one or two steps of one kind")
    refused(game, "RGGG-QQ", "not one of the colours")
    assert game.history == []


def test_every_move_is_written_from_to_and_read_back():
    rng = random.Random(5)
    game = GRYBU()
    for _ in range(40):
        for action in game.legal_actions():
            assert game.parse(str(action)) == action and len(action.sources) == 1
        game.apply(rng.choice(game.legal_actions()))


def test_the_computer_player_sees_the_weakest_board():
    game = position("RGGG RGRR GGGG YGGG BGGG", "GBBB RBBB YBBB BBBB")
    p0, p1 = game.evaluate()
    assert p0 > 0.5 and abs(p0 + p1 - 1.0) < 1e-9
    worse = position("RGGG GGGG YGGG BGGG", "GBBB GBYY RBBB YBBB BBBB")
    assert worse.evaluate()[0] < 0.5


def test_the_computer_player_finds_the_winning_push():
    # Only a one-down passive move lets GGR push the last ring off GQ; the search must pick one.
    game = position("RGG GGR RR " + P0_REST, "GGRY " + P1_REST)
    steady = ai.Level("test", iterations=400, seconds=60.0, playout=8)
    passive = ai.search(game, steady, random.Random(2)).action
    game.apply(passive)
    assert game.state_dict()["passive"]["move"] == "one down step"
    game.apply(ai.search(game, steady, random.Random(2)).action)
    assert game.over and game.winners == (0,)


def test_set_position_checks_its_input():
    with pytest.raises(ValueError, match="two rings on one node"):
        position("GGGG", "GGGG")
    with pytest.raises(ValueError, match="head node"):
        position("0", "BBBB")
    with pytest.raises(ValueError, match="player 1 would have no passive move"):
        position("GGGG", "RBBB", to_move=1)


def test_random_action_is_legal_and_undo_restores():
    rng = random.Random(9)
    game = GRYBU()
    for _ in range(200):
        if game.over:
            break
        action = game.random_action(rng)
        assert action in game.legal_actions()
        key = game.state_key()
        game.apply(action)
        game.undo()
        assert game.state_key() == key
        game.redo()


def test_a_whole_random_game_through_the_cli_ends():
    done = subprocess.run(
        [sys.executable, "-m", "companion.cli", "play", "grybu", "--random", "3000", "--seed", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    states = [json.loads(line) for line in done.stdout.splitlines()]
    assert states[-1]["over"] is True and states[-1]["game"] == "grybu"
    assert len(states) < 3000 and all(len(s["stones"]) <= 32 for s in states)
