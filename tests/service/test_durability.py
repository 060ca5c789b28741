"""Kill the companion with SIGKILL at random points of 500 scripted steps, again and again: after every
restart no acknowledged step is lost, and the game the restarted runtime holds equals a replay of the
log and the script's game at that point. The script (tests/service/durability_worker.py) plays EZ GRYB: rolls
and the passes they force, moves, placements and captures, UNDOs (at a game's end too), games that end
and the next game."""

import collections
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import durability_worker as script
import pytest

from companion.games.die import Die
from companion.service import commands as c
from companion.service.config import Config
from companion.service.store import Store

STEPS = 500
SEED = 2026
WORKER = Path(__file__).with_name("durability_worker.py")


def scripted(folder: Path) -> tuple[list[tuple[int, int, str]], collections.Counter, Path]:
    """The script played without a kill: the position after its set-up and after each step (game id,
    events in its log, repr of its state_key()), what the steps were, and its database."""
    db = folder / "script.db"
    runtime = script.ScriptedRuntime(Config(), Store(db), die=Die(SEED))
    runtime.start()
    try:
        script.set_up(runtime)
        positions, steps = [script.position(runtime)], collections.Counter()
        for _ in range(STEPS):
            steps[script.step(runtime, SEED)] += 1
            positions.append(script.position(runtime))
    finally:
        runtime.stop()
        runtime.store.close()
    return positions, steps, db


