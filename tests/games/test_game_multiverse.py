"""Multiverse: one board per player, conduits, simultaneous space, placement, ring and conduit moves,
captures, elimination, notation and what the cloth shows."""

import json
import random
import subprocess
import sys

import pytest

from companion.games.catalogue import find
from companion.games.engine import IllegalAction, OptionError
from companion.games.multiverse import TOP, ConduitAction, conduit, multispace
from companion.rules import node as nd
from companion.rules.action import Action
from companion.rules.space import bits, mask_of, space

MULTIVERSE = find("multiverse")
G, R, Y, B = TOP["G"], TOP["R"], TOP["Y"], TOP["B"]
HEAD = 0


def n(name):
    return nd.parse(name, 6)


def nodes(*names_):
    return mask_of(n(x) for x in names_)


def names(mask):
    return {nd.name(x) for x in bits(mask)}


def legal(game):
    return {str(a) for a in game.legal_actions()}


def position(*rings, conduits=None, to_move=0, roll=None, **options):
    """A phase-two position: ``rings[p]`` are player p's rings on p's own board."""
    game = MULTIVERSE(len(rings), **options)
    for p, names_ in enumerate(rings):
        game.set_stones(p, nodes(*names_))
    game.in_hand = (0,) * len(rings)
    game.phase = "move"
    game.conduits = tuple(conduits) if conduits else (HEAD,) * len(rings)
    game.to_move = to_move
    if roll:
        game.apply(f"roll:{roll}")
    return game


def refused(game, text, message):
    before = game.state_key()
    with pytest.raises(IllegalAction, match=message):
        game.apply(text)
    assert game.state_key() == before


# -- simultaneous space ------------------------------------------------------------------------------


def test_the_sources_example_conduit_on_r():
    game = position(["G"], ["G"], conduits=(R, HEAD))
    # "Your game space at RYGY coexists with your opponent's game space at YGY."
    assert game.simultaneous(0, n("RYGY"), 1, n("YGY"))
    assert game.simultaneous(1, n("YGY"), 0, n("RYGY"))
    # "the quadrangle [RG, RR, RY, RB] on your game board is simultaneous with [G, R, Y, B]"
    for mine, theirs in zip(["RG", "RR", "RY", "RB"], ["G", "R", "Y", "B"]):
        assert game.simultaneous(0, n(mine), 1, n(theirs))
    assert game.simultaneous(0, R, 1, HEAD)  # the conduit node is the opponent's head node
    assert not game.simultaneous(0, n("RYGY"), 1, n("RYG"))
    # The Conduits section: your G linked to the opponent's head node: your GYBR is their YBR.
    game.conduits = (G, HEAD)
    assert game.simultaneous(0, n("GYBR"), 1, n("YBR"))


def test_both_conduits_on_the_head_nodes_make_the_boards_coincide_node_for_node():
    game = MULTIVERSE(2)
    everything = game.space.all
    assert game.project(everything, 0, 1) == everything
    for x in game.space.nodes:
        assert game.project(1 << x, 0, 1) == 1 << x


def test_player_one_on_r_player_two_on_b_reachability_as_in_the_source():
    game = position(["G"], ["G"], conduits=(R, B))
    board = game.space
    first_three = board.level_masks[0] | board.level_masks[1] | board.level_masks[2] | board.level_masks[3]
    under = {c: mask_of(x for x in board.nodes if nd.LEVEL[x] == 4 and nd.name(x)[0] == c) for c in "GRYB"}
    # Player one reaches the first three layers of player two's space, and player two's fourth level
    # under B (player two's conduit); the fourth level under G, R and Y is unreachable. And vice versa.
    assert game.project(board.all, 0, 1) == first_three | under["B"]
    assert game.project(board.all, 1, 0) == first_three | under["R"]
    assert not game.project(board.all, 0, 1) & (under["G"] | under["R"] | under["Y"])
    # Both conduits on the same top-level node: the fourth level under the three others is unreachable.
    game.conduits = (R, R)
    assert game.project(board.all, 0, 1) == first_three | under["R"]
    assert game.project(board.all, 1, 0) == first_three | under["R"]


