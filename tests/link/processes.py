"""A `gryb-companion run --sim` process with a linked board's config, driven through its page's API (the
linked-board tests and the browser's whole linked game)."""

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

from link.boards import wait

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
