"""Hyper-Chess: the charted start, every piece's moves, diplomat pawns, the Queen's double moves,
castling, check, checkmate and the draws."""

import random

import pytest
import scenario

from companion.games.catalogue import find
from companion.games.engine import IllegalAction, OptionError
from companion.rules.space import bits

CHESS = find("hyper-chess")


def play(script, game=None, **options):
    return scenario.play(game or CHESS(**options), script)


def position(placement, to_move=0, **options):
    game = CHESS(**options)
    game.set_position(placement, to_move)
    return game


def targets(game, source):
    return {str(a).split("-")[1] for a in game.legal_actions() if str(a).split("-")[0] == source}


def kinds(game):
    return {node: (s["player"], s["kind"]) for node, s in game.state_dict()["stones"].items()}


def test_the_start_is_the_chart_of_starting_nodes():
    game = CHESS()
    blue = {
        "BBBB": "king",
        "BBYB": "queen",
        "BBGB": "knight",
        "BYBB": "rook",
        "BGBB": "bishop",
        "BBB": "pawn",
        "BBY": "pawn",
        "BBG": "pawn",
        "BYB": "pawn",
        "BGB": "pawn",
    }
    red = {
        "RRRR": "king",
        "RRGR": "queen",
        "RRYR": "knight",
        "RGRR": "rook",
        "RYRR": "bishop",
        "RRR": "pawn",
        "RRG": "pawn",
        "RRY": "pawn",
        "RGR": "pawn",
        "RYR": "pawn",
    }
    expected = {n: (0, k) for n, k in blue.items()} | {n: (1, k) for n, k in red.items()}
    assert kinds(game) == expected
    assert game.to_move == 0 and not game.check and game.castle == (True, True)
    assert CHESS(first="red").to_move == 1


# -- each piece's moves, as the chart says, worked out by hand from the manual's move kinds ----------


def lone(piece, node="RGY"):
    return position({"BBBB": "K", "RRRR": "k", node: piece})


def test_rook_and_pawn_make_one_step_up_down_sideways_or_limited_hyperspace():
    steps = {
        "RG",  # up
        "RGYG",
        "RGYR",
        "RGYY",
        "RGYB",  # down
        "RGR",
        "RGB",  # sideways
        "RRY",
        "RBY",
    }  # limited hyperspace: the penultimate locus G to R or B
    assert targets(lone("R"), "RGY") == steps
    assert targets(lone("P"), "RGY") == steps


def test_bishop_steps_one_up_or_down_and_one_limited_hyperspace():
    up_then_lh = {"GG", "YG"}  # RG, then R varies
    lh_then_up = {"RR", "RB"}  # RRY or RBY, then up
    down_then_lh = {f"RG{c}{x}" for c in "RB" for x in "GRYB"}  # RGYx, then Y varies
    lh_then_down = {f"R{c}Y{x}" for c in "RB" for x in "GRYB"}  # RRY or RBY, then down
    assert targets(lone("B"), "RGY") == up_then_lh | lh_then_up | down_then_lh | lh_then_down


def test_knight_goes_up_then_sideways_or_sideways_then_down():
    expected = {
        "RY",  # one up (RG), two sideways (G to Y)
        "RGGG",
        "RGGR",
        "RGGY",
        "RGGB",  # two sideways (RGG), one down
        "G",
        "Y",
    }  # two up (R), one sideways; one sideways and two down would leave the board
    assert targets(lone("N"), "RGY") == expected


def test_queen_moves_like_rook_or_bishop_once_or_twice_the_same_way():
    single = targets(lone("R"), "RGY") | targets(lone("B"), "RGY")
    double = {
        "R",  # up, up
        "RGG",  # sideways twice: the opposite corner
        "RYY",  # limited hyperspace twice: G to Y
        "G",
        "Y",
        "B",
    }  # two diagonal steps (up and LH, LH and up)
    assert targets(lone("Q"), "RGY") == single | double


