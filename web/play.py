"""Now playing: the board, whose turn, the die, scores; and the presses and buttons behind it."""

from __future__ import annotations

from flask import Blueprint, jsonify, render_template

from companion.rules import node as nd
from companion.service.runtime import NEW_GAME_SINCE, StorageError
from companion.session.seating import SEATS
from web.board import board_svg, depth_of
from web.security import body, paired, refuse, web

bp = Blueprint("play", __name__)

KINDS = [
    (seat, seat if seat == "human" else f"computer: {seat}") for seat in SEATS
]  # as the forms offer them


def compact(snapshot: dict) -> dict:
    """The snapshot the page needs: everything but the list of legal actions."""
    return {k: v for k, v in snapshot.items() if k != "legal"}


def _call(name: str, *args):
    try:
        result = web().runtime.call(name, *args, timeout=10)
    except ValueError as err:  # CommandError / IllegalAction: refused before anything changed
        refuse(400, str(err))
    except TimeoutError:
        refuse(503, "the board is busy: try again")
    except StorageError as err:  # a full disk or a locked database: nothing changed
        refuse(503, str(err))
    return result


def _game(data: dict) -> int | None:
    """The game a press, move or button is meant for, the one the page shows (None: whichever is on)."""
    game = data.get("game")
    if game is not None and type(game) is not int:
        refuse(400, "game is the id of the game the page shows (state.game_id), a whole number")
    return game


def _ply(data: dict) -> tuple[int, ...]:
    """The position an UNDO or OK is meant for (``ply``, the snapshot's): () when not sent."""
    ply = data.get("ply")
    if ply is None:
        return ()
    if type(ply) is not int or ply < 0:
        refuse(
            400,
            "ply is the number of actions of the position the page shows (the state's ply), a whole number",
        )
    return (ply,)


def _in_game(data: dict, name: str, *args):
    """A press, move or button meant for the game the page shows: ``game`` (state.game_id), when sent, has the
    runtime refuse it if a new game has begun since (it was made in the new game, and the sender told it
    was made)."""
    game = _game(data)
    return _call(name, *args) if game is None else _call("in_game", game, name, *args)


def _answer(feedback) -> dict:
    return jsonify(ok=bool(feedback.ok), message=feedback.message, state=compact(web().runtime.snapshot()))


@bp.get("/")
def now_playing():
    snapshot = web().runtime.snapshot()
    return render_template(
        "play.html",
        board=board_svg(depth_of(snapshot)),
        snapshot=snapshot,
        kinds=KINDS,
        self_test=web().selftest is not None,
    )


@bp.get("/api/state")
def state():
    return jsonify(compact(web().runtime.snapshot()))


@bp.get("/api/legal")
def legal():
    """The legal actions now, in the notation (the snapshot leaves them out): the page's Type a move."""
    snapshot = web().runtime.snapshot()
    return jsonify(version=snapshot["version"], legal=snapshot["legal"])


@bp.post("/api/press")
@paired
def press():
    data = body("node", "game")
    name = data.get("node")
    if not isinstance(name, str):
        refuse(400, 'give the node to press, e.g. {"node": "RG"}')
    try:
        nd.parse(name, depth_of(web().runtime.snapshot()))
    except nd.NodeError as err:
        refuse(400, str(err))
    sim, snapshot = web().sim_input, web().runtime.snapshot()
    if sim is not None and snapshot["board"]["on_cloth"]:
        # Through the emulated MCU and the serial bridge, like a finger on the cloth; the outcome
        # comes back on the change feed. A finger knows no game id: the page's is checked here.
        if _game(data) not in (None, snapshot["game_id"]):
            refuse(400, NEW_GAME_SINCE)
        sim.tap(name)
        return jsonify(ok=True, message=f"pressed {name}", via="board", state=None)
    return _answer(_in_game(data, "press", name))


@bp.post("/api/roll")
@paired
def roll():
    return _answer(_in_game(body("game"), "roll"))


@bp.post("/api/ok")
@paired
def ok():
    data = body("game", "ply")
    return _answer(_in_game(data, "ok", *_ply(data)))


@bp.post("/api/again")
@paired
def again():
    return _answer(_in_game(body("game"), "again"))


@bp.post("/api/undo")
@paired
def undo():
    data = body("game", "ply")
    return _answer(_in_game(data, "undo", *_ply(data)))


@bp.post("/api/hint")
@paired
def hint():
    body()
    return _answer(_call("hint"))


@bp.post("/api/act")
@paired
def act():
    data = body("action", "game")
    text = data.get("action")
    if not isinstance(text, str) or not 0 < len(text) <= 200:
        refuse(400, 'give the action in the notation, e.g. {"action": "0-G"}')
    return _answer(_in_game(data, "act", text))


@bp.post("/api/seat")
@paired
def seat():
    """Hand a seat to the computer, or back to a person, during the game."""
    data = body("seat", "kind", "game")
    seat, kind, game = data.get("seat"), data.get("kind"), data.get("game")
    if type(seat) is not int or kind not in SEATS or not (game is None or type(game) is int):
        refuse(
            400,
            f"give the seat (as in state.seats, from 0) and who plays it, one of {', '.join(SEATS)}: "
            'e.g. {"seat": 1, "kind": "hard"}',
        )
    return _answer(_call("seat", seat, kind, game))
