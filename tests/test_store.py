"""The SQLite store, for real: WAL + FULL sync, append-only events, replay, corrupt files moved aside."""

import sqlite3

import pytest

from companion.engine import find
from companion.store import ACTION, REDO, UNDO, Store, StoreUnavailable


def test_pragmas_are_wal_and_full_sync(tmp_path):
    store = Store(tmp_path / "gryb.db")
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_events_replay_with_undo_and_redo(tmp_path):
    store = Store(tmp_path / "gryb.db")
    game = find("drangles")()
    gid = store.new_game(game, ["Ann", "Bo"], None, None, 1.0)
    for kind, action in [(ACTION, "0"), (ACTION, "0-G"), (ACTION, "0"), (UNDO, None), (REDO, None),
                         (ACTION, "0-R")]:
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
    for kind, action in [(ACTION, "0"), (ACTION, "0-G"), (UNDO, None), (ACTION, "0-R"), (UNDO, None), (REDO, None)]:
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


def test_a_database_of_a_newer_version_is_refused_not_moved_aside(tmp_path):
    path = tmp_path / "gryb.db"
    Store(path).db.execute("UPDATE meta SET value='2' WHERE key='schema'")
    with pytest.raises(StoreUnavailable, match=r"written by another version of GRYB Companion \(schema 2; this one "
                                               r"reads 1\)"):
        Store(path)
    assert not list(tmp_path.glob("*.corrupt-*"))


def test_a_database_of_a_newer_version_is_left_exactly_as_it_was(tmp_path):
    """A newer version may have dropped or renamed a table of this one: it is not given it back."""
    path = tmp_path / "gryb.db"
    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                     "INSERT INTO meta VALUES ('schema', '2'); CREATE TABLE plays (id INTEGER PRIMARY KEY);")
    db.close()
    with pytest.raises(StoreUnavailable, match="another version"):
        Store(path)
    db = sqlite3.connect(path)
    assert [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")] == \
        ["meta", "plays"]
    db.close()