def test_a_piece_in_between_blocks_the_queens_double_move():
    # Two sideways steps to the opposite corner RGG pass RGR or RGB: one blocker leaves the other way.
    game = position({"BBBB": "K", "RRRR": "k", "RGY": "Q", "RGR": "p"})
    assert "RGG" in targets(game, "RGY")
    game = position({"BBBB": "K", "RRRR": "k", "RGY": "Q", "RGR": "p", "RGB": "P"})
    assert "RGG" not in targets(game, "RGY")
    with pytest.raises(
        IllegalAction, match="the queen's two moves to RGG pass RGR or RGB, and each is occupied"
    ):
        game.apply("RGY-RGG")
    # Two ups to R pass RG; R is also two diagonal steps away through GG or YG.
    game = position({"BBBB": "K", "RRRR": "k", "RGY": "Q", "RG": "p", "GG": "P"})
    assert "R" in targets(game, "RGY")
    game = position({"BBBB": "K", "RRRR": "k", "RGY": "Q", "RG": "p", "GG": "P", "YG": "P"})
    assert "R" not in targets(game, "RGY")


def test_a_move_off_the_chart_is_refused_with_the_pieces_way_of_moving():
    game = CHESS()
    with pytest.raises(IllegalAction, match="the knight on BBGB moves one up and two sideways"):
        game.apply("BBGB-BBGG")
    with pytest.raises(IllegalAction, match="the rook on BYBB moves one step up, down, sideways"):
        game.apply("BYBB-BYGG")
    assert game.history == []


def test_misses_and_own_pieces_get_their_own_reasons():
    game = CHESS()
    with pytest.raises(IllegalAction, match="BYB is occupied by your own pawn"):
        game.apply("BYBB-BYB")
    with pytest.raises(IllegalAction, match="only move: write FROM-TO"):
        game.apply("G")
    with pytest.raises(IllegalAction, match="the stone on RRRR is not yours"):
        game.apply("RRRR-RRR")
    with pytest.raises(IllegalAction, match="not one such move away"):
        game.apply("BGBB-GGGG")


# -- pawns are diplomats ------------------------------------------------------------------------------


def test_pawns_neither_capture_nor_are_captured_but_block():
    game = position({"BBBB": "K", "RRRR": "k", "GGG": "P", "GGGG": "r", "GGR": "R", "GGY": "p"})
    with pytest.raises(IllegalAction, match="a pawn is a diplomat: it cannot capture"):
        game.apply("GGG-GGGG")
    with pytest.raises(IllegalAction, match="the pawn on GGY is a diplomat: it cannot be captured"):
        game.apply("GGR-GGY")
    assert "GGGG" not in targets(game, "GGG") and "GGY" not in targets(game, "GGR")
    # The red rook cannot take the blue pawn either, and a pawn gives no check.
    game.apply("GGR-GG")
    assert "GGG" not in targets(game, "GGGG")


def test_a_rook_captures_and_the_capture_is_counted():
    game = position({"BBBB": "K", "RRRR": "k", "GGR": "R", "GGY": "n"})
    game.apply("GGR-GGY")
    assert kinds(game)["GGY"] == (0, "rook") and game.captured == (1, 0) and game.quiet == 0


# -- castling ----------------------------------------------------------------------------------------


def test_castling_switches_king_and_rook_once():
    game = play("BBBB-BYBB")
    assert kinds(game)["BYBB"] == (0, "king") and kinds(game)["BBBB"] == (0, "rook")
    assert game.castle == (False, True)
    play("RRRR-RGRR", game)
    assert kinds(game)["RGRR"] == (1, "king") and game.castle == (False, False)
    with pytest.raises(IllegalAction, match="only while your King and Rook have not moved"):
        game.apply("BYBB-BBBB")


def test_moving_the_king_or_rook_loses_castling_even_after_returning():
    game = play("BBBB-BBBG RRRR-RRRG BBBG-BBBB RRRG-RRRR")
    assert game.castle == (False, False)
    with pytest.raises(IllegalAction, match="only while your King and Rook have not moved"):
        game.apply("BBBB-BYBB")


