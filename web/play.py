"""Now playing: the board, whose turn, the die, scores; and the presses and buttons behind it."""

from __future__ import annotations

from flask import Blueprint, jsonify, render_template

from companion.rules import node as nd
from companion.service import commands as c
from companion.service.board import NEW_GAME_SINCE
from companion.session.seating import SEATS
from web.api import answer, call, command, compact, refuse, web
from web.board import board_svg, depth_of
from web.security import paired

bp = Blueprint("play", __name__)

KINDS = [(seat, seat if seat == "human" else f"computer: {seat}") for seat in SEATS]  # as forms offer them


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
    """The legal actions now, in the notation (the snapshot leaves them out)."""
    snapshot = web().runtime.snapshot()
    return jsonify(version=snapshot["version"], legal=snapshot["legal"])


@bp.post("/api/press")
@paired
def press():
    pressed = command(c.Press)
    snapshot = web().runtime.snapshot()
    try:
        nd.parse(pressed.node, depth_of(snapshot))
    except nd.NodeError as err:
        refuse(400, str(err))
    sim = web().sim_input
    if sim is not None and snapshot["board"]["on_cloth"]:
        # Through the emulated Pico, like a finger (which knows no game id: the page's is checked here).
        if pressed.game not in (None, snapshot["game_id"]):
            refuse(400, NEW_GAME_SINCE)
        sim.tap(pressed.node)
        return jsonify(ok=True, message=f"pressed {pressed.node}", via="board", state=None)
    return answer(call(pressed))


@bp.post("/api/roll")
@paired
def roll():
    return answer(call(command(c.Roll)))


@bp.post("/api/ok")
@paired
def ok():
    return answer(call(command(c.Ok)))


@bp.post("/api/again")
@paired
def again():
    return answer(call(command(c.Again)))


@bp.post("/api/undo")
@paired
def undo():
    return answer(call(command(c.Undo)))


@bp.post("/api/hint")
@paired
def hint():
    return answer(call(command(c.Hint)))


@bp.post("/api/act")
@paired
def act():
    return answer(call(command(c.Act)))


@bp.post("/api/seat")
@paired
def seat():
    """Hand a seat to the computer, or back to a person."""
    return answer(call(command(c.Seat)))
