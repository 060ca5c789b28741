"""The JSON API behind the page, described as an OpenAPI 3.1 document (served at /api/openapi.json).

The fuzz tests generate requests from the schemas below, so keep them in step with the views.
"""

from __future__ import annotations

from flask import Blueprint, jsonify

from companion.ai import LEVELS
from companion.config import TIME_SCALES

bp = Blueprint("openapi", __name__)

NODE = {"type": "string", "pattern": "^(0|[GRYB]{1,6})$", "maxLength": 6,
        "description": "a node in the manuals' notation: 0 for the head node, else the colours of its path"}
ERROR = {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}}
STATE = {"type": "object", "description": "the runtime's snapshot without the list of legal actions",
         "required": ["version", "game", "state", "table", "settings", "colours"],
         "properties": {
             "version": {"type": "integer"}, "game_id": {"type": ["integer", "null"]},
             "game": {"type": "object", "description": "the game's description (id, name, die, hand and score: "
                                                        "the heads of the columns of stones in hand and of "
                                                        "points, null where the game has none) and settings"},
             "board": {"type": "object", "description": "depth, headless, on_cloth"},
             "players": {"type": "integer"},
             "ply": {"type": "integer", "description": "the game's actions so far (rolls and passes too)"},
             "state": {"type": "object", "description": "stones (node -> {player, kind}), to_move, die, scores, "
                                                          "last, grybs, over, winners, aims (each seat's "
                                                          "goal where they differ, else null), stash by sizes "
                                                          "(PyraGRYB: each player's pieces in hand, size by size) ..."},
             "table": {"type": "object", "description": "picks, targets, chores, message, names, choices "
                                                          "([{action, label}]: buttons where one press fits "
                                                          "several actions; send the action to /api/act)"},
             "seats": {"type": "array", "description": "per seat: human or the computer's level"},
             "order": {"type": "array", "items": {"type": "integer"},
                       "description": "per seat: the player sitting there (0 is player 1). Each new game of a "
                                      "series, and Play again, is begun by the next player along; players keep "
                                      "their colours and series totals"},
             "series": {"type": ["object", "null"],
                        "description": "method, target, games, totals and names (by player, not seat), over, "
                                       "winners (players), elapsed (seconds)"},
             "settings": {"$ref": "#/components/schemas/Settings"},
             "colours": {"type": "array", "items": {"type": "string"}},
             "feedback": {"type": ["object", "null"]}}}
CHANGEABLE = {"brightness": {"type": "number", "minimum": 0, "maximum": 1}, "night": {"type": "boolean"},
              "sounds": {"type": "boolean"},
              "die": {"enum": ["electronic", "physical"],
                      "description": "electronic: the companion rolls; physical: you roll a GRYB die and enter it"},
              "time_scale": {"type": "number", "minimum": TIME_SCALES[0], "maximum": TIME_SCALES[1],
                             "description": "multiplies the computer players' thinking time (easy 0.05 s, "
                                            "medium 0.12 s, hard 0.25 s a move on a desktop core; about 8 "
                                            "on a Raspberry Pi Zero 2 W plays as strong)"},
              "budget_ma": {"type": "integer", "minimum": 1100, "maximum": 60000,
                            "description": "the LED power supply's current budget in mA"},
              "colours": {"type": "array", "minItems": 4, "maxItems": 4,
                          "items": {"type": "string", "pattern": "^#[0-9A-Fa-f]{6}$"},
                          "description": "the four players' stone colours (player 1 first): apart from each "
                                         "other and the board's"}}
SETTINGS = {"type": "object", "properties": CHANGEABLE | {"menu": {"type": "boolean"}}}
FEEDBACK = {"type": "object", "required": ["ok", "message"],
            "properties": {"ok": {"type": "boolean", "description": "false: the rules refused it (the reason in "
                                                                      "message); nothing moved"},
                           "message": {"type": "string"}, "state": {"oneOf": [STATE, {"type": "null"}]}}}
EMPTY = {"type": "object", "additionalProperties": False, "maxProperties": 0}
# The game a press, move or button is meant for: refused (400) when a new game has begun since.
GAME = {"type": "integer", "description": "the id of the game the page shows (state.game_id): the command is "
                                          "refused if a new game has begun since"}