@pytest.mark.parametrize("depth", [2, 4, 5])
def test_bulk_projections_match_the_definition_node_by_node(depth):
    multi = multispace(depth)
    board = space(depth)
    rng = random.Random(depth)
    for k in (HEAD, G, R, Y, B):
        letter = "" if k == HEAD else nd.name(k)
        for x in board.nodes:
            loci = nd.loci(x)
            pre = 1 << nd.from_loci(letter + loci) if len(letter + loci) <= depth else 0
            strip = 1 << nd.from_loci(loci[len(letter) :]) if loci.startswith(letter) else 0
            assert multi.prefix(k, 1 << x) == multi.prefix_node[k][x] == pre
            assert multi.strip(k, 1 << x) == multi.strip_node[k][x] == strip
        for _ in range(20):
            mask = rng.getrandbits(board.size) & board.all
            expect_pre = expect_strip = 0
            for x in bits(mask):
                expect_pre |= multi.prefix_node[k][x]
                expect_strip |= multi.strip_node[k][x]
            assert multi.prefix(k, mask) == expect_pre and multi.strip(k, mask) == expect_strip


# -- phase one -----------------------------------------------------------------------------------------


def test_phase_one_rolls_reroll_own_nodes_and_a_placement_captures_what_it_lands_on():
    game = MULTIVERSE(2)
    assert game.die == "node" and MULTIVERSE.die == "node"
    assert game.is_chance and len(game.legal_actions()) == 341  # every node of the mover's board
    game.apply("roll:@GGBY")
    assert legal(game) == {"GGBY"}
    refused(game, "R", "the die chose GGBY: place your ring there")
    refused(game, "G-GG", "every player places 20 rings first: place yours on GGBY")
    game.apply("GGBY")
    assert game.in_hand == (19, 20) and game.to_move == 1
    # Player two may roll GGBY: on their own board it is free, and both conduits are on the head nodes,
    # so it is the very space of player one's ring, which is captured and does not return.
    game.apply("roll:@GGBY")
    game.apply("GGBY")
    assert game.stones == (0, nodes("GGBY")) and game.captured == (0, 1) and game.in_hand == (19, 19)
    assert not game.over and game.to_move == 0  # player one still has rings to place
    game.apply("roll:@R")
    game.apply("R")
    # Player two rolled GGBY again: it holds their own ring, so the die rolls again (not a face).
    refused(game, "roll:@GGBY", "the die cannot show @GGBY now")
    assert len(game.roll_faces()) == 340


def test_phase_one_ends_after_twenty_each_then_the_colour_die():
    game = MULTIVERSE(2, rings=3)
    for face in ["G", "R", "Y", "B", "GG", "RR"]:
        assert game.phase == "place"
        game.apply(f"roll:@{face}")
        game.apply(face)
    assert game.phase == "move" and game.die == "colour" and game.to_move == 0
    assert [a.colour for a in game.legal_actions()] == list("GRYB")
    game.apply("roll:R")
    assert "conduit:R" in legal(game) and "G-R" in legal(game)
    refused(game, "GGG", "every ring is placed: move a ring onto a red node")


# -- phase two -----------------------------------------------------------------------------------------


def test_ring_moves_go_to_the_rolled_colour_by_sideways_up_down_or_hyperspace():
    game = position(["GRR", "0", "G", "GRYB"], ["YYYY"], roll="R")
    # GRR: up GR, down GRRR, hyperspace RRR BRR GGR GYR (the focus stays); its sideways nodes are G and Y.
    # 0: down R. G: sideways R, down GR. GRYB: nothing red (sideways Y and G, up Y, hyperspace keeps B).
    assert legal(game) == {
        "GRR-GR",
        "GRR-GRRR",
        "GRR-RRR",
        "GRR-BRR",
        "GRR-GGR",
        "GRR-GYR",
        "0-R",
        "G-R",
        "G-GR",
        "conduit:R",
    }


def test_the_head_node_matches_every_colour_rolled():
    """docs/rules/game-space.md (issue 45): 000 "The color of the head node is arbitrary. You may
    incorporate it as any color you wish": a ring moves up onto it from a top-level node on any roll, and
    captures there what shares its space (with player two's conduit on B, player one's head node is
    player two's B)."""
    for colour in "GRYB":
        game = position(["Y"], ["YYYY"], conduits=(G, HEAD), roll=colour)
        assert "Y-0" in legal(game), colour
    game = position(["Y"], ["B", "YYYY"], conduits=(G, B), roll="R")
    game.apply("Y-0")
    assert game.stones[0] == nodes("0") and names(game.stones[1]) == {"YYYY"} and game.captured == (1, 0)


def test_a_ring_move_captures_every_opponent_ring_in_its_space():
    # Player one's conduit on R, player two's on the head node: player one's RYGY is player two's YGY
    # (through player one's conduit) and player two's RYGY (through player two's): both are captured.
    game = position(["RYGR", "BBBB"], ["YGY", "RYGY", "GGGG"], conduits=(R, HEAD), roll="Y")
    game.apply("RYGR-RYGY")
    assert names(game.stones[1]) == {"GGGG"} and game.captured == (2, 0)
    assert game.stones[0] == nodes("RYGY", "BBBB")
    assert not game.over and game.to_move == 1 and game.last == (n("RYGR"), n("RYGY"))


