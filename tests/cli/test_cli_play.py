"""`gryb-companion variants` and `play`, run as real processes."""

import json
import os
import pty
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor


def run(*args, stdin=""):
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def lines(done):
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_variants_lists_every_game_with_its_metadata():
    games = json.loads(run("variants").stdout)
    ids = {g["id"] for g in games}
    assert {"ez-gryb", "drangles", "hyper-drangles", "sumo-drangles"} <= ids
    for g in games:
        assert g["name"] and g["source"] and g["die"] in ("none", "colour", "node")
        assert 2 <= g["players"]["min"] <= g["players"]["max"] <= 4
        assert all({"name", "default", "help"} <= set(o) for o in g["options"])
        # The series the game's manuals suggest, with their default (the first), as the options theirs.
        presets = [p["id"] for p in g["series"]["presets"]]
        assert g["series"]["default"] == (presets[0] if presets else None), g["id"]
    series = next(g["series"] for g in games if g["id"] == "ez-gryb")
    assert [p["id"] for p in series["presets"]] == [
        "ez-best-of-five",
        "ez-first-to-21",
        "quick-best-of-three",
        "quick-first-to-8",
    ]
    assert series["default"] == "ez-best-of-five" and series["presets"][0]["target"] == 5


def at_a_terminal(*args, columns=100):
    """The command's output with stdout on a pseudo-terminal ``columns`` wide, as a person sees it."""
    master, slave = pty.openpty()
    env = dict(os.environ, COLUMNS=str(columns))
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", *args], stdout=slave, stderr=subprocess.PIPE, env=env
    )
    os.close(slave)
    out = b""
    try:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the command closed the terminal
                break
            if not chunk:
                break
            out += chunk
        assert proc.wait(timeout=60) == 0, proc.stderr.read()
    finally:
        os.close(master)
        proc.stderr.close()
    return out.decode().replace("\r\n", "\n")


def test_variants_at_a_terminal_is_a_table_and_json_when_asked_or_piped():
    """27 KB of JSON on one line is for scripts: a person gets a row a game (game, name, players, the
    options with their defaults, the series), as wide as the terminal."""
    table = at_a_terminal("variants", columns=90)
    games = json.loads(run("variants").stdout)  # piped: JSON, as before
    lines = table.splitlines()
    assert lines[0].split() == ["GAME", "NAME", "PLAYERS", "OPTIONS", "(KEY=DEFAULT)", "SERIES"]
    assert max(map(len, lines)) <= 90
    rows = [line for line in lines[1:] if line[:1].strip()]
    assert [row.split()[0] for row in rows[: len(games)]] == [g["id"] for g in games]
    ez = next(i for i, line in enumerate(lines) if line.startswith("ez-gryb "))
    assert "EZ GRYB" in lines[ez] and "depth=4" in lines[ez] and lines[ez].endswith(" ez-best-of-five")
    assert [line.split()[-1] for line in lines[ez + 1 : ez + 4]] == [
        "ez-first-to-21",
        "quick-best-of-three",
        "quick-first-to-8",
    ]
    exodus = next(line for line in lines if line.startswith("exodus "))
    assert exodus.split()[:3] == ["exodus", "Exodus", "2-4"]
    assert "what each option means: variants --json" in " ".join(table.split("\n\n")[-1].split())
    assert json.loads(at_a_terminal("variants", "--json")) == games


def test_play_from_stdin_prints_a_state_line_per_action():
    script = "roll:G\nG\nroll:G\npass\nroll:R\nR\nroll:R\npass\nroll:Y\nY\nroll:Y\npass\nroll:B\nB\n"
    done = run("play", "ez-gryb", stdin=script)
    assert done.returncode == 0, done.stderr
    states = lines(done)
    assert len(states) == 14
    last = states[-1]
    assert last["over"] and last["winner"] == 0 and last["scores"] == [1, 0]
    assert last["die"] == "B" and last["action"] == "B"
    assert set(last["stones"]) == {"G", "R", "Y", "B"}
    assert last["stones"]["G"] == {"player": 0, "kind": "stone"}
    assert {"to_move", "phase", "die", "stones", "scores", "over", "winner"} <= set(states[0])


