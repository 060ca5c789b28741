"""Kill the companion with SIGKILL at random points of 500 scripted actions, again and again: after
every restart no acknowledged action is lost, and the game the restarted runtime holds equals a replay
of the log (and the scripted game at that point)."""

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from companion import node as nd
from companion.engine import find
from companion.store import Store
from companion.table import _presses

ACTIONS = 500
WORKER = Path(__file__).with_name("durability_worker.py")


def scripted_game():
    rng = random.Random(2026)
    game = find("drangles")(turn_limit=10000)
    actions = []
    while len(actions) < ACTIONS:
        action = rng.choice(game.legal_actions())
        if action.kind == "place" and game.owner(action.target) == game.to_move:
            continue  # entering through your own stone takes OK as well; keep the script to presses
        game.apply(action)
        actions.append(action)
    return actions


def start(db):
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    proc = subprocess.Popen([sys.executable, str(WORKER), str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env=env)
    word, count, key = proc.stdout.readline().rstrip("\n").split(" ", 2)
    assert word == "ready"
    return proc, int(count), key


@pytest.mark.slow
def test_no_acknowledged_action_is_lost_across_sigkills(tmp_path):
    actions = scripted_game()
    expected = find("drangles")(turn_limit=10000)
    states = [expected.state_key()]
    for action in actions:
        expected.apply(action)
        states.append(expected.state_key())

    rng = random.Random(7)
    db = tmp_path / "gryb.db"
    acked = 0
    kills = 0
    while True:
        proc, restored, key = start(db)
        assert restored >= acked, f"lost acknowledged actions: {acked} acked, {restored} restored"
        store = Store(db)
        replayed = store.replay(store.current_game())
        store.close()
        assert replayed.state_key() == states[restored]
        # The restarted runtime's own game (not only the log) is that state: the restore is exact.
        assert key == repr(replayed.state_key()) == repr(states[restored])
        acked = restored
        if restored >= ACTIONS:
            proc.kill()
            proc.wait()
            break
        budget = rng.randint(1, 60)  # presses before the plug is pulled
        for action in actions[restored:]:
            for node in _presses(action):
                proc.stdin.write(nd.name(node) + "\n")
                proc.stdin.flush()
                budget -= 1
                if budget == 0:
                    break
                word, count = proc.stdout.readline().split()
                assert word == "ack"
                acked = max(acked, int(count))
            if budget == 0:
                break
        os.kill(proc.pid, signal.SIGKILL)  # mid-stream: a press may be half-handled
        proc.wait()
        kills += 1
    assert kills >= 10

