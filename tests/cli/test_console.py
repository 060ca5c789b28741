"""Playing at a terminal (`gryb-companion play` with a person at the keyboard): companion.cli.console."""

import io
import os
import pty
import random
import re
import select
import subprocess
import sys
import time

from companion import ai
from companion.cli.console import Console
from companion.games.catalogue import find
from companion.games.die import Die
from companion.rules import node as nd


def console(game_id, players=2, seats=None, seed=1, **options):
    game = find(game_id)(players, **options)
    out = io.StringIO()
    levels = {seat: ai.level(name) for seat, name in (seats or {}).items()}
    return Console(game, Die(seed), levels, random.Random(seed), out), out


def test_mistakes_are_answered_and_change_nothing_then_a_move_and_the_computers_replies():
    c, out = console("pyragryb", 3, seats={1: "easy", 2: "easy"})
    game = c.game
    seen = {}

    def typed():
        seen["start"] = len(game.history)
        yield "GX"  # a bad node name
        seen["wrong"] = next(n for n in "GRYB" if n != game.roll)
        yield seen["wrong"]  # a top node of another colour than the roll
        assert len(game.history) == seen["start"]
        yield "moves"
        yield "hint"
        seen["action"] = game.legal_actions()[0]
        yield str(seen["action"])
        seen["after"] = len(game.history)
        yield "undo"
        yield "quit"
        raise AssertionError("read past quit")

    assert c.play(typed()) == 0
    text = out.getvalue()
    assert "bad node name 'GX'" in text and "(try 'moves')" in text
    assert f"{seen['wrong']}: you rolled" in text
    assert "legal: " + " ".join(str(a) for a in c.game.legal_actions()) in text
    assert "hint: " in text
    # The person's action, then both computer seats rolled and moved before the prompt came back.
    assert f"Player 1 placed a pyramid on {seen['action']}" in text
    assert (
        "Player 2 (computer, easy) rolled" in text
        and "Player 3 (computer, easy) placed a pyramid on " in text
    )
    assert seen["after"] >= seen["start"] + 5
    # Undo goes back to before the person's move; the roll before it stands.
    assert len(game.history) == seen["start"] and game.is_chance is False
    assert "took back " in text and text.rstrip().endswith("Player 1>")


def test_a_whole_game_against_the_computer_to_its_end():
    c, out = console("ez-gryb", seats={1: "easy"}, depth=2, stones=4)
    game = c.game

    def typed():
        while not game.over:
            yield str(random.Random(len(game.history)).choice(game.legal_actions()))

    assert c.play(typed()) == 0
    text = out.getvalue()
    assert game.over and "game over: " in text
    assert ("Player 1 won" in text) == (list(game.winners) == [0]) and ("a draw" in text) == (
        not game.winners
    )
    # The last board shown: each stone is its player's number at its node's point of the grid.
    lines = text.split("\ngame over")[0].splitlines()
    half = (1 << game.space.depth) - 1
    board = lines[-(2 * half + 1) :]
    stones = game.state_dict()["stones"]
    assert stones
    for name, stone in stones.items():
        x, y = nd.position(game.space.parse(name), game.space.depth)
        assert board[y + half][2 * (x + half)] == str(stone["player"] + 1), name


def test_a_seat_changes_hands_mid_game_and_a_bad_seat_word_changes_nothing():
    """``seat N KIND`` as "Who plays" on the page: Player 2 handed to the computer plays at once and goes
    on playing; handed back, the prompt waits for them; a wrong word is answered and changes nothing."""
    c, out = console("ez-gryb", depth=2, stones=4)
    game = c.game
    c.play(iter(["seat 3 hard", "seat 2 grandmaster", "seat two easy", "seat 2"]))
    assert not game.history[1:] and c.seats == {}  # only Player 1's opening roll
    assert out.getvalue().count("type seat N human|easy|medium|hard, N from 1 to 2 (e.g. seat 2 hard)") == 4
    move = str(game.legal_actions()[0])
    c.play(iter([move, "seat 2 easy"]))
    text = out.getvalue()
    assert (
        "the computer (easy) plays for Player 2 now" in text
        and "Player 2 (computer, easy) placed a stone on " in text
    )
    assert c.seats == {1: c.levels[1]} and c.levels[1].name == "easy"
    # The computer's turn was played: Player 1 to move again (or the game over).
    assert game.over or game.to_move == 0
    c.play(iter(["seat 2 human", "seat 1 medium"]))
    text = out.getvalue()
    assert "a person plays for Player 2 now" in text and c.players[1] == "Player 2"
    assert c.players[0] == "Player 1 (computer, medium)" and set(c.seats) == {0}
    assert game.over or game.to_move == 1  # Player 1 played at once; the person at seat 2 is asked


