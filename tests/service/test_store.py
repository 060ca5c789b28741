"""The SQLite store, for real: WAL + FULL sync, append-only events, replay, corrupt files moved aside."""

import os
import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest

from companion.games.catalogue import find
from companion.service.store import ACTION, REDO, UNDO, Store, StoreUnavailable


def test_pragmas_are_wal_and_full_sync(tmp_path):
    store = Store(tmp_path / "gryb.db")
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_events_replay_with_undo_and_redo(tmp_path):
    store = Store(tmp_path / "gryb.db")
    game = find("drangles")()
    gid = store.new_game(game, ["Ann", "Bo"], None, None, 1.0)
    for kind, action in [
        (ACTION, "0"),
        (ACTION, "0-G"),
        (ACTION, "0"),
        (UNDO, None),
        (REDO, None),
        (ACTION, "0-R"),
    ]:
        store.append(gid, kind, action, 2.0)
    store.close()
    again = Store(tmp_path / "gryb.db")
    row = again.current_game()
    assert row.names == ["Ann", "Bo"] and row.finished is None
    replayed = again.replay(row)
    expected = find("drangles")()
    for a in ["0", "0-G", "0", "0-R"]:
        expected.apply(a)
    assert replayed.state_key() == expected.state_key()


def test_the_event_count_of_a_game_grows_with_every_event_undos_and_redos_too(tmp_path):
    """The replay page keys a replayed game on it: an undo and another move make a record as long as
    before, but never a log as long."""
    store = Store(tmp_path / "gryb.db")
    gid = store.new_game(find("drangles")(), ["Ann", "Bo"], None, None, 1.0)
    other = store.new_game(find("drangles")(), ["Cy", "Di"], None, None, 1.0)
    assert store.event_count(gid) == 0
    counts = []
    for kind, action in [
        (ACTION, "0"),
        (ACTION, "0-G"),
        (UNDO, None),
        (ACTION, "0-R"),
        (UNDO, None),
        (REDO, None),
    ]:
        store.append(gid, kind, action, 2.0)
        counts.append(store.event_count(gid))
    assert counts == [1, 2, 3, 4, 5, 6] and store.event_count(other) == 0


def test_finished_games_series_and_settings(tmp_path):
    store = Store(tmp_path / "gryb.db")
    game = find("ez-gryb")()
    sid = store.new_series({"players": 2, "method": "games", "target": 3, "games": []}, 0.0)
    gid = store.new_game(game, ["A", "B"], 7, sid, 1.0)
    store.finish_game(gid, {"winners": [0], "scores": [1, 0]}, 5.0)
    assert [g.id for g in store.finished_games()] == [gid]
    assert store.games_of_series(sid)[0].seed == 7
    store.set_setting("brightness", 0.3)
    store.set_setting("brightness", 0.6)
    assert store.setting("brightness") == 0.6 and store.setting("missing", 1) == 1


def test_a_corrupt_database_is_moved_aside_and_a_fresh_one_starts(tmp_path, caplog):
    path = tmp_path / "gryb.db"
    path.write_bytes(b"this is not a database" * 100)
    store = Store(path)
    assert store.current_game() is None
    aside = tmp_path / "gryb.db.corrupt-1"
    assert aside.read_bytes() == b"this is not a database" * 100  # kept whole, for whoever looks into it
    assert "moved aside" in caplog.text


def test_a_damaged_page_is_caught_by_the_integrity_check(tmp_path):
    path = tmp_path / "gryb.db"
    store = Store(path)
    game = find("ez-gryb")()
    gid = store.new_game(game, ["A", "B"], None, None, 0.0)
    for i in range(300):
        store.append(gid, ACTION, "roll:G", float(i))
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    data = bytearray(path.read_bytes())
    for i in range(4096, 4096 + 600):  # the header and cell pointers of the second page
        data[i] = 0xA5
    path.write_bytes(bytes(data))
    again = Store(path)
    assert (tmp_path / "gryb.db.corrupt-1").exists()
    assert again.current_game() is None
    assert sqlite3.connect(path).execute("PRAGMA quick_check").fetchone()[0] == "ok"


def test_a_schema_version_that_is_not_a_number_is_damage_and_moved_aside(tmp_path):
    path = tmp_path / "gryb.db"
    first = Store(path)
    first.db.execute("UPDATE meta SET value='two' WHERE key='schema'")
    first.close()
    store = Store(path)
    assert (tmp_path / "gryb.db.corrupt-1").exists() and store.current_game() is None


def test_a_database_another_program_holds_is_left_alone_with_a_clear_error(tmp_path):
    path = tmp_path / "gryb.db"
    store = Store(path)
    gid = store.new_game(find("ez-gryb")(), ["A", "B"], None, None, 0.0)
    store.close()
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("PRAGMA locking_mode=EXCLUSIVE")
    other.execute("BEGIN EXCLUSIVE")
    with pytest.raises(StoreUnavailable, match=r"cannot open the database .*gryb.db: database is locked"):
        Store(path, timeout=0.1)
    other.execute("ROLLBACK")
    other.close()
    assert not list(tmp_path.glob("*.corrupt-*"))
    assert Store(path).current_game().id == gid


