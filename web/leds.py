"""What the LEDs show, for the page's virtual board: ``GET /api/leds``.

The page draws the board from the game's state; the LEDs show more than that (a self-test's sweep, the
status pixels, the current limiter's dimming, the die tumbling). This answers with the frame the LED
surface sent last (``create_app(leds=surface.shown)``, :meth:`hardware.leds.LedSurface.shown`): on the
simulator, LEDs nobody can look at; on the real board, the frame it sent, which every surface keeps anyway.
Nodes are the cloth's (the standard board's names; a Giant game shows none of its own there), colours as
the eye sees them, after brightness, gamma and the limiter.

The page asks again and again while its LEDs toggle is on, so the answer carries an ETag of the frame's
count: asked again before the LEDs change, it is a bodiless 304.

A pairing code on the LEDs is for whoever can see the board (:mod:`web.pairing`). While one is shown,
the nodes it lights (the four top-level nodes and, beside each, the small node whose corner names its
colour) are withheld, the top two levels whole, so that what is missing says nothing either; only the
simulator's own page, which is the board and is told the code anyway, sees them.
"""

from __future__ import annotations

import secrets

from flask import Blueprint, current_app, jsonify, request

from companion.rules import node as nd
from web.api import board_here, refuse, web

bp = Blueprint("leds", __name__)

# The nodes a pairing code lights, and their siblings: the top-level nodes and their children.
CODE_NODES = tuple(nd.name(n) for top in nd.children(nd.HEAD) for n in (top, *nd.children(top)))


def _hex(rgb) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def _tag(frames: int, withheld: bool) -> str:
    """The answer's ETag: this app's own token (a restarted companion counts its frames from 0 again), the
    frame's count and whether a code's nodes are withheld."""
    boot = current_app.extensions.setdefault("gryb-leds-boot", secrets.token_hex(4))
    return f"{boot}-{frames}-{'w' if withheld else 'a'}"


@bp.get("/api/leds")
def leds():
    provider = web().leds
    if provider is None:
        refuse(404, "this companion has no LEDs to show")
    shown = provider()
    # Asked after the frame is read: a live code on the LEDs was set in the runtime before its frame was made,
    # and is unset only once it can no longer pair (used, expired, or three wrong tries), so a frame that may
    # hold a live code is always read while the runtime still has one.
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
