"""The host's side of issue 44 re-run on ``gryb-companion run --sim`` (slow connections, waitress' own
refusals, file modes, bad databases): what each does, as a table.

    .venv/bin/python bench/bench_attacks_host.py [--seconds 20]

Loopback addresses (127.0.x.y) stand for phones. Each attack is a function of its own returning rows;
the figures and what each limit is for: docs/security.md, "The attacks, re-run".
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# ruff: noqa: E402

from web.security import HEADERS
from web.testing import Slowloris


def start(home: Path) -> tuple[subprocess.Popen, str]:
    """``run --sim`` with its state under ``home``, from a shell's umask (022); the process and its url."""
    (home / "tmp").mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, XDG_STATE_HOME=str(home / "xdg"), PYTHONUNBUFFERED="1", TMPDIR=str(home / "tmp"))
    old = os.umask(0o022)
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "companion.cli", "run", "--sim", "--port", "0"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    finally:
        os.umask(old)
    line = process.stdout.readline()
    if "running: open http://" not in line:
        process.wait(10)
        return process, ""
    return process, line.split("open ")[1].split("/ ")[0]


def stop(process: subprocess.Popen) -> str:
    """Its log, once stopped."""
    process.terminate()
    process.wait(10)
    return process.stderr.read()


def pair(url: str):
    """A phone paired as the simulator's own page is (on loopback it is told the code); opener, headers."""
    phone = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    headers = {"Content-Type": "application/json", "Origin": url}
    with phone.open(urllib.request.Request(url + "/api/pair/start", b"{}", headers)) as r:
        code = json.load(r)["code"]
    with phone.open(
        urllib.request.Request(url + "/api/pair", json.dumps({"code": code}).encode(), headers)
    ) as r:
        headers["X-CSRF-Token"] = json.load(r)["csrf"]
    return phone, headers


def timed(opener, url: str, data: bytes | None = None, headers: dict | None = None) -> float:
    """Seconds to a 200 answer; inf when none comes within 5 s."""
    request = urllib.request.Request(url, data, headers=headers or {}, method="POST" if data else "GET")
    began = time.monotonic()
    try:
        with opener.open(request, timeout=5) as r:
            r.read()
            if r.status != 200:
                return float("inf")
    except OSError:
        return float("inf")
    return time.monotonic() - began


def _ms(waits: list[float]) -> str:
    done = [w for w in waits if w != float("inf")]
    text = f"median {statistics.median(done) * 1000:.0f} ms, max {max(done) * 1000:.0f} ms" if done else ""
    lost = len(waits) - len(done)
    lost_text = f"{lost} unanswered in 5 s"
    return ", ".join([text] * bool(done) + [lost_text] * bool(lost)) + f" ({len(waits)} tried)"


def slow_connections(url: str, seconds: float, addresses: int = 20, per: int = 10) -> list[tuple[str, str]]:
    """Issue 44, item 2: slowloris from many addresses against a paired phone's GET and POST."""
    port = int(url.rsplit(":", 1)[1])
    phone, headers = pair(url)
    guest = urllib.request.build_opener()
    attack = Slowloris(port, [f"127.0.9.{i}" for i in range(1, addresses + 1)], per=per)
    gets, posts, guests = [], [], []
    try:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            gets.append(timed(phone, url + "/api/state"))
            body = json.dumps({"brightness": 0.3 + len(posts) % 5 / 10}).encode()
            posts.append(timed(phone, url + "/api/settings", body, headers))
            guests.append(timed(guest, url + "/api/state"))
            time.sleep(0.2)
    finally:
        attack.close()
    after = [timed(guest, url + "/api/state") for _ in range(5)]
    name = f"{addresses * per} slow connections from {addresses} addresses, {seconds:.0f} s"
    return [
        (name, f"closed by the server and opened again: {attack.reopened}"),
        ("  paired phone GET /api/state", _ms(gets)),
        ("  paired phone POST /api/settings", _ms(posts)),
        ("  guest GET /api/state during", _ms(guests)),
        ("  guest GET /api/state after", _ms(after)),
    ]