def test_no_castling_out_of_check_or_into_it():
    game = position({"BBBB": "K", "BYBB": "R", "RRRR": "k", "BBRB": "q"}, to_move=0)
    assert game.check
    with pytest.raises(IllegalAction, match="you may not castle out of check"):
        game.apply("BBBB-BYBB")
    # A red rook on BYBG reaches BYBB in one sideways step.
    game = position({"BBBB": "K", "BYBB": "R", "RRRR": "k", "BYBG": "r"}, to_move=0)
    assert not game.check
    with pytest.raises(IllegalAction, match="castling would put your King in check on BYBB"):
        game.apply("BBBB-BYBB")


# -- check and checkmate --------------------------------------------------------------------------------


def test_a_move_may_not_leave_the_king_in_check():
    # The red queen on BB reaches BBBB by two downs through BBB, so the blue rook there is pinned.
    game = position({"BBBB": "K", "BBB": "R", "BB": "q", "RRRR": "k"})
    assert not game.check
    with pytest.raises(IllegalAction, match="that would leave your King in check"):
        game.apply("BBB-BBG")
    game.apply("BBB-BB")  # capturing the queen is fine
    assert game.captured == (1, 0)


def test_in_check_only_moves_that_end_it_are_legal():
    game = position({"BBBB": "K", "RRRR": "k", "BBBY": "q", "GGGG": "N"})
    assert game.check and game.state_dict()["check"]
    with pytest.raises(IllegalAction, match="your King is in check: this move does not get him out of it"):
        game.apply("GGGG-GR")
    for action in game.legal_actions():
        trial = position({"BBBB": "K", "RRRR": "k", "BBBY": "q", "GGGG": "N"})
        trial.apply(action)
        assert not trial._checkers(0)


def test_checkmate_ends_the_game():
    # The red King on the head node: blue pawns fill G, R and Y, the blue Queen checks from B, and the
    # blue Rook on BG guards her.
    game = position({"0": "k", "G": "P", "R": "P", "Y": "P", "BBB": "Q", "BG": "R", "BBBB": "K"})
    assert not game._checkers(1)
    game.apply("BBB-B")  # two ups, through BB
    assert game.over and game.winners == (0,) and game.outcome() == [1.0, 0.0]
    assert game.legal_actions() == [] and game.draw_reason() is None


def test_a_scripted_game_from_the_start_to_checkmate():
    game = play("BBYB-BBR RRRR-RGRR BBY-BBYR RRY-RRYG BGB-BGBR RRG-RRGY BBR-Y RRGR-RRB BBG-BYG RRRR-RRRG")
    assert not game.over
    game.apply("Y-RB")  # the Queen: LH then up, twice (Y, YR... RB) with the red King on RGRR
    assert game.over and game.winners == (0,)
    assert game.check  # the side to move, red, is in check and has no move


# -- draws ------------------------------------------------------------------------------------------------


def test_stalemate_is_a_draw():
    game = position({"0": "k", "G": "P", "R": "P", "Y": "P", "BG": "P", "GGGG": "N", "BBBB": "K"})
    game.apply("BG-B")
    assert game.over and game.winners == () and game.draw_reason() == "stalemate"
    assert game.outcome() == [0.5, 0.5]


def test_threefold_repetition_is_a_draw():
    game = play("BBGB-BG RRYR-RG BG-BBGB RG-RRYR BBGB-BG RRYR-RG BG-BBGB")
    assert not game.over
    game.apply("RG-RRYR")  # the starting position for the third time
    assert game.over and game.draw_reason() == "threefold repetition"


def test_a_run_without_capture_is_a_draw():
    rng = random.Random(3)
    game = CHESS(quiet_turns=10)
    while not game.over:
        quiet = [a for a in game.legal_actions() if game.owner(a.target) is None]
        game.apply(rng.choice(quiet))
    assert game.turn == 20 and game.draw_reason() == "10 turns each without a capture"


