"""Two boards in one process, each its own runtime, store and link, on one broker; and a driver that plays
a game through them as their players would."""

from __future__ import annotations

import random
import time
from pathlib import Path

from companion.games.die import Die
from companion.link.link import Link
from companion.rules import node as nd
from companion.service import commands as c
from companion.service.commands import CommandError
from companion.service.config import Config, State
from companion.service.runtime import Runtime
from companion.service.store import Store
from companion.session import match_code
from companion.session.renderer import OFF


class Board:
    def __init__(self, name: str, folder: Path, url: str, user: str = "", password: str = ""):
        self.name, self.folder, self.url, self.user, self.password = name, folder, url, user, password
        folder.mkdir(parents=True, exist_ok=True)
        self.up()

    def up(self) -> None:
        config = Config(state=State(dir=str(self.folder)))
        self.frames, self.picture = 0, None
        self.runtime = Runtime(config, Store(self.folder / "gryb.db"), die=Die(1), frame_sink=self._shown)
        self.runtime.start()
        self.link = Link(
            self.runtime,
            url=self.url,
            board=self.name,
            secret=self.name.encode() * 4,
            joining=self.folder / "link-joining",
            user=self.user,
            password=self.password,
        )
        self.link.start()

    def _shown(self, picture) -> None:
        self.frames, self.picture = self.frames + 1, picture

    def leds(self, board: bool = False) -> dict:
        """The frame drawn last as the web app is told it: ``board``, as the LEDs show it; else as a guest
        may see it, without a pairing or match code (``leds=`` and ``board_leds=`` of the web app)."""
        picture = self.picture
        nodes = picture.nodes if board or picture.plain is None else picture.plain
        return {
            "frames": self.frames,
            "limited": False,
            "nodes": {nd.name(n): colour for n, colour in nodes.items()},
            "status": picture.status,
        }

    def down(self) -> None:
        self.link.stop()
        self.runtime.stop()
        self.runtime.store.close()

    def look(self, what=lambda s: s):
        return self.runtime.call(c.Read(what))

    def state(self) -> dict:
        return self.runtime.call(c.Snapshot())


def wait(condition, seconds: float = 10.0, what: str = "") -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds} s: {what or condition}")
        time.sleep(0.003)


def link(a: Board, b: Board, game: str, players: int = 2, options: dict | None = None) -> None:
    code = a.link.host(game, players, options)
    b.link.join(code)
    wait(lambda: a.link.game_id is not None and b.link.game_id is not None, what="both boards started")


def move(board: Board) -> str:
    """This board's player waits for its turn, clears the cloth's chores and makes the first legal move."""

    def mine() -> bool:
        state = board.state()
        game = state["state"]
        return not game["awaiting_roll"] and state["link"]["seats"][game["to_move"]] == board.name

    wait(mine, what=f"{board.name}'s turn")
    state = board.state()
    for chore in state["table"]["chores"]:
        board.runtime.call(c.Press(chore["node"]))
    state = board.state()
    assert state["link"]["seats"][state["state"]["to_move"]] == board.name
    feedback = board.runtime.call(c.Act(state["legal"][0]))
    assert feedback.ok, feedback.message
    return state["legal"][0]


def history(board: Board) -> list[str]:
    return board.look(lambda s: [str(x) for x, _ in s.game.history])


def play(boards: list[Board], seed: int, plies: int | None = None, between=None) -> None:
    """Each board's player moves when a seat of theirs is to move: the stones the other board moved put
    on the cloth first (the chores), then a random legal action; until the game is over (or ``plies``)."""
    rng = random.Random(seed)
    made, deadline = 0, time.monotonic() + 90
    while plies is None or made < plies:
        assert time.monotonic() < deadline, "the game did not end within 90 s"
        states = [b.state() for b in boards]
        if all(s["state"]["over"] for s in states):
            return
        moved = False
        for board, state in zip(boards, states):
            for chore in state["table"]["chores"]:
                board.runtime.call(c.Press(chore["node"]))
            link, game = state["link"], state["state"]
            if game["over"] or game["awaiting_roll"] or link["seats"][game["to_move"]] != board.name:
                continue
            legal = [a for a in state["legal"] if a != "roll"]
            try:
                feedback = board.runtime.call(c.Act(rng.choice(legal)))
            except CommandError:
                continue
            if not feedback.ok:
                continue  # the link's action or roll came in between: looked at again
            moved, made = True, made + 1
            if between is not None:
                between(made)
        if not moved:
            wait(lambda plies=[s["ply"] for s in states]: _moved(boards, plies), 20, "a move")


def _moved(boards: list[Board], plies: list[int]) -> bool:
    states = [b.state() for b in boards]
    return [s["ply"] for s in states] != plies or any(s["table"]["chores"] for s in states)


def read_code(nodes: dict) -> str:
    """The code a person reads off the frame's bottom level: three rows of four 3 x 5 characters."""
    by_dots = {glyph: char for char, glyph in match_code.FONT.items()}
    groups = []
    for row in range(3):
        chars = []
        for column in range(4):
            dots = tuple(
                "".join(
                    "#" if nodes.get(match_code.CELLS[(4 * column + dx, 5 * row + dy)], OFF) != OFF else "."
                    for dx in range(3)
                )
                for dy in range(5)
            )
            chars.append(by_dots[dots])
        groups.append("".join(chars))
    return "-".join(groups)