def test_a_database_of_another_version_is_moved_aside_exactly_as_it_was(tmp_path, caplog):
    """A newer version may have dropped or renamed a table of this one: it is not given it back, nor its
    journal mode changed, so put back under its own name that version reads it as it left it."""
    path = tmp_path / "gryb.db"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO meta VALUES ('schema', '2'); CREATE TABLE plays (id INTEGER PRIMARY KEY);"
    )
    db.close()
    before = path.read_bytes()
    store = Store(path)
    assert store.current_game() is None and store.setting("brightness") is None
    aside = tmp_path / "gryb.db.corrupt-1"
    assert aside.read_bytes() == before
    assert (
        f"database {path} cannot be used (it was written by another version of GRYB Companion (schema 2; "
        f"this one reads 1)): moved aside to {aside}, starting a new one"
    ) in caplog.text


# -- files this user cannot read or write: a real permission check as an ordinary user -----------------


def _as_ordinary_user(fn):
    """Run ``fn()`` as an ordinary user; its result, or ``{"error": message}`` for what it raised, and the
    store's log lines. As root every file is readable, so a child process drops to 'nobody' first."""
    import json
    import logging

    lines: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: lines.append(record.getMessage())
    logger = logging.getLogger("companion.service.store")

    def run() -> dict:
        logger.addHandler(handler)
        try:
            return {"result": fn(), "log": lines}
        except Exception as err:
            return {"error": f"{type(err).__name__}: {err}", "log": lines}
        finally:
            logger.removeHandler(handler)

    if os.geteuid() != 0:
        return run()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            answer = run()
        except BaseException as err:
            answer = {"error": f"unexpected {err!r}", "log": lines}
        os.write(write, json.dumps(answer).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        answer = json.loads(pipe.read().decode())
    os.waitpid(pid, 0)
    return answer


@pytest.fixture
def shared(tmp_path):
    """A folder the ordinary user may reach (root's pytest folders are private to root)."""
    if os.geteuid() != 0:
        yield tmp_path
        for inside in tmp_path.rglob("*"):  # the test's modes, so that pytest can clean up
            inside.chmod(0o700)
        return
    folder = Path(tempfile.mkdtemp(prefix="gryb-store-"))
    folder.chmod(0o755)
    yield folder
    for inside in folder.rglob("*"):
        inside.chmod(0o700)
    shutil.rmtree(folder)


def _a_game_in(folder: Path, mode: int, folder_mode: int) -> tuple[Path, bytes]:
    folder.mkdir()
    path = folder / "companion.db"
    store = Store(path)
    store.new_game(find("drangles")(), ["Ann", "Bo"], None, None, 0.0)
    store.close()
    path.chmod(mode)
    folder.chmod(folder_mode)
    return path, path.read_bytes()


def _opened(path: Path):
    def fn():
        store = Store(path)
        try:
            return {
                "game": store.current_game() and store.current_game().names,
                "files": sorted(p.name for p in path.parent.iterdir()),
            }
        finally:
            store.close()

    return fn


def test_a_database_this_user_cannot_read_is_moved_aside_and_a_new_one_starts(shared):
    path, before = _a_game_in(shared / "state", 0o000, 0o777)
    answer = _as_ordinary_user(_opened(path))
    assert "error" not in answer, answer
    assert answer["result"]["game"] is None  # a new database: no game in it yet
    assert "companion.db.corrupt-1" in answer["result"]["files"]
    aside = path.with_name("companion.db.corrupt-1")
    (line,) = answer["log"]
    assert line.startswith(f"database {path} cannot be used (unable to open database file") and line.endswith(
        f"moved aside to {aside}, starting a new one"
    ), line
    if os.geteuid() == 0:  # the mode and owner say why, when they are the reason
        assert "it is ----------, owned by uid 0, and this program runs as uid 65534" in line
    assert aside.read_bytes() == before  # renamed, not changed: its games are there for whoever looks


def test_when_even_moving_it_aside_is_impossible_the_store_says_so_and_touches_nothing(shared):
    path, before = _a_game_in(shared / "state", 0o000, 0o555)  # a state directory this user cannot write in
    answer = _as_ordinary_user(_opened(path))
    assert answer["error"].startswith(
        f"StoreUnavailable: cannot open the database {path} (unable to open database file"
    ), answer
    assert answer["error"].endswith(
        f"nor move it aside to start a new one: Permission denied (the state "
        f"directory {path.parent} must be writable by this program's user)"
    )
    assert sorted(p.name for p in path.parent.iterdir()) == ["companion.db"] and path.read_bytes() == before


def test_a_database_this_user_may_read_but_not_write_is_moved_aside_too(shared):
    """A backup put back by another user (root's, say): the companion's user may read it but not write it,
    so it opens, and every action after would be refused ("could not save")."""
    path, before = _a_game_in(shared / "state", 0o444, 0o777)
    answer = _as_ordinary_user(_opened(path))
    assert "error" not in answer and answer["result"]["game"] is None, answer
    assert path.with_name("companion.db.corrupt-1").read_bytes() == before


def test_a_wal_this_user_cannot_read_moves_aside_with_its_database_and_keeps_what_was_committed(shared):
    """A -wal left by another user (``sudo sqlite3 companion.db`` stopped hard): the database beside it
    cannot be opened. Both move aside under one name, so SQLite still reads them together."""
    state = shared / "state"
    state.mkdir()
    store = Store(state / "companion.db")
    gid = store.new_game(find("ez-gryb")(), ["A", "B"], None, None, 0.0)
    store.append(gid, ACTION, "roll:G", 1.0)
    cut = shared / "cut"  # the files as a power cut leaves them: the last commits in the -wal only
    cut.mkdir()
    for name in ("companion.db", "companion.db-wal"):
        shutil.copy(state / name, cut / name)
    store.close()
    (cut / "companion.db").chmod(0o666)
    (cut / "companion.db-wal").chmod(0o000)
    cut.chmod(0o777)
    answer = _as_ordinary_user(_opened(cut / "companion.db"))
    assert "error" not in answer and answer["result"]["game"] is None, answer
    assert {"companion.db.corrupt-1", "companion.db.corrupt-1-wal"} <= set(answer["result"]["files"])
    (cut / "companion.db.corrupt-1-wal").chmod(0o600)
    aside = sqlite3.connect(cut / "companion.db.corrupt-1")
    assert aside.execute("SELECT action FROM events").fetchall() == [("roll:G",)]
    aside.close()


# -- every database it cannot use is moved aside, one rule (docs/security.md, "Each limit and why") ------

OURS_MINUS_A_COLUMN = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('schema', '1');"
    "CREATE TABLE games (id INTEGER PRIMARY KEY, game TEXT NOT NULL, players INTEGER NOT NULL);"
)
UNUSABLE = {
    "another program's": (
        "CREATE TABLE photos (path TEXT PRIMARY KEY, taken REAL); INSERT INTO photos VALUES ('a.jpg', 1.0);",
        "it is not a GRYB Companion database (it holds: photos)",
    ),
    "another program's, names like ours": (
        "CREATE TABLE games (name TEXT, score INTEGER); INSERT INTO games VALUES ('chess', 3);",
        "it is not a GRYB Companion database (it holds: games, unlike ours)",
    ),
    "ours, with a foreign table": (
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO meta VALUES ('schema', '1'); CREATE TABLE notes (text TEXT);",
        "it is not a GRYB Companion database (it holds: notes)",
    ),
    "ours, a column missing": (
        OURS_MINUS_A_COLUMN,
        "it is not a GRYB Companion database (it holds: games, unlike ours)",
    ),
    "a meta table not ours": (
        "CREATE TABLE meta (k TEXT, v TEXT); INSERT INTO meta VALUES ('schema', '1');",
        "it is not a GRYB Companion database (it holds: meta, unlike ours)",
    ),
}