def test_bare_kings_are_a_draw():
    game = position({"BBBB": "K", "BBBG": "n", "RRRR": "k"})
    game.apply("BBBB-BBBG")  # the King takes the last piece
    assert game.over and game.draw_reason() == "neither side has a piece that can give check"


# -- options, positions, evaluation ---------------------------------------------------------------------


def test_full_hyperspace_varies_any_locus():
    assert targets(CHESS(), "BYBB") == {"BYBG", "BYBY", "BYGB", "BYYB"}
    # Full hyperspace also varies the first and second loci (BYBB to GYBB or YYBB, to BRBB; BGBB is the
    # blue bishop).
    assert targets(CHESS(hyperspace="full"), "BYBB") == {
        "BYBG",
        "BYBY",
        "BYGB",
        "BYYB",
        "GYBB",
        "YYBB",
        "BRBB",
    }
    with pytest.raises(OptionError):
        CHESS(hyperspace="wide")


def test_set_position_refuses_bad_input_and_changes_nothing():
    game = CHESS()
    before = game.state_key()
    for placement, message in [
        ({"BBBB": "K"}, "red needs exactly one king"),
        ({"BBBB": "K", "RRRR": "k", "GG": "X"}, "a piece is one of"),
        ({"BBBB": "K", "RRRR": "k", "GGGGG": "P"}, "only 4 levels deep"),
        ({"BBBB": "K", "RRRR": "k", "RRRY": "Q"}, "red is in check but it is blue's"),
        (
            {"0": "k", "G": "P", "R": "P", "Y": "P", "B": "P", "BBBB": "K", "GG": "N"},
            "red is already stalemated",
        ),
    ]:
        with pytest.raises(ValueError, match=message):
            game.set_position(placement, to_move=1 if "stalemated" in message else 0)
        assert game.state_key() == before


def test_evaluate_prefers_material_and_a_safe_king():
    start = CHESS().evaluate()
    assert abs(sum(start) - 1) < 1e-9 and 0.3 < start[0] < 0.7
    up_a_queen = position({"BBBB": "K", "RRRR": "k", "GGGG": "Q", "BGBB": "B", "RYRR": "b"}).evaluate()
    assert up_a_queen[0] > 0.8
    boxed = position(
        {"0": "k", "G": "P", "R": "P", "Y": "P", "GGGG": "N", "BBBB": "K", "BBB": "p"}, to_move=1
    ).evaluate()
    free = position({"RRRR": "k", "GGGG": "N", "BBBB": "K", "BBB": "p"}, to_move=1).evaluate()
    assert boxed[0] > free[0]


def test_a_bare_king_is_judged_by_how_boxed_in_he_is():
    """Once one side has only King and Pawns, the material says nothing more: the evaluation follows
    the hunt (the King's room, the hunters' distance, check), above HUNT_FLOOR and short of a win."""
    from companion.games.hyper_chess import HUNT_FLOOR

    pawns = {"RRR": "p", "RRG": "p", "RRY": "p", "RGR": "p", "RYR": "p"}
    far = position(pawns | {"RRRR": "k", "BBBB": "K", "BGBB": "B", "BBGB": "N", "BYBB": "R"}, to_move=1)
    near = position(pawns | {"RRRR": "k", "BBBB": "K", "RRRG": "B", "RRGY": "N", "RRYR": "R"}, to_move=1)
    open_field = position(pawns | {"GGG": "k", "BBBB": "K", "RRRG": "B", "RRGY": "N", "RRYR": "R"}, to_move=1)
    for game in (far, near, open_field):
        blue, red = game.evaluate()
        assert HUNT_FLOOR <= blue < 1 and blue + red == pytest.approx(1)
    assert near.evaluate()[0] > far.evaluate()[0]  # the pieces closing in
    assert (
        near.evaluate()[0] > open_field.evaluate()[0]
    )  # a corner King has 9 neighbours, a third-level one 29
    # With a piece left to each side it is the material again (a Queen up: well ahead, not a hunt).
    armed = position({"RRRR": "k", "BBBB": "K", "GGGG": "Q", "BGBB": "B", "RYRR": "b"})
    assert armed.evaluate()[0] > 0.8


