"""LED layouts: which pixel of the LED chain lights each node of the board, and the status pixels.

A layout is a JSON file: a ``matrix`` of panels wired as WLED's 2D set-up and NeoMatrix describe them,
or a ``chain`` in a custom order (docs/hardware.md, 'LED layouts'). Loading checks everything and raises
one :class:`LayoutError` naming the problem; nothing is half-built.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hardware.geometry import Board

FORMAT = "gryb-led-layout/1"
LAYOUT_DIR = Path(__file__).parent / "layouts"
CORNERS = ("top-left", "top-right", "bottom-left", "bottom-right")
ROTATIONS = (0, 90, 180, 270)

Cell = tuple[int, int]


class LayoutError(ValueError):
    """An LED layout that cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class LedLayout:
    """Where each node and status slot sits on the LED chain: ``nodes`` (name -> pixel), ``status`` (slot ->
    pixel), ``rods`` (quadrangle sides). A matrix has ``size`` and ``cells`` (pixel -> (x, y) or None).
    """

    name: str
    pixel_count: int
    nodes: Mapping[str, int]
    status: tuple[int, ...]
    rods: tuple[int, ...] = ()
    size: tuple[int, int] | None = None
    cells: tuple[Cell | None, ...] = ()
    description: str = ""
    source: str = ""
    board: Board | None = field(default=None, repr=False, compare=False)
    _by_pixel: dict[int, str] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._by_pixel.update({pixel: name for name, pixel in self.nodes.items()})

    def pixel(self, node_name: str) -> int:
        """The pixel index of a node; :class:`LayoutError` for a name that is not a node here."""
        try:
            return self.nodes[node_name]
        except KeyError:
            raise LayoutError(f"layout {self.name}: {node_name!r} is not a node of the board") from None

    def node_at(self, pixel: int) -> str | None:
        """The node lit by this pixel, or None (a status, rod or spare pixel)."""
        return self._by_pixel.get(pixel)


def block_index(x: int, y: int, width: int, height: int, first: str, major: str, serpentine: bool) -> int:
    """Index of cell (x, y) in a block wired from corner ``first``: LEDs in a panel and panels in the
    matrix alike (NeoMatrix's MATRIX_* and TILE_* flags)."""
    if first.endswith("right"):
        x = width - 1 - x
    if first.startswith("bottom"):
        y = height - 1 - y
    if major == "rows":
        line, pos, length = y, x, width
    else:
        line, pos, length = x, y, height
    if serpentine and line % 2:
        pos = length - 1 - pos
    return line * length + pos


def _opposite(corner: str) -> str:
    vertical, horizontal = corner.split("-")
    return ("bottom" if vertical == "top" else "top") + "-" + ("right" if horizontal == "left" else "left")


def rotate(cell: Cell, size: tuple[int, int], rotation: int) -> tuple[Cell, tuple[int, int]]:
    """Board cell -> (cell, size) on the physical matrix, turned ``rotation`` degrees clockwise."""
    x, y = cell
    width, height = size
    if rotation == 0:
        return (x, y), (width, height)
    if rotation == 90:
        return (y, width - 1 - x), (height, width)
    if rotation == 180:
        return (width - 1 - x, height - 1 - y), (width, height)
    return (height - 1 - y, x), (height, width)


