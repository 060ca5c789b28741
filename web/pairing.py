"""Pairing a phone: a random four-colour code shown on the board, typed on the phone.

What pairing proves, the code's limits and the simulator's exception (its page is the board, so it is
told the code): docs/security.md, "The threat model".
"""

from __future__ import annotations

import hmac
import logging
import secrets
import threading
import time
from collections import deque

from flask import Blueprint, current_app, jsonify, request, session

from companion.service.commands import ShowCode
from web.api import board_here, body, refuse, web
from web.security import csrf_token, end_session, is_paired, paired, start_session

bp = Blueprint("pairing", __name__)
log = logging.getLogger(__name__)

CODE_SECONDS = 120
MAX_WRONG = 3
BOARD_WRONG = 12  # wrong guesses from anywhere in WRONG_WINDOW seconds: then no new code for a while
WRONG_WINDOW = 600.0


class PairingCode:
    def __init__(self, runtime, clock=time.monotonic):
        self.runtime, self.clock = runtime, clock
        self._lock = threading.Lock()
        self._code: str | None = None
        self._expires = 0.0
        self._wrong = 0
        self._misses: deque[float] = deque()  # when the board's recent wrong guesses were made
        self._timer: threading.Timer | None = None

    def locked_for(self) -> float:
        """Seconds until a new code may be shown (0: now)."""
        with self._lock:
            now = self.clock()
            while self._misses and now - self._misses[0] >= WRONG_WINDOW:
                self._misses.popleft()
            return self._misses[0] + WRONG_WINDOW - now if len(self._misses) >= BOARD_WRONG else 0.0

    def start(self) -> str:
        """Show a code for CODE_SECONDS: the one shown now (nobody may replace it), else a fresh one."""
        with self._lock:
            now = self.clock()
            if self._code is None or now > self._expires:
                self._code, self._wrong = "".join(secrets.choice("GRYB") for _ in range(4)), 0
            code, self._expires = self._code, now + CODE_SECONDS
            if self._timer:
                self._timer.cancel()
            self._timer = threading.Timer(CODE_SECONDS, self._expire, args=(code,))
            self._timer.daemon = True
            self._timer.start()
        self.runtime.call(ShowCode(code), timeout=5)
        return code

    def shown(self) -> str | None:
        """The code the board shows now (None when none is, or it has expired)."""
        with self._lock:
            return self._code if self._code is not None and self.clock() <= self._expires else None

    def tries_left(self) -> int:
        """Wrong guesses the code shown now still takes before it dies (0: none is shown)."""
        with self._lock:
            if self._code is None or self.clock() > self._expires:
                return 0
            return min(MAX_WRONG - self._wrong, BOARD_WRONG - len(self._misses))

    def check(self, guess: str) -> bool:
        with self._lock:
            code = self._code
            if code is None or self.clock() > self._expires:
                return False
            if hmac.compare_digest(guess.encode(), code.encode()):
                self._code = None
                right = True
            else:
                self._wrong += 1
                self._misses.append(self.clock())
                if self._wrong >= MAX_WRONG or len(self._misses) >= BOARD_WRONG:
                    self._code = None
                right = False
            gone = self._code is None
        if gone:
            self._hide()
        return right

    def _expire(self, code: str) -> None:
        with self._lock:
            if self._code != code:
                return
            self._code = None
        self._hide()

    def _hide(self) -> None:
        try:
            self.runtime.call(ShowCode(None), timeout=5)
        except Exception:  # the board keeps the code a little longer; the code is dead anyway
            log.warning("could not hide the pairing code")


def _code() -> PairingCode:
    ext = current_app.extensions
    if "gryb-pair-code" not in ext:
        ext["gryb-pair-code"] = PairingCode(web().runtime)
    return ext["gryb-pair-code"]


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
    wait = _code().locked_for()
    if wait:
        minutes = max(1, round(wait / 60))
        refuse(
            429,
            f"too many wrong codes on this board: pairing opens again in {minutes} minute"
            f"{'' if minutes == 1 else 's'}",
            **{"Retry-After": str(int(wait) + 1)},
        )
    code = _code().start()
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
    if not _code().check(guess):
        left = _code().tries_left()
        if not left:  # its third wrong guess, used, or too old: trying it again can only fail
            refuse(
                403,
                "that code is spent (three wrong tries, used, or over two minutes old): tap New code "
                "for a new one",
            )
        refuse(403, f"wrong code: try again ({left} more {'try' if left == 1 else 'tries'} with this one)")
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
