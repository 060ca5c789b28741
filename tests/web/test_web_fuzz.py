"""Fuzzing the API: requests generated from its OpenAPI document, valid and broken, plus junk.

Each operation of the document (web.openapi.DOCUMENT, as the app serves it) is fuzzed on its own, with
requests its schemas call valid and with requests broken in one place (a field of the wrong type, out of
its range or against its pattern, one of a game's options wrong, a field missing or one it does not take, a
body that is no JSON object, a path or query value that nothing has). Where a schema can only give a type,
a valid request mostly takes what the API lists at the moment it is sent, as a page or a person at the table
would: the game being played and its ply, its legal moves and their nodes, the stored games and series, the
saved compositions, the stone colours in force, the code the board shows. Before each valid one the world is
made such that the operation can be taken (a self-test running to cancel, a code shown to pair with, the
die rolled before a hint...). The test asserts that each operation had many requests taken (2xx) and many
refused (4xx). Whatever arrives, the answer is never a 5xx, a refused request leaves the game exactly as it
was (same state, same version) and the saved compositions too, and every saved composition is a game of the
catalogue.

Unpaired watchers, and a real waitress socket, get the same requests of any operation mixed with hostile
junk (odd methods, paths, headers, bodies), and malformed HTTP on a raw socket.

The world runs on clocks the test moves on (the runtime's wall clock, the pairing's): a timed series runs
out, and pairing limits reset, only between requests, never during one.
"""

from __future__ import annotations

import functools
import http.client
import json
import re
import socket
import threading
import time
import urllib.parse
from collections import Counter
from dataclasses import dataclass, replace
from typing import NamedTuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.link.link import Link
from companion.rules import node as nd
from companion.service import commands as c
from companion.service.config import Config
from companion.service.geometry import board_geometry
from companion.service.runtime import Runtime
from companion.service.store import Store
from hardware.buttons import load_button_layout
from hardware.led_layout import load_layout
from hardware.leds import SimulatedSurface
from hardware.node_input import SimulatedNodeInput
from hardware.selftest import Run
from web import create_app
from web.compose import EXAMPLE
from web.openapi import DOCUMENT
from web.pairing import WRONG_WINDOW, PairingCode
from web.security import RateLimit
from web.server import serve
from web.testing import LoadedDie, pair

MIXED = settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
EACH = settings(
    max_examples=24, deadline=None, suppress_health_check=list(HealthCheck)
)  # an operation, one kind
ENOUGH = 8  # of the EACH requests of an operation: taken when valid, refused when broken (at least)
SELFTEST_SECONDS = 300
HUGE = "99999999999999999999999"  # past SQLite's 64-bit INTEGER
DEEP = b'{"node":' + b"[" * 5000 + b"]" * 5000 + b"}"  # past the JSON decoder's recursion limit

OPERATIONS = sorted((method.upper(), path) for path, ops in DOCUMENT["paths"].items() for method in ops)
SIMULATOR_ONLY = {
    "/api/pair/shown"
}  # the laptop simulator's page only: sent to an app made as `run --sim` makes it
BY_ADDRESS = SIMULATOR_ONLY  # no input but who asks: valid from the laptop itself, refused from a phone


class Request(NamedTuple):
    method: str
    url: str
    body: bytes | None
    ctype: str
    headers: dict
    addr: str


# -- the world ---------------------------------------------------------------------------------------


