"""A companion runtime driven by stdin, for the kill-and-restart test (tests/test_durability.py).

Reads one press a line; after the runtime has accepted (and so committed) the press, prints
``ack <number of actions in the game>``. On start prints ``ready <number of actions restored>``.
"""

import sys

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
    print("ready", len(runtime.table.game.history), flush=True)
    for line in sys.stdin:
        feedback = runtime.call("press", line.strip())
        print("ack" if feedback.ok else "refused", len(runtime.table.game.history), flush=True)


if __name__ == "__main__":
    main()
