"""LED layouts: the shipped files, the panel arithmetic (WLED / NeoMatrix options), validation."""

from __future__ import annotations

import copy
import json

import pytest

from companion.rules import node as nd
from companion.service.geometry import board_geometry
from hardware.led_layout import (
    LayoutError,
    block_index,
    layout_from_dict,
    load_layout,
    rod_cells,
    shipped_layouts,
)

ALL_NODES = [nd.name(n) for n in nd.nodes(4)]
BOARD = board_geometry()


def panels_doc(**matrix):
    with open(load_layout("panels-32x32", BOARD).source) as f:
        doc = json.load(f)
    doc["matrix"].update(matrix)
    return doc


def chain_doc():
    with open(load_layout("chain-341", BOARD).source) as f:
        return json.load(f)


# -- the shipped layouts ------------------------------------------------------------------------------


def test_shipped_names():
    assert shipped_layouts() == ["chain-341", "panels-32x32"]


def test_default_32x32_puts_node_xy_at_pixel_x16_y16():
    layout = load_layout("panels-32x32", BOARD)
    assert layout.pixel_count == 1024 and layout.size == (32, 32)
    assert len(layout.nodes) == 341 and len(set(layout.nodes.values())) == 341
    for n in nd.nodes(4):
        x, y = nd.position(n)
        assert layout.cells[layout.nodes[nd.name(n)]] == (x + 16, y + 16)


def test_default_32x32_wiring_serpentine_panels_tiled_in_rows():
    layout = load_layout("panels-32x32", BOARD)
    cells = layout.cells
    assert cells[0] == (0, 0) and cells[15] == (15, 0)
    assert cells[16] == (15, 1) and cells[31] == (0, 1)  # serpentine: the second row runs back
    assert cells[255] == (0, 15)  # last LED of the first panel
    assert cells[256] == (16, 0)  # second panel: top right
    assert cells[512] == (0, 16) and cells[768] == (16, 16)  # then bottom left, bottom right
    assert layout.nodes["0"] == 768  # the head node (0, 0) -> cell (16, 16)


def test_status_pixels_in_the_spare_top_row():
    layout = load_layout("panels-32x32", BOARD)
    assert len(layout.status) == 8
    rows = {layout.cells[p][1] for p in layout.status}
    assert rows == {0}  # row 0 holds no node: y + 16 >= 1
    assert [layout.cells[p][0] for p in layout.status] == [1, 2, 3, 4, 28, 29, 30, 31]
    assert not set(layout.status) & set(layout.nodes.values())


def test_rods_lie_between_nodes_on_quadrangle_sides():
    layout = load_layout("panels-32x32", BOARD)
    rods = set(layout.rods)
    assert rods and not rods & set(layout.nodes.values()) and not rods & set(layout.status)
    # the top-level quadrangle G(-8,-8) R(8,-8): its top side runs through (x, -8), x strictly between
    for x in range(-7, 8):
        assert layout.cells.index((x + 16, 8)) in rods
    assert (0, -8) in rod_cells(BOARD) and (0, 0) not in rod_cells(BOARD)


def test_chain_341_follows_its_file():
    layout = load_layout("chain-341", BOARD)
    assert layout.pixel_count == 349 and layout.size is None
    order = chain_doc()["chain"]["nodes"]
    assert [layout.node_at(i) for i in range(341)] == order
    assert layout.status == tuple(range(341, 349))
    assert sorted(layout.nodes) == sorted(ALL_NODES)


def test_load_by_path_and_unknown_name(tmp_path):
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(chain_doc()))
    assert load_layout(path, BOARD).nodes == load_layout("chain-341", BOARD).nodes
    assert load_layout(str(path), BOARD).name == "chain-341"
    with pytest.raises(LayoutError, match="no LED layout 'nope'.*panels-32x32"):
        load_layout("nope", BOARD)


