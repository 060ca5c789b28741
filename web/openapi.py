"""The JSON API behind the page, described as an OpenAPI 3.1 document (served at /api/openapi.json).

The fuzz tests make their requests from the served document: keep its schemas in step with the views
(docs/web.md, "The API").
"""

from __future__ import annotations

import tomllib

from flask import Blueprint, jsonify

from companion.games.catalogue import catalogue
from companion.games.composed import schema as composition
from companion.games.series import PRESETS
from companion.link.requests import HostMatch, JoinMatch
from companion.service import commands as c
from companion.service import settings
from companion.service.config import Config
from web.api import web
from web.compose import EXAMPLE

bp = Blueprint("openapi", __name__)

ERROR = {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}}
STATE = {
    "type": "object",
    "description": "the runtime's snapshot without the list of legal actions",
    "required": ["version", "game", "state", "table", "settings", "colours"],
    "properties": {
        "version": {"type": "integer"},
        "game_id": {"type": ["integer", "null"]},
        "game": {
            "type": "object",
            "description": "the game's description (id, name, die, hand and score: "
            "the heads of the columns of stones in hand and of "
            "points, null where the game has none) and settings",
        },
        "board": {"type": "object", "description": "depth, headless, on_cloth"},
        "players": {"type": "integer"},
        "ply": {"type": "integer", "description": "the game's actions so far (rolls and passes too)"},
        "state": {
            "type": "object",
            "description": "stones (node -> {player, kind}), to_move, die, scores, "
            "last, grybs, over, winners, aims (each seat's "
            "goal where they differ, else null), stash by sizes "
            "(PyraGRYB: each player's pieces in hand, size by size) ...",
        },
        "table": {
            "type": "object",
            "description": "picks, targets, chores, message, names, choices "
            "([{action, label}]: buttons where one press fits "
            "several actions; send the action to /api/act)",
        },
        "seats": {"type": "array", "description": "per seat: human or the computer's level"},
        "order": {
            "type": "array",
            "items": {"type": "integer"},
            "description": "per seat: the player sitting there (0 is player 1). Each new game of a "
            "series, and Play again, is begun by the next player along; players keep "
            "their colours and series totals",
        },
        "series": {
            "type": ["object", "null"],
            "description": "method, target, games, totals and names (by player, not seat), over, "
            "winners (players), elapsed (seconds)",
        },
        "settings": {"$ref": "#/components/schemas/Settings"},
        "colours": {"type": "array", "items": {"type": "string"}},
        "feedback": {"type": ["object", "null"]},
    },
}
CHANGEABLE = settings.schema(Config().leds.least_budget_ma())  # for the default layout
SETTINGS = {"type": "object", "properties": CHANGEABLE["properties"] | {"menu": {"type": "boolean"}}}
FEEDBACK = {
    "type": "object",
    "required": ["ok", "message"],
    "properties": {
        "ok": {
            "type": "boolean",
            "description": "false: the rules refused it (the reason in message); nothing moved",
        },
        "message": {"type": "string"},
        "state": {"oneOf": [STATE, {"type": "null"}]},
    },
}
EMPTY = {"type": "object", "additionalProperties": False, "maxProperties": 0}
STATUS = {
    "type": "object",
    "properties": {
        "heartbeat_age": {
            "type": ["number", "null"],
            "description": "seconds since the board's Pico was last heard",
        },
        "selftest": {
            "type": ["object", "null"],
            "description": "while one runs {running: true, step: sweep|link|nodes, nodes, timeout} and "
            "how far the step has got (done/of frames; pressed/of nodes and left seconds); then its "
            "report (ok, pressed, dead, stuck, chattering, untested, cancelled ...)",
        },
        "shown": {
            "type": "array",
            "items": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "string"}]},
            "description": "the settings page's hardware table, [label, text] a row, in words",
        },
    },
}


LINK_STATUS = {
    "type": "object",
    "required": ["enabled"],
    "properties": {
        "enabled": {"type": "boolean", "description": "false: no broker in the config ([link] url)"},
        "board": {"type": "string"},
        "connected": {"type": "boolean"},
        "match": {"type": ["string", "null"]},
        "code": {
            "type": ["string", "null"],
            "description": "the match code: to a paired phone and the simulator's own page, else null",
        },
        "seats": {"type": "array", "items": {"type": ["string", "null"]}},
        "boards": {"type": "array", "items": {"type": "object"}},
        "refused": {"type": "integer", "description": "messages refused (logged) so far"},
    },
}
LINKED = {"type": "object", "properties": {"ok": {"type": "boolean"}, "code": {"type": "string"}}}


