"""Logging that fits journald: one line per event, a ``<N>`` priority prefix (``journalctl -p warning``
works), the level's name on a terminal, no timestamps of our own. Never a pairing code or a session key."""

from __future__ import annotations

import logging
import os
import sys

_PRIORITY = {logging.DEBUG: 7, logging.INFO: 6, logging.WARNING: 4, logging.ERROR: 3, logging.CRITICAL: 2}


class JournalFormatter(logging.Formatter):
    def __init__(self, journal: bool):
        super().__init__()
        self.journal = journal

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage().replace("\n", " | ")
        if record.exc_info:
            message += " | " + self.formatException(record.exc_info).replace("\n", " | ")
        if self.journal:
            return f"<{_PRIORITY.get(record.levelno, 6)}>{record.name}: {message}"
        return f"{record.levelname.lower():7} {record.name}: {message}"


def to_journal(stream) -> bool:
    """Whether ``stream`` is the journal's: $JOURNAL_STREAM names it (device:inode)."""
    try:
        st = os.fstat(stream.fileno())
    except (AttributeError, OSError, ValueError):  # no file descriptor (a StringIO), or closed
        return False
    return os.environ.get("JOURNAL_STREAM") == f"{st.st_dev}:{st.st_ino}"


def setup(level: str = "info", stream=None) -> None:
    stream = stream or sys.stderr
    journal = bool(os.environ.get("JOURNAL_STREAM") or os.environ.get("INVOCATION_ID"))
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JournalFormatter(journal))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(getattr(logging, level.upper(), logging.INFO))
    logging.getLogger("waitress").setLevel(logging.WARNING)
