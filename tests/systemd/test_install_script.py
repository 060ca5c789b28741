"""systemd/install.sh and uninstall.sh: syntax, and the dry run's commands.

The dry run prints every command it would run (shell-quoted, after a '+') and changes nothing, so
these tests run anywhere. The boot-file edits are the delicate part: the printed sed commands are
executed for real on copies of Raspberry Pi OS's config.txt and cmdline.txt, and uninstall --purge's
commands must restore the originals byte for byte.
"""

from __future__ import annotations

import fnmatch
import os
import pwd
import shlex
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from companion.service import config

ROOT = Path(__file__).resolve().parents[2]
INSTALL = ROOT / "systemd" / "install.sh"
UNINSTALL = ROOT / "systemd" / "uninstall.sh"

CONFIG_TXT = """# For more options and information see
# http://rptl.io/configtxt
# Some settings may impact device functionality. See link above for details

# Uncomment some or all of these to enable the optional hardware interfaces
#dtparam=i2c_arm=on
#dtparam=i2s=on
#dtparam=spi=on

# Enable audio (loads snd_bcm2835)
dtparam=audio=on
camera_auto_detect=1
display_auto_detect=1
auto_initramfs=1
dtoverlay=vc4-kms-v3d
max_framebuffers=2
disable_fw_kms_setup=1
arm_64bit=1
disable_overscan=1
arm_boost=1

[cm4]
otg_mode=1

[all]
"""
CMDLINE_TXT = (
    "console=serial0,115200 console=tty1 root=PARTUUID=4e639091-02 rootfstype=ext4 fsck.repair=yes "
    "rootwait quiet splash plymouth.ignore-serial-consoles cfg80211.ieee80211_regdom=GB\n"
)


@pytest.fixture
def boot(tmp_path):
    folder = tmp_path / "boot"
    folder.mkdir()
    (folder / "config.txt").write_text(CONFIG_TXT)
    (folder / "cmdline.txt").write_text(CMDLINE_TXT)
    return folder


def _script(
    path: Path, *args: str, boot: Path | None = None, check: bool = True
) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if boot is not None:
        env["GRYB_BOOT_DIR"] = str(boot)
        # A raspi-config that says SPI is off, as on a fresh Raspberry Pi OS: the scripts must not call it
        # to change anything (its do_spi edits the stock "#dtparam=spi=on" line in place, which
        # uninstall --purge could not undo).
        fake = boot.parent / "bin"
        fake.mkdir(exist_ok=True)
        (fake / "raspi-config").write_text('#!/bin/sh\n[ "$2" = get_spi ] && echo 1\n')
        (fake / "raspi-config").chmod(0o755)
        env["PATH"] = f"{fake}{os.pathsep}{env.get('PATH', '')}"
    result = subprocess.run(["bash", str(path), *args], capture_output=True, text=True, env=env, timeout=60)
    if check:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


def _commands(output: str) -> list[list[str]]:
    return [shlex.split(line[2:]) for line in output.splitlines() if line.startswith("+ ")]


def _execute(commands: list[list[str]], program: str) -> int:
    count = 0
    for words in commands:
        if words[0] == program:
            subprocess.run(words, check=True, timeout=30)
            count += 1
    return count


def _has(commands: list[list[str]], *words: str) -> bool:
    return any(c[: len(words)] == list(words) for c in commands)


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