def test_a_conduit_move_captures_several_rings_at_once_and_conduits_are_never_captured():
    # Before: player one's conduit on the head node, player two's on B; nothing is simultaneous.
    game = position(
        ["RG", "RR", "RYGY"], ["G", "R", "YGY", "BBBB"], ["YYYY", "B", "R"], conduits=(HEAD, B, Y), roll="R"
    )
    assert not game._hits(0, game.stones[0])
    game.apply("conduit:R")
    # Player one's RG, RR, RYGY are now player two's and player three's G, R, YGY: four rings go.
    assert names(game.stones[1]) == {"BBBB"} and names(game.stones[2]) == {"YYYY", "B"}
    assert game.conduits == (R, B, Y) and game.captured == (4, 0, 0) and not game.over
    assert set(game.last) == {R, n("RG"), n("RR"), n("RYGY")}
    # A ring coming into the space of a conduit marker leaves the marker where it is.
    game = position(["G"], ["YYYY"], conduits=(HEAD, R), roll="R")
    game.apply("G-R")  # player one's R is player two's R, where player two's conduit marker stands
    assert game.conduits == (HEAD, R) and game.stones[1] == nodes("YYYY") and game.captured == (0, 0)
    # Your own marker and your own ring share a node.
    game = position(["R"], ["YYYY"], roll="R")
    game.apply("conduit:R")
    assert game.conduits[0] == R and game.stones[0] == nodes("R")


def test_a_conduit_move_is_legal_from_anywhere_but_not_onto_itself():
    game = position(["G"], ["YYYY"], conduits=(Y, HEAD), roll="G")
    assert "conduit:G" in legal(game)  # Y to G is two lengths away: allowed
    game = position(["BB"], ["YYYY"], conduits=(R, HEAD), roll="R")
    assert legal(game) == {"BB-BBR"}
    refused(game, "conduit:R", "your conduit marker is already on R")
    refused(game, "conduit:G", "you rolled R: your conduit marker may move only to R")
    refused(game, "conduit:RG", "the conduit marker moves only to a top-level node")
    refused(game, "conduit:0", "the conduit marker moves only to a top-level node")


def test_no_legal_move_is_a_pass():
    game = position(["GGGG"], ["YYYY"], conduits=(B, HEAD), roll="B")
    assert legal(game) == {"GGGG-GGGB"}  # hyperspace keeps the focus; the conduit is already on B
    # GGGB reaches GGGY, GGGG (sideways) and GGG (up): nothing red, and the conduit is already on R.
    game = position(["GGGB"], ["YYYY"], conduits=(R, HEAD), roll="R")
    assert legal(game) == {"pass"}
    game.apply("pass")
    assert game.to_move == 1 and not game.over


def test_illegal_actions_are_refused_with_reasons_and_change_nothing():
    game = position(["GR", "YYYY"], ["BBBB"], roll="Y")
    refused(game, "BBBB-BBBY", "you have no ring on BBBB")
    refused(game, "GR-GB", "you rolled Y: move onto a yellow node, and GB is not one")
    refused(game, "GR-YYY", "GR to YYY is not one sideways, up, down or hyperspace move")
    refused(game, "GR,YYYY-GY,YYYG", "move one ring at a time")
    # The head node is of every colour, but not one move from GR.
    refused(game, "GR-0", "GR to 0 is not one sideways, up, down or hyperspace move")
    refused(game, "xBBBB", "never lifted")
    refused(game, "end", "a turn is one move")
    refused(game, "pass", "you can move, so you may not pass")
    refused(game, "roll:G", "the die has been rolled")
    refused(game, "GRYBG", "only 4 levels deep")
    refused(game, "conduit:Q", "not one of the colours")
    game = position(["GY", "GR"], ["BBBB"], roll="Y")
    refused(game, "GR-GY", "you already have a ring on GY")
    game = position(["GR"], ["BBBB"])
    refused(game, "GR-GY", "roll the die first")


# -- elimination and the end ---------------------------------------------------------------------------


