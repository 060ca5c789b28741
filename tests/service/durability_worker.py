"""Programs for the kill-and-restart tests, driven over stdin and killed with SIGKILL by the tests.

``durability_worker.py DB SEED`` (tests/service/test_durability.py): a companion runtime on the store ``DB``
playing a script of EZ GRYB on a small board (:func:`step`): ROLL (and the passes a roll forces), moves
and placements pressed node by node, UNDO now and then (at a game's end too, which puts it back in
play), OK at a game's end (the same game again), and the stones the players are asked to lift or put
down pressed after each. Each line ``step`` plays one step of the script; once the runtime has
handled (and so committed) it, the worker prints ``ack <game id> <events in its log> <repr of the
runtime's state_key()>``. On start (once the script's game is set up) it prints the same after
``ready``: the position the runtime restored, which the test compares with a replay of the log.
Every choice of the script, and every face of the die, is drawn from the position's place in the log
(``SEED``, the game's id, its number of events), so a restarted worker goes on with the same script.

``durability_worker.py --companion SEED`` (tests/service/test_assembly.py): the program itself, exactly
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
import random
import signal
import sys
import threading
import time

from companion.games.die import Die
from companion.rules import node as nd
from companion.service import commands as c
from companion.service.config import Config
from companion.service.runtime import Runtime
from companion.service.store import Store
from companion.session.hands import _presses

GAME, OPTIONS = "ez-gryb", {"depth": 2}  # a die game whose games end within the script, with captures
UNDO_SHARE = 1 / 12  # of the steps where a move could be taken back
UNDO_AT_END = 1 / 2  # of the game ends: UNDO puts the game back in play, else OK plays it again


class ScriptedRuntime(Runtime):
    """The runtime, and one question the script asks it on its own thread (where the game may be read)."""

    def position(self) -> tuple:
        """(game id, events in its log, a copy of the game, the nodes of the stones to lift or put down)."""
        return self.call(
            c.Read(
                lambda session: (
                    session.game_id,
                    self.store.event_count(session.game_id),
                    session.game.copy(),
                    [chore.node for chore in session.hands.chores],
                )
            )
        )


def set_up(runtime: Runtime) -> None:
    """The script's game, unless it is being played (a restart): on a fresh store, after the default game."""
    snapshot = runtime.call(c.Snapshot())
    if snapshot["game"]["id"] != GAME or snapshot["game"]["settings"].get("depth") != OPTIONS["depth"]:
        runtime.call(c.NewGame(GAME, 2, OPTIONS))


def position(runtime: Runtime) -> tuple[int, int, str]:
    game_id, events, game, _ = runtime.position()
    return game_id, events, repr(game.state_key())


def step(runtime: Runtime, seed: int) -> str:
    """One step of the script: the inputs a player makes for one stored change (a roll, a move, an UNDO,
    the next game), then the stones the board asks to be lifted or put down. Returns what it was."""
    game_id, events, game, _ = runtime.position()
    rng = random.Random(f"{seed}:{game_id}:{events}")
    moved = any(a.kind not in ("roll", "pass") for a, _ in game.history)
    if game.over:
        what = "undo at the end" if moved and rng.random() < UNDO_AT_END else "again"
        _do(runtime, c.Undo() if what != "again" else c.Ok())
    elif moved and rng.random() < UNDO_SHARE:
        what = "undo"
        _do(runtime, c.Undo())
    elif game.is_chance:
        what = "roll"
        runtime.board.die = Die(rng.randrange(2**32))  # read by the runtime's thread after the call below
        _do(runtime, c.Roll())
    else:
        action = rng.choice(game.legal_actions())
        what = action.kind
        for node in _presses(action):
            _do(runtime, c.Press(nd.name(node)))
        if runtime.position()[1] == events:  # a pass, or a press that only selected: OK makes it
            _do(runtime, c.Ok())
    after = runtime.position()
    if after[:2] == (game_id, events):
        raise RuntimeError(f"the script's {what} stored nothing")
    for node in after[3]:  # the players move the stones the board asks for
        _do(runtime, c.Press(nd.name(node)))
    return what


def _do(runtime: Runtime, command: c.Command) -> None:
    feedback = runtime.call(command)
    if not feedback.ok:
        raise RuntimeError(f"{command} was refused: {feedback.message}")


def main() -> None:
    seed = int(sys.argv[2])
    runtime = ScriptedRuntime(Config(), Store(sys.argv[1]), die=Die(seed))
    runtime.start()
    set_up(runtime)
    print("ready", *position(runtime), flush=True)
    for _line in sys.stdin:
        step(runtime, seed)
        print("ack", *position(runtime), flush=True)


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
        snapshot = self.runtime.call(c.Snapshot())  # queued after the input: handled, committed, shown
        game = self.runtime.board.session.hands.game
        table = snapshot["table"]
        return {
            "version": snapshot["version"],
            "game": snapshot["game"]["id"],
            "game_id": snapshot["game_id"],
            "options": snapshot["game"]["settings"],
            "history": [str(a) for a, _ in game.history],
            "key": repr(game.state_key()),
            "over": game.over,
            "winners": list(game.winners),
            "scores": list(game.scores),
            "chores": [c["node"] for c in table["chores"]],
            "picks": table["picks"],
            "message": table["message"],
            "url": self.board.url,
        } | extra


def companion_main(seed: int) -> None:
    from companion import assembly as app
    from companion.cli import command as cli

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
