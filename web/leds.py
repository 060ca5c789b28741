"""What the LEDs show, for the page's virtual board: ``GET /api/leds`` (docs/web.md, "What the LEDs show").

The frame the LEDs show but a pairing code (``PublicFrame.shown``), with an ETag of its count: the page asks
again and again. Only the simulator's own page, which is the board, sees the code (docs/security.md, "The
pairing code on the LEDs"); ``withheld`` stays for the page, always empty.
"""

from __future__ import annotations

import secrets

from flask import Blueprint, current_app, jsonify, request

from web.api import board_here, refuse, web

bp = Blueprint("leds", __name__)


def _hex(rgb) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def _tag(frames: int, board: bool) -> str:
    """This app's token (a restarted companion counts frames from 0 again), the count, whose frames."""
    boot = current_app.extensions.setdefault("gryb-leds-boot", secrets.token_hex(4))
    return f"{boot}-{frames}-{'b' if board else 'p'}"


@bp.get("/api/leds")
def leds():
    if web().leds is None:
        refuse(404, "this companion has no LEDs to show")
    board = board_here()
    shown = (web().board_leds if board else web().leds)()
    tag = _tag(shown["frames"], board)
    if request.if_none_match.contains(tag):
        response = current_app.response_class(status=304)
    else:
        response = jsonify(
            frames=shown["frames"],
            limited=shown["limited"],
            nodes={name: _hex(c) for name, c in shown["nodes"].items()},
            status=[_hex(c) for c in shown["status"]],
            withheld=[],
        )
    response.set_etag(tag)
    response.headers["Cache-Control"] = "no-cache"  # kept, but asked again each time (If-None-Match)
    return response
