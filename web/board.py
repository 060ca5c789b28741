"""The virtual board as SVG, drawn from the one geometry everything shares (``companion.rules.node.position``).

The board's frame (its size, the cloth, the groups to draw into) is made here once per depth and cached;
the page's scripts draw the printed rods and nodes into it (``web/static/js/cloth.js``, the same geometry),
then stones, targets, picks and chores over them from each snapshot.
"""

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
    """The board's frame: its size, the cloth and the groups the page draws into. The rods and the nodes are
    drawn in the page (web/static/js/cloth.js) from the same geometry: as markup, the Super Giant board's
    5461 nodes weighed 444 KiB, three times what a page may weigh (docs/web.md)."""
    half = (1 << depth) - 1 + 1.6
    size = _num(2 * half)
    # What is drawn over the nodes (stones, figures, rings) is for the eye: once the page makes the board a
    # control, a screen reader hears the node under the keyboard's ring (keys.js), not "♟ ♚ ♟ ♞ …".
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
