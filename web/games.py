"""Choosing a game: the catalogue, its options, players and names, a series; POST starts it."""

from __future__ import annotations

import re

from flask import Blueprint, jsonify, render_template

from companion.ai import LEVELS
from companion.games import howto
from companion.games.engine import catalogue
from companion.games.series import METHODS, PRESETS, describe
from companion.service.runtime import GO_ON
from companion.session.seating import by_player
from web.play import KINDS, SEATS, _call, compact
from web.security import body, paired, refuse, web

bp = Blueprint("games", __name__)

MAX_NAME = 24
# Never part of a name: control characters (NUL, ESC, tabs...) and the bidirectional embeddings,
# overrides, isolates and marks, one of which turns the rest of a line round ("Ann 12 – Bo 3" read
# right to left on every phone's history). A right-to-left script needs none of them.
UNSHOWN = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# The games a first-time player should try, in that order, with the badge their card wears: 001 gives its
# examples "beginning with the easiest first", Quick & Easy GRYB (000's EZ GRYB) and then 'Drangles (no die).
FIRST_GAMES = {"ez-gryb": "Start here", "drangles": "Try next"}


def games() -> list[dict]:
    return [cls.describe() for cls in catalogue()]


def listed() -> list[dict]:
    """The catalogue as the page lists it: the games to try first at the top, each with its badge."""
    first = list(FIRST_GAMES)
    return sorted(
        ({**g, "badge": FIRST_GAMES.get(g["id"])} for g in games()),
        key=lambda g: first.index(g["id"]) if g["id"] in first else len(first),
    )


def presets() -> list[dict]:
    """Every series preset of the manuals; ``short`` is the name without its game ("first to 21 points").
    Each game's own presets and its default are in its entry of ``games()`` (``series``)."""
    return [describe(p) for p in PRESETS]


def _seats(config, colours: list[str]) -> list[dict]:
    """The four players' places on the form: each one's stone colour (as set now) and default name."""
    return [{"seat": i, "colour": colours[i], "name": config.players.names[i]} for i in range(4)]


def _table(snapshot: dict, config) -> list[dict]:
    """Who plays at the table now, player by player (player 1 first, whoever began this game), to fill the
    form in with: the people's names (not the names the companion gave: "Player 2", "Computer (hard)")
    and whether each is a person or the computer at a level. The same people usually play the next game
    too."""
    names, kinds, order = snapshot["table"]["names"], snapshot["seats"], snapshot["order"]
    names, kinds = by_player(names, order), by_player(kinds, order)
    given = set(config.players.names)
    return [
        {"name": name if kind == "human" and name not in given else "", "kind": kind}
        for name, kind in zip(names, kinds)
    ]


@bp.get("/games")
def choose():
    snapshot = web().runtime.snapshot()
    return render_template(
        "games.html",
        games=listed(),
        presets=presets(),
        methods=METHODS,
        seats=_seats(web().config, snapshot["settings"]["colours"]),
        current=snapshot["game"]["id"],
        table=_table(snapshot, web().config),
        kinds=KINDS,
        series=_series_on(snapshot),
    )


@bp.get("/games/<game_id>/rules")
def rules(game_id: str):
    game = next((cls for cls in catalogue() if cls.id == game_id), None)
    if game is None:
        refuse(404, "no such game: choose one from the list of games")
    return render_template("rules.html", game=game.describe(), blocks=howto.of(game))


def _series_on(snapshot: dict) -> dict | None:
    """The series a new game may go on with: the one being played, unless it is over."""
    series = snapshot.get("series")
    return series if series and not series.get("over") else None


@bp.get("/api/games")
def list_games():
    colours = web().runtime.snapshot()["settings"]["colours"]
    return jsonify(
        games=games(),
        presets=presets(),
        methods=list(METHODS),
        seats=_seats(web().config, colours),
        levels=list(LEVELS),
    )


def _refuse_unless_typed(key: str, value, default) -> None:
    """An option's value must be of its default's type, as the form sends it: true or false, a whole
    number (not true, not "4"), or text of 100 characters at most."""
    if isinstance(default, bool):
        if not isinstance(value, bool):
            refuse(400, f"option {key} is true or false")
    elif isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            refuse(400, f"option {key} is a whole number")
    elif not isinstance(value, str) or len(value) > 100:
        refuse(400, f"option {key} is text of 100 characters at most")


def _check_new_game(data: dict):
    by_id = {g["id"]: g for g in games()}
    game_id = data.get("game")
    if not isinstance(game_id, str) or game_id not in by_id:
        refuse(400, "choose a game from /api/games")
    info = by_id[game_id]
    players = data.get("players", info["players"]["min"])
    if (
        isinstance(players, bool)
        or not isinstance(players, int)
        or not (info["players"]["min"] <= players <= info["players"]["max"])
    ):
        low, high = info["players"]["min"], info["players"]["max"]
        refuse(
            400,
            f"{info['name']} is for {low} players"
            if low == high
            else f"{info['name']} is for {low} to {high} players",
        )
    options = data.get("options", {})
    if not isinstance(options, dict):
        refuse(400, "options is an object of option name to value")
    known = {o["name"]: o for o in info["options"]}
    for key, value in options.items():
        if key not in known:
            refuse(400, f"{info['name']} has no option {key!r}")
        _refuse_unless_typed(key, value, known[key]["default"])
    names = data.get("names", [])
    if not isinstance(names, list) or len(names) > players or not all(isinstance(n, str) for n in names):
        refuse(400, "names is a list of text, one for each player")
    names = [" ".join(UNSHOWN.sub(" ", n).split())[:MAX_NAME] for n in names]
    seats = data.get("seats", ["human"] * players)
    if not isinstance(seats, list) or len(seats) != players or any(s not in SEATS for s in seats):
        refuse(400, f"seats is a list with one of {', '.join(SEATS)} for each player")
    series = data.get("series")
    if series is not None and series != GO_ON:
        if not isinstance(series, dict) or series.get("method") not in METHODS:
            refuse(
                400,
                f'series is null (just this game), "{GO_ON}" (go on with the series being played) '
                f'or {{"method": one of {", ".join(METHODS)}, "target": n}}',
            )
        target = series.get("target")
        if isinstance(target, bool) or not isinstance(target, int) or not 1 <= target <= 10000:
            refuse(400, "the series target is a whole number from 1 to 10000")
        series = {"method": series["method"], "target": target}
    return game_id, players, options, names, series, seats


@bp.post("/api/games/new")
@paired
def new_game():
    fields = body("game", "players", "options", "names", "series", "seats")
    game_id, players, options, names, series, seats = _check_new_game(fields)
    snapshot = _call("new_game", game_id, players, options, names, series, seats)
    return jsonify(ok=True, message=f"new game: {snapshot['game']['name']}", state=compact(snapshot))