def _json(schema: dict) -> dict:
    return {"content": {"application/json": {"schema": schema}}}


def _errors(*codes: int) -> dict:
    text = {
        400: "bad request (the error says why)",
        401: "not paired",
        403: "refused: CSRF token, origin, host or wrong pairing code",
        404: "no such thing",
        409: "not now: the record cannot be replayed; a self-test runs already, or none runs to cancel; "
        "no broker is set for linked boards; a game is under way (a new game needs abandon: true)",
        413: "body too large",
        415: "not JSON",
        429: "too many codes asked for or tried (Retry-After)",
        503: "the runtime is busy, or the change could not be stored (a full disk, a locked database): "
        "nothing changed",
    }
    return {str(c): {"description": text[c]} | _json({"$ref": "#/components/schemas/Error"}) for c in codes}


CHANGE = (400, 401, 403, 413, 415, 503)


def _command(summary: str, request_schema: dict | None, response: dict, *extra: int) -> dict:
    op = {
        "summary": summary,
        "security": [{"session": [], "csrf": []}],
        "responses": {"200": {"description": "done"} | _json(response)} | _errors(*CHANGE, *extra),
    }
    op["requestBody"] = {"required": False, **_json(request_schema or {"$ref": "#/components/schemas/Empty"})}
    return {"post": op}


def _get(summary: str, schema: dict, *errors: int, params: list | None = None) -> dict:
    op = {"summary": summary, "responses": {"200": {"description": "ok"} | _json(schema)} | _errors(*errors)}
    if params:
        op["parameters"] = params
    return {"get": op}


GAME_ID = {"name": "game_id", "in": "path", "required": True, "schema": {"type": "integer", "minimum": 0}}
COMPOSITION_ID = {"type": "string", "pattern": f"^{composition.ID_PATTERN.pattern}$", "maxLength": 40}
COMPOSED_ID = {"name": "game_id", "in": "path", "required": True, "schema": COMPOSITION_ID}


def new_game(games) -> dict:
    """POST /api/games/new's body: one schema per game and number of players (the fewest may be left out)."""
    variants = [
        c.new_game_schema(cls, players)
        for cls in games
        for players in range(cls.min_players, cls.max_players + 1)
    ]
    return {"description": c.NewGame.__doc__, "oneOf": variants}


def host_match(games) -> dict:
    """POST /api/link/host's body: one schema per game and number of boards (the fewest may be left out)."""
    variants = []
    for cls in games:
        fewest = max(2, cls.min_players)
        for players in range(fewest, cls.max_players + 1):
            made = c.new_game_schema(cls, players)
            required = ["game"] if players == fewest else ["game", "players"]
            properties = {k: made["properties"][k] for k in ("game", "players", "options")}
            variants.append(made | {"required": required, "properties": properties})
    return {"description": HostMatch.__doc__, "oneOf": variants}


# composition.UNSHOWN as a character class that JSON Schema and Python read alike.
UNSHOWN = composition.UNSHOWN.pattern[1:-1].encode("unicode_escape").decode()


def _parameter(param: composition.Option) -> dict:
    """A composition's parameter as JSON Schema (composition.SCHEMA; docs/composer.md is its reference)."""
    node = {"type": "string", "pattern": "^(0|[GRYB]{1,6})$"}
    kind = param.kind
    if kind == "id":
        return COMPOSITION_ID
    if kind == "str" and param.key == "name":  # something to show: not only spaces
        return {"type": "string", "maxLength": 40, "pattern": f"^[^{UNSHOWN}]*[^{UNSHOWN}\\s][^{UNSHOWN}]*$"}
    if kind == "str":
        return {"type": "string", "maxLength": 400, "pattern": f"^[^{UNSHOWN}]*$"}
    if kind == "bool":
        return {"type": "boolean"}
    if kind == "int":
        return {"type": "integer", "minimum": param.minimum, "maximum": param.maximum}
    if kind == "choice":
        return {"enum": list(param.choices)}
    if kind == "players":
        two_to_four = {"type": "integer", "minimum": 2, "maximum": 4}
        return {"oneOf": [two_to_four, {"type": "array", "minItems": 2, "maxItems": 2, "items": two_to_four}]}
    if kind == "race":
        return {"oneOf": [{"enum": ["bottom", "top"]}, node]}
    if kind == "levels":
        return {"type": "array", "maxItems": 6, "items": {"type": "integer", "minimum": 1, "maximum": 6}}
    if kind == "kinds":
        return {"type": "array", "maxItems": 4, "items": {"enum": list(composition.KIND_NAMES)}}
    if kind == "goals":
        return {"type": "array", "minItems": 1, "maxItems": 3, "items": {"enum": list(composition.GOALS)}}
    if kind == "presets":
        return {
            "type": "array",
            "uniqueItems": True,
            "maxItems": len(PRESETS),
            "items": {"enum": list(PRESETS)},
        }
    if kind == "node-sets":
        return {"type": "array", "maxItems": 4, "items": {"type": "array", "maxItems": 4, "items": node}}
    raise AssertionError(kind)