def test_a_move_line_names_the_last_roll_as_the_die():
    """``die`` is the last roll (issue 4); ``die_shown`` what the board's die LEDs show: blank once the next
    player is to roll."""
    done = run("play", "ez-gryb", stdin="roll:R\nR\nroll:B\n")
    assert done.returncode == 0, done.stderr
    rolled, moved, next_roll = lines(done)
    assert rolled["die"] == rolled["die_shown"] == "R"
    assert (
        moved["action"] == "R"
        and moved["awaiting_roll"]
        and moved["die"] == "R"
        and moved["die_shown"] is None
    )
    assert next_roll["die"] == next_roll["die_shown"] == "B"
    first = lines(run("play", "drangles", stdin="0\n"))[0]
    assert first["die"] is None and first["die_shown"] is None  # a game without a die never rolls


def test_a_script_with_its_own_rolls_is_told_to_pass_when_nothing_fits():
    """With explicit rolls a forced pass is typed too, and the refusal of another roll says so (issue 6):
    Player 2 rolled R with R taken and nothing else to do."""
    done = run("play", "ez-gryb", stdin="roll:R\nR\nroll:R\nroll:G\n")
    assert done.returncode == 2 and len(lines(done)) == 3
    assert done.stderr == (
        "gryb-companion: line 4: roll:G: the die has been rolled this turn (R) and nothing fits it: pass\n"
    )
    done = run("play", "ez-gryb", stdin="roll:R\nR\nroll:R\npass\nroll:G\nG\n")
    assert done.returncode == 0 and lines(done)[-1]["stones"] == {
        "R": {"player": 0, "kind": "stone"},
        "G": {"player": 0, "kind": "stone"},
    }
    done = run("play", "ez-gryb", stdin="roll:R\nroll:G\n")  # something fits: the plain reason
    assert done.stderr.endswith("roll:G: the die has been rolled this turn\n")


def test_pyragryb_after_the_roll_a_pass_and_before_it_a_reincarnation_or_the_roll():
    """Issue 45. The issue's game: the only move, G-R, would cut the mover's own line; pass is accepted.
    Out of large pyramids, the turn offers xG before the roll: typed, no roll is made; a roll typed (or
    a move) chooses the roll first, and the record says so."""
    issue = "roll:G G roll:R R roll:R GR roll:G RG roll:R GRR roll:B RGB roll:R GRRR roll:Y RY roll:R pass"
    done = run("play", "pyragryb", "--seed", "1", stdin=issue.replace(" ", "\n") + "\n")
    assert done.returncode == 0, done.stderr
    assert lines(done)[-1]["action"] == "pass" and lines(done)[-1]["to_move"] == 1
    start = "roll:G\nG\nroll:G\npass\n"
    done = run("play", "pyragryb", "--option", "pieces=1", stdin=start + "xG\n")
    assert done.returncode == 0, done.stderr
    last = lines(done)[-1]
    assert last["action"] == "xG" and last["stash"][0] == [1, 1, 1] and last["die_shown"] is None
    assert lines(done)[-2]["awaiting_roll"] and lines(done)[-2]["die_shown"] is None
    done = run("play", "pyragryb", "--option", "pieces=1", stdin=start + "roll:B\n")
    assert done.returncode == 0, done.stderr
    assert [s["action"] for s in lines(done)[-2:]] == ["roll", "roll:B"]


