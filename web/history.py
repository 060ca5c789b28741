"""Series standings, finished games, replays, record export; read apart from the runtime's connection
(docs/web.md, "Reading the history")."""

from __future__ import annotations

import re

from flask import Blueprint, Response, g, jsonify, render_template, request

from companion.games import engine
from companion.service.store import Store
from companion.session.hands import said
from companion.session.record import GameRecord
from companion.session.seating import HUMAN, by_player, by_seat, seating
from web.api import refuse, web
from web.board import board_svg
from web.replays import position

bp = Blueprint("history", __name__)

SQLITE_MAX = 2**63 - 1  # the largest INTEGER (and so rowid) SQLite can hold
_WHOLE = re.compile(r"[0-9]{1,19}")  # ASCII digits only: int() would take " 5", "+5", "5_0", "٥"


def reader() -> Store:
    """The request's read-only store, closed when it ends."""
    store = g.get("gryb_reader")
    if store is None:
        g.gryb_reader = store = Store(web().runtime.store.path, read_only=True)
    return store


@bp.teardown_app_request
def _close_reader(_exc) -> None:
    store = g.pop("gryb_reader", None)
    if store is not None:
        store.db.close()


def _stored(ident: int) -> bool:
    """SQLite cannot even be asked about an id past 64 bits."""
    return 0 <= ident <= SQLITE_MAX


def _whole_arg(name: str, default: int, low: int, high: int) -> int:
    """The query parameter ``name``, a whole number from low to high; else 400."""
    text = request.args.get(name)
    if text is None:
        return default
    value = int(text) if _WHOLE.fullmatch(text) else None
    if value is None or not low <= value <= high:
        refuse(400, f"{name} is a whole number from {low} to {high}")
    return value


def _about(game_id: str) -> tuple[str, str | None, str | None]:
    """The game's name and the heads of its columns of points and of stones in hand (None: none)."""
    try:
        cls = web().runtime.board.catalogue.find(game_id)
    except engine.UnknownGame:
        return game_id, engine.Game.score, engine.Game.hand
    return cls.name, cls.score, cls.hand


def _row_dict(row) -> dict:
    name, score, hand = _about(row.game)
    return {
        "id": row.id,
        "game": row.game,
        "name": name,
        "score": score,
        "hand": hand,
        "players": row.players,
        "options": row.options,
        "names": row.names,
        "series_id": row.series_id,
        "started": row.started,
        "finished": row.finished,
        "result": row.result,
    }


def _replayed(game_id: int):
    """The row and the game it replays to, read in one transaction so the key says what was replayed."""
    store = reader()
    with store.transaction():
        row = store.game_row(game_id) if _stored(game_id) else None
        if row is None:
            refuse(404, f"no game {game_id}")
        try:
            game = web().replays.replayed(
                (row.id, row.started, store.event_count(row.id)), lambda: store.replay(row)
            )
        except ValueError as err:
            refuse(409, f"game {game_id} cannot be replayed: {err}")
    return row, game


def _record(game_id: int):
    """The game's record: who played, when it began, its result."""
    row, game = _replayed(game_id)
    seats = reader().setting(f"seats:{row.id}") or [HUMAN] * row.players  # kept only once a computer plays
    result = None if (row.result or {}).get("abandoned") else row.result  # never ended: no result
    record = GameRecord.of(game, row.seed, names=row.names, seats=seats, started=row.started, result=result)
    return row, record, game.space.depth


def _seating(row) -> list[int]:
    """The player at each seat of a stored game."""
    return seating(reader().setting(f"order:{row.id}"), row.players)


def _colours() -> list[str]:
    return web().runtime.snapshot()["settings"]["colours"]


def _series(series_id: int) -> dict | None:
    if not _stored(series_id):
        return None
    store = reader()
    data = store.series(series_id)
    if data is None:
        return None
    rows = store.games_of_series(series_id)
    # By player, under its latest game's names: a name put right is the one shown.
    names = by_player(list(rows[-1].names), _seating(rows[-1])) if rows else []
    return data | {"id": series_id, "games_played": [_row_dict(r) for r in rows], "names": names}


@bp.get("/history")
def history_page():
    snapshot = web().runtime.snapshot()
    series = snapshot.get("series")
    current = _series(series["id"]) if series and series.get("id") is not None else None
    if current is not None:  # whether it is over (and who won it) is the runtime's, by its clock
        current |= {"over": series.get("over", False), "winners": series.get("winners", [])}
    return render_template(
        "history.html",
        games=[_row_dict(r) for r in reader().finished_games(50)],
        series=current,
        colours=_colours(),
    )


@bp.get("/history/<int:game_id>")
def replay_page(game_id: int):
    row, record, depth = _record(game_id)
    return render_template("replay.html", row=_row_dict(row), record=record, board=board_svg(depth))


@bp.get("/api/history")
def list_history():
    limit = _whole_arg("limit", 50, 1, 500)
    return jsonify(games=[_row_dict(r) for r in reader().finished_games(limit)])  # abandoned ones too


@bp.get("/api/history/<int:game_id>")
def game_record(game_id: int):
    row, replayed = _replayed(game_id)
    actions = [str(action) for action, _ in replayed.history]
    ply = _whole_arg("ply", len(actions), 0, len(actions))
    game = position(replayed, ply)
    step = None
    if ply:
        action, by = game.played()[-1]
        step = said(game, action, row.names, by)  # "Ann rolled G"
    board = {"depth": game.space.depth, "headless": game.space.headless}
    return jsonify(
        game=_row_dict(row),
        actions=actions,
        ply=ply,
        step=step,
        state=game.state_dict(),
        board=board,
        colours=by_seat(_colours(), _seating(row)),
        order=_seating(row),
    )


@bp.get("/api/history/<int:game_id>/record.<fmt>")
def export(game_id: int, fmt: str):
    row, record, _ = _record(game_id)
    if fmt == "json":
        body, mimetype = record.to_json(), "application/json"
    elif fmt == "txt":
        body, mimetype = record.to_text(), "text/plain"
    else:
        refuse(404, "records export as record.txt or record.json")
    response = Response(body, mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="gryb-{row.game}-{row.id}.{fmt}"'
    return response


@bp.get("/api/series")
def current_series():
    series = web().runtime.snapshot().get("series")
    if not series or series.get("id") is None:
        return jsonify(series=None)
    return jsonify(series=_series(series["id"]))


@bp.get("/api/series/<int:series_id>")
def one_series(series_id: int):
    data = _series(series_id)
    if data is None:
        refuse(404, f"no series {series_id}")
    return jsonify(series=data)
