"""What the LEDs show, for the page's virtual board: ``GET /api/leds`` (docs/web.md, "What the LEDs show").

The frame the LED surface sent last (``LedSurface.shown``), with an ETag of its count: the page asks again
and again. While a pairing code is shown its nodes are withheld (docs/security.md, "The threat model").
"""

from __future__ import annotations

import secrets

from flask import Blueprint, current_app, jsonify, request

from companion.rules import node as nd
from web.api import board_here, refuse, web

bp = Blueprint("leds", __name__)

# The top two levels, whole: the nodes a pairing code lights and their siblings.
CODE_NODES = tuple(nd.name(n) for top in nd.children(nd.HEAD) for n in (top, *nd.children(top)))


def _hex(rgb) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def _tag(frames: int, withheld: bool) -> str:
    """This app's token (a restarted companion counts frames from 0 again), the count, what is withheld."""
    boot = current_app.extensions.setdefault("gryb-leds-boot", secrets.token_hex(4))
    return f"{boot}-{frames}-{'w' if withheld else 'a'}"


@bp.get("/api/leds")
def leds():
    provider = web().leds
    if provider is None:
        refuse(404, "this companion has no LEDs to show")
    shown = provider()
    # Asked after the frame is read, so a frame that may hold a live code is read while the runtime has one.
    withheld = web().runtime.board.effects.code is not None and not board_here()
    tag = _tag(shown["frames"], withheld)
    if request.if_none_match.contains(tag):
        response = current_app.response_class(status=304)
    else:
        hidden = CODE_NODES if withheld else ()
        response = jsonify(
            frames=shown["frames"],
            limited=shown["limited"],
            nodes={name: _hex(c) for name, c in shown["nodes"].items() if name not in hidden},
            status=[_hex(c) for c in shown["status"]],
            withheld=list(hidden),
        )
    response.set_etag(tag)
    response.headers["Cache-Control"] = "no-cache"  # kept, but asked again each time (If-None-Match)
    return response
