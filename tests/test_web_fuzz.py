"""Fuzzing the API: requests generated from the OpenAPI document plus hostile junk.

Whatever arrives, the answer is never a 5xx, and a refused request (4xx) leaves the game exactly as
it was (same state, same version). The volume goes through Flask's test client; a smaller set goes
over a real socket to waitress.
"""

import http.client
import json
import re
import socket
import threading

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from companion.config import Config
from companion.runtime import Runtime
from companion.store import Store
from web import create_app
from web.openapi import DOCUMENT
from web.server import serve
from web.testing import LoadedDie, pair

SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
NOT_FOR_PAIRED = {"/api/unpair", "/api/pair/forget-all"}


def resolve(schema):
    while "$ref" in schema:
        schema = DOCUMENT["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def from_schema(schema, depth=0):
    """A strategy of values valid (mostly) for a JSON schema of the document."""
    schema = resolve(schema)
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "oneOf" in schema:
        return st.one_of([from_schema(s, depth + 1) for s in schema["oneOf"]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([from_schema(schema | {"type": k}, depth + 1) for k in kind])
    if kind == "object":
        props = schema.get("properties", {})
        if not props:
            extra = schema.get("additionalProperties")
            if isinstance(extra, dict) and depth < 3:
                return st.dictionaries(st.sampled_from(["depth", "stones", "turn_limit", "x"]),
                                       from_schema(extra, depth + 1), max_size=3)
            return st.just({})
        required = set(schema.get("required", []))
        return st.fixed_dictionaries({k: from_schema(v, depth + 1) for k, v in props.items() if k in required},
                                     optional={k: from_schema(v, depth + 1) for k, v in props.items()
                                               if k not in required})
    if kind == "array":
        return st.lists(from_schema(schema.get("items", {}), depth + 1), max_size=schema.get("maxItems", 4))
    if kind == "string":
        if "pattern" in schema:
            return st.from_regex(schema["pattern"], fullmatch=True)
        return st.text(max_size=schema.get("maxLength", 30))
    if kind == "integer":
        return st.integers(schema.get("minimum", -10), schema.get("maximum", 1000))
    if kind == "number":
        return st.floats(schema.get("minimum", -1), schema.get("maximum", 2), allow_nan=False)
    if kind == "boolean":
        return st.booleans()
    return junk_json


junk_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)

OPERATIONS = [(path, method.upper(), op) for path, ops in DOCUMENT["paths"].items() for method, op in ops.items()
              if path != "/api/events"]


HUGE = "99999999999999999999999"  # past SQLite's 64-bit INTEGER
DEEP = b'{"node":' + b"[" * 5000 + b"]" * 5000 + b"}"  # past the JSON decoder's recursion limit


def concrete(path, draw):
    ids = st.integers(-2, 5) | st.sampled_from(["x", "0x1", "%00", "1.5", HUGE, str(2 ** 63)])
    return re.sub(r"\{[^}]+\}", lambda m: str(draw(ids)), path)


@st.composite
def documented(draw):
    path, method, op = draw(st.sampled_from(OPERATIONS))
    url = concrete(path, draw)
    if method == "GET":
        query = draw(st.sampled_from(["", "?ply=0", "?ply=-1", "?ply=99999", "?ply=abc", "?ply=1.5",
                                           "?limit=0", "?limit=x", "?limit=1.5", "?limit=3"]))
        return method, url + query, None, "application/json", {}
    schema = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
    value = draw(from_schema(schema) | junk_json) if schema else draw(st.just({}) | junk_json)
    return method, url, json.dumps(value).encode(), "application/json", {}


@st.composite
def hostile(draw):
    method = draw(st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"]))
    path = draw(st.sampled_from([p for p, _, _ in OPERATIONS] + ["/api/nope", "/api/../etc/passwd", "/api/press/x",
                                                               "/static/../web/security.py", "/board/99.svg",
                                                               "/history/abc", "/%ff", "/api/history/1/record.exe"]))
    body = draw(st.one_of(st.binary(max_size=200), st.just(b"{" * 5000), st.just(DEEP),
                          st.just(b'{"node": "' + b"G" * 40000 + b'"}'),
                          st.just(b"\xff\xfe{}"), st.just(b"null"), st.just(b"[]"), st.just(b'{"code": "GRYB"}'),
                          st.text(max_size=50).map(str.encode)))
    ctype = draw(st.sampled_from(["application/json", "text/plain", "application/x-www-form-urlencoded",
                                  "multipart/form-data; boundary=x", "application/json; charset=latin-1", ""]))
    headers = draw(st.dictionaries(st.sampled_from(["Origin", "X-CSRF-Token", "Sec-Fetch-Site", "Accept", "Cookie",
                                                    "X-Forwarded-For", "Range"]),
                                   st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=40), max_size=3))
    return method, path, body, ctype, headers


requests_ = documented() | hostile()

AUDIT = [  # found by an audit: each was a 500 (or a 200 with the whole record) before
    ("GET", f"/api/history/{HUGE}", None, "application/json", {}),
    ("GET", f"/api/history/{HUGE}/record.json", None, "application/json", {}),
    ("GET", f"/history/{HUGE}", None, "application/json", {}),
    ("GET", f"/api/series/{HUGE}", None, "application/json", {}),
    ("POST", "/api/press", DEEP, "application/json", {}),
    ("POST", "/api/games/new", DEEP, "application/json", {}),
]


def audited(test):
    for case in AUDIT:
        test = example(case)(test)
    return test


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fuzz")
    rt = Runtime(Config(), Store(tmp / "gryb.db"), die=LoadedDie("GRYB"))
    rt.start()
    app = create_app(rt, Config(), state_dir=tmp / "state")
    paired = app.test_client()
    paired.environ_base["REMOTE_ADDR"] = "10.1.1.1"
    token = pair(paired, rt)
    yield rt, app, paired, token
    rt.stop()
    rt.store.close()


SEARCHES = ("gryb-hint_ready", "gryb-computer")  # the runtime's search threads (Runtime._think)


def quiet(rt):
    """The snapshot once no search is under way: a hint asked for, or a computer seat's move, changes the
    snapshot by itself when its answer comes, whatever request is being made then. A computer seat's roll
    is queued after the command before it (not searched on a thread): a second snapshot that finds the
    version unchanged says nothing was."""
    while True:
        snapshot = rt.call("snapshot")  # the queue handled: a search its commands started is running now
        searches = [t for t in threading.enumerate() if t.name in SEARCHES]
        for t in searches:
            t.join(10)
        if not searches and rt.call("snapshot")["version"] == snapshot["version"]:
            return snapshot


def check(rt, send):
    before = quiet(rt)
    status = send()
    after = rt.call("snapshot")
    assert status < 500, status
    if status >= 400:
        assert after["version"] == before["version"] and after["state"] == before["state"], status
    return status


@SETTINGS
@given(requests_)
@audited
def test_watchers_change_nothing_whatever_they_send(world, request_):
    rt, app, _, _ = world
    method, path, body, ctype, headers = request_
    client = app.test_client()

    def send():
        return client.open(path, method=method, data=body, content_type=ctype or None, headers=headers).status_code

    before = quiet(rt)
    check(rt, send)
    after = rt.call("snapshot")
    assert after["version"] == before["version"] and after["state"] == before["state"]


@SETTINGS
@given(requests_)
@audited
def test_a_paired_phone_never_gets_a_5xx_and_refusals_change_nothing(world, request_):
    rt, app, paired, token = world
    method, path, body, ctype, headers = request_
    if path in NOT_FOR_PAIRED:
        return
    headers = {"X-CSRF-Token": token} | headers if "Cookie" not in headers else headers

    def send():
        return paired.open(path, method=method, data=body, content_type=ctype or None, headers=headers).status_code

    check(rt, send)


@pytest.fixture(scope="module")
def server(world):
    rt, app, _, _ = world
    srv = serve(app, "127.0.0.1", 0)
    yield srv
    srv.close()


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(requests_)
@audited
def test_over_a_real_socket(world, server, request_):
    rt, _, _, _ = world
    method, path, body, ctype, headers = request_

    def send():
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        try:
            all_headers = {k: v for k, v in headers.items() if k.lower() != "cookie"}
            if ctype:
                all_headers["Content-Type"] = ctype
            conn.request(method, path.replace("%ff", "%FF"), body=body, headers=all_headers)
            response = conn.getresponse()
            response.read()
            return response.status
        finally:
            conn.close()

    check(rt, send)


@pytest.mark.parametrize("raw", [
    b"GARBAGE\r\n\r\n",
    b"POST /api/roll HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n{}",
    b"POST /api/pair HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n"
    + b"4000\r\n" + b"x" * 0x4000 + b"\r\n0\r\n\r\n",
    b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET / HTTP/1.1\r\n" + b"X-Junk: " + b"y" * 100000 + b"\r\n\r\n",
])
def test_malformed_http_is_refused_without_a_5xx(world, server, raw):
    rt = world[0]
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
    after = rt.call("snapshot")
    assert after["version"] == before["version"]