def _crowded(rng, options):
    """A random position with both sides' pieces crowded round one node (two steps of a King at most),
    where checks, double checks and the Queen's double moves through a crowd are common; None if it is
    not a legal position (the side not to move in check, or the side to move already mated)."""
    game = CHESS(**options)
    t = game.t
    centre = rng.choice(list(game.space.nodes))
    near = [n for n in game.space.nodes if t.distance[centre][n] <= 2]
    pieces = "KQRBNkqrbn" + "".join(rng.choice("Pp") for _ in range(rng.randrange(5)))
    if len(near) < len(pieces):
        return None
    nodes = rng.sample(near, len(pieces))
    try:
        game.set_position({game.space.name(n): p for n, p in zip(nodes, pieces)}, to_move=rng.randrange(2))
    except ValueError:
        return None
    return game


def _plain_moves(game, tables):
    me = game.to_move
    expected = set()
    for kind in range(6):
        for s in bits(game.pieces[me][kind]):
            anywhere = tables.reach[1][s] | tables.knight[s] | game.stones[me]
            for t in bits(anywhere):
                if _plain_legal(game, s, t, kind):
                    expected.add(f"{game.space.name(s)}-{game.space.name(t)}")
    return expected


@pytest.mark.slow
@pytest.mark.parametrize(
    "options", [{}, {"hyperspace": "full"}, {"headless": True}], ids=["standard", "full", "headless"]
)
def test_legal_moves_match_a_plain_search_for_checks(options):
    """The fast generator (bit operations over each piece's targets: the one checker to take, the
    Queen's one free node to fill, the nodes the King may step to) against trying every move and
    looking for any piece that could then take the King: along random games from the start, and from
    random crowded positions (many in check, in double check, or in check by the Queen's double move).
    A random move is always one of the legal moves."""
    rng = random.Random(12)
    tables = CHESS(**options).t
    seen = {"positions": 0, "check": 0, "double check": 0, "queen's double move": 0, "mate": 0}
    crowded = (_crowded(rng, options) for _ in range(400))
    starts = [(CHESS(**options), 80) for _ in range(3)] + [(game, 4) for game in crowded if game]
    for game, plies in starts:
        for _ in range(plies):
            if game.over:
                seen["mate"] += bool(game.winners)
                break
            me = game.to_move
            legal = game.legal_actions()
            assert {str(a) for a in legal} == _plain_moves(game, tables)
            assert game.random_action(rng) in legal
            checkers = game._checkers(me)
            k = (game.pieces[me][0] & -game.pieces[me][0]).bit_length() - 1
            seen["positions"] += 1
            seen["check"] += bool(checkers)
            seen["double check"] += len(checkers) > 1
            seen["queen's double move"] += any(
                game.pieces[1 - me][1] >> c & 1 and not tables.king[c] >> k & 1 for c in checkers
            )
            game.apply(rng.choice(legal))
    assert (
        seen["positions"] > 800
        and seen["check"] > 120
        and seen["double check"] >= 2
        and seen["queen's double move"] > 40
        and seen["mate"] > 0
    ), seen


def test_kept_move_lists_belong_to_the_position_they_were_asked_in():
    """_candidates keeps its last answer for the next question in the same position (a
    playout asks twice a ply); through moves, undo and redo it always answers as a fresh computation
    does, for either player."""
    rng = random.Random(5)
    game = CHESS()
    undone = 0
    for _ in range(600):
        if game.over or game.history and rng.random() < 0.3:
            game.undo()
            undone += 1
            if rng.random() < 0.5:
                game.redo()
        else:
            game.push_legal(game.random_action(rng))
        player = rng.randrange(2)
        fresh = game.copy()
        fresh._kept = None
        assert game._candidates(player) == fresh._candidates(player)
    assert undone > 100


