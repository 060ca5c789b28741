"""A tiny sd_notify(3) client: tell systemd we are ready, alive, stopping, and what we are doing.

No dependency beyond the standard library. Under ``Type=notify`` systemd puts the address of its
notification socket in ``$NOTIFY_SOCKET``: a filesystem path (``/run/systemd/notify``) or, with a
leading ``@``, a Linux abstract-namespace name. Each message is one AF_UNIX datagram of
newline-separated ``KEY=VALUE`` assignments.

Every function returns ``True`` when the datagram was sent and ``False`` otherwise (not started by
systemd, or the socket is gone); none of them raises, so the runtime can call them unconditionally::

    notify.ready()                       # after the web server listens and the game is loaded
    period = notify.watchdog_interval()  # None when WatchdogSec= is not set
    ...                                  # in the loop, every period / 2 seconds: notify.watchdog()
    notify.stopping()                    # first thing on SIGTERM
"""

from __future__ import annotations

import os
import socket

__all__ = ["notify", "ready", "stopping", "watchdog", "status", "watchdog_interval"]


def _address(raw: str) -> str | None:
    """The ``connect()`` address for ``$NOTIFY_SOCKET``, or ``None`` if it is not a supported one."""
    if raw.startswith("@") and len(raw) > 1:
        return "\0" + raw[1:]  # abstract namespace: a leading NUL byte instead of the '@'
    if raw.startswith("/"):
        return raw
    return None  # relative paths are invalid; "vsock:" addresses (systemd >= 253) are not needed on a Pi


def notify(message: str) -> bool:
    """Send ``message`` (e.g. ``"READY=1"`` or ``"READY=1\\nSTATUS=…"``) to the service manager."""
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
    # A newline would start a new assignment: STATUS= must stay one line.
    return " ".join(str(text).splitlines())


def ready(status_text: str | None = None) -> bool:
    """Startup is finished: ``systemctl start`` returns and units ordered after us may start."""
    return notify("READY=1" if status_text is None else f"READY=1\nSTATUS={_one_line(status_text)}")


def stopping(status_text: str | None = None) -> bool:
    """Shutdown has begun (send it when SIGTERM arrives, before closing the store and the LEDs)."""
    return notify("STOPPING=1" if status_text is None else f"STOPPING=1\nSTATUS={_one_line(status_text)}")


def watchdog() -> bool:
    """Keep-alive ping for ``WatchdogSec=``: the loop is turning. Send it every ``watchdog_interval() / 2``."""
    return notify("WATCHDOG=1")


def status(text: str) -> bool:
    """A one-line status shown by ``systemctl status`` (e.g. ``"EZ GRYB, move 12, 3 players"``)."""
    return notify(f"STATUS={_one_line(text)}")


def watchdog_interval() -> float | None:
    """Seconds within which systemd expects a ``WATCHDOG=1``, or ``None`` when no watchdog applies.

    From ``$WATCHDOG_USEC``; ``$WATCHDOG_PID``, when set, must be this process (a child that inherited
    the variables must not ping for its parent). Ping at half this interval, as sd_watchdog_enabled(3)
    recommends, so one late turn of the loop does not get the service killed.
    """
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
