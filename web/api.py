"""What the blueprints share: the app's state, refusals, bodies as commands, calls to the runtime."""

from __future__ import annotations

import ipaddress
import json
import re

from flask import current_app, jsonify, request

from companion.service.commands import Command, Unconfirmed
from companion.service.runtime import StorageError

MAX_BODY = 16 * 1024
MAX_NESTING = 32  # the page sends two levels
QUOTE = 40  # a longer word in a refusal (user text quoted back) keeps its first 20 characters
MAX_MESSAGE = 400  # the longest reason: a composition section listing its parameters
TOO_DEEP = f"the body is not valid JSON here: nested more than {MAX_NESTING} deep"
HALF = "the body is not valid JSON here: it holds half a character (a lone surrogate such as \\ud800)"


class ApiError(Exception):
    def __init__(self, status: int, message: str, headers: dict | None = None):
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers or {}


def refuse(status: int, message: str, **headers):
    raise ApiError(status, message, headers)


def short(message: str) -> str:
    """A message fit to send back (docs/security.md, "The threat model")."""
    message = re.sub(rf"\S{{{QUOTE + 1},}}", lambda m: m.group()[:20] + "…", str(message))
    return message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 1] + "…"


def _nesting_ok(data) -> bool:
    """Nothing nested past MAX_NESTING (walked without recursion)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            value = list(value.values())
        if isinstance(value, list):
            if depth > MAX_NESTING:
                return False
            stack.extend((v, depth + 1) for v in value)
    return True


def web():
    return current_app.extensions["gryb"]


def body(*fields: str) -> dict:
    """The request's JSON object ({} when empty) of ``fields`` alone: another is a mistake to hear of."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        refuse(400, "the body is not valid JSON")
    except RecursionError:  # past the decoder's own stack: a few thousand [ in a row
        refuse(400, TOO_DEEP)
    if not _nesting_ok(data):
        refuse(400, TOO_DEEP)
    try:  # "\ud800" decodes, but no page, file or log can hold it (docs/security.md)
        json.dumps(data, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        refuse(400, HALF)
    if not isinstance(data, dict):
        refuse(400, "the body must be a JSON object")
    unknown = [key for key in data if key not in fields]
    if unknown:
        takes = f"takes {', '.join(fields)}" if fields else "takes no fields"
        refuse(400, f"unknown field {unknown[0]!r}: POST {request.path} {takes}")
    return data


def command(cls: type[Command], **extra) -> Command:
    """The body as a command of ``cls``, checked."""
    data = body(*cls.fields())
    try:
        return cls.from_body(data | extra)
    except ValueError as err:
        refuse(400, str(err))


def call(command: Command, timeout: float = 10):
    """Run a command and wait: 400 when refused, 409 when it needs consent, 503 when busy or unsaved."""
    try:
        return web().runtime.call(command, timeout=timeout)
    except Unconfirmed as err:  # the page asks the player, then sends it again with consent
        refuse(409, str(err))
    except ValueError as err:  # CommandError, IllegalAction
        refuse(400, str(err))
    except TimeoutError:
        refuse(503, "the board is busy: try again")
    except StorageError as err:  # a full disk or a locked database
        refuse(503, str(err))


def compact(snapshot: dict) -> dict:
    """The snapshot but its legal actions."""
    return {k: v for k, v in snapshot.items() if k != "legal"}


def answer(feedback) -> dict:
    return jsonify(ok=bool(feedback.ok), message=feedback.message, state=compact(web().runtime.snapshot()))


def loopback() -> bool:
    try:
        return ipaddress.ip_address(request.remote_addr or "").is_loopback
    except ValueError:
        return False


def board_here() -> bool:
    """Whether the page is the board: the simulator's, on its laptop."""
    return web().sim_input is not None and loopback()