def test_a_push_under_way_shows_the_stone_knocked_off_its_node():
    """Smack Down: Player 2 enters on G, pushing Player 1's stone down onto GR, which holds Player 1's
    other stone: that one must be pushed on. ``stones`` (a stone a node) shows one of them on GR and
    ``pushing`` the other, with the node the push began on (issue 5)."""
    done = run("play", "smack-down", stdin="roll:G\nG\nroll:Y\nY\nroll:R\nGR\nroll:G\nG-GR\nGR-GRB\n")
    assert done.returncode == 0, done.stderr
    *_, before, pushing, pushed = lines(done)
    assert before["pushing"] is None and pushing["action"] == "G-GR"
    assert pushing["stones"]["GR"] == {"player": 0, "kind": "stone"} and pushing["to_move"] == 1
    assert pushing["pushing"] == {"node": "GR", "player": 0, "kind": "stone", "entered": "G"}
    assert pushed["pushing"] is None and pushed["stones"]["GRB"] == {"player": 0, "kind": "stone"}
    assert sum(s["player"] == 0 for s in pushed["stones"].values()) == 2 and pushed["to_move"] == 0


def test_play_rolls_the_seeded_die_itself_when_the_script_names_only_moves():
    first = run("play", "drangles", stdin="0\n0-G\n0\n0-R\n")
    assert [s["action"] for s in lines(first)] == ["0", "0-G", "0", "0-R"]
    a = run("play", "ez-gryb", "--seed", "5", stdin="pass\n")
    b = run("play", "ez-gryb", "--seed", "5", stdin="pass\n")
    assert a.stdout == b.stdout


def test_illegal_action_prints_the_states_before_it_then_the_reason_and_exits_2():
    done = run("play", "drangles", stdin="0\n0-G\n0\n0-GG\n")
    assert done.returncode == 2
    assert len(lines(done)) == 3
    assert "line 4: 0-GG: 0 to GG is not one move (down or sideways)" in done.stderr


def test_unparsable_action_exits_2():
    done = run("play", "drangles", stdin="0\nQQ\n")
    assert done.returncode == 2 and len(lines(done)) == 1
    assert "'Q' is not one of the colours" in done.stderr


def test_random_games_are_repeatable_with_a_seed_and_end():
    a = run("play", "ez-gryb", "--seed", "11", "--random", "100000")
    b = run("play", "ez-gryb", "--seed", "11", "--random", "100000")
    assert a.returncode == 0 and a.stdout == b.stdout
    assert lines(a)[-1]["over"]


def test_computer_players_are_repeatable_with_a_seed():
    """With --seed the computer players search a number of iterations, not a time: the same seed plays the
    same moves again however busy the machine (here: hard and medium against each other, 6 actions)."""
    args = ("play", "hyper-chess", "--seed", "4", "--ai", "1=hard", "--ai", "2=medium", "--random", "6")
    a, b = run(*args), run(*args)
    assert a.returncode == 0 and a.stdout == b.stdout and len(lines(a)) == 6
    assert run(*args[:3], "5", *args[4:]).stdout != a.stdout  # and another seed, another game


def test_every_game_plays_to_its_end_with_random_actions():
    """Every game the catalogue lists, its default options, the most players it takes: random legal
    actions with the seeded die until the last state line says "over". (Four processes at a time: each
    is mostly the interpreter starting; about 15 s for 28 games on two cores.)"""
    games = json.loads(run("variants").stdout)

    def play(g):
        players = str(g["players"]["max"])
        return g, run("play", g["id"], "--players", players, "--seed", "3", "--random", "100000")

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(play, games))
    assert len(results) == len(games) >= 20
    for g, done in results:
        assert done.returncode == 0 and done.stderr == "", (g["id"], done.stderr)
        states = lines(done)
        last = states[-1]
        assert last["over"] and last["to_move"] is None, g["id"]
        assert not any(s["over"] for s in states[:-1]), g["id"]  # over once, and no action after it
        assert set(last["winners"]) <= set(range(g["players"]["max"])), g["id"]
        assert last["winner"] == (last["winners"][0] if len(last["winners"]) == 1 else None), g["id"]
        assert len(states) < 100000, g["id"]  # it ended, not the count of actions
        # A draw says why (the turn limit, a stall, equal blobs, nobody able to move ...), the same way in
        # every game; a game somebody won has none.
        assert "draw" in last and all(s["draw"] is None for s in states[:-1]), g["id"]
        assert (last["draw"] is None) == bool(last["winners"]), (g["id"], last["winners"], last["draw"])


