"""Durable storage in SQLite: every accepted action an appended event (docs/runtime.md, "Durability").
The caller must own the file (the state directory's lock)."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import sqlite3
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.games.catalogue import find
from companion.games.composed import interpreter as composed
from companion.games.composed import schema as composition
from companion.games.engine import Game

log = logging.getLogger(__name__)

_HALF = re.compile("[\ud800-\udfff]")


def _loads(text: str) -> Any:
    """A stored JSON value, a lone surrogate in it read as U+FFFD (docs/runtime.md, "Durability")."""
    return _mend(json.loads(text))


def _mend(value: Any) -> Any:
    if isinstance(value, str):
        return _HALF.sub("\ufffd", value)
    if isinstance(value, list):
        return [_mend(v) for v in value]
    if isinstance(value, dict):
        return {_mend(k): _mend(v) for k, v in value.items()}
    return value


SCHEMA_VERSION = 1
ACTION, UNDO, REDO = "action", "undo", "redo"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS series (
    id INTEGER PRIMARY KEY, data TEXT NOT NULL, created REAL NOT NULL, finished REAL
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL, players INTEGER NOT NULL, options TEXT NOT NULL, names TEXT NOT NULL,
    seed INTEGER, series_id INTEGER REFERENCES series(id),
    started REAL NOT NULL, finished REAL, result TEXT
);
CREATE TABLE IF NOT EXISTS events (
    game_id INTEGER NOT NULL REFERENCES games(id), seq INTEGER NOT NULL,
    kind TEXT NOT NULL, action TEXT, at REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class StoreError(ValueError):
    """A stored game that cannot be rebuilt."""


class StoreUnavailable(RuntimeError):
    """No database can be opened, nor one made in its place."""


class _Unusable(sqlite3.DatabaseError):
    """A failed integrity check, or a schema this version does not read."""


# The file's own faults (damaged, unreadable); busy, locked or full are not: a new file would not help.
_FILE_ERRORS = (
    "SQLITE_CORRUPT",
    "SQLITE_NOTADB",
    "SQLITE_CANTOPEN",
    "SQLITE_PERM",
    "SQLITE_READONLY",
    "SQLITE_IOERR",
)


def _unusable(err: sqlite3.DatabaseError) -> bool:
    """Whether moving the file aside cures an error on opening."""
    name = getattr(err, "sqlite_errorname", "")  # extended names: SQLITE_IOERR_READ...
    return isinstance(err, _Unusable) or any(name == e or name.startswith(e + "_") for e in _FILE_ERRORS)


def _writable(db: sqlite3.Connection) -> None:
    """Raise SQLite's error unless the database can be written: a read-only file (a backup put back by
    root) opens, then refuses every action."""
    db.execute("BEGIN")
    try:
        db.execute("UPDATE meta SET value=value WHERE key='schema'")
    finally:
        if db.in_transaction:
            db.execute("ROLLBACK")


@dataclass(frozen=True)
class GameRow:
    id: int
    game: str
    players: int
    options: dict
    names: list
    seed: int | None
    series_id: int | None
    started: float
    finished: float | None
    result: dict | None


class Store:
    def __init__(self, path: str | Path, timeout: float = 5.0, *, read_only: bool = False):
        """``timeout``: a write's wait for a lock; ``read_only``: queries alone, nothing checked."""
        self.path = Path(path)
        self.timeout = timeout
        if read_only:
            self.db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = self._open()
        except sqlite3.DatabaseError as err:
            if not _unusable(err):
                raise StoreUnavailable(f"cannot open the database {self.path}: {err}") from None
            self.db = self._start_anew(err)

    def _start_anew(self, err: sqlite3.DatabaseError) -> sqlite3.Connection:
        """Move the unusable database aside (never deleted; the log says where) and open anew."""
        why = f"{err}{self._access()}"
        try:
            aside = self._move_aside()
        except OSError as move:
            raise StoreUnavailable(
                f"cannot open the database {self.path} ({why}) nor move it aside to start a "
                f"new one: {move.strerror or move} (the state directory {self.path.parent} "
                "must be writable by this program's user)"
            ) from None
        log.error(
            "database %s cannot be used (%s): moved aside to %s, starting a new one", self.path, why, aside
        )
        try:
            return self._open()
        except sqlite3.DatabaseError as again:
            raise StoreUnavailable(
                f"the database {self.path} could not be used ({err}) and was moved aside to "
                f"{aside}, but a new one cannot be made there either: {again}"
            ) from None

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False)
        try:
            # Checked before any write: an unusable one is moved aside as it was found.
            check = db.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise _Unusable(f"integrity check failed: {check}")
            has_meta = db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").fetchone()
            version = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone() if has_meta else None
            if version is not None and not str(version[0]).isdigit():
                raise _Unusable(f"schema version {version[0]!r}")
            if version is not None and int(version[0]) != SCHEMA_VERSION:
                raise _Unusable(
                    f"it was written by another version of GRYB Companion (schema {version[0]}; "
                    f"this one reads {SCHEMA_VERSION})"
                )
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            db.executescript(_SCHEMA)
            if version is None:
                db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            _writable(db)
        except Exception:
            db.close()
            raise
        return db

    def _move_aside(self) -> Path:
        """Rename it with its -wal and -shm to the first free ``<name>.corrupt-<n>``."""
        n = 1
        while (aside := self.path.with_name(f"{self.path.name}.corrupt-{n}")).exists():
            n += 1
        for suffix in ("", "-wal", "-shm"):
            here = self.path.with_name(self.path.name + suffix)
            if here.exists() or here.is_symlink():
                here.rename(aside.with_name(aside.name + suffix))
        return aside

    def _access(self) -> str:
        """Who may use the file, when this program may not: why "unable to open"."""
        try:
            if os.access(self.path, os.R_OK | os.W_OK):
                return ""
            st = self.path.stat()
        except OSError:
            return ""
        return (
            f"; it is {stat.filemode(st.st_mode)}, owned by uid {st.st_uid}, "
            f"and this program runs as uid {os.geteuid()}"
        )

    def close(self) -> None:
        self.db.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """All written inside commits together, or nothing; nested, part of the outer."""
        if self.db.in_transaction:
            yield
            return
        self.db.execute("BEGIN")
        try:
            yield
            self.db.execute("COMMIT")
        except BaseException:
            if self.db.in_transaction:  # a failed COMMIT may have rolled back already
                self.db.execute("ROLLBACK")
            raise

    # -- games and their events --

    def new_game(
        self, game: Game, names: list[str], seed: int | None, series_id: int | None, now: float
    ) -> int:
        cur = self.db.execute(
            "INSERT INTO games (game, players, options, names, seed, series_id, started) "
            "VALUES (?,?,?,?,?,?,?)",
            (game.id, game.players, json.dumps(game.settings), json.dumps(names), seed, series_id, now),
        )
        game_id = int(cur.lastrowid)
        if getattr(game, "composed", False) and not game.shipped:
            # The game keeps the rules it was played by: a saved composition may change.
            self.set_setting(f"rules:{game_id}", composition.to_data(game.base_rules))
        return game_id

    def append(self, game_id: int, kind: str, action: str | None, now: float) -> int:
        """Append one event (durable on return, outside a transaction)."""
        row = self.db.execute(
            "SELECT COALESCE(MAX(seq), 0) FROM events WHERE game_id=?", (game_id,)
        ).fetchone()
        seq = row[0] + 1
        self.db.execute("INSERT INTO events VALUES (?,?,?,?,?)", (game_id, seq, kind, action, now))
        return seq

    def events(self, game_id: int) -> list[tuple[str, str | None]]:
        return [
            (k, a)
            for k, a in self.db.execute(
                "SELECT kind, action FROM events WHERE game_id=? ORDER BY seq", (game_id,)
            )
        ]

    def event_count(self, game_id: int) -> int:
        """The log's length (it only grows: a replay's key)."""
        return self.db.execute("SELECT COUNT(*) FROM events WHERE game_id=?", (game_id,)).fetchone()[0]

    def finish_game(self, game_id: int, result: dict, now: float) -> None:
        self.db.execute(
            "UPDATE games SET finished=?, result=? WHERE id=?", (now, json.dumps(result), game_id)
        )

    def rename(self, game_id: int, names: list[str]) -> None:
        self.db.execute("UPDATE games SET names=? WHERE id=?", (json.dumps(names), game_id))

    def reopen_game(self, game_id: int) -> None:
        """A finished game undone into play again."""
        self.db.execute("UPDATE games SET finished=NULL, result=NULL WHERE id=?", (game_id,))

    def _row(self, r) -> GameRow:
        try:
            return GameRow(
                r[0],
                r[1],
                r[2],
                _loads(r[3]),
                _loads(r[4]),
                r[5],
                r[6],
                r[7],
                r[8],
                _loads(r[9]) if r[9] else None,
            )
        except ValueError as err:
            raise StoreError(f"game {r[0]}: its stored row does not read: {err}") from None

    _COLUMNS = "id, game, players, options, names, seed, series_id, started, finished, result"

    def game_row(self, game_id: int) -> GameRow | None:
        r = self.db.execute(f"SELECT {self._COLUMNS} FROM games WHERE id=?", (game_id,)).fetchone()
        return self._row(r) if r else None

    def current_game(self) -> GameRow | None:
        """The newest game, finished or not."""
        r = self.db.execute(f"SELECT {self._COLUMNS} FROM games ORDER BY id DESC LIMIT 1").fetchone()
        return self._row(r) if r else None

    def finished_games(self, limit: int = 50) -> list[GameRow]:
        rows = self.db.execute(
            f"SELECT {self._COLUMNS} FROM games WHERE finished IS NOT NULL ORDER BY id DESC LIMIT ?", (limit,)
        )
        return [self._row(r) for r in rows]

    def games_of_series(self, series_id: int) -> list[GameRow]:
        rows = self.db.execute(
            f"SELECT {self._COLUMNS} FROM games WHERE series_id=? ORDER BY id", (series_id,)
        )
        return [self._row(r) for r in rows]

    def game_class(self, row: GameRow) -> type[Game]:
        """The game a row was played: a saved composition by its kept rules."""
        rules = self.setting(f"rules:{row.id}")
        if rules is None:
            return find(row.game)
        try:
            return composed.game_class(composition.parse(rules, played=True))
        except composition.CompositionError as err:
            raise StoreError(f"game {row.id}: its composition no longer reads: {err}") from None

    def replay(self, row: GameRow) -> Game:
        """Rebuild a game from its events, undos and redos included."""
        game = self.game_class(row)(row.players, **row.options)
        for kind, action in self.events(row.id):
            if kind == ACTION:
                game.apply(action)
            elif kind == UNDO:
                game.undo()
            elif kind == REDO:
                game.redo()
            else:
                raise StoreError(f"game {row.id}: unknown event {kind!r}")
        return game

    # -- series and settings --

    def new_series(self, data: dict, now: float) -> int:
        return int(
            self.db.execute(
                "INSERT INTO series (data, created) VALUES (?, ?)", (json.dumps(data), now)
            ).lastrowid
        )

    def save_series(self, series_id: int, data: dict, finished: float | None = None) -> None:
        self.db.execute(
            "UPDATE series SET data=?, finished=? WHERE id=?", (json.dumps(data), finished, series_id)
        )

    def series(self, series_id: int) -> dict | None:
        r = self.db.execute("SELECT data FROM series WHERE id=?", (series_id,)).fetchone()
        return _loads(r[0]) if r else None

    def series_finished(self, series_id: int) -> float | None:
        """When the series was decided (wall clock); None while it goes on."""
        r = self.db.execute("SELECT finished FROM series WHERE id=?", (series_id,)).fetchone()
        return r[0] if r else None

    def series_started(self, series_id: int) -> float | None:
        """When the series began (wall clock): a timed series counts from it."""
        r = self.db.execute("SELECT created FROM series WHERE id=?", (series_id,)).fetchone()
        return r[0] if r else None

    def setting(self, key: str, default: Any = None) -> Any:
        r = self.db.execute("SELECT value FROM settings WHERE key=?", (key,)).fetchone()
        return _loads(r[0]) if r else default

    def set_setting(self, key: str, value: Any) -> None:
        self.db.execute(
            "INSERT INTO settings VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (key, json.dumps(value)),
        )

    def settings(self) -> dict:
        return {k: _loads(v) for k, v in self.db.execute("SELECT key, value FROM settings")}