@pytest.mark.parametrize("script", [INSTALL, UNINSTALL], ids=["install", "uninstall"])
def test_syntax_strict_mode_and_options(script):
    subprocess.run(["bash", "-n", str(script)], check=True)
    text = script.read_text()
    assert "set -euo pipefail" in text
    assert os.access(script, os.X_OK), f"{script.name} is not executable"
    assert _script(script, "--help").stdout.startswith("Usage:")
    wrong = _script(script, "--frobnicate", check=False)
    assert wrong.returncode == 2 and "unknown option" in wrong.stderr


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root to drop to nobody")
@pytest.mark.parametrize("script", [INSTALL, UNINSTALL], ids=["install", "uninstall"])
def test_refuses_to_run_for_real_without_root(script):
    result = subprocess.run(
        ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "bash", str(script)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1 and "Run as root" in result.stderr


def test_install_dry_run_prints_the_install_and_changes_nothing(boot):
    existed = {
        p: os.path.exists(p)
        for p in ("/opt/gryb-companion", "/etc/gryb-companion", "/etc/systemd/system/gryb-companion.service")
    }
    had_user = _user_exists("gryb")
    result = _script(INSTALL, "--dry-run", boot=boot)
    commands = _commands(result.stdout)
    assert "dry run" in result.stdout

    if had_user:
        assert ["usermod", "--append", "--groups", "gpio,spi,dialout", "gryb"] in commands
    else:
        add = next(c for c in commands if c[0] == "useradd")
        assert (
            add[-1] == "gryb" and "--system" in add and add[add.index("--groups") + 1] == "gpio,spi,dialout"
        )
        assert add[add.index("--shell") + 1] == "/usr/sbin/nologin"
    assert ["install", "-d", "-m", "0755", "/opt/gryb-companion"] in commands
    if not os.path.exists("/opt/gryb-companion/venv/bin/python"):
        assert ["python3", "-m", "venv", "--system-site-packages", "/opt/gryb-companion/venv"] in commands
    pip = next(c for c in commands if "pip" in c)
    assert (
        pip[-1] == "/opt/gryb-companion/build"
        and "/opt/gryb-companion/venv/bin/python" in pip
        and "install" in pip
    )
    # Built from a fresh copy, never from the checkout, whose build/lib would bring back deleted files;
    # the copy holds everything pyproject.toml packages and needs, and goes again.
    build = commands.index(pip)
    assert commands[build - 3] == ["rm", "-rf", "/opt/gryb-companion/build"]
    copy = commands[build - 1]
    assert copy[:2] == ["cp", "-R"] and copy[-1] == "/opt/gryb-companion/build/"
    assert commands[build + 1] == ["rm", "-rf", "/opt/gryb-companion/build"]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    packages = {
        p.name
        for p in ROOT.iterdir()
        if (p / "__init__.py").is_file()
        and any(
            fnmatch.fnmatch(p.name, pattern)
            for pattern in project["tool"]["setuptools"]["packages"]["find"]["include"]
        )
    }
    needed = {"pyproject.toml", project["project"]["readme"]} | packages
    assert {Path(c).name for c in copy[2:-1]} == needed and all(Path(c).parent == ROOT for c in copy[2:-1])
    if not os.path.exists("/etc/gryb-companion/config.toml"):
        assert [
            "install",
            "-m",
            "0640",
            "-o",
            "root",
            "-g",
            "gryb",
            str(ROOT / "systemd" / "config.example.toml"),
            "/etc/gryb-companion/config.toml",
        ] in commands
    assert [
        "install",
        "-m",
        "0644",
        str(ROOT / "systemd" / "gryb-companion.service"),
        "/etc/systemd/system/gryb-companion.service",
    ] in commands
    assert ["systemctl", "enable", "gryb-companion.service"] in commands
    # The order that makes a first install work: user before config (chgrp), program before start.
    user_step = next(i for i, c in enumerate(commands) if c[0] in ("useradd", "usermod"))
    unit_step = commands.index(["systemctl", "enable", "gryb-companion.service"])
    assert user_step < commands.index(pip) < unit_step

    # Nothing happened.
    assert {p: os.path.exists(p) for p in existed} == existed
    assert _user_exists("gryb") == had_user
    assert (boot / "config.txt").read_text() == CONFIG_TXT
    assert (boot / "cmdline.txt").read_text() == CMDLINE_TXT


def test_boot_edits_are_right_idempotent_and_purge_undoes_them(boot):
    commands = _commands(_script(INSTALL, "--dry-run", boot=boot).stdout)
    assert _execute(commands, "sed") == 2

    cmdline = (boot / "cmdline.txt").read_text()
    assert cmdline == CMDLINE_TXT.rstrip("\n") + " spidev.bufsiz=32768\n"  # still one line
    text = (boot / "config.txt").read_text()
    assert text.startswith(CONFIG_TXT)
    added = text[len(CONFIG_TXT) :].splitlines()
    assert added == [
        "# gryb-companion: SPI for the LEDs, at a steady clock",
        "[all]",
        "dtparam=spi=on",
        "[pi3]",
        "core_freq=250",
        "[pi02]",
        "core_freq=250",
        "[pi4]",
        "core_freq=500",
        "core_freq_min=500",
        "[all]",
    ]

    assert not _has(commands, "raspi-config")
    again = _script(INSTALL, "--dry-run", boot=boot)
    assert not _has(_commands(again.stdout), "sed"), again.stdout
    assert "spidev.bufsiz already set" in again.stdout and "core clock already set" in again.stdout

    # Without --purge the boot files stay; with it, install.sh's additions go.
    assert not _has(_commands(_script(UNINSTALL, "--dry-run", boot=boot).stdout), "sed")
    purge = _commands(_script(UNINSTALL, "--dry-run", "--purge", boot=boot).stdout)
    assert _execute(purge, "sed") == 2
    assert (boot / "cmdline.txt").read_text() == CMDLINE_TXT
    assert (boot / "config.txt").read_text() == CONFIG_TXT


def test_no_spi_leaves_the_boot_files_alone(boot):
    result = _script(INSTALL, "--dry-run", "--no-spi", boot=boot)
    commands = _commands(result.stdout)
    assert not _has(commands, "sed") and not _has(commands, "raspi-config")


def test_uninstall_dry_run_keeps_data_unless_purged(boot):
    keep = _script(UNINSTALL, "--dry-run", boot=boot)
    commands = _commands(keep.stdout)
    removed = [c[-1] for c in commands if c[:2] == ["rm", "-rf"]]
    assert "/var/lib/gryb-companion" not in removed and "/etc/gryb-companion" not in removed
    assert not _has(commands, "userdel")
    assert "kept: /var/lib/gryb-companion" in keep.stdout
    if os.path.exists("/opt/gryb-companion"):
        assert ["rm", "-rf", "/opt/gryb-companion"] in commands

    purge = _commands(_script(UNINSTALL, "--dry-run", "--purge", boot=boot).stdout)
    allowed = {
        "/opt/gryb-companion",
        "/var/lib/gryb-companion",
        "/etc/gryb-companion",
        "/etc/systemd/system/gryb-companion.service",
        "/etc/systemd/system/gryb-companion.service.d",
    }
    for c in purge:
        if c[0] == "rm":
            assert c[-1] in allowed, c
    if _user_exists("gryb"):
        assert ["userdel", "gryb"] in purge


def test_the_example_config_is_a_valid_hardware_config():
    loaded = config.load(ROOT / "systemd" / "config.example.toml")
    assert loaded.leds.driver == "ws281x" and loaded.leds.interface == "spi"
    assert loaded.serial.url.startswith("/dev/ttyACM") and loaded.panel.driver == "gpio"
    assert loaded.web.host == "0.0.0.0" and loaded.web.port == 8080
    assert loaded.state.dir == ""  # the unit's StateDirectory, the only writable place
    assert loaded.computer.time_scale == 8.0  # a Pi Zero 2 W searches as long as the levels were measured


def test_install_with_broker_sets_up_mosquitto_with_users_and_an_acl(boot):
    """The files it installs are the ones tests/link/test_broker_acl.py runs a real Mosquitto with."""
    commands = _commands(_script(INSTALL, "--dry-run", "--broker", boot=boot).stdout)
    conf = [
        "install",
        "-m",
        "0644",
        str(INSTALL.parent / "mosquitto-gryb.conf"),
        "/etc/mosquitto/conf.d/gryb.conf",
    ]
    acl = ["install", "-m", "0644", str(INSTALL.parent / "mosquitto-gryb.acl"), "/etc/mosquitto/gryb.acl"]
    assert conf in commands and acl in commands and ["systemctl", "restart", "mosquitto"] in commands
    assert not any(
        "mosquitto" in " ".join(c) for c in _commands(_script(INSTALL, "--dry-run", boot=boot).stdout)
    )