def unusable_file(path: Path, case: str) -> bytes:
    """Write the case's file at ``path``; its bytes."""
    if case == "empty":
        path.write_bytes(b"")
    elif case == "garbage":
        path.write_bytes(bytes(range(256)) * 40)
    else:
        db = sqlite3.connect(path)
        db.executescript(UNUSABLE[case][0])
        db.close()
    return path.read_bytes()


UNUSABLE_WHY = {
    "empty": "it is empty (0 bytes), not a database",
    "garbage": "file is not a database",
    **{case: why for case, (_, why) in UNUSABLE.items()},
}


@pytest.mark.parametrize("case", UNUSABLE_WHY)
def test_every_database_it_cannot_use_is_moved_aside_with_one_line_naming_it(tmp_path, caplog, case):
    path = tmp_path / "companion.db"
    before = unusable_file(path, case)
    store = Store(path)
    aside = tmp_path / "companion.db.corrupt-1"
    assert aside.read_bytes() == before  # kept as found
    assert [r.getMessage() for r in caplog.records] == [
        f"database {path} cannot be used ({UNUSABLE_WHY[case]}): moved aside to {aside}, starting a new one"
    ]
    gid = store.new_game(find("ez-gryb")(), ["A", "B"], None, None, 0.0)
    assert store.current_game().id == gid and sorted(p.name for p in tmp_path.glob("*.corrupt-*")) == [
        "companion.db.corrupt-1"
    ]


def test_a_database_of_ours_is_never_moved_aside_nor_one_whose_first_start_was_cut_short(tmp_path, caplog):
    """Its tables alone, all ours, no version yet (killed as it made them): it is ours, made whole."""
    path = tmp_path / "companion.db"
    store = Store(path)
    gid = store.new_game(find("ez-gryb")(), ["A", "B"], None, None, 0.0)
    store.close()
    assert Store(path).current_game().id == gid
    cut = tmp_path / "cut.db"
    db = sqlite3.connect(cut)
    db.executescript("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);")
    db.close()
    assert Store(cut).current_game() is None
    assert not list(tmp_path.glob("*.corrupt-*")) and not caplog.records