def test_nothing_to_take_back_before_the_first_move():
    c, out = console("drangles")
    c.play(iter(["undo", "quit"]))
    assert "nothing to take back" in out.getvalue() and not c.game.history


def test_play_at_a_terminal_is_the_console_and_a_pipe_stays_json():
    """`play` asks for a terminal's person by itself: stdin on a pseudo-terminal gets the board and a
    prompt; the same command reading a pipe prints JSON (the test_cli_play tests)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "play", "drangles"],
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=os.getcwd(),
    )
    os.close(slave)
    try:
        seen = b""
        deadline = time.monotonic() + 60
        while b"Player 1> " not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], 1)
            if ready:
                seen += os.read(proc.stdout.fileno(), 4096)
        assert b"Player 1> " in seen, seen
        os.write(master, b"0\nquit\n")
        rest, err = proc.communicate(timeout=60)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert (
        rest.startswith(b"Player 1 placed a stone on 0\n") and b"1" in rest.split(b"\n")[1 + 15]
    )  # the stone on the head node
    assert rest.endswith(b"> ")


def test_a_headless_board_is_drawn_without_its_head_node():
    """PyraGRYB's board has no head node: the console draws its 340 nodes, and a stone where it stands."""
    c, out = console("pyragryb", 2)
    c.game.apply("roll:G")
    c.game.apply("G")
    c.show()
    board = out.getvalue().splitlines()[:31]
    assert (
        sum(ch in "GRYB" for line in board for ch in line) == 339
        and sum(line.count("1") for line in board) == 1
    )
    assert "0" not in "".join(board)
    x, y = nd.position(nd.parse("G"))
    assert board[y + 15][2 * (x + 15)] == "1"


def test_roll_typed_is_answered_with_what_the_die_shows():
    """The console rolls the die itself; a person typing "roll" is told so (and what it shows), not that
    "roll" is a bad node name, and nothing changes."""
    c, out = console("ez-gryb")
    c.play(iter(["roll", "quit"]))
    die = c.game.state_dict()["die_shown"]
    assert die in ("G", "R", "Y", "B") and f"the die is rolled for you: it shows {die}\n" in out.getvalue()
    assert "bad node name" not in out.getvalue() and len(c.game.history) == 1  # the one roll


def test_points_are_shown_only_for_a_game_that_keeps_them():
    """EZ GRYB keeps points: the line under the board gives them; Hyper-Chess is played win or lose: it
    gives none."""
    c, out = console("ez-gryb")
    c.play(iter(["quit"]))
    assert "\nPlayer 1 to play, die " in out.getvalue() and re.search(
        r"; scores 0-0(; the only move: \w+)?\n", out.getvalue()
    )
    c, out = console("hyper-chess")
    c.play(iter(["quit"]))
    assert "Player 1 to play\n" in out.getvalue() and "scores" not in out.getvalue()


def test_a_move_the_game_says_in_words_is_shown_in_both():
    """Grim Reaper's placements read "M6GGG": the hint and the moves played give the words as well, so
    the person can type what is shown and read what it means."""
    c, out = console("grim-reaper", seats={1: "easy"})
    c.play(iter(["hint", "M6GGG", "quit"]))
    text = out.getvalue()
    placement = r"[MF]\d+[GRYB]{3} \((male|female), \d+ turns?, on [GRYB]{3}\)\n"
    assert re.search(r"hint: " + placement, text), text[-400:]
    assert "Player 1: M6GGG (male, 6 turns, on GGG)\n" in text
    assert re.search(r"Player 2 \(computer, easy\): " + placement, text)


def test_undo_before_the_persons_first_move_leaves_the_computers_opening_alone():
    c, out = console("drangles", seats={0: "easy"})
    assert c.play(iter(["undo", "undo", "quit"])) == 0
    opening = [str(a) for a, _ in c.game.history]
    assert opening and c.game.to_move == 1
    text = out.getvalue()
    assert text.count("nothing to take back: no move of yours yet") == 2
    said = [line for line in text.splitlines() if line.startswith("Player 1 (computer")]
    assert said == [f"Player 1 (computer, easy) placed a stone on {opening[0]}"] + [
        f"Player 1 (computer, easy) moved the stone on {a.replace('-', ' to ')} ({a})" for a in opening[1:]
    ]


