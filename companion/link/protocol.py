"""The messages linked boards exchange through the broker, signed with the match's key (docs/linking.md)."""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass

import fastjsonschema

VERSION = 1
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base 32: no I, L, O, U to misread
CODE_LENGTH = 12  # characters: 60 bits
PREFIX = "gryb"
MAX_PAYLOAD = 4096  # bytes: a longer message is refused before it is parsed
ACTION, COMMIT, REVEAL, HELLO, JOIN, BEAT = "action", "commit", "reveal", "hello", "join", "beat"
RETAINED = (ACTION, COMMIT, REVEAL, HELLO, JOIN)  # a board's log, kept by the broker for catching up


class Refused(ValueError):
    """A message that changes nothing: says why (it is logged)."""


def new_code() -> str:
    raw = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
    return "-".join(raw[i : i + 4] for i in range(0, CODE_LENGTH, 4))


def normal_code(text: str) -> str:
    """A code as typed (any case, dashes, spaces; O for 0, I and L for 1) in its one form."""
    raw = "".join(text.upper().split()).replace("-", "").replace("O", "0").replace("I", "1").replace("L", "1")
    if len(raw) != CODE_LENGTH or any(ch not in ALPHABET for ch in raw):
        raise Refused(f"a match code is {CODE_LENGTH} letters and digits, such as {new_code()}")
    return "-".join(raw[i : i + 4] for i in range(0, CODE_LENGTH, 4))


def canonical(data: dict) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def match_id(code: str) -> str:
    """The match's name in topics: says nothing of the key."""
    return hashlib.sha256(b"gryb-match\0" + code.encode()).hexdigest()[:16]


def match_key(code: str) -> bytes:
    return hmac.new(code.encode(), canonical({"purpose": "gryb-link-key", "v": VERSION}), "sha256").digest()


def sign(key: bytes, body: dict) -> dict:
    unsigned = {k: v for k, v in body.items() if k != "sig"}
    return unsigned | {"sig": hmac.new(key, canonical(unsigned), "sha256").hexdigest()}


def topic(match: str, board: str, kind: str, ply: int | None = None) -> str:
    return f"{PREFIX}/{match}/{board}/{kind}" + ("" if ply is None else f"/{ply}")


BOARD = {"type": "string", "pattern": "^[a-z0-9][a-z0-9_-]{0,31}$"}
PLY = {"type": "integer", "minimum": 0, "maximum": 100000}
HEX64 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
COMMON = {"v": {"const": VERSION}, "match": {"type": "string"}, "board": BOARD, "sig": HEX64}
SEAT = {"type": "integer", "minimum": 0, "maximum": 3}
NAMES = {"type": "array", "maxItems": 4, "items": {"type": "string", "maxLength": 24}}
SEATS = {"type": "array", "maxItems": 4, "items": {"anyOf": [BOARD, {"type": "null"}]}}
FIELDS = {
    ACTION: {"ply": PLY, "seat": SEAT, "action": {"type": "string", "maxLength": 200}, "digest": HEX64},
    COMMIT: {"ply": PLY, "hash": HEX64},
    REVEAL: {"ply": PLY, "nonce": HEX64},
    HELLO: {
        "game": {"type": "string", "maxLength": 64},
        "players": {"type": "integer", "minimum": 2, "maximum": 4},
        "options": {"type": "object"},
        "names": NAMES,
        "seats": SEATS,
    },
    JOIN: {},
    BEAT: {
        "sent": {"type": "number"},
        "echo": {"type": "object", "additionalProperties": {"type": "number"}},
    },
}
CHECKS = {
    kind: fastjsonschema.compile(
        {
            "type": "object",
            "additionalProperties": False,
            "properties": COMMON | {"type": {"const": kind}} | fields,
            "required": ["type", *COMMON, *fields],
        }
    )
    for kind, fields in FIELDS.items()
}


@dataclass(frozen=True)
class Message:
    kind: str
    board: str
    body: dict

    def __getitem__(self, key: str):
        return self.body[key]


def make(key: bytes, match: str, board: str, kind: str, **fields) -> tuple[str, bytes]:
    """(topic, payload) of a signed message."""
    body = sign(key, {"v": VERSION, "type": kind, "match": match, "board": board} | fields)
    return topic(match, board, kind, fields.get("ply")), canonical(body)


def read(key: bytes, match: str, name: str, payload: bytes) -> Message:
    """A message as received on topic ``name``: Refused unless well formed, signed with ``key``, for this
    match, from the board its topic names, on the topic its body names."""
    if len(payload) > MAX_PAYLOAD:
        raise Refused(f"{len(payload)} bytes is too long")
    try:
        body = json.loads(payload)
    except (UnicodeDecodeError, ValueError):
        raise Refused("not JSON") from None
    if not isinstance(body, dict) or body.get("type") not in CHECKS:
        raise Refused("no known type")
    try:
        CHECKS[body["type"]](body)
    except fastjsonschema.JsonSchemaException as err:
        raise Refused(f"malformed {body['type']}: {err.message}") from None
    expected = sign(key, body)["sig"]
    if not hmac.compare_digest(expected, body["sig"]):
        raise Refused("bad signature: not signed with this match's key")
    if body["match"] != match:
        raise Refused(f"for another match ({body['match']})")
    if name != topic(match, body["board"], body["type"], body.get("ply")):
        raise Refused(f"on the wrong topic {name} (a {body['type']} message of {body['board']})")
    return Message(body["type"], body["board"], body)


def nonce(secret: bytes, match: str, ply: int) -> str:
    """This board's dice value for a roll: fixed by its secret, so a board restarted between commit and
    reveal reveals what it committed to."""
    return hmac.new(secret, f"{match}/{ply}".encode(), "sha256").hexdigest()


def commitment(value: str) -> str:
    return hashlib.sha256(bytes.fromhex(value)).hexdigest()


def roll_seed(match: str, ply: int, reveals: dict[str, str]) -> str:
    """The roll's seed from every board's revealed value, in board order: none chose it alone."""
    joined = "".join(f"{board}={value};" for board, value in sorted(reveals.items()))
    return hashlib.sha256(f"{match}/{ply}/{joined}".encode()).hexdigest()