class Clock:
    """A clock that moves only when the test moves it (seconds, from the real time at the start)."""

    def __init__(self):
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class World:
    rt: Runtime
    app: object
    laptop: object  # the same board's page as `run --sim` serves it: the simulator-only operations
    paired: object  # a phone's test client, kept paired
    token: str | None
    clock: Clock
    selftest: Run
    setup: object  # the client that arranges the world (asks for codes as a second phone would)

    def ready(self) -> None:
        """Before each request: the phone paired again if a request unpaired it (unpair, forget all, a new
        pairing's cookie), and the computer players quick again if a request gave them 20 times as long (each
        of their moves is waited for)."""
        if self.token is None or not self.paired.get("/api/session").get_json()["paired"]:
            self.move_on(WRONG_WINDOW + 1)
            self.token = pair(self.paired, self.rt)
        if self.rt.snapshot()["settings"]["time_scale"] > 1:
            self.rt.call(c.ChangeSettings(**{"time_scale": 1.0}))

    def move_on(self, seconds: float) -> None:
        """Time passes between requests: pairing limits reset, a timed series that ran out says so now (the
        runtime's idle tick would say it a second later, in the middle of the next request)."""
        self.clock.advance(seconds)
        self.rt.call(c.Tick())


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fuzz")
    config = Config()
    config = replace(
        config, state=replace(config.state, dir=str(tmp / "state"))
    )  # saved compositions go here
    clock = Clock()
    rt = Runtime(config, Store(tmp / "gryb.db"), die=LoadedDie("GRYB"), wall=clock)
    rt.start()
    surface = SimulatedSurface(load_layout("panels-32x32", board_geometry()), fps=120)
    layout = load_button_layout(board_geometry())
    buttons = SimulatedNodeInput(layout)  # the self-test's board: the real self-test, on the simulator
    run = Run(surface, buttons, [nd.name(n) for n in nd.nodes()], pause=0.0)
    sim = SimulatedNodeInput(layout)
    app = create_app(
        rt,
        config,
        state_dir=tmp / "state",
        selftest=functools.partial(run.start, SELFTEST_SECONDS),
        cancel_selftest=run.cancel,
        leds=surface.shown,
        link=Link(rt, url="mqtt://127.0.0.1:9", board="probe", secret=bytes(32)),  # its broker never reached
    )
    laptop = create_app(rt, config, sim_input=sim, state_dir=tmp / "state")
    code = PairingCode(rt, clock=clock)  # one board, one code: both pages see it
    for each in (app, laptop):
        each.extensions["gryb-pair-code"] = code
        each.extensions["gryb-pair-limit"] = RateLimit(5, 60.0, clock=clock)
    paired = app.test_client()
    paired.environ_base["REMOTE_ADDR"] = "10.1.1.1"
    setup = app.test_client()
    setup.environ_base["REMOTE_ADDR"] = "10.9.9.9"
    made = World(rt, app, laptop, paired, pair(paired, rt), clock, run, setup)
    yield made
    run.cancel()
    rt.stop()
    rt.store.close()
    for closing in (sim, buttons, surface):
        closing.close()


@pytest.fixture(autouse=True)
def _compositions_forgotten(request):
    """The compositions a test saved are forgotten with it: the catalogue is put back as it was after each
    test (conftest), and the world's saved ones would no longer be in it."""
    yield
    if "world" in request.fixturenames:
        rt = request.getfixturevalue("world").rt
        for saved in rt.board.library.ids():
            rt.call(c.ForgetComposition(saved))


SEARCHES = ("gryb-hint", "gryb-computer")  # the search threads (companion/service/computer.py)


def quiet(rt):
    """The snapshot once no search is under way: a hint asked for, or a computer seat's move, changes the
    snapshot by itself when its answer comes, whatever request is being made then. A computer seat's roll
    is queued after the command before it (not searched on a thread): a second snapshot that finds the
    version unchanged says nothing was."""
    while True:
        snapshot = rt.call(c.Snapshot())  # the queue handled: a search its commands started is running now
        searches = [t for t in threading.enumerate() if t.name in SEARCHES]
        for t in searches:
            t.join(30)
        if not searches and rt.call(c.Snapshot())["version"] == snapshot["version"]:
            return snapshot


def check(rt, send, what=None) -> int:
    """Send a request (``what``, said when it fails): never a 5xx, and a refusal changes nothing (the game,
    the saved compositions). Every saved composition is a game of the catalogue, whatever was taken or
    refused."""
    before, saved = quiet(rt), rt.board.library.ids()
    status = send()
    after = rt.call(c.Snapshot())
    assert status < 500, (status, what)
    if status >= 400:
        assert after["version"] == before["version"] and after["state"] == before["state"], (status, what)
        assert rt.board.library.ids() == saved, (status, what)
    assert set(rt.board.library.ids()) <= {cls.id for cls in rt.board.catalogue}, (status, what)
    return status


