"""The board handed to hardware/: the game's one geometry (``companion.rules.node``) as plain data.

``python -m companion.service.geometry [PATH]`` prints the default button layout, or writes it to PATH
(the shipped file only when named: it may be a board's own wiring).
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path
from types import MappingProxyType

from companion.rules import node as nd
from hardware.buttons import default_layout, layout_text
from hardware.geometry import Board


def _why_not(depth: int, name: str) -> str:
    try:
        nd.parse(name, depth)
    except nd.NodeError as err:
        return str(err)
    return f"{name!r} is not a node of this board"


@cache
def board_geometry(depth: int = nd.STANDARD_DEPTH) -> Board:
    """The board ``depth`` levels deep, built once and shared read-only."""
    if not isinstance(depth, int) or not 1 <= depth <= nd.MAX_DEPTH:
        raise ValueError(f"depth must be 1..{nd.MAX_DEPTH}, not {depth!r}")
    nodes = nd.nodes(depth)
    return Board(
        depth=depth,
        head=nd.HEAD_NAME,
        points=MappingProxyType({nd.name(n): nd.position(n, depth) for n in nodes}),
        levels=MappingProxyType({nd.name(n): nd.level(n) for n in nodes}),
        focus=MappingProxyType({nd.name(n): nd.focus(n) for n in nodes if n != nd.HEAD}),
        quadrangles=tuple(tuple(map(nd.name, nd.children(p))) for p in nd.nodes(depth - 1)),
        why_not=lambda name: _why_not(depth, name),
    )


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    text = layout_text(default_layout(board_geometry()))
    if not args:
        print(text, end="")
        return 0
    path = Path(args[0])
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as err:
        print(f"cannot write {path}: {err.strerror or err}", file=sys.stderr)
        return 2
    print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
