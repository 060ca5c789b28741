"""The hardened unit file: systemd itself checks it (verify, security exposure), and the sandbox's
riskiest promise -- Python runs with no writable+executable memory -- is tried for real.

systemd-analyze is needed (Debian: package systemd). When it is missing and the tests run as root,
they install it with apt-get; otherwise they fail with the command to run.
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "gryb-companion.service"
EXEC = "/opt/gryb-companion/venv/bin/gryb-companion"
MAX_EXPOSURE = 2.5


def _install_systemd_analyze() -> str:
    """The path of systemd-analyze, installing Debian's systemd package when root and it is missing."""
    found = shutil.which("systemd-analyze") or (
        os.access("/usr/bin/systemd-analyze", os.X_OK) and "/usr/bin/systemd-analyze"
    )
    if found:
        return found
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        pytest.fail(
            "systemd-analyze is missing: install it with `sudo apt-get install -y systemd` "
            "(these tests install it themselves only when run as root on Debian)"
        )
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "systemd"]
    if subprocess.run(install, env=env, capture_output=True).returncode != 0:
        subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True, check=False)
        subprocess.run(install, env=env, capture_output=True, check=True)
    found = shutil.which("systemd-analyze")
    if not found:
        pytest.fail("apt-get installed systemd but systemd-analyze is still not on PATH")
    return found


@pytest.fixture(scope="module")
def analyze() -> str:
    return _install_systemd_analyze()


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=60)


def _runnable_copy(tmp_path: Path, text: str | None = None) -> Path:
    """The unit under its own name with ExecStart pointing at /bin/true, which exists everywhere.

    The real binary lives in /opt/gryb-companion/venv, which only install.sh creates; the user gryb
    does not matter to verify. Everything else is left as shipped.
    """
    text = UNIT.read_text(encoding="utf-8") if text is None else text
    assert f"ExecStart={EXEC} " in text
    copy = tmp_path / UNIT.name
    copy.write_text(text.replace(f"ExecStart={EXEC} ", "ExecStart=/bin/true "), encoding="utf-8")
    return copy


