"""Pairing a phone: a random four-colour code shown on the board, typed on the phone (or a fresh one from
the control panel).

What pairing proves, the code's limits and the simulator's exception (its page is the board, so it is
told the code): docs/security.md, "The threat model".
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import secrets
import threading
import time
from collections import deque

from flask import Blueprint, current_app, jsonify, request, session

from companion.service.commands import ShowCode
from web.api import board_here, body, refuse
from web.security import csrf_token, end_session, is_paired, paired, start_session

bp = Blueprint("pairing", __name__)
log = logging.getLogger(__name__)

CODE_SECONDS = 120
ADDRESS_WRONG = 5  # wrong guesses from one address (an IPv6 /64) in WRONG_WINDOW: then it waits
BOARD_WRONG = 12  # wrong guesses from anywhere in WRONG_WINDOW: then only addresses without one may guess
WRONG_WINDOW = 600.0
ASK_THE_BOARD = "ask someone at the board for a fresh code (hold UNDO, then press UNDO)"


def _who(address: str) -> str:
    """Whose guesses these are: the address, or for IPv6 its /64 (a phone makes itself new ones there)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class Guesses:
    """Wrong guesses at pairing codes, by address and for the board, in the last WRONG_WINDOW seconds
    (docs/security.md, "Guessing codes"). They slow the guesser: no code dies of them, and an address
    that has guessed none (the owner, reading the board) may always try."""

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self._by: dict[str, deque[float]] = {}
        self._all: deque[float] = deque()

    def _forget(self, now: float) -> None:
        while self._all and now - self._all[0] >= WRONG_WINDOW:
            self._all.popleft()
        for who in [w for w, q in self._by.items() if not q or now - q[-1] >= WRONG_WINDOW]:
            del self._by[who]
        for q in self._by.values():
            while now - q[0] >= WRONG_WINDOW:
                q.popleft()

    def wait(self, who: str) -> float:
        """Seconds before ``who`` may guess again (0: now)."""
        now = self.clock()
        self._forget(now)
        mine = self._by.get(who)
        if not mine:
            return 0.0
        if len(mine) >= ADDRESS_WRONG:
            return mine[-ADDRESS_WRONG] + WRONG_WINDOW - now
        if len(self._all) >= BOARD_WRONG:  # many are guessing: those who guessed wrong wait their turn
            return mine[-1] + WRONG_WINDOW - now
        return 0.0

    def left(self, who: str) -> int:
        """Wrong guesses ``who`` may still make now."""
        if self.wait(who):
            return 0
        mine = len(self._by.get(who, ()))
        return 1 if len(self._all) >= BOARD_WRONG else ADDRESS_WRONG - mine

    def wrong(self, who: str) -> None:
        now = self.clock()
        self._all.append(now)
        self._by.setdefault(who, deque()).append(now)

    def clear(self) -> None:
        self._by.clear()
        self._all.clear()


class PairingCode:
    """The code the board shows: one at a time, for CODE_SECONDS, until used; wrong guesses slow their
    guesser (``Guesses``) and never end it, so nobody can spoil the code someone else is typing."""

    def __init__(self, runtime, clock=time.monotonic):
        self.runtime, self.clock = runtime, clock
        self._lock = threading.Lock()
        self._code: str | None = None
        self._expires = 0.0
        self.guesses = Guesses(clock)
        self._timer: threading.Timer | None = None

    def _start(self, fresh: bool = False):
        """Show a code for CODE_SECONDS: the one shown now (nobody may replace it), else a fresh one.
        ``fresh``: a new code whatever is shown, and every guess forgotten (the control panel's). The code
        and the future of its ShowCode: sent under the lock, so the board shows the codes in their order."""
        with self._lock:
            now = self.clock()
            if fresh or self._code is None or now > self._expires:
                self._code = "".join(secrets.choice("GRYB") for _ in range(4))
            if fresh:
                self.guesses.clear()
            code, self._expires = self._code, now + CODE_SECONDS
            if self._timer:
                self._timer.cancel()
            self._timer = threading.Timer(CODE_SECONDS, self._expire, args=(code,))
            self._timer.daemon = True
            self._timer.start()
            return code, self.runtime.submit(ShowCode(code))

    def show(self) -> str:
        """A code for a phone's Pair, on the board before this returns."""
        code, shown = self._start()
        shown.result(timeout=5)
        return code

    def fresh(self) -> None:
        """A person at the board asked for a new code (the control panel): it works at once, whatever
        was guessed. Called on the runtime's thread: the board shows it once the command at hand is done."""
        self._start(fresh=True)
        log.info("a fresh pairing code from the control panel")

    def shown(self) -> str | None:
        """The code the board shows now (None when none is, or it has expired)."""
        with self._lock:
            return self._code if self._code is not None and self.clock() <= self._expires else None

    def check(self, guess: str, address: str, counted: bool = True) -> tuple[bool, float, int]:
        """Whether ``guess`` is the code shown; else the seconds ``address`` must wait before it may guess
        again and the wrong guesses it may still make (-1: not counted, the board's own page's). A guess
        it may not make yet is not looked at."""
        who = _who(address)
        with self._lock:
            wait = self.guesses.wait(who) if counted else 0.0
            if wait:
                return False, wait, 0
            code = self._code
            if code is None or self.clock() > self._expires:
                return False, 0.0, self.guesses.left(who)
            hidden = None
            if hmac.compare_digest(guess.encode(), code.encode()):
                self._code, hidden = None, self.runtime.submit(ShowCode(None))
            elif counted:
                self.guesses.wrong(who)
            left = self.guesses.left(who) if counted else -1
        if hidden is not None:
            _wait(hidden)
        return hidden is not None, 0.0, left

    def _expire(self, code: str) -> None:
        with self._lock:
            if self._code != code:
                return
            self._code, hidden = None, self.runtime.submit(ShowCode(None))
        _wait(hidden)


