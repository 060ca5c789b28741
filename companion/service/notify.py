"""A tiny sd_notify(3) client. Each function says whether it sent and never raises, so it may be called
whether systemd started us or not."""

from __future__ import annotations

import os
import socket

__all__ = ["notify", "ready", "stopping", "watchdog", "status", "watchdog_interval"]


def _address(raw: str) -> str | None:
    if raw.startswith("@") and len(raw) > 1:
        return "\0" + raw[1:]  # abstract namespace
    if raw.startswith("/"):
        return raw
    return None  # relative: invalid; "vsock:" (systemd >= 253): not needed on a Pi


def notify(message: str) -> bool:
    raw = os.environ.get("NOTIFY_SOCKET", "")
    address = _address(raw) if raw else None
    if address is None:
        return False
    data = message.encode("utf-8")
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sent = sock.send(data)
    except OSError:
        return False
    return sent == len(data)


def _one_line(text: str) -> str:
    # A newline would start a new assignment.
    return " ".join(str(text).splitlines())


def ready(status_text: str | None = None) -> bool:
    """Startup is finished."""
    return notify("READY=1" if status_text is None else f"READY=1\nSTATUS={_one_line(status_text)}")


def stopping(status_text: str | None = None) -> bool:
    """Shutdown has begun (first thing on SIGTERM)."""
    return notify("STOPPING=1" if status_text is None else f"STOPPING=1\nSTATUS={_one_line(status_text)}")


def watchdog() -> bool:
    """Keep-alive ping, every ``watchdog_interval() / 2``."""
    return notify("WATCHDOG=1")


def status(text: str) -> bool:
    """A one-line status for ``systemctl status``."""
    return notify(f"STATUS={_one_line(text)}")


def watchdog_interval() -> float | None:
    """Seconds systemd waits for a ping (None: no watchdog, or $WATCHDOG_PID is another process)."""
    usec = os.environ.get("WATCHDOG_USEC", "")
    try:
        value = int(usec)
    except ValueError:
        return None
    if value <= 0:
        return None
    pid = os.environ.get("WATCHDOG_PID", "")
    if pid:
        try:
            if int(pid) != os.getpid():
                return None
        except ValueError:
            return None
    return value / 1_000_000
