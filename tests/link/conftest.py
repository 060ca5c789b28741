"""A real Mosquitto on a free loopback port, with a generated config, for the linked-board tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from boards import Board
from broker import MOSQUITTO, Broker


@pytest.fixture
def broker(tmp_path):
    if not Path(MOSQUITTO).exists():
        pytest.fail("mosquitto is not installed: run .ci/bootstrap --tests")
    made = Broker(tmp_path)
    made.start()
    yield made
    made.stop()


@pytest.fixture
def boards(tmp_path, broker):
    """Two boards, Alba and Bran, on the broker; taken down after the test."""
    made = [Board("alba", tmp_path / "alba", broker.url), Board("bran", tmp_path / "bran", broker.url)]
    yield made
    for board in made:
        board.down()
