"""Shared test helpers."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _private_state_directory(tmp_path_factory, monkeypatch):
    """No test reads or writes the real state directory (~/.local/state/gryb-companion): the default
    Config(), the CLI and the companions the tests start each get a fresh one."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)


@pytest.fixture
def make(tmp_path):
    """A factory of started runtimes on one SQLite store in the test's folder (a second one made is a
    restart); each is stopped and its store closed after the test."""
    from companion.games.die import Die
    from companion.service.config import Config
    from companion.service.runtime import Runtime
    from companion.service.store import Store

    made = []

    def factory(config=None, *, die=None, **kwargs):
        rt = Runtime(
            config or Config(), Store(tmp_path / "gryb.db"), die=Die(1) if die is None else die, **kwargs
        )
        rt.start()
        made.append(rt)
        return rt

    yield factory
    for rt in made:
        rt.stop()
        rt.store.close()


@pytest.fixture
def searched(monkeypatch):
    """The level of every search started (by the runtime or the console), in order; the real search runs."""
    from companion import ai

    seen = []
    search = ai.search

    def watched(game, lvl, *args, **kwargs):
        seen.append(lvl)
        return search(game, lvl, *args, **kwargs)

    monkeypatch.setattr(ai, "search", watched)
    return seen