def _composition() -> dict:
    """A composition as a JSON object: its top-level parameters and its sections, each parameter typed."""
    top = {p.key: _parameter(p) | {"description": p.help} for p in composition.SCHEMA if not p.section}
    sections = {
        section: {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                p.key: _parameter(p) | {"description": p.help}
                for p in composition.SCHEMA
                if p.section == section
            },
        }
        for section in composition.SECTIONS
        if section
    }
    return {
        "type": "object",
        "required": ["id", "name"],
        "additionalProperties": False,
        "description": "a game of your own (docs/composer.md): its parameters of play, "
        "as the manuals group them",
        "properties": top | sections,
        "examples": [tomllib.loads(EXAMPLE)],
    }


COMPOSE = {
    "oneOf": [
        {
            "type": "object",
            "required": ["text", "format"],
            "additionalProperties": False,
            "properties": {
                "text": {
                    "type": "string",
                    "maxLength": 12000,
                    "contentMediaType": "application/json",
                    "contentSchema": {"$ref": "#/components/schemas/Composition"},
                },
                "format": {"const": "json"},
                "replace": {"type": "boolean"},
            },
        },
        {
            "type": "object",
            "required": ["text"],
            "additionalProperties": False,
            "properties": {
                "text": {
                    "type": "string",
                    "maxLength": 12000,
                    "description": "the composition in TOML",
                    "examples": [EXAMPLE],
                },
                "format": {"const": "toml"},
                "replace": {"type": "boolean"},
            },
        },
    ],
    "description": "a composition, as TOML (the default) or JSON text; "
    "replace: true saves over one of the same id",
}