IN_GAME = {"type": "object", "additionalProperties": False, "properties": {"game": GAME}}
PLY = {"type": "integer", "minimum": 0, "description": "the number of actions of the position the page shows "
       "(the snapshot's ply): the command is refused (400, nothing done) when the game has moved on since, "
       "so two phones tapping UNDO at once take back one move, not two"}
AT_PLY = {"type": "object", "additionalProperties": False, "properties": {"game": GAME, "ply": PLY}}


def _json(schema: dict) -> dict:
    return {"content": {"application/json": {"schema": schema}}}


def _errors(*codes: int) -> dict:
    text = {400: "bad request (the error says why)", 401: "not paired", 403: "refused: CSRF token, origin, host "
            "or wrong pairing code", 404: "no such thing",
            409: "not now: the record cannot be replayed; a self-test runs already, or none runs to cancel",
            413: "body too large", 415: "not JSON", 429: "too many codes asked for or tried (Retry-After)",
            503: "the runtime is busy, or the change could not be stored (a full disk, a locked database): "
                 "nothing changed"}
    return {str(c): {"description": text[c]} | _json({"$ref": "#/components/schemas/Error"}) for c in codes}


CHANGE = (400, 401, 403, 413, 415, 503)


def _command(summary: str, request_schema: dict | None, response: dict, *extra: int) -> dict:
    op = {"summary": summary, "security": [{"session": [], "csrf": []}],
          "responses": {"200": {"description": "done"} | _json(response)} | _errors(*CHANGE, *extra)}
    op["requestBody"] = {"required": False, **_json(request_schema or {"$ref": "#/components/schemas/Empty"})}
    return {"post": op}


def _get(summary: str, schema: dict, *errors: int, params: list | None = None) -> dict:
    op = {"summary": summary, "responses": {"200": {"description": "ok"} | _json(schema)} | _errors(*errors)}
    if params:
        op["parameters"] = params
    return {"get": op}


GAME_ID = {"name": "game_id", "in": "path", "required": True, "schema": {"type": "integer", "minimum": 0}}
COMPOSED_ID = {"name": "game_id", "in": "path", "required": True, "schema": {"type": "string", "maxLength": 40}}
NEW_GAME = {"type": "object", "required": ["game"], "additionalProperties": False, "properties": {
    "game": {"type": "string", "description": "a game id from /api/games"},
    "players": {"type": "integer", "minimum": 2, "maximum": 4},
    "options": {"type": "object", "additionalProperties": {"type": ["integer", "boolean", "string"]}},
    "names": {"type": "array", "maxItems": 4, "items": {"type": "string", "maxLength": 24},
              "description": "the players' names, player 1 first"},
    "seats": {"type": "array", "maxItems": 4, "items": {"enum": ["human", "easy", "medium", "hard"]},
              "description": "who each player is: a person, or the computer at a level (one per player). "
                             "Player 1 begins, unless the game goes on with a series: then the player after "
                             "the one who began the last game does"},
    "series": {"oneOf": [{"type": "null"}, {"const": "continue"},
                         {"type": "object", "required": ["method", "target"], "properties": {
                             "method": {"enum": ["games", "time", "points"]},
                             "target": {"type": "integer", "minimum": 1, "maximum": 10000}}}],
               "description": "null: just this game (a series being played ends); \"continue\": the game goes "
                              "on with the series being played (not over, as many players); a method and "
                              "target: a new series"}}}

