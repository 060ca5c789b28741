"""The virtual board's SVG frame, once per depth; the page draws the rods, nodes and stones into it."""

from __future__ import annotations

import functools

from flask import Blueprint, Response, abort

from companion.rules import node as nd

bp = Blueprint("board", __name__)

PRINT = {"G": "#00A03C", "R": "#DC1E1E", "Y": "#F0C800", "B": "#1446DC"}
HEAD_FILL = "#E8E8E8"


def depth_of(snapshot: dict) -> int:
    try:
        return int(snapshot["board"]["depth"])
    except (KeyError, TypeError, ValueError, AttributeError):
        return nd.STANDARD_DEPTH


def _num(v: float) -> str:
    return f"{v:g}"


@functools.lru_cache(maxsize=8)
def board_svg(depth: int) -> str:
    """The board's frame: its size, the cloth and the groups the page draws into (web/static/js/cloth.js
    draws the rods and nodes: as markup they would outweigh a page, docs/web.md, "Pages")."""
    half = (1 << depth) - 1 + 1.6
    size = _num(2 * half)
    # What is drawn over the nodes is for the eye: a screen reader hears the node under the keys' ring.
    return (
        f'<svg id="board" class="board" xmlns="http://www.w3.org/2000/svg" '
        f'viewBox="{_num(-half)} {_num(-half)} {size} {size}" data-depth="{depth}" '
        f'role="img" aria-label="GRYB board">'
        f'<rect class="cloth" x="{_num(-half)}" y="{_num(-half)}" width="{size}" height="{size}" rx="1"/>'
        f'<path class="rods"/><g class="grybs" aria-hidden="true"></g><g class="nodes"></g>'
        f'<g class="marks" aria-hidden="true"></g></svg>'
    )


@bp.get("/board/<int:depth>.svg")
def svg(depth: int):
    if not 1 <= depth <= nd.MAX_DEPTH:
        abort(404)
    response = Response(board_svg(depth), mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "public, max-age=86400"
    return response
