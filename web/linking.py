"""Link boards: open a match (its code), join one by its code, and the match's health."""

from __future__ import annotations

from flask import Blueprint, jsonify, render_template

from companion.link.link import LinkError
from companion.link.protocol import Refused
from companion.link.requests import HostMatch, JoinMatch
from web.api import board_here, command, refuse, web
from web.security import is_paired, paired

bp = Blueprint("linking", __name__)
OFF = "no broker is set: give [link] url in the config (docs/linking.md)"


def _link():
    link = web().link
    if link is None:
        refuse(409, OFF)
    return link


@bp.get("/link")
def page():
    return render_template("link.html", enabled=web().link is not None, off=OFF)


@bp.get("/api/link")
def status():
    link = web().link
    if link is None:
        return jsonify({"enabled": False, "message": OFF})
    shown = link.status()
    if not (is_paired() or board_here()):  # a guest watches the match but never reads its code
        shown["code"] = None
    return jsonify({"enabled": True} | shown)


@bp.post("/api/link/host")
@paired
def host():
    asked = command(HostMatch)
    try:
        code = _link().host(asked.game, asked.players, asked.options)
    except (LinkError, ValueError) as err:
        refuse(400, str(err))
    return jsonify(ok=True, code=code, message=f"match open: give the other boards the code {code}")


@bp.post("/api/link/join")
@paired
def join():
    asked = command(JoinMatch)
    try:
        code = _link().join(asked.match_code)
    except Refused as err:
        refuse(400, str(err))
    return jsonify(ok=True, code=code, message="joining: the game begins when every seat has a board")
