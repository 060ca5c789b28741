"""A real Mosquitto on a free loopback port, with a generated config (tests/link, the browser's Link page
test, bench/bench_link.py)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    """One mosquitto process; ``kill`` and ``start`` again keep its port and its persistence file."""

    def __init__(self, folder: Path):
        self.folder, self.port = folder, free_port()
        self.process: subprocess.Popen | None = None
        self.config = folder / "mosquitto.conf"
        # As root, mosquitto would become the user mosquitto, who cannot read the test's folder.
        self.user = "user root\n" if os.geteuid() == 0 else ""
        self.config.write_text(
            self.user + f"listener {self.port} 127.0.0.1\n"
            "allow_anonymous true\n"
            "persistence true\n"
            f"persistence_location {folder}/\n"
            "autosave_interval 1\n"
            "autosave_on_changes true\n"
            "set_tcp_nodelay true\n"  # else Nagle holds small messages back (docs/linking.md)
            f"log_dest file {folder}/mosquitto.log\n"
        )

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> None:
        with open(self.folder / "mosquitto.err", "ab") as err:  # a pipe nobody reads would fill and stop it
            self.process = subprocess.Popen([MOSQUITTO, "-c", str(self.config)], stderr=err)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError as err:
                if self.process.poll() is not None:
                    said = (self.folder / "mosquitto.err").read_text()
                    raise RuntimeError(f"mosquitto did not start: {said}") from err
                time.sleep(0.05)
        raise RuntimeError("mosquitto did not listen within 10 s")

    def stop(self, kill: bool = False) -> None:
        if self.process is not None and self.process.poll() is None:
            (self.process.kill if kill else self.process.terminate)()
            self.process.wait(10)
        self.process = None
