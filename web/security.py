"""What a guest's phone on the LAN may do (docs/security.md, "The threat model"): anyone may GET; a POST
must come from this page, and one that changes anything from a paired phone with its CSRF token."""

from __future__ import annotations

import functools
import hmac
import ipaddress
import json
import os
import secrets
import socket
import threading
import time
from collections import deque
from datetime import timedelta
from pathlib import Path

from flask import Flask, current_app, jsonify, render_template, request, session
from werkzeug.exceptions import HTTPException

from web.api import MAX_BODY, ApiError, board_here, refuse, short, web

BACKSTOP = 4 * MAX_BODY  # waitress' own limit (a text/plain 413): past it the app never sees the body
SESSION_HOURS = 12
SECRET_FILE = "web-secret.key"
EPOCH_FILE = "web-pairing.epoch"
REVOKED_FILE = "web-revoked.json"  # sessions forgotten one by one, kept until they would have expired
UNSAFE = ("POST", "PUT", "PATCH", "DELETE")

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=(), serial=()",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}


def _secret_file(path: Path, nbytes: int = 32) -> bytes:
    """A secret kept in the state directory, made (mode 0600) on first run."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        data = path.read_bytes()
        if len(data) >= 16:
            if path.stat().st_mode & 0o077:
                os.chmod(path, 0o600)
            return data
        path.unlink()  # cut short by a crash while it was written: made anew
        return _secret_file(path, nbytes)
    data = secrets.token_bytes(nbytes)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    return data


class Pairings:
    """The pairing epoch: a random value every paired session carries; a new one forgets all phones.
    A session forgotten alone ("Forget this phone") is listed by its id until it would have expired."""

    def __init__(self, state_dir: Path):
        self.path = state_dir / EPOCH_FILE
        self.epoch = _secret_file(self.path, 16).hex()
        self._revoked_path = state_dir / REVOKED_FILE
        self._lock = threading.Lock()
        try:
            revoked = json.loads(self._revoked_path.read_text())
            self._revoked = {k: float(v) for k, v in revoked.items()}
        except (OSError, ValueError, TypeError, AttributeError):  # none yet, or cut short: forgets none
            self._revoked = {}

    def forget_all(self) -> None:
        self.path.unlink(missing_ok=True)
        self.epoch = _secret_file(self.path, 16).hex()
        with self._lock:
            self._revoked = {}
            self._save()

    def revoke(self, sid: str, paired_at: float) -> None:
        with self._lock:
            now = time.time()
            self._revoked = {k: t for k, t in self._revoked.items() if now - t < SESSION_HOURS * 3600}
            self._revoked[sid] = paired_at
            self._save()

    def revoked(self, sid: str) -> bool:
        with self._lock:
            return sid in self._revoked

    def _save(self) -> None:
        part = self._revoked_path.with_suffix(".part")
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(self._revoked, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(part, self._revoked_path)


class RateLimit:
    """At most ``limit`` attempts per ``window`` seconds per client address (a sliding window)."""

    def __init__(self, limit: int = 5, window: float = 60.0, clock=time.monotonic):
        self.limit, self.window, self.clock = limit, window, clock
        self._hits: dict[str, deque] = {}
        self._lock = threading.Lock()

    def allow(self, key: str) -> bool:
        now = self.clock()
        with self._lock:
            if len(self._hits) > 4096:  # forget idle addresses so a scan cannot grow this forever
                for k in [k for k, q in self._hits.items() if not q or now - q[-1] > self.window]:
                    del self._hits[k]
            hits = self._hits.setdefault(key, deque())
            while hits and now - hits[0] > self.window:
                hits.popleft()
            if len(hits) >= self.limit:
                return False
            hits.append(now)
            return True

    def retry_after(self, key: str) -> int:
        with self._lock:
            hits = self._hits.get(key)
            if not hits:
                return 0
            return max(1, int(self.window - (self.clock() - hits[0])) + 1)


def is_paired() -> bool:
    pairings = current_app.extensions["gryb-pairings"]
    token, sid = session.get("csrf"), session.get("sid")
    return (
        isinstance(token, str)
        and isinstance(sid, str)
        and session.get("epoch") == pairings.epoch
        and isinstance(session.get("paired_at"), (int, float))
        and time.time() - session["paired_at"] < SESSION_HOURS * 3600
        and not pairings.revoked(sid)
    )


def start_session() -> str:
    """Pair this request's session: a new id, the epoch, the time and a CSRF token (which it returns)."""
    session.clear()
    session.permanent = True
    session["sid"] = secrets.token_urlsafe(16)
    session["epoch"] = current_app.extensions["gryb-pairings"].epoch
    session["paired_at"] = time.time()
    session["csrf"] = secrets.token_urlsafe(32)
    return session["csrf"]


