"""The button layout: which switch of the diode matrix, (row, col), sits under which node.

A layout is a JSON data file (``hardware/layouts/buttons-24x16.json`` is the default) validated on load:
the matrix size, a row of node names (or null for a spare position) per matrix row, every name a node of
the board, no node twice, every node present. Any problem raises one :class:`ButtonLayoutError` that
names it, and nothing is loaded.

The default order follows the board's one geometry (``companion.rules.node.position``), so each matrix wire
runs straight across the overlay:

- the 256 leaves sit on odd coordinates, a 16x16 grid: leaf (x, y) is on row wire ``(y + 15) / 2`` and
  column wire ``(x + 15) / 2``; rows 0-15 run along the leaf rows, columns 0-15 down the leaf columns;
- every other node (64 on level 3, 16 on level 2, 4 on level 1, the head) sits between leaves. Rows
  16-23 run along the eight level-3 lines (y = 2 mod 4) between the leaf rows; a node takes the one at
  or just above it, ``16 + (y + 14) // 4``. Its column is the leaf column wire at or just left of it,
  ``(x + 15) // 2``. Level-3 nodes land on even columns, levels 0-2 on odd ones, so no two collide.

That uses 341 of the 384 positions; the other 43 are spares and never become events.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from companion.rules import node as nd

LAYOUTS = Path(__file__).parent / "layouts"
DEFAULT_LAYOUT = LAYOUTS / "buttons-24x16.json"
FORMAT = "gryb-buttons/1"

Key = tuple[int, int]


class ButtonLayoutError(ValueError):
    """A button layout that cannot be used; the message names the problem (and the file)."""


@dataclass(frozen=True)
class ButtonLayout:
    """Node <-> (row, col) of the diode matrix. Build it with :meth:`from_mapping` or :func:`load_button_layout`."""

    rows: int
    cols: int
    depth: int
    node_of: dict[Key, str] = field(repr=False)
    key_of: dict[str, Key] = field(repr=False)

    @classmethod
    def from_mapping(
        cls,
        rows: int,
        cols: int,
        mapping: dict[Key, str],
        depth: int = nd.STANDARD_DEPTH,
        source: str = "button layout",
    ) -> ButtonLayout:
        """Validate ``{(row, col): node name}``; raise :class:`ButtonLayoutError` naming the first problem."""
        where = f"{source}: "
        if (
            not isinstance(rows, int)
            or not isinstance(cols, int)
            or not (1 <= rows <= 32 and 1 <= cols <= 32)
        ):
            raise ButtonLayoutError(
                f"{where}the matrix must have 1..32 rows and columns, not {rows!r}x{cols!r}"
            )
        if not isinstance(depth, int) or not 1 <= depth <= nd.MAX_DEPTH:
            raise ButtonLayoutError(f"{where}depth must be 1..{nd.MAX_DEPTH}, not {depth!r}")
        node_of: dict[Key, str] = {}
        key_of: dict[str, Key] = {}
        for key, name in mapping.items():
            row, col = key
            if not (0 <= row < rows and 0 <= col < cols):
                raise ButtonLayoutError(
                    f"{where}key ({row}, {col}) for node {name} is outside the {rows}x{cols} matrix"
                )
            try:
                nd.parse(name, depth)
            except nd.NodeError as err:
                raise ButtonLayoutError(f"{where}key ({row}, {col}): {err}") from None
            if name in key_of:
                raise ButtonLayoutError(
                    f"{where}node {name} is on two keys, {key_of[name]} and ({row}, {col})"
                )
            node_of[(row, col)] = name
            key_of[name] = (row, col)
        missing = [nd.name(n) for n in nd.nodes(depth) if nd.name(n) not in key_of]
        if missing:
            shown = ", ".join(missing[:8]) + (" ..." if len(missing) > 8 else "")
            raise ButtonLayoutError(f"{where}{len(missing)} node(s) have no key: {shown}")
        if rows * cols < len(key_of):
            raise ButtonLayoutError(f"{where}{len(key_of)} nodes do not fit a {rows}x{cols} matrix")
        return cls(rows, cols, depth, node_of, key_of)

    def node_at(self, row: int, col: int) -> str | None:
        """The node on key (row, col), or None for a spare position."""
        return self.node_of.get((row, col))

    def key(self, node: str) -> Key:
        """The (row, col) of a node (for the self-test and the simulator); ButtonLayoutError if none."""
        try:
            return self.key_of[node]
        except KeyError:
            raise ButtonLayoutError(
                f"no key for node {node!r} in this {self.rows}x{self.cols} layout"
            ) from None

    def spares(self) -> list[Key]:
        return [(r, c) for r in range(self.rows) for c in range(self.cols) if (r, c) not in self.node_of]

    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "about": "Node buttons: matrix[row][col] is the node on that switch of the diode matrix, null "
            "for a spare. Generated by `python -m hardware.buttons`; see hardware/buttons.py.",
            "depth": self.depth,
            "rows": self.rows,
            "cols": self.cols,
            "matrix": [[self.node_of.get((r, c)) for c in range(self.cols)] for r in range(self.rows)],
        }


def parse_layout(data: object, source: str = "button layout") -> ButtonLayout:
    """A :class:`ButtonLayout` from the JSON form (see :meth:`ButtonLayout.to_json`)."""
    where = f"{source}: "
    if not isinstance(data, dict):
        raise ButtonLayoutError(f"{where}expected a JSON object with rows, cols and matrix")
    if data.get("format", FORMAT) != FORMAT:
        raise ButtonLayoutError(f"{where}format {data.get('format')!r} is not {FORMAT!r}")
    for name in ("rows", "cols", "matrix"):
        if name not in data:
            raise ButtonLayoutError(f"{where}missing {name!r}")
    rows, cols, grid = data["rows"], data["cols"], data["matrix"]
    depth = data.get("depth", nd.STANDARD_DEPTH)
    if not isinstance(rows, int) or not isinstance(cols, int) or not (1 <= rows <= 32 and 1 <= cols <= 32):
        raise ButtonLayoutError(f"{where}the matrix must have 1..32 rows and columns, not {rows!r}x{cols!r}")
    if not isinstance(grid, list) or len(grid) != rows:
        size = len(grid) if isinstance(grid, list) else "no"
        raise ButtonLayoutError(f"{where}matrix has {size} rows but rows is {rows}")
    mapping: dict[Key, str] = {}
    for r, line in enumerate(grid):
        if not isinstance(line, list) or len(line) != cols:
            size = len(line) if isinstance(line, list) else "no"
            raise ButtonLayoutError(f"{where}matrix row {r} has {size} keys but cols is {cols}")
        for c, name in enumerate(line):
            if name is None:
                continue
            if not isinstance(name, str):
                raise ButtonLayoutError(f"{where}key ({r}, {c}) holds {name!r}, not a node name or null")
            mapping[(r, c)] = name
    return ButtonLayout.from_mapping(rows, cols, mapping, depth, source)


def load_button_layout(path: str | Path | None = None) -> ButtonLayout:
    """Load and validate a layout file (the default 24x16 layout when ``path`` is None)."""
    path = Path(path) if path is not None else DEFAULT_LAYOUT
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise ButtonLayoutError(f"cannot read button layout {path}: {err.strerror or err}") from None
    except json.JSONDecodeError as err:
        raise ButtonLayoutError(f"{path}: not valid JSON: {err}") from None
    return parse_layout(data, str(path))


def default_key(node: nd.Node, depth: int = nd.STANDARD_DEPTH) -> Key:
    """The default wiring's (row, col) for a node of the standard board (see the module docstring)."""
    if depth != nd.STANDARD_DEPTH:
        raise ButtonLayoutError("the default button wiring is for the standard 4-level board")
    x, y = nd.position(node, depth)
    if nd.level(node) == depth:
        return ((y + 15) // 2, (x + 15) // 2)
    return (16 + (y + 14) // 4, (x + 15) // 2)


def default_layout() -> ButtonLayout:
    """The default 24x16 layout, generated from the board geometry."""
    mapping = {default_key(n): nd.name(n) for n in nd.nodes()}
    return ButtonLayout.from_mapping(24, 16, mapping, nd.STANDARD_DEPTH, "default button layout")


def layout_text(layout: ButtonLayout) -> str:
    """The JSON file text for a layout: one matrix row per line, so a diff shows a rewired row."""
    data = layout.to_json()
    grid = data.pop("matrix")
    head = json.dumps(data, indent=2)[:-2]
    rows = ",\n".join("    " + json.dumps(line) for line in grid)
    return f'{head},\n  "matrix": [\n{rows}\n  ]\n}}\n'


def main(argv: list[str] | None = None) -> int:
    """``python -m hardware.buttons [PATH]``: print the default layout, or write it to PATH (the shipped file
    is rewritten only when named: it may be a board's own wiring, and is read-only where it is installed)."""
    args = sys.argv[1:] if argv is None else argv
    text = layout_text(default_layout())
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
