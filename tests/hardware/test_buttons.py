"""The button layout: the shipped file is the generator's output, follows the geometry, and bad layouts get
one clear error naming the problem."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from companion.rules import node as nd
from companion.service.geometry import board_geometry
from hardware.buttons import (
    DEFAULT_LAYOUT,
    ButtonLayout,
    ButtonLayoutError,
    default_layout,
    layout_text,
    load_button_layout,
    parse_layout,
)

BOARD = board_geometry()


def test_the_shipped_file_is_what_the_generator_writes():
    assert DEFAULT_LAYOUT.read_text(encoding="utf-8") == layout_text(default_layout(BOARD))


def test_every_node_has_one_key_and_the_maps_are_inverse():
    layout = load_button_layout(BOARD)
    assert (layout.rows, layout.cols) == (24, 16)
    assert set(layout.key_of) == {nd.name(n) for n in nd.nodes()}
    assert len(layout.node_of) == 341 and len(layout.spares()) == 384 - 341
    for name, key in layout.key_of.items():
        assert layout.node_at(*key) == name and layout.key(name) == key
    assert all(layout.node_at(*key) is None for key in layout.spares())


def test_wires_follow_the_board_geometry():
    layout = load_button_layout(BOARD)
    by_row: dict[int, set[int]] = {}
    by_col: dict[int, list[int]] = {}
    for n in nd.nodes():
        x, y = nd.position(n)
        row, col = layout.key(nd.name(n))
        assert col * 2 - 15 <= x <= col * 2 - 14  # the leaf column wire at or just left of the node
        if nd.level(n) == 4:
            assert row < 16 and y == 2 * row - 15  # leaves: a row wire per leaf row
        else:
            assert row >= 16 and 0 <= y - (4 * (row - 16) - 14) <= 2  # the level-3 line at or above it
        by_row.setdefault(row, set()).add(y)
        by_col.setdefault(col, []).append(x)
    assert all(len(ys) == 1 for row, ys in by_row.items() if row < 16)


def test_layout_json_round_trips():
    layout = default_layout(BOARD)
    again = parse_layout(json.loads(layout_text(layout)), BOARD)
    assert again.key_of == layout.key_of and again.node_of == layout.node_of


def edit(change) -> dict:
    data = json.loads(layout_text(default_layout(BOARD)))
    change(data)
    return data


def swap_in(data, row, col, value):
    data["matrix"][row][col] = value


@pytest.mark.parametrize(
    "change, problem",
    [
        (lambda d: swap_in(d, 23, 15, "GGGG"), r"node GGGG is on two keys, \(0, 0\) and \(23, 15\)"),
        (lambda d: swap_in(d, 0, 0, "GGGX"), r"key \(0, 0\): bad node name 'GGGX'"),
        (lambda d: swap_in(d, 0, 0, "ggg"), "capital letters"),
        (lambda d: swap_in(d, 0, 0, "GGGGG"), "only 4 levels deep"),
        (lambda d: swap_in(d, 0, 0, None), "1 node\\(s\\) have no key: GGGG"),
        (lambda d: swap_in(d, 0, 0, 7), r"key \(0, 0\) holds 7"),
        (lambda d: d["matrix"][3].append(None), "matrix row 3 has 17 keys but cols is 16"),
        (lambda d: d["matrix"].pop(), "matrix has 23 rows but rows is 24"),
        (lambda d: d.update(rows=40), "1..32 rows"),
        (lambda d: d.pop("matrix"), "missing 'matrix'"),
        (lambda d: d.update(format="gryb-buttons/9"), "format"),
    ],
)
def test_a_bad_layout_names_its_problem(change, problem):
    with pytest.raises(ButtonLayoutError, match=problem):
        parse_layout(edit(change), BOARD, "test layout")


def test_out_of_range_keys_are_refused():
    mapping = {key: name for name, key in default_layout(BOARD).key_of.items()}
    mapping[(24, 0)] = mapping.pop((0, 0))
    with pytest.raises(ButtonLayoutError, match=r"key \(24, 0\) for node GGGG is outside the 24x16 matrix"):
        ButtonLayout.from_mapping(24, 16, mapping, BOARD)


def test_a_smaller_board_needs_only_its_own_nodes():
    mapping = {(0, i): nd.name(n) for i, n in enumerate(nd.nodes(1))}
    layout = ButtonLayout.from_mapping(1, 8, mapping, board_geometry(1))
    assert layout.key("Y") == (0, 3) and layout.spares() == [(0, 5), (0, 6), (0, 7)]
    with pytest.raises(ButtonLayoutError, match="no key for node 'RG'"):
        layout.key("RG")


def test_unreadable_files_are_clear_errors(tmp_path):
    with pytest.raises(ButtonLayoutError, match="cannot read button layout"):
        load_button_layout(BOARD, tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{nope", encoding="utf-8")
    with pytest.raises(ButtonLayoutError, match="not valid JSON"):
        load_button_layout(BOARD, bad)


def test_the_generator_script_writes_the_same_file(tmp_path):
    target = tmp_path / "buttons.json"
    subprocess.run(
        [sys.executable, "-m", "companion.service.geometry", str(target)], check=True, capture_output=True
    )
    assert target.read_text(encoding="utf-8") == DEFAULT_LAYOUT.read_text(encoding="utf-8")


def test_the_generator_script_prints_the_layout_and_leaves_the_shipped_file_alone():
    before = DEFAULT_LAYOUT.stat().st_mtime_ns
    done = subprocess.run(
        [sys.executable, "-m", "companion.service.geometry"], check=True, capture_output=True, text=True
    )
    assert done.stdout == DEFAULT_LAYOUT.read_text(encoding="utf-8")
    assert DEFAULT_LAYOUT.stat().st_mtime_ns == before


def test_the_hardware_and_bridge_layers_import_no_game_logic():
    code = (
        "import sys, hardware.geometry, hardware.buttons, hardware.led_layout, hardware.leds,"
        " hardware.board_image, hardware.node_input, hardware.panel, hardware.selftest,"
        " firmware_bridge.client, firmware_bridge.emulator;"
        "print(sorted(m for m in sys.modules if m.startswith('companion')))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"