def test_at_the_end_undo_takes_the_last_move_back_and_again_plays_the_same_game_once_more():
    """As OK and UNDO on the board: once the game is over the console stays, 'undo' takes the last move
    back into play and 'again' starts the same game, options and computer player anew, begun by the next
    player along: here the computer, Player 2, which keeps its number on the board."""
    c, out = console("ez-gryb", seats={1: "easy"}, depth=2, stones=4)
    first = c.game
    seen = {}

    def typed():
        while not first.over:
            yield str(random.Random(len(first.history)).choice(first.legal_actions()))
        seen["end"] = len(first.history)
        yield "moves"  # nothing to choose: said so, nothing changes
        assert first.over and len(first.history) == seen["end"]
        yield "undo"
        seen["undone"] = len(first.history)
        assert not first.over and first.to_move == 0
        while not first.over:  # played to its end again
            yield str(random.Random(len(first.history)).choice(first.legal_actions()))
        yield "again"
        second = c.game
        assert second is not first and not second.over and second.settings == first.settings
        assert second.players == 2 and c.names == ["Player 2 (computer, easy)", "Player 1"]
        moved = [a for a, _ in second.history if a.kind not in ("roll", "pass")]
        assert moved and second.owner(moved[0].targets[0]) == 0  # the computer's first move, from seat 0
        yield "quit"
        raise AssertionError("read past quit")

    assert c.play(typed()) == 0
    text = out.getvalue()
    assert seen["undone"] < seen["end"]
    assert (
        "the game is over: type again (the same game once more), undo (back to your last move), "
        "seat N KIND (who plays it) or quit"
    ) in text
    assert "took back " in text and "EZ GRYB again: Player 2 (computer, easy) begins" in text
    assert text.count("game over: ") == 2 and text.rstrip().endswith("Player 1>")
    # The computer's stone (seat 0 in this game) is shown as Player 2's.
    second = c.game
    stone = next(iter(second.state_dict()["stones"]))
    x, y = nd.position(second.space.parse(stone), second.space.depth)
    half = (1 << second.space.depth) - 1
    board = text.split("EZ GRYB again")[1].split(" to play")[0].splitlines()[-(2 * half + 2) : -1]
    assert board[y + half][2 * (x + half)] == "2"


def test_a_seat_handed_over_once_the_game_is_over_plays_the_next_one():
    """Between two games, as "Who plays" on the page after a game's end: ``seat 1 easy`` is taken (not
    refused as a move after the end), and the game played again has Player 1 played by the computer,
    from the seat Player 1 then sits in."""
    c, out = console("ez-gryb", depth=2, stones=4)
    first = c.game

    def typed():
        while not first.over:
            yield str(random.Random(len(first.history)).choice(first.legal_actions()))
        yield "seat 1 easy"
        assert c.levels[0].name == "easy" and first.over  # nothing played in the game that is over
        yield "again"
        yield "quit"

    c.play(typed())
    text = out.getvalue()
    assert "the computer (easy) plays for Player 1 now" in text
    assert "the game is over: type" not in text
    assert c.order == [1, 0] and c.seats == {
        1: c.levels[0]
    }  # Player 2 begins; Player 1, the computer, second
    assert c.names == ["Player 2", "Player 1 (computer, easy)"]


def test_again_mid_game_is_refused_and_changes_nothing():
    c, out = console("drangles")
    c.play(iter(["0", "again", "quit"]))
    assert "'again' starts the game anew once it is over" in out.getvalue() and len(c.game.history) == 1


def test_the_only_move_is_said_and_each_seats_aim_where_they_differ():
    c, out = console("grim-reaper")
    c.play(iter(["quit"]))
    assert "Player 1: join top and bottom\nPlayer 2: join left and right\n" in out.getvalue()
    c, out = console("ez-gryb", seed=3)
    c.play(iter(["quit"]))
    (only,) = c.game.legal_actions()  # the first stone enters on the top node of the colour rolled
    assert f"; the only move: {only}\nPlayer 1> " in out.getvalue()


def test_text_that_is_not_the_notations_is_answered_and_the_end_of_input_ends_the_line():
    c, out = console("ez-gryb")
    c.play(iter(["G\udcff\x00", "x" * 5000]))
    text = out.getvalue()
    assert "that is not text the notation knows" in text
    assert max(map(len, text.splitlines())) < 260  # a runaway line is not said back whole
    assert text.endswith("Player 1> \n") and len(c.game.history) == 1  # the roll alone