def _wait(hidden) -> None:
    try:
        hidden.result(timeout=5)
    except Exception:  # the board keeps the code a little longer; the code is dead anyway
        log.warning("could not hide the pairing code")


@bp.record_once
def _setup(setup) -> None:
    setup.app.extensions["gryb-pair-code"] = PairingCode(setup.app.extensions["gryb"].runtime)


def _code() -> PairingCode:
    return current_app.extensions["gryb-pair-code"]


def _limit(what: str) -> None:
    """Five a minute from one address, asking for codes and typing them counted apart."""
    limiter = current_app.extensions["gryb-pair-limit"]
    key = f"{what} {request.remote_addr or '?'}"
    if not limiter.allow(key):
        refuse(429, f"too many {what}: wait a minute", **{"Retry-After": str(limiter.retry_after(key))})


@bp.get("/api/session")
def session_info():
    return jsonify(paired=is_paired(), csrf=csrf_token())


@bp.post("/api/pair/start")
def pair_start():
    body()
    _limit("codes asked for")
    code = _code().show()
    answer = {"shown": True, "expires_in": CODE_SECONDS}
    if board_here():
        answer["code"] = code  # the page is the board here
    return jsonify(answer)


@bp.get("/api/pair/shown")
def pair_shown():
    if not board_here():
        refuse(404, "the pairing code is shown on the board, not here")
    return jsonify(code=_code().shown())


@bp.post("/api/pair")
def pair():
    data = body("code")
    guess = data.get("code")
    if not isinstance(guess, str) or len(guess) != 4 or any(c not in "GRYB" for c in guess):
        refuse(400, "the code is four colours, each one of G, R, Y, B")
    _limit("codes tried")
    right, wait, left = _code().check(guess, request.remote_addr or "?", counted=not board_here())
    if wait:
        minutes = max(1, round(wait / 60))
        refuse(
            429,
            f"too many wrong codes from here: try again in {minutes} minute{'' if minutes == 1 else 's'}, "
            f"or {ASK_THE_BOARD}",
            **{"Retry-After": str(int(wait) + 1)},
        )
    if not right:
        if _code().shown() is None:  # used, or too old: trying it again can only fail
            refuse(403, "that code is spent (used, or over two minutes old): tap New code for a new one")
        if left < 0:  # the simulator's own page, which is told the code: nothing to slow
            refuse(403, "wrong code: try again")
        if not left:
            refuse(403, f"wrong code, and the last try from here for now: {ASK_THE_BOARD}")
        refuse(
            403, f"wrong code: try again ({left} more {'try' if left == 1 else 'tries'} from here for now)"
        )
    csrf = start_session()
    current_app.logger.info("a phone paired from %s", request.remote_addr)
    return jsonify(paired=True, csrf=csrf)


@bp.post("/api/unpair")
@paired
def unpair():
    body()
    end_session()
    return jsonify(paired=False, csrf=None)


@bp.post("/api/pair/forget-all")
@paired
def forget_all():
    body()
    current_app.extensions["gryb-pairings"].forget_all()
    session.clear()
    current_app.logger.info("every paired phone forgotten")
    return jsonify(paired=False, csrf=None)