def _directives(text: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(("#", ";", "[")) and "=" in line:
            key, value = line.split("=", 1)
            found.setdefault(key.strip(), []).append(value.strip())
    return found


def test_verify_reports_nothing(analyze, tmp_path):
    result = _run(analyze, "verify", "--man=no", "--generators=no", str(_runnable_copy(tmp_path)))
    output = (result.stdout + result.stderr).strip()
    assert result.returncode == 0, output
    ours = [line for line in output.splitlines() if "gryb-companion" in line]
    assert ours == [], "\n".join(ours)


def test_verify_of_the_shipped_file_only_misses_the_installed_binary(analyze):
    result = _run(analyze, "verify", "--man=no", "--generators=no", str(UNIT))
    lines = [line for line in (result.stdout + result.stderr).splitlines() if "gryb-companion" in line]
    if os.access(EXEC, os.X_OK):
        assert lines == []
    else:
        assert lines and all(f"Command {EXEC} is not executable" in line for line in lines), lines


def test_verify_would_catch_a_mistake(analyze, tmp_path):
    # The control: the same check reports a misspelt directive and a bad value.
    broken = UNIT.read_text(encoding="utf-8").replace("ProtectSystem=strict", "ProtectSystem=strcit")
    broken = broken.replace("RestrictRealtime=yes", "RestrictRealTime=yes")
    result = _run(analyze, "verify", "--man=no", "--generators=no", str(_runnable_copy(tmp_path, broken)))
    output = result.stdout + result.stderr
    assert "strcit" in output and "RestrictRealTime" in output, output


def test_exposure_score(analyze):
    result = _run(analyze, "security", "--offline=true", f"--threshold={int(MAX_EXPOSURE * 10)}", str(UNIT))
    output = result.stdout + result.stderr
    match = re.search(r"Overall exposure level for gryb-companion\.service: (\d+(?:\.\d+)?)", output)
    assert match, output
    score = float(match.group(1))
    assert score <= MAX_EXPOSURE, output
    assert result.returncode == 0, output  # --threshold agrees


def test_the_decisions_the_runtime_and_the_pi_depend_on():
    d = _directives(UNIT.read_text(encoding="utf-8"))
    assert d["Type"] == ["notify"] and d["NotifyAccess"] == ["main"]
    assert d["WatchdogSec"] == ["30"] and d["Restart"] == ["on-failure"]
    assert d["ExecStart"] == [f"{EXEC} run --config /etc/gryb-companion/config.toml"]
    assert d["User"] == ["gryb"] and d["SupplementaryGroups"] == ["gpio spi dialout"]
    assert d["StateDirectory"] == ["gryb-companion"] and d["UMask"] == ["0077"]
    assert d["CapabilityBoundingSet"] == [""] and d["AmbientCapabilities"] == [""]
    assert d["DevicePolicy"] == ["closed"]
    allowed = " ".join(d["DeviceAllow"])
    assert "/dev/mem" not in allowed, "PWM LEDs belong in a drop-in, not in the shipped unit"
    for device in ("char-spi rw", "char-ttyACM rw", "char-gpiochip rw", "/dev/gpiomem rw"):
        assert device in d["DeviceAllow"]
    # Board detection reads /proc/cpuinfo and /proc/device-tree; the groups must keep granting devices.
    assert d.get("ProcSubset", ["all"]) == ["all"]
    assert d.get("PrivateUsers", ["no"]) == ["no"]
    assert d.get("PrivateDevices", ["no"]) == ["no"]
    # The page serves the LAN, which may use global IPv6 addresses.
    assert "IPAddressDeny" not in d


def test_a_broken_config_is_not_restarted_into_the_start_limit(tmp_path):
    """The exit status of a broken config is the one the unit does not restart: five quick failures would
    otherwise hit StartLimitBurst, and systemd would refuse the owner's `systemctl restart` after the fix."""
    d = _directives(UNIT.read_text(encoding="utf-8"))
    bad = tmp_path / "config.toml"
    bad.write_text("[leds]\nbrightnes = 0.4\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "companion.cli", "run", "--config", str(bad), "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert "leds.brightnes" in result.stderr
    assert d["RestartPreventExitStatus"] == [str(result.returncode)]
    assert result.returncode != 0 and d["Restart"] == ["on-failure"]  # every other failure still restarts


def _mdwe_available() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    probe = (
        "import ctypes, sys; libc = ctypes.CDLL(None, use_errno=True); "
        "sys.exit(0 if libc.prctl(65, 1, 0, 0, 0) == 0 else 1)"
    )
    return subprocess.run([sys.executable, "-c", probe], capture_output=True).returncode == 0


_UNDER_MDWE = r"""
import mmap
try:
    mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    raise SystemExit("writable+executable memory was allowed: the guard is not on")
except PermissionError:
    pass
import ctypes
compare = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int))
numbers = (ctypes.c_int * 5)(5, 1, 4, 2, 3)
ctypes.CDLL(None).qsort(numbers, 5, ctypes.sizeof(ctypes.c_int), compare(lambda a, b: a[0] - b[0]))
assert list(numbers) == [1, 2, 3, 4, 5]
import sqlite3, tempfile, os
with tempfile.TemporaryDirectory() as folder:
    db = sqlite3.connect(os.path.join(folder, "x.db"))
    db.execute("PRAGMA journal_mode=WAL"); db.execute("CREATE TABLE t (a)"); db.commit(); db.close()
import flask, waitress, serial, gpiozero
import companion.service.runtime, companion.service.store, companion.service.notify, web
from companion.cli import command as cli
cli.main(["play", "ez-gryb", "--random", "20", "--seed", "1"])
print("ok")
"""


def _deny_write_execute():  # runs in the child between fork and exec; inherited across exec
    if ctypes.CDLL(None, use_errno=True).prctl(65, 1, 0, 0, 0) != 0:  # PR_SET_MDWE, REFUSE_EXEC_GAIN
        os._exit(99)


@pytest.mark.skipif(not _mdwe_available(), reason="kernel without PR_SET_MDWE (Linux < 6.3)")
def test_python_and_the_companion_run_without_writable_executable_memory():
    # MemoryDenyWriteExecute=yes is a seccomp filter; the kernel's PR_SET_MDWE enforces the same rule
    # (no W+X mapping, no exec added to a mapping), and it can be tried without a running systemd.
    result = subprocess.run(
        [sys.executable, "-c", _UNDER_MDWE],
        preexec_fn=_deny_write_execute,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().endswith("ok")


def test_the_drop_ins_of_install_md_verify_with_the_unit(analyze, tmp_path):
    """docs/install.md's drop-ins (LEDs on PWM, an address filter), each appended to the unit as systemd
    would merge it: verify reports nothing, so a block copied from the docs starts."""
    import re

    docs = (UNIT.parents[1] / "docs" / "install.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```ini\n(.*?)```", docs, flags=re.S)
    assert len(blocks) == 2 and all(b.startswith("[Service]\n") for b in blocks)
    for i, block in enumerate(blocks):
        where = tmp_path / str(i)
        where.mkdir()
        unit = _runnable_copy(where, UNIT.read_text(encoding="utf-8") + "\n" + block)
        result = _run(analyze, "verify", "--man=no", "--generators=no", str(unit))
        assert not (result.stdout + result.stderr).strip(), (block, result.stdout + result.stderr)