def open_with(client, request: Request) -> tuple[int, dict | None]:
    """A request through Flask's test client: the status and the JSON answer (the live feed is opened and
    closed at once: its stream never ends)."""
    stream = request.url.startswith("/api/events")
    r = client.open(
        request.url,
        method=request.method,
        data=request.body,
        content_type=request.ctype or None,
        headers=request.headers,
        environ_overrides={"REMOTE_ADDR": request.addr},
        buffered=not stream,
    )
    try:
        return r.status_code, None if stream else r.get_json(silent=True)
    finally:
        r.close()


# -- what the document says ----------------------------------------------------------------------------
#
# Requests are drawn from the document as it is at the start, and what the API lists is put in when each is
# sent (a Pick): what hypothesis draws never depends on the state, which the requests before have changed.


def resolve(schema: dict) -> dict:
    while "$ref" in schema:
        schema = DOCUMENT["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def operation(method: str, path: str) -> tuple[list[dict], dict | None]:
    """An operation's parameters and its request body's schema (None: it takes none)."""
    op = DOCUMENT["paths"][path][method.lower()]
    body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
    return op.get("parameters", []), body


def takes_input(method: str, path: str) -> bool:
    params, body = operation(method, path)
    return bool(params or body) or path in BY_ADDRESS


class Pick(NamedTuple):
    """A value the API lists, for a field or parameter a schema can only type (see ``known``), chosen when
    the request is sent: the listed value at ``index`` (mostly, when the API lists one of the type), else
    ``made``, the schema's own."""

    name: str
    kind: str
    listed: bool
    index: int
    made: object


LISTED = {"game", "ply", "action", "node", "seat", "colours", "code", "game_id", "series_id"}


def _fits(value, kind: str) -> bool:
    """Whether a listed value has the JSON type the schema asks for (``game`` is a game's number where a
    command names the game in play, its id where a new game names one of the catalogue)."""
    return {
        "integer": type(value) is int,
        "string": isinstance(value, str),
        "array": isinstance(value, list),
    }.get(kind, False)


def fill(value, known: dict):
    """A drawn value with each Pick made: the listed value it names, or its own."""
    if isinstance(value, Pick):
        listed = [v for v in known.get(value.name, []) if _fits(v, value.kind)]
        return listed[value.index % len(listed)] if value.listed and listed else fill(value.made, known)
    if isinstance(value, dict):
        return {k: fill(v, known) for k, v in value.items()}
    if isinstance(value, list):
        return [fill(v, known) for v in value]
    return value


def valid(schema: dict, name: str | None = None, depth: int = 0, picks: bool = True):
    """Values the schema calls valid; for a field the API lists values of, mostly those (a Pick)."""
    schema = resolve(schema)
    made = _valid(schema, depth, picks)
    if picks and name in LISTED and schema.get("type") in ("integer", "string", "array"):
        return st.builds(
            Pick,
            st.just(name),
            st.just(schema["type"]),
            often(st.just(True), st.just(False)),
            st.integers(0, 10**6),
            made,
        )
    return made


def any_of(choices: list):
    """One of ``choices``, each about as often (hypothesis' sampled_from keeps mostly to the first few)."""
    return st.integers(0, 2**16).map(lambda i: choices[i % len(choices)])


def often(this, that):
    """Mostly ``this``, now and then ``that``: ``that`` is the middle of a range, which hypothesis draws less
    often than its ends (it draws the branches of one_of far from alike)."""
    return st.integers(0, 4).flatmap(lambda i: that if i == 2 else this)


def _valid(schema: dict, depth: int, picks: bool):
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "oneOf" in schema:
        return st.one_of([valid(s, depth=depth + 1, picks=picks) for s in schema["oneOf"]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([_valid(schema | {"type": k}, depth + 1, picks) for k in kind])
    if kind == "object":
        props = schema.get("properties", {})
        required = set(schema.get("required", []))
        made = st.fixed_dictionaries(
            {k: valid(v, k, depth + 1, picks) for k, v in props.items() if k in required},
            optional={k: valid(v, k, depth + 1, picks) for k, v in props.items() if k not in required},
        )
        made = made.filter(lambda d: len(d) >= schema.get("minProperties", 0))
        if schema.get(
            "examples"
        ):  # mostly an example with a value or two changed: the rest still fits together
            return often(
                st.sampled_from(schema["examples"]).flatmap(lambda e: varied(e, schema, depth, picks)), made
            )
        return made
    if kind == "array":
        return st.lists(
            valid(schema.get("items", {}), depth=depth + 1, picks=picks),
            min_size=schema.get("minItems", 0),
            max_size=schema.get("maxItems", 4),
        )
    if kind == "string":
        most = schema.get("maxLength", 30)
        if "contentSchema" in schema:  # JSON text of its own schema (a composition)
            return (
                valid(schema["contentSchema"], depth=depth + 1, picks=False)
                .map(json.dumps)
                .filter(lambda text: len(text) <= most)
            )
        if "pattern" in schema:
            return st.from_regex(schema["pattern"], fullmatch=True).filter(lambda text: len(text) <= most)
        text = st.text(max_size=min(most, 30))
        return often(st.sampled_from(schema["examples"]), text) if schema.get("examples") else text
    if kind == "integer":
        return st.integers(schema.get("minimum", -5), schema.get("maximum", 1000))
    if kind == "number":
        return st.floats(
            schema.get("minimum", -1), schema.get("maximum", 2), allow_nan=False, allow_infinity=False
        )
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    return junk_json


@st.composite
def varied(draw, example: dict, schema: dict, depth: int, picks: bool) -> dict:
    """An example of an object schema with one or two of its values changed (of a section, one of its own)."""
    value = dict(example)
    props = schema["properties"]
    for key in draw(st.lists(any_of(sorted(props)), min_size=1, max_size=2, unique=True)):
        inner = resolve(props[key])
        if inner.get("type") == "object" and inner.get("properties"):
            name = draw(any_of(sorted(inner["properties"])))
            value[key] = dict(value.get(key, {})) | {
                name: draw(valid(inner["properties"][name], name, depth + 1, picks))
            }
        else:
            value[key] = draw(valid(inner, key, depth + 1, picks))
    return value


def wrong(schema: dict):
    """Values the schema refuses: of another type, past its range, its length or items, off its pattern."""
    schema = resolve(schema)
    if "const" in schema or "enum" in schema:
        allowed = [schema["const"]] if "const" in schema else schema["enum"]
        return (st.text(max_size=12) | st.integers() | st.just([])).filter(
            lambda v: not any(v == a and type(v) is type(a) for a in allowed)
        )
    if "oneOf" in schema:
        return st.sampled_from([[[]], -1.5, {"?": []}])  # none of the kinds a oneOf here allows
    kind = schema.get("type")
    others = {
        "integer": st.floats(allow_nan=False).filter(lambda f: not f.is_integer())
        | st.booleans()
        | st.from_regex(r"[0-9]{1,3}", fullmatch=True),
        "number": st.booleans() | st.text(max_size=5) | st.none(),
        "boolean": st.integers(0, 1) | st.sampled_from(["yes", "true", ""]),
        "string": st.integers() | st.lists(st.text(max_size=3), max_size=2) | st.none(),
        "array": st.text(max_size=5) | st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
        "object": st.lists(st.integers(), max_size=2) | st.text(max_size=5) | st.integers(),
    }
    choices = [others.get(kind if isinstance(kind, str) else "", st.just([[]]))]
    numbers = st.floats if kind == "number" else st.integers
    if "minimum" in schema:
        choices.append(numbers(max_value=schema["minimum"] - 1))
    if "maximum" in schema:
        choices.append(numbers(min_value=schema["maximum"] + 1))
    if "pattern" in schema:
        choices.append(st.text(max_size=8).filter(lambda t: not re.fullmatch(schema["pattern"], t)))
    if "maxLength" in schema and schema["maxLength"] < 1000:  # a longer text is past the body's own limit
        choices.append(st.text(min_size=schema["maxLength"] + 1, max_size=schema["maxLength"] + 4))
    if kind == "array" and "maxItems" in schema:
        item = valid(schema.get("items", {}), picks=False)
        choices.append(st.lists(item, min_size=schema["maxItems"] + 1, max_size=schema["maxItems"] + 2))
    return st.one_of(choices)


class Plan(NamedTuple):
    """A request as drawn: Picks in it are made when it is sent (``made``)."""

    method: str
    path: str
    values: dict  # the path's parameters
    query: dict
    payload: object  # the body as JSON (None: empty), unless ``raw``
    addr: str
    ctype: str = "application/json"
    raw: bytes | None = None

    def made(self, known: dict) -> Request:
        values, query = fill(self.values, known), fill(self.query, known)
        url = re.sub(r"\{(\w+)\}", lambda m: urllib.parse.quote(str(values[m.group(1)]), safe=""), self.path)
        url += "?" + urllib.parse.urlencode({k: str(v) for k, v in query.items()}) if query else ""
        payload = fill(self.payload, known)
        body = (
            self.raw
            if self.raw is not None
            else None
            if self.method == "GET"
            else b""
            if payload is None
            else json.dumps(payload).encode()
        )
        return Request(self.method, url, body, self.ctype, {}, self.addr)


ADDRESSES = st.builds("10.2.{}.{}".format, st.integers(0, 255), st.integers(1, 254))  # phones on the LAN
LOOPBACK = st.builds("127.0.{}.{}".format, st.integers(0, 255), st.integers(1, 254))  # the laptop itself


@st.composite
def valid_request(draw, method: str, path: str) -> Plan:
    params, body = operation(method, path)
    values, query = {}, {}
    for param in params:
        value = draw(valid(param["schema"], param["name"]))
        if param["in"] == "path":
            values[param["name"]] = value
        elif draw(st.booleans()):
            query[param["name"]] = value
    payload = None
    if body is not None:
        empty = resolve(body).get("maxProperties") == 0
        payload = draw(st.none() | st.just({})) if empty else draw(valid(body))
    return Plan(method, path, values, query, payload, draw(LOOPBACK if path in SIMULATOR_ONLY else ADDRESSES))


@st.composite
def broken_request(draw, method: str, path: str) -> Plan:
    """A valid request broken in one place, which the operation should refuse."""
    params, body = operation(method, path)
    plan = draw(valid_request(method, path))
    if path in BY_ADDRESS:  # valid from the laptop itself: asked from a phone
        return plan._replace(addr=draw(ADDRESSES))
    way = draw(any_of([p["name"] for p in params] + (["body"] if body is not None else [])))
    param = next((p for p in params if p["name"] == way), None)
    if param is not None:
        bad = wrong(param["schema"])
        if param["schema"].get("type") == "integer":
            bad = bad | st.integers(10**6, 10**7) | st.just(HUGE)  # a number nothing has
        elif param["in"] == "path":
            bad = bad | valid(param["schema"], picks=False)  # a name nothing has (mostly)
        if param["in"] == "path":
            return plan._replace(values=plan.values | {way: draw(bad)})
        return plan._replace(query=plan.query | {way: draw(bad)})
    schema = resolve(body)
    variant = resolve(draw(any_of(schema["oneOf"]))) if "oneOf" in schema else schema
    base = draw(valid(variant))
    props = variant.get("properties", {})
    others = any_of(
        ["not an object", "not JSON", "not sent as JSON", "a field it does not take"]
        + (["a field missing"] if variant.get("required") else [])
    )
    how = draw(often(st.just("a wrong value"), others) if props else others)  # the ways the views check most
    if how == "not an object":  # null too: written out, not an empty body
        return plan._replace(
            raw=json.dumps(draw(junk_json.filter(lambda v: not isinstance(v, dict)))).encode()
        )
    if how == "not JSON":
        return plan._replace(raw=draw(st.sampled_from([b"{nope", b"\xff\xfe{}", b'{"a": 1', b"[1, 2"])))
    if how == "not sent as JSON":
        return plan._replace(
            payload=base,
            ctype=draw(
                st.sampled_from(
                    ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]
                )
            ),
        )
    if how == "a field it does not take":
        return plan._replace(
            payload=base | {draw(st.sampled_from(["zzz", "gmae", "nodes"])): draw(junk_json)}
        )
    if how == "a field missing":
        gone = draw(any_of(variant["required"]))
        return plan._replace(payload={k: v for k, v in base.items() if k != gone})
    name = draw(any_of(sorted(props)))
    inner = resolve(props[name])
    if inner.get("properties") and draw(
        st.booleans()
    ):  # one of an object's own values wrong (a game's option)
        key = draw(any_of(sorted(inner["properties"])))
        nested = base.get(name) if isinstance(base.get(name), dict) else {}
        return plan._replace(payload=base | {name: nested | {key: draw(wrong(inner["properties"][key]))}})
    return plan._replace(payload=base | {name: draw(wrong(inner))})


# -- what the API lists --------------------------------------------------------------------------------


NODES = re.compile(r"0|[GRYB]+")


def known(world: World, path: str) -> dict:
    """Values the API lists now, for the fields and path parameters a schema can only type: what a page (or
    a person at the table, for the code) would send."""
    snapshot = world.rt.call(c.Snapshot())
    legal = snapshot["legal"]
    values = {
        "game": [snapshot["game_id"]],
        "ply": [snapshot["ply"]],
        "action": legal[:60],
        "node": sorted({n for action in legal[:60] for n in NODES.findall(action)})[:40],
        "seat": list(range(snapshot["players"])),
        "colours": [snapshot["settings"]["colours"]],
    }
    if world.rt.board.effects.code:
        values["code"] = ["".join(world.rt.board.effects.code)]
    watcher = world.app.test_client()
    if path.startswith("/api/history/"):
        values["game_id"] = [g["id"] for g in watcher.get("/api/history?limit=500").get_json()["games"]][
            :40
        ] + [snapshot["game_id"]]
        values["ply"] = [0]  # every stored game has its first position
    elif path.startswith("/api/series/"):
        listed = watcher.get("/api/history?limit=500").get_json()["games"]
        values["series_id"] = sorted({g["series_id"] for g in listed if g["series_id"] is not None}) + (
            [snapshot["series"]["id"]]
            if snapshot["series"] and snapshot["series"].get("id") is not None
            else []
        )
    elif path.startswith("/api/compositions/"):
        listed = watcher.get("/api/compositions").get_json()
        values["game_id"] = [c["id"] for c in listed["saved"]] + (
            [c["id"] for c in listed["shipped"]] if path.endswith(".toml") else []
        )
    return values


# -- making the world take a request -----------------------------------------------------------------


def _move_due(world: World) -> None:
    """A person to move, the die rolled: what a hint or a move needs (a few tries: a roll may leave nothing
    to do)."""
    rt = world.rt
    for _ in range(6):
        s = quiet(rt)
        state, to_move = s["state"], s["state"]["to_move"]
        if state["over"]:
            rt.call(c.Again())
        elif s["seats"][to_move] != "human":
            rt.call(c.Seat(to_move, "human", None))
        elif state["awaiting_roll"]:
            rt.call(c.Act(s["legal"][0])) if s["settings"]["die"] == "physical" else rt.call(c.Roll())
        else:
            return


def _code_shown(world: World) -> None:
    world.move_on(WRONG_WINDOW + 1)
    assert world.setup.post("/api/pair/start", json={}).status_code == 200


def _a_series(world: World) -> None:
    if not known(world, "/api/series/{series_id}")["series_id"]:
        world.rt.call(c.NewGame("ez-gryb", 2, {}, None, {"method": "games", "target": 3}, None))


def _a_saved_composition(world: World) -> None:
    if not known(world, "/api/compositions/{game_id}/delete")["game_id"]:
        world.rt.call(c.Compose(EXAMPLE, "toml", True))


def _the_example_free(world: World) -> None:
    """The document's example composition may be saved again (without replace)."""
    if "my-game" in world.rt.board.library.ids():
        world.rt.call(c.ForgetComposition("my-game"))


def _no_game_under_way(world: World) -> None:
    """A new game without abandon is refused while one is under way (409): begin this one afresh."""
    s = world.rt.call(c.Snapshot())
    if s["ply"] and not s["state"]["over"]:
        series = c.GO_ON if s["series"] and not s["series"]["over"] else None
        world.rt.call(c.NewGame(s["game"]["id"], s["players"], {}, None, series, None, abandon=True))


ARRANGE = {  # what the world needs for a valid request to be taken (besides a paired phone)
    ("POST", "/api/hint"): _move_due,
    ("POST", "/api/act"): _move_due,
    ("POST", "/api/press"): _move_due,
    ("POST", "/api/pair"): _code_shown,
    ("POST", "/api/pair/start"): lambda world: world.move_on(WRONG_WINDOW + 1),
    ("GET", "/api/pair/shown"): _code_shown,
    ("POST", "/api/selftest"): lambda world: world.selftest.cancel(),
    ("POST", "/api/selftest/cancel"): lambda world: (
        world.selftest.running or world.selftest.start(SELFTEST_SECONDS)
    ),
    ("GET", "/api/series/{series_id}"): _a_series,
    ("POST", "/api/games/new"): _no_game_under_way,
    ("POST", "/api/compositions"): _the_example_free,
    ("POST", "/api/compositions/{game_id}/delete"): _a_saved_composition,
}


def send_as_the_phone(world: World, request: Request) -> int:
    """A request from the paired phone (or, for the simulator's own operations, from its laptop's page)."""
    if urllib.parse.urlsplit(request.url).path in SIMULATOR_ONLY:
        status, _ = open_with(world.laptop.test_client(), request)
        return status
    headers = {"X-CSRF-Token": world.token} | request.headers if request.method == "POST" else request.headers
    status, answer = open_with(world.paired, request._replace(headers=headers))
    if isinstance(answer, dict) and "csrf" in answer:  # paired again, or unpaired: the page keeps its token
        world.token = answer["csrf"]
    return status


@pytest.mark.parametrize("method,path", OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS])
def test_every_operation_takes_valid_requests_and_refuses_broken_ones(world, method, path):
    served = world.app.test_client().get("/api/openapi.json").get_json()
    assert served["paths"] == json.loads(
        json.dumps(DOCUMENT["paths"])
    )  # the requests' source is what is served
    outcomes = {"valid": Counter(), "broken": Counter()}

    def fuzz(kind: str):
        @EACH
        @given((valid_request if kind == "valid" else broken_request)(method, path))
        def one(plan):
            world.ready()
            if kind == "valid" and (method, path) in ARRANGE:
                ARRANGE[(method, path)](world)
            quiet(world.rt)
            request = plan.made(known(world, path))
            status = check(world.rt, lambda: send_as_the_phone(world, request), request)
            outcomes[kind]["taken" if status < 400 else "refused"] += 1

        one()

    fuzz("valid")
    if takes_input(method, path):
        fuzz("broken")
    taken, refused = outcomes["valid"]["taken"], outcomes["broken"]["refused"]
    assert taken >= ENOUGH, f"{method} {path}: {taken} valid requests taken, of {outcomes['valid']}"
    if takes_input(method, path):
        assert refused >= ENOUGH, (
            f"{method} {path}: {refused} broken requests refused, of {outcomes['broken']}"
        )


# -- any operation, and junk, from watchers and over a socket ------------------------------------------


junk_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@st.composite
def documented(draw) -> Plan:
    method, path = draw(st.sampled_from(OPERATIONS))
    make = draw(
        st.sampled_from([valid_request, broken_request] if takes_input(method, path) else [valid_request])
    )
    return draw(make(method, path))


@st.composite
def hostile(draw) -> Request:
    method = draw(st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"]))
    path = draw(
        st.sampled_from(
            [p for _, p in OPERATIONS if "{" not in p and p != "/api/events"]
            + [
                "/api/nope",
                "/api/../etc/passwd",
                "/api/press/x",
                "/static/../web/security.py",
                "/board/99.svg",
                "/history/abc",
                "/%ff",
                "/api/history/1/record.exe",
            ]
        )
    )
    body = draw(
        st.one_of(
            st.binary(max_size=200),
            st.just(b"{" * 5000),
            st.just(DEEP),
            st.just(b'{"node": "' + b"G" * 40000 + b'"}'),
            st.just(b"\xff\xfe{}"),
            st.just(b"null"),
            st.just(b"[]"),
            st.just(b'{"code": "GRYB"}'),
            st.text(max_size=50).map(str.encode),
        )
    )
    ctype = draw(
        st.sampled_from(
            [
                "application/json",
                "text/plain",
                "application/x-www-form-urlencoded",
                "multipart/form-data; boundary=x",
                "application/json; charset=latin-1",
                "",
            ]
        )
    )
    headers = draw(
        st.dictionaries(
            st.sampled_from(
                ["Origin", "X-CSRF-Token", "Sec-Fetch-Site", "Accept", "Cookie", "X-Forwarded-For", "Range"]
            ),
            st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=40),
            max_size=3,
        )
    )
    return Request(method, path, body, ctype, headers, draw(ADDRESSES))


def made(world: World, drawn: Plan | Request) -> Request:
    return drawn.made(known(world, drawn.path)) if isinstance(drawn, Plan) else drawn


AUDIT = [  # found by an audit: each was a 500 (or a 200 with the whole record) before
    Request("GET", f"/api/history/{HUGE}", None, "application/json", {}, "10.2.0.1"),
    Request("GET", f"/api/history/{HUGE}/record.json", None, "application/json", {}, "10.2.0.1"),
    Request("GET", f"/history/{HUGE}", None, "application/json", {}, "10.2.0.1"),
    Request("GET", f"/api/series/{HUGE}", None, "application/json", {}, "10.2.0.1"),
    Request("POST", "/api/press", DEEP, "application/json", {}, "10.2.0.1"),
    Request("POST", "/api/games/new", DEEP, "application/json", {}, "10.2.0.1"),
]


@pytest.mark.parametrize("request_", AUDIT, ids=[f"{r.method} {r.url[:40]}" for r in AUDIT])
def test_what_the_audit_found_is_refused_and_changes_nothing(world, request_):
    world.ready()
    assert 400 <= check(world.rt, lambda: send_as_the_phone(world, request_), request_) < 500
    assert 400 <= check(world.rt, lambda: open_with(world.app.test_client(), request_)[0], request_) < 500


@MIXED
@given(st.data())
def test_watchers_change_nothing_whatever_they_send(world, data):
    request = made(world, data.draw(documented() | hostile(), label="request"))
    before = quiet(world.rt)
    check(world.rt, lambda: open_with(world.app.test_client(), request)[0], request)
    after = world.rt.call(c.Snapshot())
    assert after["version"] == before["version"] and after["state"] == before["state"]


@pytest.fixture(scope="module")
def server(world):
    srv = serve(world.app, "127.0.0.1", 0)
    yield srv
    srv.close()


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_over_a_real_socket(world, server, data):
    request = made(world, data.draw(documented() | hostile(), label="request"))

    def send():
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        try:
            headers = {k: v for k, v in request.headers.items() if k.lower() != "cookie"}
            if request.ctype:
                headers["Content-Type"] = request.ctype
            conn.request(
                request.method, request.url.replace("%ff", "%FF"), body=request.body, headers=headers
            )
            response = conn.getresponse()
            if not request.url.startswith("/api/events"):  # the live feed never ends: its status is enough
                response.read()
            return response.status
        finally:
            conn.close()

    check(world.rt, send, request)


@pytest.mark.parametrize(
    "raw",
    [
        b"GARBAGE\r\n\r\n",
        b"POST /api/roll HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n{}",
        b"POST /api/pair HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n"
        + b"4000\r\n"
        + b"x" * 0x4000
        + b"\r\n0\r\n\r\n",
        b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET / HTTP/1.1\r\n" + b"X-Junk: " + b"y" * 100000 + b"\r\n\r\n",
    ],
)
def test_malformed_http_is_refused_without_a_5xx(world, server, raw):
    rt = world.rt
    before = quiet(rt)
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        try:
            s.sendall(raw)
            answer = s.recv(200)
        except (ConnectionResetError, BrokenPipeError):
            answer = b""
    if answer:
        status = int(answer.split(b" ", 2)[1])
        assert status < 500 or status == 501 and raw.startswith(b"GARBAGE"), answer
    after = rt.call(c.Snapshot())
    assert after["version"] == before["version"]
