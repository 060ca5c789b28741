"""Programs for the kill-and-restart tests, driven over stdin and killed with SIGKILL by the tests.

``durability_worker.py DB`` (tests/test_durability.py): a companion runtime on the store ``DB``.
Reads one press a line; after the runtime has accepted (and so committed) the press, prints
``ack <number of actions in the game>``. On start prints ``ready <number of actions restored>
<repr of the restored runtime's state_key()>``: the state the runtime itself holds, which the test
compares with a replay of the log.

``durability_worker.py --companion SEED`` (tests/test_app.py): the program itself, exactly
``gryb-companion run --sim --port 0`` (config, store, runtime, LEDs, emulated Pico over a pty,
gpiozero MockFactory panel, waitress, signals), with the die seeded and a finger on the hardware:
stdin lines ``tap NODE`` (the switch under a node closes, then opens: emulated Pico -> pty -> serial
bridge), ``button roll|ok|undo`` (the panel's mock pin goes low, then high) and ``report``. After
the runtime has handled the input, one JSON line on stdout reports what the board acknowledged
(the game's actions, its ``state_key()``, chores, picks...); the first such line, ``"ready": true``,
comes once the companion has started (restoring an interrupted game). The program's own output
(its "running: open ..." line and its logs) goes to stderr. End of stdin stops it with SIGTERM.
"""

import json
import os
import signal
import sys
import threading
import time

from companion.config import Config
from companion.die import Die
from companion.runtime import Runtime
from companion.store import Store


def main() -> None:
    store = Store(sys.argv[1])
    runtime = Runtime(Config(), store, die=Die(0))
    runtime.start()
    if runtime.snapshot()["game"]["id"] != "drangles":
        runtime.call("new_game", "drangles", 2, {"turn_limit": 10000})
    runtime.call("snapshot")  # the loop has handled everything before: the game is the restored one
    game = runtime.table.game
    print("ready", len(game.history), repr(game.state_key()), flush=True)
    for line in sys.stdin:
        feedback = runtime.call("press", line.strip())
        print("ack" if feedback.ok else "refused", len(runtime.table.game.history), flush=True)


# -- the whole program ----------------------------------------------------------------------------

TIMEOUT = 10.0


def _wait(condition, what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.001)


class Finger:
    """Presses on the running companion's simulated hardware, each until the runtime has handled it."""

    def __init__(self, board):
        self.board = board
        self.runtime = board.runtime

    def _version(self) -> int:
        return self.runtime.snapshot()["version"]

    def tap(self, name: str) -> None:
        sim = self.board.node_input
        before = self._version()
        sim.press(name)  # every press the runtime handles changes the snapshot (accepted or refused)
        _wait(lambda: self._version() > before, f"the runtime to handle the press on {name}")
        sim.release(name)
        _wait(lambda: name not in sim.pressed_nodes(), f"the bridge to report {name} released")

    def button(self, name: str) -> None:
        panel = self.board.panel
        pin = panel.pin(name)
        before = self._version()
        pin.drive_low()  # a pull-up input: pressed is low
        _wait(lambda: panel.is_pressed(name), f"{name} to be pressed")
        if name != "undo":  # ROLL and OK act on the press, UNDO on the release (holding it opens the menu)
            _wait(lambda: self._version() > before, f"the runtime to handle {name}")
        pin.drive_high()
        _wait(lambda: not panel.is_pressed(name), f"{name} to be released")
        if name == "undo":
            _wait(lambda: self._version() > before, f"the runtime to handle {name}")
        time.sleep(self.board.config.panel.bounce_time + 0.005)  # the next press is not taken for a bounce

    def report(self, **extra) -> dict:
        snapshot = self.runtime.call("snapshot")  # queued after the input: handled, committed, shown
        game = self.runtime.table.game
        table = snapshot["table"]
        return {"version": snapshot["version"], "game": snapshot["game"]["id"], "game_id": snapshot["game_id"],
                "options": snapshot["game"]["settings"], "history": [str(a) for a, _ in game.history],
                "key": repr(game.state_key()), "over": game.over, "winners": list(game.winners),
                "scores": list(game.scores), "chores": [c["node"] for c in table["chores"]],
                "picks": table["picks"], "message": table["message"], "url": self.board.url} | extra


def companion_main(seed: int) -> None:
    from companion import app, cli

    reports = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    sys.stdout = sys.stderr  # the program's own lines go to stderr; stdout carries the reports
    started: list = []

    class Seeded(app.Companion):
        """The program's Companion with a seeded die (so that a test's game is the same every run)."""

        def __init__(self, config, **kw):
            kw["die"] = Die(seed)
            super().__init__(config, **kw)

        def start(self) -> None:
            super().start()
            started.append(self)

    app.Companion = Seeded

    def control() -> None:
        _wait(lambda: started, "the companion to start")
        finger = Finger(started[0])

        def say(report: dict) -> None:
            reports.write(json.dumps(report) + "\n")

        say(finger.report(ready=True))
        for line in sys.stdin:
            word, _, arg = line.strip().partition(" ")
            try:
                if word == "tap":
                    finger.tap(arg)
                elif word == "button":
                    finger.button(arg)
                elif word != "report":
                    raise ValueError(f"unknown command {line.strip()!r}")
                say(finger.report())
            except Exception as err:
                say({"error": f"{type(err).__name__}: {err}"})
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=control, name="test-control", daemon=True).start()
    sys.exit(cli.main(["run", "--sim", "--port", "0"]))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--companion"]:
        companion_main(int(sys.argv[2]))
    else:
        main()