def test_pixel_lookup_names_unknown_nodes():
    layout = load_layout("panels-32x32", BOARD)
    assert layout.pixel("G") == layout.nodes["G"]
    with pytest.raises(LayoutError, match="'X' is not a node"):
        layout.pixel("X")


# -- the panel options ----------------------------------------------------------------------------------


@pytest.mark.parametrize("first", ["top-left", "top-right", "bottom-left", "bottom-right"])
@pytest.mark.parametrize("major", ["rows", "columns"])
@pytest.mark.parametrize("serpentine", [False, True])
def test_block_index_is_a_bijection_starting_at_the_first_corner(first, major, serpentine):
    w, h = 4, 3
    indices = {block_index(x, y, w, h, first, major, serpentine): (x, y) for y in range(h) for x in range(w)}
    assert sorted(indices) == list(range(w * h))
    corner = (0 if first.endswith("left") else w - 1, 0 if first.startswith("top") else h - 1)
    assert indices[0] == corner
    # consecutive LEDs are neighbours when serpentine (the strip never jumps back)
    if serpentine:
        for i in range(w * h - 1):
            (x0, y0), (x1, y1) = indices[i], indices[i + 1]
            assert abs(x0 - x1) + abs(y0 - y1) == 1


def test_block_index_known_values():
    # 4 wide, rows, serpentine from top-left:  0 1 2 3 / 7 6 5 4
    assert [block_index(x, 1, 4, 2, "top-left", "rows", True) for x in range(4)] == [7, 6, 5, 4]
    # columns, progressive, from bottom-left: column 0 runs upwards
    assert [block_index(0, y, 4, 2, "bottom-left", "columns", False) for y in range(2)] == [1, 0]


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_rotation_keeps_every_node_on_its_own_pixel(rotation):
    layout = layout_from_dict(panels_doc(rotation=rotation), BOARD)
    assert len(set(layout.nodes.values())) == 341
    assert sorted(c for c in layout.cells if c) == [(x, y) for x in range(32) for y in range(32)]


def test_rotation_180_starts_the_chain_at_the_bottom_right():
    assert layout_from_dict(panels_doc(rotation=180), BOARD).cells[0] == (31, 31)
    assert layout_from_dict(panels_doc(rotation=90), BOARD).cells[0] == (31, 0)  # matrix turned clockwise


def test_serpentine_tiles_turn_alternate_panel_rows_like_neomatrix():
    doc = panels_doc(tiles={"first": "top-left", "major": "rows", "serpentine": True})
    layout = layout_from_dict(doc, BOARD)
    # panel order: top-left, top-right, then bottom-RIGHT, bottom-left; the bottom panels turned 180 degrees
    assert layout.cells[256] == (16, 0)
    assert layout.cells[512] == (31, 31)
    assert layout.cells[768] == (15, 31)


def test_explicit_wled_panel_list():
    doc = panels_doc()
    del doc["matrix"]["panel"], doc["matrix"]["tiles"]
    doc["matrix"]["panels"] = [
        {
            "x": 16,
            "y": 16,
            "width": 16,
            "height": 16,
            "first": "bottom-right",
            "major": "columns",
            "serpentine": True,
        },
        {"x": 0, "y": 16, "width": 16, "height": 16},
        {"x": 0, "y": 0, "width": 16, "height": 16},
        {"x": 16, "y": 0, "width": 16, "height": 16},
    ]
    layout = layout_from_dict(doc, BOARD)
    assert layout.cells[0] == (31, 31) and layout.cells[1] == (31, 30) and layout.cells[16] == (30, 16)
    assert layout.cells[256] == (0, 16)


# -- validation ---------------------------------------------------------------------------------------------


def _broken(mutate, source="panels"):
    doc = panels_doc() if source == "panels" else chain_doc()
    doc = copy.deepcopy(doc)
    mutate(doc)
    return doc


