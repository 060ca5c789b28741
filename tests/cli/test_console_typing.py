"""What a person types at `gryb-companion play` beyond the notation (issue 46): words it does not know,
the board's names, seats handed over, and typing while the computers play among themselves."""

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
from companion.cli import board_text
from companion.cli.console import Console
from companion.games.catalogue import find
from companion.games.die import Die


def console(game_id, players=2, seats=None, seed=1, **options):
    game = find(game_id)(players, **options)
    out = io.StringIO()
    levels = {seat: ai.level(name) for seat, name in (seats or {}).items()}
    return Console(game, Die(seed), levels, random.Random(seed), out), out


def test_a_word_that_is_no_command_and_no_node_is_answered_with_the_nearest_commands():
    c, out = console("ez-gryb")
    c.play(iter(["dance", "mvoes", "sit 2 easy", "gg", "GX", "quit"]))
    text = out.getvalue()
    assert re.search(r"no command 'dance'; the nearest are \w+, \w+, \w+ \(help lists them all\)\n", text)
    assert "no command 'mvoes': did you mean moves? (help lists them all)\n" in text
    assert "no command 'sit'" in text and "seat" in text.split("no command 'sit'")[1].splitlines()[0]
    # A node name in small letters, or a wrong one, is still answered as a node.
    assert "(node names are capital letters)" in text and "bad node name 'GX'" in text
    assert "dance:" not in text and len(c.game.history) == 1  # the opening roll alone


def test_a_seat_handed_over_at_the_start_says_whose_turn_it_is_not_to_play_again():
    c, out = console("drangles")
    c.play(iter(["seat 2 hard", "quit"]))
    turns = [line.split(";")[0] for line in out.getvalue().splitlines() if line.startswith("Player 1 to")]
    assert turns == ["Player 1 to play", "Player 1 to play"]
    assert "the computer (hard) plays for Player 2 now" in out.getvalue()


def test_board_and_board_names_are_typed_in_play_and_after_the_end():
    c, out = console("ez-gryb", depth=2, stones=4)
    names = board_text.render_names(2, c.game.space.headless)
    c.play(iter(["board names", "board", "quit"]))
    text = out.getvalue()
    assert names + "\n" in text
    assert text.count("Player 1 to play") == 2  # the board and whose turn, shown again
    game = c.game
    while not game.over:
        game.apply(random.Random(len(game.history)).choice(game.legal_actions()))
    c.play(iter(["board names", "quit"]))
    assert text.count(names) == 1 and out.getvalue().count(names) == 2
    assert "the game is over: type" not in out.getvalue()


class Terminal:
    """`gryb-companion play` with its stdin on a pseudo-terminal, read as a person reads it."""

    def __init__(self, *args):
        master, slave = pty.openpty()
        self.master = master
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion.cli", "play", *args],
            stdin=slave,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        os.close(slave)
        self.seen = ""

    def wait_for(self, pattern, after=0, timeout=60):
        """The text up to the first match of ``pattern`` past ``after``; fails at the timeout."""
        deadline = time.monotonic() + timeout
        while not (found := re.compile(pattern).search(self.seen, after)):
            assert time.monotonic() < deadline, f"no {pattern!r} in {self.seen[after:][-2000:]!r}"
            if select.select([self.proc.stdout], [], [], 0.5)[0]:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                assert chunk, f"ended before {pattern!r}: {self.seen[-2000:]!r}"
                self.seen += chunk.decode()
        return found

    def read_for(self, seconds):
        """Whatever is written in the next ``seconds``."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if select.select([self.proc.stdout], [], [], left)[0]:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:
                    return
                self.seen += chunk.decode()

    def type(self, line):
        os.write(self.master, line.encode() + b"\n")
        return len(self.seen)

    def close(self):
        os.close(self.master)
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=60)
        self.proc.stderr.close()
        self.proc.stdout.close()


def test_with_every_seat_a_computer_typing_is_read_while_they_play():
    """stop holds the game between two moves, undo takes the last one back, seat N human hands a seat
    over and the game goes on with the person at it: typed while the computers play on their own."""
    t = Terminal("ez-gryb", "--ai", "1=hard", "--ai", "2=hard")
    played = re.compile(r"\(computer, hard\) (rolled|placed|moved|passed|removed)")  # a roll or move said
    try:
        t.wait_for(r"\(computer, hard\) (placed|moved|passed|removed)")  # a move, so undo has one to take
        stopped = t.wait_for(r"the computers wait: .*\n(.*\n)*.*> $", after=t.type("stop")).end()
        t.read_for(1.0)  # a hard move is 0.25 s: none is played while stopped
        assert not played.search(t.seen, stopped) and "game over" not in t.seen
        t.wait_for(r"plays for itself: go, or seat [12] human to play it\n", after=t.type("pass"))
        took = t.wait_for(r"took back .*\n", after=t.type("undo")).end()
        assert not played.search(t.seen, took)
        seated = t.type("seat 1 human")
        t.wait_for(r"a person plays for Player 1 now\n(.*\n)*Player 1> $", after=seated)
        assert t.type("quit") and t.proc.wait(timeout=60) == 0
    finally:
        t.close()
    assert "game over" not in t.seen and "Traceback" not in t.seen


def test_with_every_seat_a_computer_and_no_input_the_game_is_played_through():
    """An input at its end before the game's (a script, /dev/null) lets the computers play it out."""
    done = subprocess.run(
        [sys.executable, "-m", "companion.cli", "play", "ez-gryb", "--interactive", "--seed", "2"]
        + ["--option", "depth=2", "--option", "stones=4", "--ai", "1=easy", "--ai", "2=easy"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert "game over: " in done.stdout and not done.stdout.rstrip().endswith(">")