DOCUMENT = {
    "openapi": "3.1.0",
    "info": {"title": "GRYB Companion", "version": "1",
             "description": "The JSON API behind the phone web page. GETs are open to anyone on the LAN; "
                            "POSTs need a paired session cookie and its CSRF token in X-CSRF-Token, a same-origin "
                            "Origin, and Content-Type application/json when there is a body (at most 16 KiB)."},
    "components": {
        "securitySchemes": {"session": {"type": "apiKey", "in": "cookie", "name": "gryb_session"},
                            "csrf": {"type": "apiKey", "in": "header", "name": "X-CSRF-Token"}},
        "schemas": {"Error": ERROR, "State": STATE, "Settings": SETTINGS, "Feedback": FEEDBACK, "Empty": EMPTY,
                    "NewGame": NEW_GAME}},
    "paths": {
        "/api/state": _get("the newest snapshot", {"$ref": "#/components/schemas/State"}),
        "/api/legal": _get("the legal actions now, in the notation (at most 400), with the snapshot's version",
                           {"type": "object", "required": ["version", "legal"],
                            "properties": {"version": {"type": "integer"},
                                           "legal": {"type": "array", "items": {"type": "string"}}}}),
        "/api/events": {"get": {"summary": "Server-Sent Events: one data line of State JSON per change, "
                                           "': heartbeat' comments every 15 s",
                                "responses": {"200": {"description": "the stream",
                                                      "content": {"text/event-stream": {"schema": {
                                                          "type": "string"}}}}}}},
        "/api/press": _command("press a node (on the simulator: through the emulated MCU; the outcome "
                               "arrives on the feed and state is null)",
                               {"type": "object", "required": ["node"], "additionalProperties": False,
                                "properties": {"node": NODE, "game": GAME}},
                               {"$ref": "#/components/schemas/Feedback"}),
        "/api/roll": _command("the ROLL button", IN_GAME, {"$ref": "#/components/schemas/Feedback"}),
        "/api/ok": _command("the OK / END TURN button", AT_PLY, {"$ref": "#/components/schemas/Feedback"}),
        "/api/undo": _command("the UNDO button", AT_PLY, {"$ref": "#/components/schemas/Feedback"}),
        "/api/again": _command("Play again: once a game is over, the same game begun by the next player along "
                               "(OK at a game's end does the same)", IN_GAME,
                               {"$ref": "#/components/schemas/Feedback"}),
        "/api/selftest": _command("start the hardware self-test (LED sweep, every node pressed); its report "
                                  "appears in /api/status", None, {"type": "object"}, 404, 409),
        "/api/selftest/cancel": _command("cancel the self-test under way: the board is the game's again once "
                                         "this answers", None, {"type": "object"}, 404, 409),
        "/api/hint": _command("ask the computer for a move for the player to move (shown when ready)", None,
                              {"$ref": "#/components/schemas/Feedback"}),
        "/api/act": _command("an action in the notation (docs/notation.md), e.g. 0-G",
                             {"type": "object", "required": ["action"], "additionalProperties": False,
                              "properties": {"action": {"type": "string", "minLength": 1, "maxLength": 200},
                                             "game": GAME}},
                             {"$ref": "#/components/schemas/Feedback"}),
        "/api/seat": _command("hand a seat over during the game: to the computer at a level, or back to a person "
                              "(seat as in state.seats; game, the game's id, refuses a change meant for a game "
                              "since replaced)",
                              {"type": "object", "required": ["seat", "kind"], "additionalProperties": False,
                               "properties": {"seat": {"type": "integer", "minimum": 0, "maximum": 3},
                                              "kind": {"type": "string", "enum": ["human", *LEVELS]},
                                              "game": GAME}},
                              {"$ref": "#/components/schemas/Feedback"}),
        "/api/games": _get("the catalogue: games with their options, series presets and methods, seats",
                           {"type": "object", "properties": {"games": {"type": "array"}, "presets": {"type": "array"},
                                                             "methods": {"type": "array"},
                                                             "seats": {"type": "array"}}}),
        "/api/games/new": _command("start a game (and optionally a series)", {"$ref": "#/components/schemas/NewGame"},
                                   {"$ref": "#/components/schemas/Feedback"}),
        "/api/history": _get("finished games, newest first", {"type": "object"}, 400, params=[
            {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 500}}]),
        "/api/history/{game_id}": _get("a game's record and the position after ply actions", {"type": "object"},
                                       400, 404, 409, params=[GAME_ID, {"name": "ply", "in": "query",
                                                                        "schema": {"type": "integer",
                                                                                   "minimum": 0}}]),
        "/api/history/{game_id}/record.txt": {"get": {"summary": "the record as text notation", "parameters": [GAME_ID],
                                                      "responses": {"200": {"description": "attachment",
                                                                            "content": {"text/plain": {}}}}
                                                      | _errors(404, 409)}},
        "/api/history/{game_id}/record.json": _get("the record as JSON (companion.record format 1)",
                                                   {"type": "object"}, 404, 409, params=[GAME_ID]),
        "/api/series": _get("the series being played, with its games", {"type": "object"}),
        "/api/series/{series_id}": _get("one series", {"type": "object"}, 404, params=[
            {"name": "series_id", "in": "path", "required": True, "schema": {"type": "integer", "minimum": 0}}]),
        "/api/settings": _get("settings and hardware status", {"type": "object"})
        | _command("change settings (all or none: a refused request changes nothing)",
                   {"type": "object", "minProperties": 1, "additionalProperties": False,
                    "properties": CHANGEABLE},
                   {"type": "object", "properties": {"ok": {"type": "boolean"},
                                                     "settings": {"$ref": "#/components/schemas/Settings"}}}),
        "/api/status": _get("hardware status: serial link, heartbeat age, LED driver", {"type": "object"}),
        "/api/session": _get("whether this browser is paired, and its CSRF token if so", {
            "type": "object", "properties": {"paired": {"type": "boolean"}, "csrf": {"type": ["string", "null"]}}}),
        "/api/pair/start": {"post": {"summary": "show a new four-colour code on the board (2 minutes, single use)",
                                     "requestBody": {"required": False, **_json({"$ref": "#/components/schemas/Empty"})},
                                     "responses": {"200": {"description": "shown"} | _json({
                                         "type": "object", "properties": {"shown": {"type": "boolean"},
                                                                          "expires_in": {"type": "integer"}}})}
                                     | _errors(400, 403, 413, 415, 429)}},
        "/api/pair/shown": _get("the simulator only, to the laptop it runs on (its page is the board): the "
                                "pairing code shown now, whoever asked for it, so a phone can read it there",
                                {"type": "object", "properties": {"code": {"type": ["string", "null"]}}}, 404),
        "/api/pair": {"post": {"summary": "pair with the code the board shows: sets the session cookie",
                               "requestBody": {"required": True, **_json({
                                   "type": "object", "required": ["code"], "additionalProperties": False,
                                   "properties": {"code": {"type": "string", "pattern": "^[GRYB]{4}$"}}})},
                               "responses": {"200": {"description": "paired"} | _json({
                                   "type": "object", "properties": {"paired": {"const": True},
                                                                    "csrf": {"type": "string"}}})}
                               | _errors(400, 403, 413, 415, 429)}},
        "/api/unpair": _command("forget this phone", None, {"type": "object"}),
        "/api/pair/forget-all": _command("forget every paired phone", None, {"type": "object"}),
        "/api/compositions": _get("composed games: the saved ones and the companion's own, each {id, name}",
                                  {"type": "object", "properties": {"saved": {"type": "array"},
                                                                    "shipped": {"type": "array"}}})
        | _command("check a composition (docs/composer.md) and save it under its id: it joins the catalogue",
                   {"type": "object", "required": ["text"], "additionalProperties": False, "properties": {
                       "text": {"type": "string", "maxLength": 12000},
                       "format": {"enum": ["toml", "json"]}, "replace": {"type": "boolean"}}},
                   {"type": "object", "properties": {"ok": {"type": "boolean"}, "game": {"type": "object"}}}),
        "/api/compositions/{game_id}.toml": {"get": {
            "summary": "a composed game in full, every parameter with its meaning (TOML)",
            "parameters": [COMPOSED_ID],
            "responses": {"200": {"description": "the composition",
                                  "content": {"text/plain": {"schema": {"type": "string"}}}}} | _errors(404)}},
        "/api/compositions/{game_id}/delete": {"post": _command(
            "delete a saved composition (a game under way keeps its rules)", None, {"type": "object"}, 404)["post"]
            | {"parameters": [COMPOSED_ID]}},
        "/api/openapi.json": _get("this document", {"type": "object"}),
    },
}


@bp.get("/api/openapi.json")
def document():
    return jsonify(DOCUMENT)