@pytest.mark.parametrize(
    "mutate,message",
    [
        (lambda d: d["status"].append([1, 0]), "status\\[8\\] uses pixel .* already used by status\\[0\\]"),
        (lambda d: d["status"].append([16, 16]), "already used by node 0"),
        (
            lambda d: d["status"].append([40, 0]),
            "status\\[8\\] at cell \\(40, 0\\) is outside the 32x32 matrix",
        ),
        (lambda d: d.update(origin=[20, 16]), "node .* is outside the 32x32 matrix"),
        (lambda d: d["matrix"]["panel"].update(width=15), "15x16 panels do not tile a 32x32 matrix"),
        (lambda d: d["matrix"]["panel"].update(first="middle"), "panel.first must be one of"),
        (lambda d: d["matrix"].update(rotation=45), "rotation must be one of 0, 90, 180, 270"),
        (lambda d: d.update(colour="red"), "unknown key\\(s\\) 'colour'"),
        (lambda d: d.update(format="v0"), "'format' must be"),
        (lambda d: d["matrix"]["panel"].update(serpentine="yes"), "serpentine must be true or false"),
    ],
)
def test_broken_matrix_layouts_name_the_problem(mutate, message):
    with pytest.raises(LayoutError, match=message):
        layout_from_dict(_broken(mutate), BOARD, source="test.json")


def test_overlapping_and_missing_panels():
    doc = panels_doc()
    del doc["matrix"]["panel"], doc["matrix"]["tiles"]
    doc["matrix"]["panels"] = [
        {"x": 0, "y": 0, "width": 16, "height": 16},
        {"x": 8, "y": 0, "width": 16, "height": 16},
    ]
    with pytest.raises(LayoutError, match="panels overlap at physical cell \\(8, 0\\)"):
        layout_from_dict(doc, BOARD)
    doc["matrix"]["panels"] = [{"x": 0, "y": 0, "width": 16, "height": 16}]
    with pytest.raises(LayoutError, match="has no LED under it \\(a hole between panels\\)"):
        layout_from_dict(doc, BOARD)
    doc["matrix"]["panels"] = [{"x": 20, "y": 0, "width": 16, "height": 16}]
    with pytest.raises(LayoutError, match="runs off the 32x32 matrix"):
        layout_from_dict(doc, BOARD)


@pytest.mark.parametrize(
    "mutate,message",
    [
        (lambda d: d["chain"]["nodes"].__setitem__(5, "G"), "node G appears twice"),
        (
            lambda d: d["chain"]["nodes"].__setitem__(5, "GGGGG"),
            "'GGGGG' is not a node of the standard board",
        ),
        (lambda d: d["chain"]["nodes"].pop(), "1 node\\(s\\) have no LED"),
        (lambda d: d["chain"].update(pixels=351), "chain position\\(s\\) 349, 350 light nothing \\(holes"),
        (lambda d: d["chain"]["status"].__setitem__(0, 349), "chain.status\\[0\\] = 349 is out of range"),
        (
            lambda d: d["chain"]["status"].__setitem__(0, 3),
            "status\\[0\\] uses pixel 3, already used by node",
        ),
        (lambda d: d["chain"].update(pixels=300), "past the chain's 300 pixels"),
        (lambda d: d.update(matrix={}), "exactly one of 'matrix' or 'chain'"),
    ],
)
def test_broken_chain_layouts_name_the_problem(mutate, message):
    with pytest.raises(LayoutError, match=message):
        layout_from_dict(_broken(mutate, "chain"), BOARD)


def test_a_dark_spare_position_in_a_chain_is_allowed():
    doc = chain_doc()
    doc["chain"]["nodes"].insert(0, None)
    doc["chain"].update(pixels=350, status=list(range(342, 350)))
    layout = layout_from_dict(doc, BOARD)
    assert layout.node_at(0) is None and layout.nodes[doc["chain"]["nodes"][1]] == 1


def test_unreadable_files(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    with pytest.raises(LayoutError, match="is not valid JSON"):
        load_layout(bad, BOARD)
    bad.write_text("[]")
    with pytest.raises(LayoutError, match="must hold a JSON object"):
        load_layout(bad, BOARD)
