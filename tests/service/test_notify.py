"""companion.service.notify against real AF_UNIX datagram sockets: a path in a temporary folder and an
abstract-namespace name, exactly as systemd binds them. The bytes received are checked one by one."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from companion.service import notify

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def path_socket(monkeypatch):
    # A short folder: sun_path holds at most 107 bytes, and pytest's tmp_path can be long.
    with tempfile.TemporaryDirectory(prefix="sdn-") as folder:
        path = os.path.join(folder, "notify")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(path)
        sock.settimeout(2)
        monkeypatch.setenv("NOTIFY_SOCKET", path)
        yield sock
        sock.close()


@pytest.fixture
def abstract_socket(monkeypatch):
    name = f"gryb-notify-test-{os.getpid()}-{os.urandom(4).hex()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    sock.settimeout(2)
    monkeypatch.setenv("NOTIFY_SOCKET", "@" + name)
    yield sock
    sock.close()


def test_not_under_systemd_sends_nothing(monkeypatch):
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert notify.notify("READY=1") is False
    assert notify.ready() is False
    assert notify.watchdog() is False
    assert notify.stopping() is False
    assert notify.status("idle") is False


@pytest.mark.parametrize("value", ["", "relative/notify", "@", "vsock:2:1234"])
def test_unsupported_addresses_are_refused(monkeypatch, value):
    monkeypatch.setenv("NOTIFY_SOCKET", value)
    assert notify.notify("READY=1") is False


def test_a_socket_nobody_listens_on_is_false_not_an_exception(monkeypatch):
    with tempfile.TemporaryDirectory(prefix="sdn-") as folder:
        monkeypatch.setenv("NOTIFY_SOCKET", os.path.join(folder, "gone"))
        assert notify.ready() is False
        # Bound, then closed: the path exists but the connection is refused.
        path = os.path.join(folder, "closed")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(path)
        sock.close()
        monkeypatch.setenv("NOTIFY_SOCKET", path)
        assert notify.watchdog() is False


def test_each_helper_sends_its_exact_bytes_to_a_path_socket(path_socket):
    assert notify.ready() is True
    assert path_socket.recv(4096) == b"READY=1"
    assert notify.watchdog() is True
    assert path_socket.recv(4096) == b"WATCHDOG=1"
    assert notify.stopping() is True
    assert path_socket.recv(4096) == b"STOPPING=1"
    assert notify.status("EZ GRYB, move 12") is True
    assert path_socket.recv(4096) == b"STATUS=EZ GRYB, move 12"
    assert notify.notify("RELOADING=1\nMONOTONIC_USEC=5") is True
    assert path_socket.recv(4096) == b"RELOADING=1\nMONOTONIC_USEC=5"


def test_abstract_namespace_address(abstract_socket):
    assert notify.ready("board lit, web on :8080") is True
    assert abstract_socket.recv(4096) == b"READY=1\nSTATUS=board lit, web on :8080"
    assert notify.watchdog() is True
    assert abstract_socket.recv(4096) == b"WATCHDOG=1"


def test_status_stays_one_line_and_utf8(path_socket):
    assert notify.status("Spieler Jörg\nzieht") is True
    assert path_socket.recv(4096) == "STATUS=Spieler Jörg zieht".encode()
    assert notify.stopping("saving\r\nbye") is True
    assert path_socket.recv(4096) == b"STOPPING=1\nSTATUS=saving bye"


def test_a_child_process_notifies_like_the_service_would(path_socket):
    env = dict(os.environ, NOTIFY_SOCKET=os.environ["NOTIFY_SOCKET"], PYTHONPATH=str(ROOT))
    code = (
        "from companion.service import notify; "
        "raise SystemExit(0 if notify.ready() and notify.watchdog() else 1)"
    )
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=30)
    assert path_socket.recv(4096) == b"READY=1"
    assert path_socket.recv(4096) == b"WATCHDOG=1"


def test_watchdog_interval(monkeypatch):
    monkeypatch.delenv("WATCHDOG_USEC", raising=False)
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    assert notify.watchdog_interval() is None
    monkeypatch.setenv("WATCHDOG_USEC", "30000000")  # WatchdogSec=30
    assert notify.watchdog_interval() == 30.0
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    assert notify.watchdog_interval() == 30.0
    monkeypatch.setenv("WATCHDOG_USEC", "1500")
    assert notify.watchdog_interval() == pytest.approx(0.0015)


@pytest.mark.parametrize(
    "usec, pid",
    [
        ("0", None),
        ("-5", None),
        ("abc", None),
        ("", None),
        ("30000000", "1"),  # meant for another process (e.g. our parent)
        ("30000000", "x"),
    ],
)
def test_watchdog_interval_off(monkeypatch, usec, pid):
    monkeypatch.setenv("WATCHDOG_USEC", usec)
    if pid is None:
        monkeypatch.delenv("WATCHDOG_PID", raising=False)
    else:
        monkeypatch.setenv("WATCHDOG_PID", pid)
    assert notify.watchdog_interval() is None