def end_session() -> None:
    """Forget this phone on the server too: a copy of its cookie is refused from now on."""
    if is_paired():
        current_app.extensions["gryb-pairings"].revoke(session["sid"], session["paired_at"])
    session.clear()


def csrf_token() -> str | None:
    return session.get("csrf") if is_paired() else None


def paired(view):
    """A view that changes the game or the settings: a paired session and its CSRF header."""

    @functools.wraps(view)
    def wrapper(*args, **kwargs):
        if not is_paired():
            refuse(401, "pair this phone first: tap Pair and enter the colours the board shows")
        sent = request.headers.get("X-CSRF-Token", "")
        if not sent or not hmac.compare_digest(sent.encode(), session["csrf"].encode()):
            refuse(403, "missing or wrong X-CSRF-Token header")
        return view(*args, **kwargs)

    return wrapper


def _host_only(host: str) -> str:
    host = host.strip().lower()
    if host.startswith("["):  # an IPv6 address, its zone (fe80::1%25eth0) left out
        return (host[1 : host.find("]")] if "]" in host else host).split("%")[0]
    return (host.rsplit(":", 1)[0] if host.count(":") == 1 else host).rstrip(".")


LAN_SUFFIXES = ("local", "lan", "home", "internal", "home.arpa", "localdomain")


def _interface_addresses() -> set[str]:
    """This machine's addresses: Linux's tables of them, else what its own name resolves to."""
    found: set[str] = set()
    try:  # /32 host LOCAL entries: every IPv4 address of every interface
        lines = Path("/proc/net/fib_trie").read_text().splitlines()
        found |= {a.split()[-1] for a, b in zip(lines, lines[1:]) if "host LOCAL" in b}
    except OSError:
        pass
    try:
        for line in Path("/proc/net/if_inet6").read_text().splitlines():
            raw = line.split()[0]
            found.add(str(ipaddress.ip_address(":".join(raw[i : i + 4] for i in range(0, 32, 4)))))
    except (OSError, ValueError, IndexError):
        pass
    for name in {socket.gethostname(), socket.getfqdn()}:
        try:
            found |= {info[4][0].split("%")[0] for info in socket.getaddrinfo(name, None)}
        except OSError:
            pass
    return found


class Hosts:
    """The names and addresses a request's Host may give: this machine's and ``[web] allowed_hosts``. A
    page on another name (DNS rebinding) is refused, GET or POST (docs/security.md, "The threat model")."""

    REFRESH = 10.0  # seconds: an address the machine took since (DHCP) is found on the next look

    def __init__(self, allowed=(), addresses=_interface_addresses, clock=time.monotonic):
        self._allowed = {_host_only(h) for h in allowed}
        self._addresses, self._clock = addresses, clock
        self._known: set[str] = set()
        self._looked = -1e9
        self._lock = threading.Lock()

    def _names(self) -> set[str]:
        short = socket.gethostname().lower().split(".")[0]
        names = {"localhost", short, socket.gethostname().lower(), socket.getfqdn().lower()}
        return names | {f"{short}.{suffix}" for suffix in LAN_SUFFIXES}

    def _look(self) -> None:
        now = self._clock()
        if now - self._looked >= self.REFRESH:
            known = self._names()
            for address in self._addresses():
                try:
                    known.add(str(ipaddress.ip_address(address)))
                except ValueError:  # a line of /proc this reader does not know
                    pass
            self._known = known
            self._looked = now

    def allows(self, host: str) -> bool:
        name = _host_only(host)
        if not name:
            return False
        try:
            ip = ipaddress.ip_address(name)
        except ValueError:
            ip = None
        if name in self._allowed or name.endswith(".localhost") or (ip is not None and ip.is_loopback):
            return True
        name = str(ip) if ip is not None else name
        if name in self._known:
            return True
        with self._lock:  # an unknown name: look again (at most every REFRESH seconds)
            self._look()
            return name in self._known