def test_an_eliminated_player_is_skipped_and_the_last_player_with_rings_wins():
    # Every conduit on its head node: the three boards coincide node for node.
    game = position(["G", "BG"], ["GR"], ["BBBB", "BB"], roll="R")
    game.apply("G-GR")  # captures player two's last ring
    assert game.stones[1] == 0 and not game.in_play(1) and game.players_in() == (0, 2)
    assert not game.over and game.to_move == 2  # player two is out: player three moves
    assert game.state_dict()["boards"][1]["out"] is True
    for text in ["roll:Y", "BBBB-BBBY", "roll:B", "BG-BB"]:  # player one captures BB
        game.apply(text)
    assert names(game.stones[2]) == {"BBBY"} and game.to_move == 2
    for text in ["roll:B", "BBBY-BBBB", "roll:B", "BB-BBB", "roll:G", "BBBB-BBBG"]:
        game.apply(text)
        assert not game.over and game.to_move != 1
    game.apply("roll:G")
    game.apply("BBB-BBBG")  # captures player three's last ring: player one wins
    assert game.over and game.winners == (0,) and game.winner == 0 and game.captured == (3, 0, 0)
    assert game.state_dict()["shown_board"] == 0 and game.state_dict()["to_move"] is None
    assert game.legal_actions() == []
    refused(game, "roll:G", "the game is over")


def test_a_win_in_two_players_and_the_turn_limit_and_stall_draws():
    game = position(["G"], ["GR"], roll="R")
    game.apply("G-GR")
    assert game.over and game.winners == (0,)
    # Nobody captures for `stall` turns each: the game ends, shared among the players still in.
    game = position(["GGGG"], ["YYYY"], ["BBBB"], stall=1)
    game.in_hand = (0, 0, 0)
    game.set_stones(1, 0)
    game.to_move = 0
    for _ in range(3):
        if game.over:
            break
        game.apply("roll:G" if game.to_move == 0 else "roll:B")
        game.apply(str(game.legal_actions()[0]))
    assert game.over and game.winners == (0, 2) and game.draw_reason() is None  # the two still in share it
    game = position(["GGGG"], ["YYYY"], turn_limit=10)
    while not game.over:
        game.apply(game.random_action(random.Random(len(game.history))))
    assert game.winners == () and game.turn == 20  # both still in: a draw
    assert game.draw_reason() == "the turn limit"


def quiet_turns(game, moves):
    """Play ``moves[player]`` (roll, move) pairs in turn, none capturing, until the game ends; the number
    of turns each player took."""
    taken = dict.fromkeys(game.players_in(), 0)
    while not game.over:
        p = game.to_move
        roll, move = moves[p][taken[p] % len(moves[p])]
        game.apply(f"roll:{roll}")
        game.apply(move)
        taken[p] += 1
    return taken


def test_the_stall_ends_the_game_after_stall_turns_of_each_player_still_in():
    # Two players: a stall of 2 is two quiet turns each.
    game = position(["GG"], ["YYYY"], stall=2)
    moves = {0: [("R", "GG-GR"), ("G", "GR-GG")], 1: [("B", "YYYY-YYYB"), ("Y", "YYYB-YYYY")]}
    assert quiet_turns(game, moves) == {0: 2, 1: 2} and game.winners == ()
    assert game.draw_reason() == "2 turns each without a capture"
    # Three seats, one eliminated in phase one (the boards coincide: player two's ring takes player
    # one's): still two quiet turns for each player left, not the turns of three seats shared by two.
    game = MULTIVERSE(3, rings=1, stall=2)
    for text in ["roll:@GG", "GG", "roll:@GG", "GG", "roll:@YYYY", "YYYY"]:
        game.apply(text)
    assert game.phase == "move" and game.players_in() == (1, 2)
    moves = {1: moves[0], 2: moves[1]}
    assert quiet_turns(game, moves) == {1: 2, 2: 2} and game.winners == (1, 2)


def test_a_finished_game_scores_the_win_not_the_rings_captured():
    # Every conduit on its head node: the three boards coincide, so each placement captures the last.
    game = MULTIVERSE(3, rings=1)
    for text in ["roll:@GG", "GG", "roll:@GG", "GG", "roll:@GG", "GG"]:
        game.apply(text)
    # Player two took player one's ring and lost their own to player three: out, with a ring captured.
    assert game.over and game.winners == (2,) and game.captured == (0, 1, 1)
    assert game.scores == (0, 0, 1)  # not (0, 1, 1): the eliminated player scores nothing
    assert MULTIVERSE.describe()["score"] is None  # the page shows no column of points


def test_options_depth_and_rings():
    game = MULTIVERSE(4, depth=2)
    assert len(game.roll_faces()) == 21
    with pytest.raises(OptionError, match="do not fit"):
        MULTIVERSE(2, depth=2, rings=22)
    giant = position(["RGGGG"], ["GGGG"], conduits=(R, HEAD), depth=5)
    assert giant.simultaneous(0, n("RGGGG"), 1, n("GGGG"))
    with pytest.raises(OptionError):
        MULTIVERSE(5)