def test_options_and_players():
    done = run(
        "play", "ez-gryb", "--option", "depth=5", "--option", "stones=4", "--random", "3", "--seed", "1"
    )
    assert done.returncode == 0 and lines(done)[-1]["in_hand"][0] <= 4


def test_bad_game_option_or_player_count_exit_2_with_a_message():
    for args, message in [
        (["play", "chess"], "no game 'chess'"),
        (["play", "ez-gryb", "--option", "depth=9"], "depth must be from 2 to 6"),
        (["play", "ez-gryb", "--option", "colour=red"], "has no option 'colour'"),
        (["play", "ez-gryb", "--option", "depth"], "KEY=VALUE"),
        (["play", "ez-gryb", "--players", "3"], "for 2 players"),
    ]:
        done = run(*args)
        assert done.returncode == 2 and done.stdout == "" and message in done.stderr, (args, done.stderr)


def test_a_game_of_computer_seats_only_plays_through_from_an_empty_pipe():
    done = run("play", "rising-tide", "--ai", "1=easy", "--ai", "2=easy", "--seed", "1")
    assert done.returncode == 0, done.stderr
    states = lines(done)
    assert states and states[-1]["over"]
    # With a person in the second seat, the computer's opening is played before the script's first line.
    done = run("play", "drangles", "--ai", "1=easy", "--seed", "1")
    assert done.returncode == 0 and lines(done) and lines(done)[-1]["to_move"] == 1


def test_input_that_is_not_utf8_text_is_named_not_a_traceback():
    for args in (["play", "ez-gryb"], ["rules", "gryb", "--stdin"]):
        done = subprocess.run(
            [sys.executable, "-m", "companion.cli", *args],
            input=b"G R Y \xffB\n",
            capture_output=True,
            timeout=60,
            env={"PYTHONIOENCODING": "utf-8:strict", "PATH": ""},
        )
        assert done.returncode == 2 and done.stderr == b"gryb-companion: line 1: not UTF-8 text\n", (
            done.stderr
        )


def test_a_blank_line_asks_rules_gryb_nothing():
    done = run("rules", "gryb", "--stdin", stdin="G R Y B\n\nGG RR YY BB\n")
    assert done.returncode == 0, done.stderr
    assert [json.loads(line)["valid"] for line in done.stdout.splitlines()] == [True, True]


def test_ctrl_c_stops_quietly_with_130():
    import signal

    # Ctrl-C as at a terminal: a shell without job control starts a background job (a CI run started
    # with `&`) with SIGINT ignored, which its children inherit, and Python then raises no
    # KeyboardInterrupt; the play would end at the end of its input instead, with 0.
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "play", "ez-gryb", "--interactive"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stdout.readline().startswith(b"EZ GRYB: type an action")  # started: at the prompt soon
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and b"Traceback" not in err


def test_saving_where_no_folder_can_be_made_exits_2_with_the_reason(tmp_path):
    mine = tmp_path / "mine.toml"
    mine.write_text('id = "my-game"\nname = "Mine"\n')
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    done = run("compose", "import", str(mine), "--state", str(blocker))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr == f"gryb-companion: cannot save in {blocker}/compositions: Not a directory\n"
    # Saved in a state folder of its own, it is played and listed from there.
    assert run("compose", "import", str(mine), "--state", str(tmp_path / "state")).returncode == 0
    assert "my-game" in {
        g["id"] for g in json.loads(run("variants", "--state", str(tmp_path / "state")).stdout)
    }
    assert run("play", "my-game", "--state", str(tmp_path / "state"), "--random", "3").returncode == 0
    assert json.loads(run("compose", "delete", "my-game", "--state", str(tmp_path / "state")).stdout) == {
        "id": "my-game",
        "deleted": True,
    }