def test_the_search_is_offered_winning_captures_and_escapes_first_and_blunders_last():
    """action_order, the computer player's move ordering: taking a piece nobody can take back first
    (with a hanging piece's escapes), then checks, then quiet moves; a move onto a node the opponent
    attacks loses the mover's value (the Queen stepping next to a Rook last)."""
    game = position(
        {
            "BBBB": "K",
            "RRRR": "k",
            "GGGG": "R",
            "GGGR": "n",
            "YYYY": "Q",
            "YRYR": "r",
            "YRYY": "B",
            "RRR": "p",
            "RRG": "p",
        }
    )
    actions = game.legal_actions()
    order = dict(zip(map(str, actions), game.action_order(actions)))
    assert len(order) == len(actions) > 30
    best = max(order.values())
    assert {a for a, v in order.items() if v == best} == {
        "GGGG-GGGR",  # the undefended Knight (4)
        "YRYY-YGY",
        "YRYY-YRR",
        "YRYY-YRB",
        "YRYY-YYY",
    }  # the Bishop the Rook attacks, to safe nodes
    assert order["YYYY-RR"] > order["YYYY-YYYR"] == 0  # a check before a quiet move
    assert min(order, key=order.get) == "YYYY-YRY" and order["YYYY-YRY"] == -9  # beside the Rook
    assert order["GGGG-GGG"] == 0  # the Rook's quiet step, and Pawns and King count nothing


def _plain_legal(game, s, t, kind):
    from companion.games.hyper_chess import KING, PAWN, ROOK

    me, you = game.to_move, 1 - game.to_move
    mine, theirs = [list(game.pieces[me]), list(game.pieces[you])]
    occupied = game.occupied
    if kind == KING and mine[ROOK] >> t & 1:
        if not game.castle[me] or game._checkers(me):
            return False
        mine[KING], mine[ROOK] = 1 << t, 1 << s
    else:
        if not game._reach(kind, s, occupied) >> t & 1 or game.stones[me] >> t & 1:
            return False
        if kind == PAWN and occupied >> t & 1:
            return False
        if theirs[PAWN] >> t & 1 or theirs[KING] >> t & 1:
            return False
        mine[kind] ^= 1 << s | 1 << t
        theirs = [m & ~(1 << t) for m in theirs]
    occupied_after = 0
    for m in mine + theirs:
        occupied_after |= m
    k = (mine[KING] & -mine[KING]).bit_length() - 1
    for kd in range(5):
        for a in bits(theirs[kd]):
            if game._reach(kd, a, occupied_after) >> k & 1:
                return False
    return True


# -- through the command line ----------------------------------------------------------------------------


def test_play_command_runs_a_game_to_checkmate_and_names_the_pieces():
    import json
    import subprocess
    import sys

    script = (
        "BBYB-BBR\nRRRR-RGRR  # red castles\nBBY-BBYR\nRRY-RRYG\nBGB-BGBR\nRRG-RRGY\nBBR-Y\n"
        "RRGR-RRB\nBBG-BYG\nRRRR-RRRG\nY-RB\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "companion.cli", "play", "hyper-chess"],
        input=script,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    states = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(states) == 11
    assert states[1]["stones"]["RGRR"] == {"player": 1, "kind": "king"} and states[1]["castling"] == [
        True,
        False,
    ]
    last = states[-1]
    assert last["over"] and last["winner"] == 0 and last["stones"]["RB"] == {"player": 0, "kind": "queen"}

    refused = subprocess.run(
        [sys.executable, "-m", "companion.cli", "play", "hyper-chess"],
        input="BBB-RRR\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode != 0
    assert "line 1: BBB-RRR: the pawn on BBB moves one step up, down, sideways" in refused.stderr
