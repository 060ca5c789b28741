"""The virtual board as SVG, drawn from the one geometry everything shares (``companion.node.position``).

The static part (rods and nodes in the printed colours) is made here once per depth and cached; the
page's script draws stones, targets, picks and chores over it from each snapshot.
"""

from __future__ import annotations

import functools

from flask import Blueprint, Response, abort

from companion import node as nd

bp = Blueprint("board", __name__)

PRINT = {"G": "#00A03C", "R": "#DC1E1E", "Y": "#F0C800", "B": "#1446DC"}
HEAD_FILL = "#E8E8E8"


def depth_of(snapshot: dict) -> int:
    try:
        return int(snapshot["board"]["depth"])
    except (KeyError, TypeError, ValueError, AttributeError):
        return nd.STANDARD_DEPTH


def radius(node: int, depth: int) -> float:
    # The nearest leaf of any inner node is sqrt(2) away, so inner nodes stay below ~0.78.
    return 0.6 if nd.level(node) == depth else 0.74


def _num(v: float) -> str:
    return f"{v:g}"


@functools.lru_cache(maxsize=8)
def board_svg(depth: int) -> str:
    half = (1 << depth) - 1 + 1.6
    rods = []
    for n in nd.nodes(depth):
        if nd.level(n) == depth:
            continue
        kids = nd.children(n)
        px, py = nd.position(n, depth)
        pts = [nd.position(k, depth) for k in kids]
        ring = " ".join(f"{_num(x)} {_num(y)}" for x, y in pts)
        rods.append(f"M{ring}Z")  # the quadrangle
        rods.extend(f"M{_num(x)} {_num(y)} {_num(px)} {_num(py)}" for x, y in pts)  # to its parent
    circles = []
    # Leaves first so the inner nodes (and their larger hit rings) sit on top.
    for n in sorted(nd.nodes(depth), key=lambda n: -nd.level(n)):
        x, y = nd.position(n, depth)
        focus = nd.focus(n)
        cls = f"n {focus or 'H'}"
        circles.append(f'<circle class="{cls}" data-n="{nd.name(n)}" cx="{_num(x)}" cy="{_num(y)}" '
                       f'r="{_num(radius(n, depth))}"/>')
    size = _num(2 * half)
    # What is drawn over the nodes (stones, figures, rings) is for the eye: once the page makes the board a
    # control, a screen reader hears the node under the keyboard's ring (keys.js), not "♟ ♚ ♟ ♞ …".
    return (f'<svg id="board" class="board" xmlns="http://www.w3.org/2000/svg" viewBox="{_num(-half)} {_num(-half)} '
            f'{size} {size}" data-depth="{depth}" role="img" aria-label="GRYB board">'
            f'<rect class="cloth" x="{_num(-half)}" y="{_num(-half)}" width="{size}" height="{size}" rx="1"/>'
            f'<path class="rods" d="{" ".join(rods)}"/>'
            f'<g class="grybs" aria-hidden="true"></g><g class="nodes">{"".join(circles)}</g>'
            f'<g class="marks" aria-hidden="true"></g></svg>')


@bp.get("/board/<int:depth>.svg")
def svg(depth: int):
    if not 1 <= depth <= nd.MAX_DEPTH:
        abort(404)
    response = Response(board_svg(depth), mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "public, max-age=86400"
    return response
