import io
import logging

import pytest

from companion.service import logs


@pytest.fixture(autouse=True)
def restore_root_logger():
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def test_journal_lines_carry_the_priority_and_stay_on_one_line(monkeypatch):
    monkeypatch.setenv("JOURNAL_STREAM", "8:1234")
    out = io.StringIO()
    logs.setup("debug", out)
    log = logging.getLogger("companion.test")
    log.warning("two\nlines")
    log.info("hello")
    try:
        raise ValueError("boom")
    except ValueError:
        log.exception("failed")
    lines = out.getvalue().splitlines()
    assert lines[:2] == ["<4>companion.test: two | lines", "<6>companion.test: hello"]
    assert lines[2].startswith("<3>companion.test: failed | Traceback") and len(lines) == 3


def test_terminal_lines_name_the_level(monkeypatch):
    monkeypatch.delenv("JOURNAL_STREAM", raising=False)
    monkeypatch.delenv("INVOCATION_ID", raising=False)
    out = io.StringIO()
    logs.setup("info", out)
    logging.getLogger("companion.test").debug("hidden")
    logging.getLogger("companion.test").error("shown")
    assert out.getvalue() == "error   companion.test: shown\n"