def rod_cells(board: Board) -> set[Cell]:
    """Grid points on the sides of every quadrangle, nodes excluded."""
    points: set[Cell] = set()
    for quadrangle in board.quadrangles:
        corners = [board.points[name] for name in quadrangle]
        for (x0, y0), (x1, y1) in zip(corners, corners[1:] + corners[:1]):
            steps = max(abs(x1 - x0), abs(y1 - y0))
            for i in range(1, steps):
                points.add((x0 + (x1 - x0) * i // steps, y0 + (y1 - y0) * i // steps))
    return points - set(board.points.values())


def shipped_layouts() -> list[str]:
    """Names of the layouts that ship with the program."""
    return sorted(p.stem[len("led-") :] for p in LAYOUT_DIR.glob("led-*.json"))


def load_layout(name_or_path: str | Path, board: Board) -> LedLayout:
    """Load a shipped layout of ``board`` by name (``panels-32x32``, ``chain-341``) or a file by path."""
    text = str(name_or_path)
    shipped = LAYOUT_DIR / f"led-{text}.json"
    if not isinstance(name_or_path, Path) and "/" not in text and shipped.is_file():
        path = shipped
    else:
        path = Path(text)
        if not path.is_file():
            raise LayoutError(
                f"no LED layout {text!r}: give a shipped name ({', '.join(shipped_layouts())}) "
                "or a path to a layout file"
            )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise LayoutError(f"cannot read LED layout {path}: {err}") from None
    except json.JSONDecodeError as err:
        raise LayoutError(f"LED layout {path} is not valid JSON: {err}") from None
    return layout_from_dict(data, board, source=str(path))


def layout_from_dict(data: Any, board: Board, source: str = "<layout>") -> LedLayout:
    """Build and validate a layout of ``board`` from its parsed JSON."""
    where = f"LED layout {source}"
    if not isinstance(data, dict):
        raise LayoutError(f"{where}: the file must hold a JSON object")
    if data.get("format") != FORMAT:
        raise LayoutError(f"{where}: 'format' must be {FORMAT!r}, not {data.get('format')!r}")
    _keys(data, {"format", "name", "description", "matrix", "chain", "origin", "status", "rods"}, where)
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise LayoutError(f"{where}: 'name' must be a non-empty string")
    where = f"LED layout {name} ({source})"
    if ("matrix" in data) == ("chain" in data):
        raise LayoutError(f"{where}: give exactly one of 'matrix' or 'chain'")
    description = data.get("description", "")
    if "matrix" in data:
        return _matrix_layout(data, board, name, description, source, where)
    for key in ("origin", "rods"):
        if key in data:
            raise LayoutError(f"{where}: {key!r} belongs to matrix layouts, not chains")
    return _chain_layout(data["chain"], board, name, description, source, where)


def _keys(obj: dict, allowed: set[str], where: str) -> None:
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise LayoutError(
            f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; allowed: {', '.join(sorted(allowed))}"
        )


def _int(value: Any, what: str, where: str, low: int = 0, high: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise LayoutError(f"{where}: {what} must be an integer, not {value!r}")
    if value < low or (high is not None and value > high):
        span = f"{low}..{high}" if high is not None else f">= {low}"
        raise LayoutError(f"{where}: {what} = {value} is out of range ({span})")
    return value


def _wiring(spec: Any, what: str, where: str, sized: bool) -> dict:
    if not isinstance(spec, dict):
        raise LayoutError(f"{where}: {what} must be an object")
    allowed = {"first", "major", "serpentine"} | ({"width", "height"} if sized else set())
    if what.startswith("panels["):
        allowed |= {"x", "y"}
    _keys(spec, allowed, f"{where}: {what}")
    first = spec.get("first", "top-left")
    if first not in CORNERS:
        raise LayoutError(f"{where}: {what}.first must be one of {', '.join(CORNERS)}, not {first!r}")
    major = spec.get("major", "rows")
    if major not in ("rows", "columns"):
        raise LayoutError(f"{where}: {what}.major must be 'rows' or 'columns', not {major!r}")
    serpentine = spec.get("serpentine", False)
    if not isinstance(serpentine, bool):
        raise LayoutError(f"{where}: {what}.serpentine must be true or false")
    out = {"first": first, "major": major, "serpentine": serpentine}
    if sized:
        out["width"] = _int(spec.get("width"), f"{what}.width", where, 1, 256)
        out["height"] = _int(spec.get("height"), f"{what}.height", where, 1, 256)
    return out


def _panels(matrix: dict, size: tuple[int, int], where: str) -> list[dict]:
    """The physical panels in chain order, each with its top-left cell on the physical matrix."""
    width, height = size
    if "panels" in matrix:
        if "panel" in matrix or "tiles" in matrix:
            raise LayoutError(f"{where}: give either 'panels' (a list) or 'panel' + 'tiles', not both")
        listed = matrix["panels"]
        if not isinstance(listed, list) or not listed:
            raise LayoutError(f"{where}: 'panels' must be a non-empty list")
        panels = []
        for i, spec in enumerate(listed):
            panel = _wiring(spec, f"panels[{i}]", where, sized=True)
            panel["x"] = _int(spec.get("x"), f"panels[{i}].x", where, 0, width - 1)
            panel["y"] = _int(spec.get("y"), f"panels[{i}].y", where, 0, height - 1)
            if panel["x"] + panel["width"] > width or panel["y"] + panel["height"] > height:
                raise LayoutError(
                    f"{where}: panels[{i}] at ({panel['x']}, {panel['y']}) sized "
                    f"{panel['width']}x{panel['height']} runs off the {width}x{height} matrix"
                )
            panels.append(panel)
        return panels
    panel = _wiring(matrix.get("panel"), "panel", where, sized=True)
    tiles = _wiring(matrix.get("tiles", {}), "tiles", where, sized=False)
    pw, ph = panel["width"], panel["height"]
    if width % pw or height % ph:
        raise LayoutError(f"{where}: {pw}x{ph} panels do not tile a {width}x{height} matrix")
    columns, rows = width // pw, height // ph
    order = {}
    for ty in range(rows):
        for tx in range(columns):
            order[block_index(tx, ty, columns, rows, tiles["first"], tiles["major"], tiles["serpentine"])] = (
                tx,
                ty,
            )
    panels = []
    for t in range(columns * rows):
        tx, ty = order[t]
        first = panel["first"]
        if tiles["serpentine"]:
            line = block_index(tx, ty, columns, rows, tiles["first"], tiles["major"], False) // (
                columns if tiles["major"] == "rows" else rows
            )
            if line % 2:
                first = _opposite(first)  # NeoMatrix: zigzag tiles turn alternate lines by 180 degrees
        panels.append({**panel, "first": first, "x": tx * pw, "y": ty * ph})
    return panels


def _matrix_layout(
    data: dict, board: Board, name: str, description: str, source: str, where: str
) -> LedLayout:
    matrix = data["matrix"]
    if not isinstance(matrix, dict):
        raise LayoutError(f"{where}: 'matrix' must be an object")
    _keys(matrix, {"width", "height", "panel", "tiles", "panels", "rotation"}, f"{where}: matrix")
    width = _int(matrix.get("width"), "matrix.width", where, 1, 256)
    height = _int(matrix.get("height"), "matrix.height", where, 1, 256)
    rotation = matrix.get("rotation", 0)
    if rotation not in ROTATIONS:
        raise LayoutError(f"{where}: matrix.rotation must be one of 0, 90, 180, 270, not {rotation!r}")
    # panels live on the physical matrix: the board's grid turned by `rotation`
    _, physical = rotate((0, 0), (width, height), rotation)
    panels = _panels(matrix, physical, where)

    index_of: dict[Cell, int] = {}
    base = 0
    for panel in panels:
        for py in range(panel["height"]):
            for px in range(panel["width"]):
                cell = (panel["x"] + px, panel["y"] + py)
                if cell in index_of:
                    raise LayoutError(f"{where}: panels overlap at physical cell {cell} (duplicate pixels)")
                index_of[cell] = base + block_index(
                    px,
                    py,
                    panel["width"],
                    panel["height"],
                    panel["first"],
                    panel["major"],
                    panel["serpentine"],
                )
        base += panel["width"] * panel["height"]
    pixel_count = base

    def pixel_of(cell: Cell, what: str) -> int:
        x, y = cell
        if not (0 <= x < width and 0 <= y < height):
            raise LayoutError(f"{where}: {what} at cell ({x}, {y}) is outside the {width}x{height} matrix")
        physical_cell, _ = rotate(cell, (width, height), rotation)
        if physical_cell not in index_of:
            raise LayoutError(
                f"{where}: {what} at cell ({x}, {y}) has no LED under it (a hole between panels)"
            )
        return index_of[physical_cell]

    origin = data.get("origin", [width // 2, height // 2])
    if not (isinstance(origin, list) and len(origin) == 2):
        raise LayoutError(f"{where}: 'origin' must be [x, y]")
    ox = _int(origin[0], "origin x", where, 0, width - 1)
    oy = _int(origin[1], "origin y", where, 0, height - 1)

    nodes = {name: pixel_of((ox + x, oy + y), f"node {name}") for name, (x, y) in board.points.items()}

    status_cells = data.get("status", [])
    if not isinstance(status_cells, list):
        raise LayoutError(f"{where}: 'status' must be a list of [x, y] cells")
    status = []
    for i, cell in enumerate(status_cells):
        if not (isinstance(cell, list) and len(cell) == 2):
            raise LayoutError(f"{where}: status[{i}] must be an [x, y] cell, not {cell!r}")
        x = _int(cell[0], f"status[{i}] x", where, -(10**6))
        y = _int(cell[1], f"status[{i}] y", where, -(10**6))
        status.append(pixel_of((x, y), f"status[{i}]"))
    _no_duplicates(nodes, status, where)

    rods: tuple[int, ...] = ()
    draw_rods = data.get("rods", False)
    if not isinstance(draw_rods, bool):
        raise LayoutError(f"{where}: 'rods' must be true or false")
    if draw_rods:
        taken = set(status)
        rods = tuple(
            sorted(
                p
                for p in (
                    pixel_of((ox + x, oy + y), "a rod")
                    for x, y in rod_cells(board)
                    if 0 <= ox + x < width and 0 <= oy + y < height
                )
                if p not in taken
            )
        )

    cells: list[Cell | None] = [None] * pixel_count
    for y in range(height):
        for x in range(width):
            physical_cell, _ = rotate((x, y), (width, height), rotation)
            if physical_cell in index_of:
                cells[index_of[physical_cell]] = (x, y)
    return LedLayout(
        name,
        pixel_count,
        nodes,
        tuple(status),
        rods,
        (width, height),
        tuple(cells),
        description,
        source,
        board,
    )


def _chain_layout(
    chain: Any, board: Board, name: str, description: str, source: str, where: str
) -> LedLayout:
    if not isinstance(chain, dict):
        raise LayoutError(f"{where}: 'chain' must be an object")
    _keys(chain, {"pixels", "nodes", "status"}, f"{where}: chain")
    pixel_count = _int(chain.get("pixels"), "chain.pixels", where, 1, 100_000)
    order = chain.get("nodes")
    if not isinstance(order, list):
        raise LayoutError(f"{where}: chain.nodes must be the list of node names in chain order")
    nodes: dict[str, int] = {}
    for i, node_name in enumerate(order):
        if node_name is None:
            continue  # a chain position left dark (e.g. a spare LED)
        if node_name not in board:
            raise LayoutError(
                f"{where}: chain.nodes[{i}] = {node_name!r} is not a node of the standard board"
            )
        if node_name in nodes:
            raise LayoutError(
                f"{where}: node {node_name} appears twice (chain positions {nodes[node_name]} and {i})"
            )
        if i >= pixel_count:
            raise LayoutError(
                f"{where}: node {node_name} at chain position {i} is past the chain's {pixel_count} pixels"
            )
        nodes[node_name] = i
    missing = [n for n in board if n not in nodes]
    if missing:
        shown = ", ".join(missing[:8]) + (" ..." if len(missing) > 8 else "")
        raise LayoutError(f"{where}: {len(missing)} node(s) have no LED: {shown}")
    status_list = chain.get("status", [])
    if not isinstance(status_list, list):
        raise LayoutError(f"{where}: chain.status must be a list of chain positions")
    status = [_int(p, f"chain.status[{i}]", where, 0, pixel_count - 1) for i, p in enumerate(status_list)]
    _no_duplicates(nodes, status, where)
    spare = {i for i, node_name in enumerate(order) if node_name is None}
    used = set(nodes.values()) | set(status) | spare
    holes = [p for p in range(pixel_count) if p not in used]
    if holes:
        raise LayoutError(
            f"{where}: chain position(s) {', '.join(map(str, holes[:8]))}"
            f"{' ...' if len(holes) > 8 else ''} light nothing (holes in the chain); "
            "shorten 'pixels' or name the node"
        )
    return LedLayout(name, pixel_count, nodes, tuple(status), (), None, (), description, source, board)


def _no_duplicates(nodes: dict[str, int], status: list[int], where: str) -> None:
    owner = {}
    for node_name, pixel in nodes.items():
        if pixel in owner:
            raise LayoutError(
                f"{where}: nodes {owner[pixel]} and {node_name} share pixel {pixel} (duplicate)"
            )
        owner[pixel] = f"node {node_name}"
    for i, pixel in enumerate(status):
        if pixel in owner:
            raise LayoutError(
                f"{where}: status[{i}] uses pixel {pixel}, already used by {owner[pixel]} (duplicate)"
            )
        owner[pixel] = f"status[{i}]"