def test_chess_pieces_are_drawn_as_chess_figures_so_a_king_is_told_from_a_pawn():
    c, out = console("hyper-chess")
    c.play(iter(["quit"]))
    text = out.getvalue()
    assert "\n♔♕♖♗♘♙ Player 1, ♚♛♜♝♞♟ Player 2 (king, queen, rook, bishop, knight, pawn)\n" in text
    board = text.split("\n", 1)[1].split("\n♔♕♖♗♘♙ Player 1")[0]
    stones = c.game.state_dict()["stones"].values()
    for kind, white, black in zip(("king", "queen", "rook", "bishop", "knight", "pawn"), "♔♕♖♗♘♙", "♚♛♜♝♞♟"):
        assert board.count(white) == sum(s["kind"] == kind and s["player"] == 0 for s in stones) > 0
        assert board.count(black) == sum(s["kind"] == kind and s["player"] == 1 for s in stones) > 0
    assert "1" not in board and "2" not in board  # no piece drawn as its player's number


def test_a_terminal_that_is_not_utf8_gets_question_marks_not_a_traceback():
    done = subprocess.run(
        [sys.executable, "-m", "companion.cli", "play", "hyper-chess", "--interactive"],
        input="rules\nquit\n",
        capture_output=True,
        text=True,
        encoding="ascii",
        timeout=60,
        env=dict(os.environ, PYTHONIOENCODING="ascii"),
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert "\n?????? Player 1, ?????? Player 2 (king, queen, rook, bishop, knight, pawn)\n" in done.stdout
    assert done.stdout.endswith("Player 1> ")


def test_the_second_move_of_a_turn_is_said_to_be_the_same_turn():
    c, out = console("drangles")
    c.play(iter(["0", "0-G", "0", "undo", "quit"]))
    lines = [line for line in out.getvalue().splitlines() if line.startswith("Player") and " to play" in line]
    assert [line.split(";")[0] for line in lines] == [
        "Player 1 to play",
        "Player 1 to play again (the same turn)",
        "Player 2 to play",
        "Player 2 to play again (the same turn)",
        "Player 2 to play",
    ]  # after undo: the turn's start again


def test_a_node_several_players_rings_share_in_multiverse_is_drawn_as_a_star():
    """Multiverse shows one board, and rings of two players in simultaneous space can stand on one of its
    nodes: the text board marks that node *, not as either player's."""
    c, out = console("multiverse", 3)
    rng = random.Random(0)
    shared: list[str] = []
    while not shared and not c.game.over:
        c.game.apply(rng.choice(c.game.legal_actions()))
        stones = c.game.state_dict()["stones"]
        shared = [name for name, stone in stones.items() if len(stone.get("players", ())) > 1]
    assert shared
    c.show()
    assert out.getvalue().count("*") == len(shared)


def test_pyragryb_roll_or_reincarnation_typed_at_the_start_of_a_turn():
    """Issue 45: out of large pyramids, Player 1's turn offers taking G back before the roll; the line
    under the board says so, "roll" typed rolls (it used to answer that the die rolls by itself), and
    "xG" typed takes the piece back without a roll."""
    from web.testing import LoadedDie

    game = find("pyragryb")(2, pieces=1)
    out = io.StringIO()
    c = Console(game, LoadedDie("GGRG"), {}, random.Random(1), out)
    c.play(iter(["G", "roll", "quit"]))
    text = out.getvalue()
    assert "Player 1 to play; scores 0-0; roll, or without the die: xG\n" in text
    assert "Player 1 chose to roll\nPlayer 1 rolled R\n" in text and "the die is rolled for you" not in text
    game = find("pyragryb")(2, pieces=1)
    out = io.StringIO()
    c = Console(game, LoadedDie("GG"), {}, random.Random(1), out)
    c.play(iter(["G", "xG", "quit"]))
    assert "Player 1 removed their own pyramid on G (xG)\n" in out.getvalue() and game.stash[0] == (1, 1, 1)


def test_a_removal_owed_after_a_gryb_is_said_and_said_again_after_undo():
    """Issue 46: the terminal says what the page says, "Player 1 made a GRYB: remove one of Player 2's men",
    where it said only "Player 1 to play again (the same turn)"."""
    c, out = console("25-mens-gryb", depth=3, stones=4)
    owed = "Player 1 made a GRYB: remove one of Player 2's men\n"
    assert c.play(iter("G GG R RR Y YY B".split())) == 0
    assert out.getvalue().count(owed) == 1
    c.answer("xGG")
    c.answer("undo")  # back to the GRYB formed, Player 2's man back: the removal is owed again
    assert out.getvalue().count(owed) == 2