def start(db):
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    proc = subprocess.Popen(
        [sys.executable, str(WORKER), str(db), str(SEED)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    return proc, _answer(proc, "ready")


def _answer(proc, word: str) -> tuple[int, int, str]:
    line = proc.stdout.readline().rstrip("\n")
    said, game_id, events, key = (line.split(" ", 3) + ["", "", ""])[:4]
    assert said == word, f"the worker said {line!r} (its error is above)"
    return int(game_id), int(events), key


def _log(db: Path, game_id: int) -> list[tuple[str, str | None]]:
    connection = sqlite3.connect(db)
    try:
        return connection.execute(
            "SELECT kind, action FROM events WHERE game_id=? ORDER BY seq", (game_id,)
        ).fetchall()
    finally:
        connection.close()


@pytest.mark.slow
def test_no_acknowledged_step_is_lost_across_sigkills(tmp_path):
    with tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as fast:
        positions, steps, script_db = scripted(Path(fast))  # in memory: the script, not the disk, is checked
        logs = {game_id: _log(script_db, game_id) for game_id in {p[0] for p in positions}}
    where = {p[:2]: i for i, p in enumerate(positions)}
    # The script covers what the test must: rolls and the passes they force, moves and
    # placements, UNDOs (one taking back a game's last move), games that end and the next game.
    assert {"roll", "move", "place", "undo", "undo at the end", "again"} <= set(steps), steps
    actions = [a for log in logs.values() for k, a in log if k == "action"]
    assert any(a == "pass" for a in actions) and any(a.startswith("roll:") for a in actions)

    rng = random.Random(7)
    db = tmp_path / "gryb.db"
    acked = 0  # the steps the worker acknowledged
    kills = 0
    while True:
        proc, restored = start(db)
        at = where.get(restored[:2])
        assert at is not None and acked <= at <= acked + 1, (
            f"restored {restored[:2]}: not the script's position after {acked} or {acked + 1} steps"
        )
        # The restarted runtime holds the script's game at that point, and so does a replay of its log.
        assert restored[2] == positions[at][2]
        store = Store(db)
        replayed = store.replay(store.current_game())
        store.close()
        assert repr(replayed.state_key()) == restored[2]
        assert _log(db, restored[0]) == logs[restored[0]][: restored[1]]
        acked = at
        if at >= STEPS:
            proc.kill()
            proc.wait()
            break
        for _ in range(rng.randint(1, 40) - 1):  # steps acknowledged before the plug is pulled
            if acked == STEPS:
                break
            proc.stdin.write("step\n")
            proc.stdin.flush()
            assert _answer(proc, "ack") == positions[acked + 1]
            acked += 1
        if acked < STEPS:
            proc.stdin.write("step\n")  # mid-step: before, between or during its presses and its commit
            proc.stdin.flush()
            time.sleep(rng.random() * 0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        kills += 1
    assert kills >= 10


# -- writes that fail: a command changes nothing unless it is stored ---------------------------------


def _runtime(path, busy_ms=5000):
    from companion.service.runtime import Runtime

    return Runtime(Config(), Store(path, timeout=busy_ms / 1000), die=Die(1))


def test_a_command_whose_writes_fail_changes_nothing_and_the_next_one_is_stored(tmp_path):
    from companion.service.runtime import StorageError

    rt = _runtime(tmp_path / "gryb.db", busy_ms=50)  # writes wait 50 ms for a lock, then fail
    rt.start()
    other = sqlite3.connect(tmp_path / "gryb.db", isolation_level=None)
    rt.call(c.NewGame("drangles", 2, {}, ["Ann", "Bo"], {"method": "games", "target": 3}, None))
    for action in ["0", "0-G", "0", "0-R"]:
        assert rt.call(c.Act(action)).ok
    before = rt.call(c.Snapshot())
    other.execute("BEGIN IMMEDIATE")  # another program holds the write lock: every write fails
    for command in [
        c.Undo(),
        c.Act("G-GG"),
        c.NewGame("drangles", 2, {}, None, "continue", ["human", "easy"], abandon=True),
        c.ChangeSettings(brightness=0.3, night=True),
    ]:
        with pytest.raises(StorageError, match=r"could not save \(database is locked\): nothing changed"):
            rt.call(command)
        after = rt.call(c.Snapshot())
        assert after["state"] == before["state"] and after["game_id"] == before["game_id"], command
        assert after["seats"] == before["seats"] and after["settings"] == before["settings"], command
        assert after["table"]["message"].startswith("could not save"), command
        assert len(rt.board.session.hands.game.history) == 4
    other.execute("ROLLBACK")
    # Once the store writes again, UNDO and the next move are stored, and a restart brings them back.
    assert rt.call(c.Undo()).ok
    for chore in rt.call(c.Snapshot())["table"]["chores"]:  # the stones the UNDO moved, moved on the cloth
        assert rt.call(c.Press(chore["node"])).ok
    assert rt.call(c.Act("0-B")).ok
    played = [str(a) for a, _ in rt.board.session.hands.game.history]
    assert played == ["0", "0-G", "0", "0-B"]
    rt.stop()
    rt.store.close()
    again = _runtime(tmp_path / "gryb.db")
    assert [str(a) for a, _ in again.board.session.hands.game.history] == played
    assert again.snapshot()["settings"] == before["settings"] and again.snapshot()["series"] is not None
    again.store.close()


def test_a_command_whose_writes_fail_keeps_the_stones_still_to_be_moved(tmp_path):
    """An UNDO's stones to lift and put back stay asked for when a later command cannot be stored: the
    stones on the cloth have not moved, whatever the store did."""
    from companion.service.runtime import StorageError

    rt = _runtime(tmp_path / "gryb.db", busy_ms=50)
    rt.start()
    other = sqlite3.connect(tmp_path / "gryb.db", isolation_level=None)
    rt.call(c.NewGame("drangles", 2, {}, ["Ann", "Bo"], None, None))
    for action in ["0", "0-G", "0", "0-R"]:
        assert rt.call(c.Act(action)).ok
    assert rt.call(c.Undo()).ok
    chores = rt.call(c.Snapshot())["table"]["chores"]
    assert [c["text"] for c in chores] == ["put a stone of Bo on 0", "lift Bo's stone from R"]
    other.execute("BEGIN IMMEDIATE")
    for command in [
        c.ChangeSettings(brightness=0.3),
        c.Undo(),
        c.NewGame("drangles", 2, {}, None, None, None, abandon=True),
    ]:
        with pytest.raises(StorageError):
            rt.call(command)
        assert rt.call(c.Snapshot())["table"]["chores"] == chores, command
    other.execute("ROLLBACK")
    assert rt.call(c.Press("R")).ok and rt.call(c.Press("0")).ok
    assert rt.call(c.Snapshot())["table"]["message"] == "board and game agree again"
    rt.stop()
    rt.store.close()


def test_a_new_game_is_stored_whole_or_not_at_all(tmp_path):
    """A new game writes its row, then its seats: when the second write fails, the first is taken back."""
    from companion.service.runtime import StorageError

    rt = _runtime(tmp_path / "gryb.db")
    rt.start()
    first = rt.call(c.Snapshot())["game_id"]
    other = sqlite3.connect(tmp_path / "gryb.db", isolation_level=None)
    other.execute("CREATE TRIGGER refuse BEFORE INSERT ON settings BEGIN SELECT RAISE(ABORT, 'no room'); END")
    with pytest.raises(StorageError, match=r"could not save \(no room\)"):
        rt.call(c.NewGame("drangles", 2, {}, None, None, ["human", "easy"]))
    assert rt.call(c.Snapshot())["game_id"] == first and rt.call(c.Snapshot())["seats"] == ["human", "human"]
    assert rt.store.current_game().id == first  # the new game's row, written first, was rolled back
    other.execute("DROP TRIGGER refuse")
    assert rt.call(c.NewGame("drangles", 2, {}, None, None, ["human", "easy"]))["seats"] == ["human", "easy"]
    rt.stop()
    rt.store.close()


def test_stored_settings_and_seats_that_no_longer_read_are_ignored_with_a_log_line(tmp_path, caplog):
    from companion.service.config import Config

    rt = _runtime(tmp_path / "gryb.db")
    rt.start()
    game_id = rt.call(c.NewGame("drangles", 2, {}, None, None, ["human", "easy"]))["game_id"]
    rt.stop()
    rt.store.close()
    store = Store(tmp_path / "gryb.db")
    store.set_setting("brightness", "bright")
    store.set_setting(f"seats:{game_id}", ["god", 3])
    store.close()
    again = _runtime(tmp_path / "gryb.db")
    snap = again.snapshot()
    assert snap["game_id"] == game_id and snap["seats"] == ["human", "human"]
    assert snap["settings"]["brightness"] == Config().leds.brightness
    assert "saved setting brightness ignored: brightness is a number from 0 to 1" in caplog.text
    assert f"game {game_id}: stored seats ['god', 3] do not read" in caplog.text
    again.store.close()


def test_a_stored_game_whose_seats_names_or_series_do_not_read_is_restored_without_them(tmp_path, caplog):
    """A seat list that is not JSON, names that are not a list, a series missing its method: each is
    left out with a log line, and the game's moves come back (no traceback that keeps the board off)."""
    rt = _runtime(tmp_path / "gryb.db")
    rt.start()
    snap = rt.call(
        c.NewGame("drangles", 2, {}, ["Ann", "Bo"], {"method": "games", "target": 3}, ["human", "easy"])
    )
    game_id, series_id = snap["game_id"], snap["series"]["id"]
    assert rt.call(c.Act("0")).ok
    rt.stop()
    rt.store.close()
    db = sqlite3.connect(tmp_path / "gryb.db", isolation_level=None)
    db.execute("UPDATE settings SET value='[\"human\", ' WHERE key=?", (f"seats:{game_id}",))
    db.execute("UPDATE games SET names='3' WHERE id=?", (game_id,))
    db.execute("UPDATE series SET data='{\"players\": 2}' WHERE id=?", (series_id,))
    db.close()
    again = _runtime(tmp_path / "gryb.db")
    snap = again.snapshot()
    assert snap["game_id"] == game_id and [str(a) for a, _ in again.board.session.hands.game.history] == ["0"]
    assert snap["seats"] == ["human", "human"] and snap["table"]["names"] == ["Player 1", "Player 2"]
    assert snap["series"] is None
    assert f"game {game_id}: stored seats None do not read" in caplog.text
    assert f"game {game_id}: stored names 3 do not read" in caplog.text
    assert f"game {game_id}: its series {series_id} does not read ('method')" in caplog.text
    again.store.close()