# -- notation ------------------------------------------------------------------------------------------


def test_conduit_moves_print_and_parse_back_and_never_equal_a_ring_action():
    game = position(["G"], ["YYYY"], conduits=(Y, HEAD), roll="G")
    move = game.parse("conduit:G")
    assert isinstance(move, ConduitAction) and move == conduit(G) and str(move) == "conduit:G"
    assert move != Action.place(G) and game.parse("G") == Action.place(G)
    assert move in game.legal_actions()
    for action in game.legal_actions():
        assert game.parse(str(action)) == action
    with pytest.raises(IllegalAction, match="not one of the colours"):
        game.parse("conduit:X")
    game.apply("conduit:G")
    assert str(game.history[-1][0]) == "conduit:G" and game.conduits[0] == G
    # A record replays from its text.
    replay = position(["G"], ["YYYY"], conduits=(Y, HEAD))
    for action, _ in game.history:
        replay.apply(str(action))
    assert replay.state_key() == game.state_key()


# -- what the cloth shows --------------------------------------------------------------------------------


def test_shown_stones_owner_and_state_dict():
    game = position(["RG", "RYGY", "G", "B"], ["BB", "GGGG"], ["YG"], conduits=(R, Y, HEAD), to_move=1)
    assert MULTIVERSE.physical_stones is False
    # The cloth shows player two's board (player two is to move), conduit on Y.
    shown = game.shown_stones()
    assert game.shown_board == 1 and shown[1] == game.stones[1]
    # Player one (conduit R): R+s is player two's s (RG -> G, RYGY -> YGY), and player one's s is player
    # two's Y+s (RG -> YRG, G -> YG, B -> YB; YRYGY is off the board).
    assert names(shown[0]) == {"G", "YGY", "YRG", "YG", "YB"}
    # Player three (conduit on the head): s is s, and player three's s is player two's Y+s.
    assert names(shown[2]) == {"YG", "YYG"}
    assert game.owner(n("BB")) == 1 and game.owner(n("YB")) == 0 and game.owner(n("YYG")) == 2
    assert game.owner(n("YG")) == 0 and game.owner(n("GG")) is None
    assert game.occupied == shown[0] | shown[1] | shown[2]
    # Player one's G and player three's YG are not simultaneous with each other (no capture is due),
    # yet both are player two's YG.
    assert not game.simultaneous(0, n("G"), 2, n("YG"))
    state = game.state_dict()
    assert state["shown_board"] == 1 and state["conduits"] == ["0", "Y", "0"]
    assert state["stones"]["BB"] == {"player": 1, "kind": "ring"}
    assert state["stones"]["YB"] == {"player": 0, "kind": "ring"}
    assert state["stones"]["YG"] == {"player": 0, "kind": "ring", "players": [0, 2]}
    assert state["boards"] == [
        {"rings": ["G", "B", "RG", "RYGY"], "conduit": "R", "in_hand": 0, "out": False},
        {"rings": ["BB", "GGGG"], "conduit": "Y", "in_hand": 0, "out": False},
        {"rings": ["YG"], "conduit": "0", "in_hand": 0, "out": False},
    ]
    json.dumps(state)


def test_the_cloth_follows_the_player_to_move_and_last_is_seen_on_the_shown_board():
    game = position(["G"], ["YYYY"], conduits=(HEAD, R), roll="R")
    game.apply("G-GR")
    state = game.state_dict()
    # Player two's board is shown: player one's G and GR are player two's G and GR (player one's conduit
    # is on the head node) and RG and RGR (through player two's conduit on R).
    assert state["shown_board"] == 1 and state["last_move"] == {"board": 0, "nodes": ["G", "GR"]}
    assert state["last"] == ["G", "GR", "RG", "RGR"]
    assert state["stones"]["RGR"] == {"player": 0, "kind": "ring"}


# -- the whole game ------------------------------------------------------------------------------------


def test_random_play_through_the_cli_ends():
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "companion.cli",
            "play",
            "multiverse",
            "--players",
            "3",
            "--random",
            "5000",
            "--seed",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    last = json.loads(done.stdout.splitlines()[-1])
    assert last["over"] is True and len(last["boards"]) == 3


def test_random_games_with_the_fast_random_action_end_in_every_player_count():
    for players in (2, 3, 4):
        rng = random.Random(players)
        game = MULTIVERSE(players, turn_limit=5000)
        while not game.over:
            game.push_legal(game.random_action(rng))
        assert game.over
        # No two rings of different players ever share a space.
        for p in range(players):
            for q in range(players):
                if p != q:
                    assert not game.stones[q] & game.project(game.stones[p], p, q)
