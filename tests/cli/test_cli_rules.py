"""The rules command line, run as players and scripts run it: a real process, JSON out, exit codes."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from companion.rules import node as nd

ENTRY_POINT = Path(sys.executable).parent / "gryb-companion"


def run(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_console_entry_point_is_installed():
    done = subprocess.run([str(ENTRY_POINT), "rules", "position", "G"], capture_output=True, text=True)
    assert done.returncode == 0 and json.loads(done.stdout) == [-8, -8]


def test_moves_for_given_nodes_are_sorted_lists():
    done = run("rules", "moves", "--kind", "excision", "GBYR", "RBYY")
    assert done.returncode == 0
    assert json.loads(done.stdout) == {"GBYR": ["BYR", "GBR", "GYR"], "RBYY": ["BYY", "RBY", "RYY"]}


def test_moves_for_every_node_of_the_board():
    done = run("rules", "moves", "--kind", "down")
    table = json.loads(done.stdout)
    assert len(table) == 341
    assert table["0"] == ["B", "G", "R", "Y"] and table["GGGG"] == []


def test_moves_with_board_options():
    periodic = json.loads(run("rules", "moves", "--kind", "up", "--periodic", "R").stdout)
    assert len(periodic["R"]) == 257
    headless = json.loads(run("rules", "moves", "--kind", "up", "--headless").stdout)
    assert len(headless) == 340 and headless["G"] == []
    giant = json.loads(run("rules", "moves", "--kind", "down", "--depth", "5", "GGGG").stdout)
    assert giant["GGGG"] == ["GGGGB", "GGGGG", "GGGGR", "GGGGY"]


@pytest.mark.parametrize(
    "kind",
    [
        "sideways",
        "hyperspace",
        "limited-hyperspace",
        "interjection",
        "limited-interjection",
        "excision",
        "limited-excision",
        "up",
        "down",
    ],
)
def test_every_kind_is_accepted(kind):
    assert run("rules", "moves", "--kind", kind, "RGY").returncode == 0


def test_gryb_answers_and_exit_codes():
    done = run("rules", "gryb", "GRYR", "RGBG", "YBGB", "BYRY")
    assert done.returncode == 0
    assert json.loads(done.stdout) == {
        "valid": True,
        "levels": [1, 2, 3, 4],
        "points": 15,
        "quadrangle": False,
    }
    done = run("rules", "gryb", "RG", "RR", "RY", "RB", "--big-endian")
    assert json.loads(done.stdout) == {"valid": True, "levels": [2], "points": 4, "quadrangle": True}
    done = run("rules", "gryb", "RBGG", "RBRB", "RBYB", "RBBR")
    assert done.returncode == 1
    assert json.loads(done.stdout) == {"valid": False, "levels": [], "points": 0, "quadrangle": False}


@pytest.mark.parametrize(
    "args, message",
    [
        (["GX", "RR", "YY", "BB"], "'X' is not one of the colours"),
        (["gr", "RR", "YY", "BB"], "capital letters"),
        (["G", "R", "Y"], "four nodes"),
        (["GGGGG", "R", "Y", "B"], "only 4 levels deep"),
        (["G", "R", "Y", "B", "--depth", "9"], "depth must be"),
    ],
)
def test_gryb_bad_input_exits_2_with_message_on_stderr_only(args, message):
    done = run("rules", "gryb", *args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert message in done.stderr


def test_gryb_stdin_answers_one_line_per_line():
    done = run("rules", "gryb", "--stdin", stdin="G R Y B\nRBGG RBRB RBYB RBBR\nGG RR YY BB\n")
    assert done.returncode == 0
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["valid"] for a in answers] == [True, False, True]
    assert answers[2]["points"] == 3


def test_gryb_stdin_keeps_lines_aligned_after_bad_input():
    done = run("rules", "gryb", "--stdin", stdin="G R Y B\nG X Y B\nRG RR RY RB\n")
    assert done.returncode == 2
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert answers[0]["valid"] and "error" in answers[1] and answers[2]["points"] == 2
    assert "line 2" in done.stderr


@pytest.mark.parametrize(
    "args, expected",
    [
        ([], {"nodes": 341, "quadrangles": 85, "grybs": 2785}),
        (["--headless"], {"nodes": 340, "quadrangles": 85, "grybs": 2785}),
        (["--depth", "5"], {"nodes": 1365, "quadrangles": 341, "grybs": 33761}),
        (["--depth", "6"], {"nodes": 5461, "quadrangles": 1365, "grybs": 406497}),
    ],
)
def test_count(args, expected):
    assert json.loads(run("rules", "count", *args).stdout) == expected


def test_position_and_its_errors():
    assert json.loads(run("rules", "position", "GGBY").stdout) == [-13, -9]
    assert json.loads(run("rules", "position", "0").stdout) == [0, 0]
    assert json.loads(run("rules", "position", "G", "--depth", "5").stdout) == [-16, -16]
    done = run("rules", "position", "")
    assert done.returncode == 2 and "empty node name" in done.stderr and done.stdout == ""


def test_board_prints_every_node_at_its_point():
    lines = run("board").stdout.splitlines()
    assert len(lines) == 31
    letters = sum(ch in "GRYB0" for line in lines for ch in line)
    assert letters == 341
    x, y = nd.position(nd.parse("GGBY"))
    assert lines[y + 15][2 * (x + 15)] == "Y"
    headless = run("board", "--headless").stdout.splitlines()
    assert sum(ch in "GRYB" for line in headless for ch in line) == 340 and "0" not in "".join(headless)
    assert lines[15][30] == "0" and headless[15][30:31].strip() == ""  # the centre, where the head node was


def test_board_names_prints_every_nodes_name_in_its_row_and_column_order():
    """``board --names``: the names to type, each in the row of its node and in the order of the nodes
    along that row, on a board as wide as 94 characters at the standard depth."""
    for depth, headless in ((4, False), (2, False), (4, True)):
        args = ["board", "--names", "--depth", str(depth)] + (["--headless"] if headless else [])
        done = run(*args)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        half = (1 << depth) - 1
        assert len(lines) == 2 * half + 1
        expected = [[] for _ in lines]
        for n in sorted(nd.nodes(depth, headless), key=lambda n: nd.position(n, depth)):
            x, y = nd.position(n, depth)
            expected[y + half].append(nd.name(n))
        assert [line.split() for line in lines] == expected, args
        # Each name sits under its letter on the letter board: centred on the same column.
        letters = run(*[a for a in args if a != "--names"]).stdout.splitlines()
        for line, row in zip(lines, letters):
            starts = [m.start() for m in re.finditer(r"\S+", line)]
            centres = [s + (len(w) - 1) / 2 for s, w in zip(starts, line.split())]
            columns = [m.start() for m in re.finditer(r"\S", row)]
            assert len(centres) == len(columns)
            scale = {round(c - centres[0], 1) / max(1, col - columns[0]) for c, col in zip(centres, columns)}
            assert len(scale - {0.0}) <= 1, (args, line)
    assert max(len(line) for line in run("board", "--names").stdout.splitlines()) <= 94


def test_gryb_on_a_giant_board_takes_its_depth_for_names_and_points():
    # A bottom-level quadrangle of Giant GRYB is level 5: 16 points, 1 when played big-endian.
    nodes = ["GGGGG", "GGGGR", "GGGGY", "GGGGB"]
    done = run("rules", "gryb", *nodes, "--depth", "5")
    assert done.returncode == 0
    assert json.loads(done.stdout) == {"valid": True, "levels": [5], "points": 16, "quadrangle": True}
    done = run("rules", "gryb", *nodes, "--depth", "5", "--big-endian")
    assert json.loads(done.stdout)["points"] == 1
    # The top quadrangle on Super Giant big-endian: 2**(6-1).
    assert (
        json.loads(run("rules", "gryb", "G", "R", "Y", "B", "--depth", "6", "--big-endian").stdout)["points"]
        == 32
    )
    done = run("rules", "gryb", "GGGGGG", "GGGGGR", "GGGGGY", "GGGGGB", "--depth", "5")
    assert done.returncode == 2 and "only 5 levels deep" in done.stderr


def test_gryb_stdin_takes_the_depth_and_big_endian_options():
    lines = "GGGGG GGGGR GGGGY GGGGB\nG R Y B\nGGGGGG GGGGGR GGGGGY GGGGGB\n"
    done = run("rules", "gryb", "--stdin", "--depth", "5", "--big-endian", stdin=lines)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert answers[0] == {"valid": True, "levels": [5], "points": 1, "quadrangle": True}
    assert answers[1]["points"] == 16
    assert "error" in answers[2] and done.returncode == 2
