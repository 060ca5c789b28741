"""What the games' scenario tests share: a script of actions played in order, the legal actions as the
notation writes them, and a refusal that must give its reason and leave the game exactly as it was."""

from __future__ import annotations

import pytest

from companion.games.engine import IllegalAction


def play(game, script: str):
    """Apply the actions of ``script`` (notation, space-separated) to ``game`` in order; return the game."""
    for text in script.split():
        game.apply(text)
    return game


def names(actions) -> set[str]:
    """Actions as the notation writes them."""
    return {str(a) for a in actions}


def refused(game, text: str, reason: str) -> str:
    """Assert that ``game`` refuses the action ``text`` with ``reason`` in its message and changes nothing;
    return the whole message."""
    before = game.state_key()
    with pytest.raises(IllegalAction) as err:
        game.apply(text)
    assert reason in err.value.reason, (text, err.value.reason)
    assert game.state_key() == before
    return err.value.reason