def _check_host() -> None:
    host = request.host or ""
    if not current_app.extensions["gryb-hosts"].allows(host):
        refuse(
            403,
            f"this board does not answer to the name {_host_only(host)!r}: use its own name or address, "
            "or add the name to allowed_hosts in [web] of the config",
        )


def _check_unsafe_request() -> None:
    host = request.host or ""
    origin = request.headers.get("Origin")
    if origin is not None:  # a page on another site posting here
        scheme, _, rest = origin.partition("://")
        if scheme not in ("http", "https") or rest.rstrip("/").lower() != host.lower():
            refuse(403, "cross-origin request refused")
    fetch_site = request.headers.get("Sec-Fetch-Site")
    if fetch_site is not None and fetch_site not in ("same-origin", "none"):
        refuse(403, "cross-site request refused")
    if request.content_length is not None and request.content_length > MAX_BODY:
        refuse(413, f"the body is larger than {MAX_BODY} bytes")
    raw = request.get_data(cache=True)  # raises 413 past MAX_CONTENT_LENGTH, even when chunked
    if raw and request.mimetype != "application/json":  # no form can send it without a preflight
        refuse(415, "send JSON (Content-Type: application/json)")


def init_app(app: Flask, state_dir: Path, allowed_hosts=()) -> None:
    app.secret_key = _secret_file(state_dir / SECRET_FILE)
    app.config.update(
        MAX_CONTENT_LENGTH=MAX_BODY,
        MAX_FORM_MEMORY_SIZE=MAX_BODY,
        SESSION_COOKIE_NAME="gryb_session",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_SECURE=False,  # plain http on the LAN: a Secure cookie would never be sent back
        PERMANENT_SESSION_LIFETIME=timedelta(hours=SESSION_HOURS),
        JSON_SORT_KEYS=False,
    )
    app.extensions["gryb-pairings"] = Pairings(state_dir)
    app.extensions["gryb-pair-limit"] = RateLimit(5, 60.0)
    app.extensions["gryb-hosts"] = Hosts(allowed_hosts)

    @app.before_request
    def _guard():
        _check_host()
        if request.method in UNSAFE:
            _check_unsafe_request()

    @app.after_request
    def _headers(response):
        for key, value in HEADERS.items():
            response.headers.setdefault(key, value)
        if request.path.startswith("/api/") and "Cache-Control" not in response.headers:
            response.headers["Cache-Control"] = "no-store"
        return response

    def _a_page() -> bool:
        """Whether a browser asked for a page (a GET outside /api/): a refusal is a page it can leave."""
        return request.method == "GET" and not request.path.startswith("/api/")

    @app.errorhandler(ApiError)
    def _api_error(err: ApiError):
        if _a_page():  # a replay of a game there is not (an old link): the page, not bare JSON
            return (
                render_template("error.html", code=err.status, message=short(err.message)),
                err.status,
                err.headers,
            )
        response = jsonify(error=short(err.message))
        response.status_code = err.status
        response.headers.update(err.headers)
        return response

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException):
        if not _a_page():
            response = jsonify(error=short(err.description or err.name))
            response.status_code = err.code or 500
            if err.code == 405 and err.valid_methods:
                response.headers["Allow"] = ", ".join(err.valid_methods)
            return response
        return render_template("error.html", code=err.code, message=err.description), err.code

    @app.errorhandler(Exception)
    def _crash(err: Exception):  # logged with its traceback; the client gets no details
        app.logger.exception("unhandled error on %s %s", request.method, request.path)
        return jsonify(error="internal error"), 500

    @app.context_processor
    def _template_globals():
        return {
            "paired": is_paired(),
            "csrf": csrf_token(),
            "sim": web().sim_input is not None,
            "board_here": board_here(),
        }