DOCUMENT = {
    "openapi": "3.1.0",
    "info": {
        "title": "GRYB Companion",
        "version": "1",
        "description": "The JSON API behind the phone web page. GETs are open to anyone on the LAN; "
        "POSTs need a paired session cookie and its CSRF token in X-CSRF-Token, a same-origin "
        "Origin, and Content-Type application/json when there is a body (at most 16 KiB).",
    },
    "components": {
        "securitySchemes": {
            "session": {"type": "apiKey", "in": "cookie", "name": "gryb_session"},
            "csrf": {"type": "apiKey", "in": "header", "name": "X-CSRF-Token"},
        },
        "schemas": {
            "Error": ERROR,
            "State": STATE,
            "Settings": SETTINGS,
            "Feedback": FEEDBACK,
            "Empty": EMPTY,
            "NewGame": new_game(catalogue()),
            "HostMatch": host_match(catalogue()),
            "Series": c.SERIES,
            "Composition": _composition(),
        },
    },
    "paths": {
        "/api/state": _get("the newest snapshot", {"$ref": "#/components/schemas/State"}),
        "/api/legal": _get(
            "the legal actions now, in the notation (at most 400), with the snapshot's version",
            {
                "type": "object",
                "required": ["version", "legal"],
                "properties": {
                    "version": {"type": "integer"},
                    "legal": {"type": "array", "items": {"type": "string"}},
                },
            },
        ),
        "/api/events": {
            "get": {
                "summary": "Server-Sent Events: one data line of State JSON per change, "
                "': heartbeat' comments every 15 s",
                "responses": {
                    "200": {
                        "description": "the stream",
                        "content": {"text/event-stream": {"schema": {"type": "string"}}},
                    }
                },
            }
        },
        "/api/press": _command(
            "press a node (on the simulator: through the emulated MCU; the outcome "
            "arrives on the feed and state is null)",
            c.Press.schema(),
            {"$ref": "#/components/schemas/Feedback"},
        ),
        "/api/roll": _command("the ROLL button", c.Roll.schema(), {"$ref": "#/components/schemas/Feedback"}),
        "/api/ok": _command(
            "the OK / END TURN button", c.Ok.schema(), {"$ref": "#/components/schemas/Feedback"}
        ),
        "/api/undo": _command("the UNDO button", c.Undo.schema(), {"$ref": "#/components/schemas/Feedback"}),
        "/api/again": _command(
            "Play again: once a game is over, the same game begun by the next player along "
            "(OK at a game's end does the same)",
            c.Again.schema(),
            {"$ref": "#/components/schemas/Feedback"},
        ),
        "/api/selftest": _command(
            "start the hardware self-test (LED sweep, every node pressed); its report appears in /api/status",
            None,
            {"type": "object"},
            404,
            409,
        ),
        "/api/selftest/cancel": _command(
            "cancel the self-test under way: the board is the game's again once this answers",
            None,
            {"type": "object"},
            404,
            409,
        ),
        "/api/hint": _command(
            "ask the computer for a move for the player to move (shown when ready)",
            None,
            {"$ref": "#/components/schemas/Feedback"},
        ),
        "/api/act": _command(
            "an action in the notation (docs/notation.md), e.g. 0-G",
            c.Act.schema(),
            {"$ref": "#/components/schemas/Feedback"},
        ),
        "/api/seat": _command(
            "hand a seat over during the game: to the computer at a level, or back to a person "
            "(seat as in state.seats; game, the game's id, refuses a change meant for a game "
            "since replaced)",
            c.Seat.schema() | {"properties": c.Seat.BODY | {"seat": c.Seat.BODY["seat"] | {"maximum": 3}}},
            {"$ref": "#/components/schemas/Feedback"},
        ),
        "/api/games": _get(
            "the catalogue: games with their options, series presets and methods, seats",
            {
                "type": "object",
                "properties": {
                    "games": {"type": "array"},
                    "presets": {"type": "array"},
                    "methods": {"type": "array"},
                    "seats": {"type": "array"},
                },
            },
        ),
        "/api/games/new": _command(
            "start a game (and optionally a series)",
            {"$ref": "#/components/schemas/NewGame"},
            {"$ref": "#/components/schemas/Feedback"},
            409,
        ),
        "/api/history": _get(
            "finished games, newest first",
            {"type": "object"},
            400,
            params=[
                {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 500}}
            ],
        ),
        "/api/history/{game_id}": _get(
            "a game's record and the position after ply actions",
            {"type": "object"},
            400,
            404,
            409,
            params=[GAME_ID, {"name": "ply", "in": "query", "schema": {"type": "integer", "minimum": 0}}],
        ),
        "/api/history/{game_id}/record.txt": {
            "get": {
                "summary": "the record as text notation",
                "parameters": [GAME_ID],
                "responses": {"200": {"description": "attachment", "content": {"text/plain": {}}}}
                | _errors(404, 409),
            }
        },
        "/api/history/{game_id}/record.json": _get(
            "the record as JSON (companion.session.record format 1)",
            {"type": "object"},
            404,
            409,
            params=[GAME_ID],
        ),
        "/api/series": _get("the series being played, with its games", {"type": "object"}),
        "/api/series/{series_id}": _get(
            "one series",
            {"type": "object"},
            404,
            params=[
                {
                    "name": "series_id",
                    "in": "path",
                    "required": True,
                    "schema": {"type": "integer", "minimum": 0},
                }
            ],
        ),
        "/api/settings": _get("settings and hardware status", {"type": "object"})
        | _command(
            "change settings (all or none: a refused request changes nothing)",
            CHANGEABLE,
            {
                "type": "object",
                "properties": {
                    "ok": {"type": "boolean"},
                    "settings": {"$ref": "#/components/schemas/Settings"},
                },
            },
        ),
        "/api/status": _get("hardware status: serial link, heartbeat age, LED driver, the self-test", STATUS),
        "/api/leds": _get(
            "what the LEDs show now (the frame last sent): each lit node of the cloth and the status "
            "pixels as the eye sees them, after brightness, gamma and the current limiter. An ETag of "
            "the frame: asked with If-None-Match before the LEDs change, a 304. A pairing code shown "
            "is left out, and the frame told as it would be without it (but to the simulator's own page)",
            {
                "type": "object",
                "required": ["frames", "limited", "nodes", "status", "withheld"],
                "properties": {
                    "frames": {
                        "type": "integer",
                        "description": "frames so far: a new count is a new frame",
                    },
                    "limited": {"type": "boolean", "description": "the current limiter dimmed it"},
                    "nodes": {
                        "type": "object",
                        "description": "node name -> #rrggbb, lit nodes only",
                        "additionalProperties": {"type": "string", "pattern": "^#[0-9a-f]{6}$"},
                    },
                    "status": {
                        "type": "array",
                        "description": "the status pixels: the first half whose turn, the second the die",
                        "items": {"type": "string", "pattern": "^#[0-9a-f]{6}$"},
                    },
                    "withheld": {
                        "type": "array",
                        "items": c.NODE,
                        "description": "always empty: kept for pages that ask",
                    },
                },
            },
            404,
        ),
        "/api/session": _get(
            "whether this browser is paired, and its CSRF token if so",
            {
                "type": "object",
                "properties": {"paired": {"type": "boolean"}, "csrf": {"type": ["string", "null"]}},
            },
        ),
        "/api/pair/start": {
            "post": {
                "summary": "show a new four-colour code on the board (2 minutes, single use)",
                "requestBody": {"required": False, **_json({"$ref": "#/components/schemas/Empty"})},
                "responses": {
                    "200": {"description": "shown"}
                    | _json(
                        {
                            "type": "object",
                            "properties": {"shown": {"type": "boolean"}, "expires_in": {"type": "integer"}},
                        }
                    )
                }
                | _errors(400, 403, 413, 415, 429),
            }
        },
        "/api/pair/shown": _get(
            "the simulator only, to the laptop it runs on (its page is the board): the "
            "pairing code shown now, whoever asked for it, so a phone can read it there",
            {"type": "object", "properties": {"code": {"type": ["string", "null"]}}},
            404,
        ),
        "/api/pair": {
            "post": {
                "summary": "pair with the code the board shows: sets the session cookie",
                "requestBody": {
                    "required": True,
                    **_json(
                        {
                            "type": "object",
                            "required": ["code"],
                            "additionalProperties": False,
                            "properties": {"code": {"type": "string", "pattern": "^[GRYB]{4}$"}},
                        }
                    ),
                },
                "responses": {
                    "200": {"description": "paired"}
                    | _json(
                        {
                            "type": "object",
                            "properties": {"paired": {"const": True}, "csrf": {"type": "string"}},
                        }
                    )
                }
                | _errors(400, 403, 413, 415, 429),
            }
        },
        "/api/unpair": _command("forget this phone", None, {"type": "object"}),
        "/api/pair/forget-all": _command("forget every paired phone", None, {"type": "object"}),
        "/api/compositions": _get(
            "composed games: the saved ones and the companion's own, each {id, name}",
            {"type": "object", "properties": {"saved": {"type": "array"}, "shipped": {"type": "array"}}},
        )
        | _command(
            "check a composition (docs/composer.md) and save it under its id: it joins the catalogue",
            COMPOSE,
            {"type": "object", "properties": {"ok": {"type": "boolean"}, "game": {"type": "object"}}},
        ),
        "/api/compositions/{game_id}.toml": {
            "get": {
                "summary": "a composed game in full, every parameter with its meaning (TOML)",
                "parameters": [COMPOSED_ID],
                "responses": {
                    "200": {
                        "description": "the composition",
                        "content": {"text/plain": {"schema": {"type": "string"}}},
                    }
                }
                | _errors(404),
            }
        },
        "/api/compositions/{game_id}/delete": {
            "post": _command(
                "delete a saved composition (a game under way keeps its rules)", None, {"type": "object"}, 404
            )["post"]
            | {"parameters": [COMPOSED_ID]}
        },
        "/api/link": _get(
            "linked boards (docs/linking.md): this board, the match, its boards, seats, health, round trip",
            LINK_STATUS,
        ),
        "/api/link/host": _command(
            "open a match for a new game: its code, for the other boards",
            {"$ref": "#/components/schemas/HostMatch"},
            LINKED,
            409,
        ),
        "/api/link/join": _command(
            "join the match another board shows the code of", JoinMatch.schema(), LINKED, 409
        ),
        "/api/openapi.json": _get("this document", {"type": "object"}),
    },
}


def served(runtime) -> dict:
    """The document as served now: the games a new game may name are the catalogue's as it stands."""
    games = runtime.board.catalogue
    schemas = DOCUMENT["components"]["schemas"] | {"NewGame": new_game(games), "HostMatch": host_match(games)}
    return DOCUMENT | {"components": DOCUMENT["components"] | {"schemas": schemas}}


@bp.get("/api/openapi.json")
def document():
    return jsonify(served(web().runtime))