WAITRESS_REFUSALS = {
    "413 (body over the backstop)": b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n\r\n",
    "431 (head over 256 KiB)": b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"x" * 300_000 + b"\r\n\r\n",
    "400 (a header without a colon)": b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nNo colon\r\n\r\n",
    "501 (Transfer-Encoding: gzip)": b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip\r\n\r\n",
}


def waitress_refusals(url: str) -> list[tuple[str, str]]:
    """Issue 44, item 10: the security headers on what waitress answers before the app sees a request."""
    port = int(url.rsplit(":", 1)[1])
    rows = []
    for name, request in WAITRESS_REFUSALS.items():
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            try:
                s.sendall(request)
            except ConnectionResetError:
                pass
            answer = b""
            while b"\r\n\r\n" not in answer and (chunk := s.recv(65536)):
                answer += chunk
        status = answer.split(b" ", 2)[1].decode()
        head = http.client.parse_headers(io.BytesIO(answer.split(b"\r\n", 1)[1]))
        have = sum(head.get(k) == v for k, v in HEADERS.items()) + (head.get("Cache-Control") == "no-store")
        rows.append((f"waitress {name}", f"{status}, {have} of {len(HEADERS) + 1} security headers"))
    return rows


def state_modes(home: Path) -> list[tuple[str, str]]:
    """Issue 44, item 8: the state directory's and its files' modes after a run from umask 022."""
    state = home / "xdg" / "gryb-companion"
    modes = {}
    for path in [state, *sorted(state.rglob("*"))]:
        modes.setdefault(oct(path.stat().st_mode & 0o777), []).append(path.name)
    return [
        ("state after run --sim (umask 022)", "; ".join(f"{m}: {', '.join(n)}" for m, n in modes.items()))
    ]


BAD_DATABASES = {
    "0 bytes": b"",
    "garbage bytes": bytes(range(256)) * 40,
    "another program's (a games table without id)": "CREATE TABLE games (name TEXT, score INTEGER);",
    "another program's (photos)": "CREATE TABLE photos (path TEXT PRIMARY KEY, taken REAL);",
    "ours with a foreign table": "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "INSERT INTO meta VALUES ('schema', '1'); CREATE TABLE notes (text TEXT);",
    "ours with a column missing": "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "INSERT INTO meta VALUES ('schema', '1'); CREATE TABLE games (id INTEGER PRIMARY KEY);",
}


def bad_databases(tmp: Path) -> list[tuple[str, str]]:
    """Issue 44, item 6: ``run --sim`` on each database it cannot use."""
    rows = []
    for i, (name, content) in enumerate(BAD_DATABASES.items()):
        home = tmp / f"db{i}"
        db = home / "xdg" / "gryb-companion" / "companion.db"
        db.parent.mkdir(parents=True)
        if isinstance(content, bytes):
            db.write_bytes(content)
        else:
            made = sqlite3.connect(db)
            made.executescript(content)
            made.close()
        process, url = start(home)
        log = stop(process) if url else process.stderr.read()
        lines = sum("moved aside" in line for line in log.splitlines())
        aside = sorted(p.name for p in db.parent.glob("*.corrupt-*") if not p.name.endswith(("-wal", "-shm")))
        started = "started" if url else f"exit {process.returncode}"
        rows.append(
            (f"database: {name}", f"{started}; moved aside: {', '.join(aside) or '-'}; {lines} log line")
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the slow connections last")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "run"
        process, url = start(home)
        try:
            rows += slow_connections(url, args.seconds)
            rows += waitress_refusals(url)
            rows += state_modes(home)
        finally:
            stop(process)
        rows += bad_databases(Path(tmp))
    width = max(len(a) for a, _ in rows)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, {os.cpu_count()} cores")
    print(f"| {'attack'.ljust(width)} | result |")
    print(f"| {'-' * width} | --- |")
    for attack, result in rows:
        print(f"| {attack.ljust(width)} | {result} |")


if __name__ == "__main__":
    main()
