"""Two `gryb-companion run --sim` processes linked through a real Mosquitto, driven through their pages'
API: a whole game, with one board killed with SIGKILL mid-game and started again."""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from boards import wait

ROOT = Path(__file__).resolve().parents[2]


class Process:
    def __init__(self, name: str, folder: Path, url: str):
        self.name, self.folder = name, folder
        folder.mkdir(parents=True, exist_ok=True)
        self.config = folder / "config.toml"
        self.config.write_text(f'[state]\ndir = "{folder}"\n[link]\nurl = "{url}"\nboard = "{name}"\n')
        self.start()

    def start(self) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1", TMPDIR=str(self.folder))
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "companion.cli",
                "run",
                "--sim",
                "--port",
                "0",
                "--config",
                str(self.config),
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=open(self.folder / "stderr.log", "a"),  # noqa: SIM115 - kept open for the process
            text=True,
        )
        line = self.process.stdout.readline()
        assert "running: open http://" in line, (line, (self.folder / "stderr.log").read_text()[-2000:])
        self.url = line.split("open ")[1].split("/ ")[0]
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        self.headers = {"Origin": self.url}
        code = self.post("/api/pair/start", {})["code"]
        self.headers["X-CSRF-Token"] = self.post("/api/pair", {"code": code})["csrf"]

    def get(self, path: str) -> dict:
        with self.opener.open(self.url + path, timeout=10) as r:
            return json.load(r)

    def post(self, path: str, data: dict) -> dict:
        headers = {"Content-Type": "application/json", **self.headers}
        request = urllib.request.Request(self.url + path, json.dumps(data).encode(), headers, method="POST")
        with self.opener.open(request, timeout=10) as r:
            return json.load(r)

    def stop(self, sig=signal.SIGTERM) -> None:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(15)

    def mine(self) -> dict | None:
        """The state when this board's player is to move and the cloth agrees with the game."""
        state = self.get("/api/state")
        game = state["state"]
        if game["over"] or state["link"] is None or state["link"]["seats"][game["to_move"]] != self.name:
            return None
        for chore in state["table"]["chores"]:
            self.post("/api/press", {"node": chore["node"]})
        return None if state["table"]["chores"] else state

    def move(self) -> None:
        wait(lambda: self.mine() is not None, 20, f"{self.name}'s turn")
        legal = self.get("/api/legal")["legal"]
        assert self.post("/api/act", {"action": legal[0]})["ok"]


@pytest.mark.slow
def test_two_processes_play_through_their_pages_and_a_board_killed_mid_game_catches_up(tmp_path, broker):
    a, b = Process("alba", tmp_path / "alba", broker.url), Process("bran", tmp_path / "bran", broker.url)
    try:
        code = a.post("/api/link/host", {"game": "25-mens-gryb", "options": {"turn_limit": 12}})["code"]
        b.post("/api/link/join", {"match_code": code})
        wait(lambda: a.get("/api/state")["link"] and b.get("/api/state")["link"], 15, "the game begins")
        for _ in range(3):
            a.move()
            b.move()
        wait(lambda: a.get("/api/state")["ply"] == 6, 15, "bran's move at alba")  # then bran dies
        b.stop(signal.SIGKILL)
        a.move()  # while bran is dead
        b.start()
        wait(lambda: b.get("/api/state")["ply"] == a.get("/api/state")["ply"] == 7, 15, "bran caught up")
        deadline = time.monotonic() + 60
        while not (a.get("/api/state")["state"]["over"] and b.get("/api/state")["state"]["over"]):
            assert time.monotonic() < deadline, "the game did not end"
            for board in (b, a):
                if board.mine() is not None:
                    board.move()
            time.sleep(0.01)
        wait(lambda: b.get("/api/state")["state"] == a.get("/api/state")["state"], 15, "the same end")
        assert a.get("/api/state")["state"]["over"] and a.get("/api/link")["refused"] == 0
    finally:
        a.stop()
        b.stop()
