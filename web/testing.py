"""Helpers the web tests and the benchmark share: a loaded die, pairing a test client."""

from __future__ import annotations

from itertools import cycle


class LoadedDie:
    """A die that shows the given faces in turn (e.g. "GRYB" or ["G"]), for scripted games."""

    seed = None

    def __init__(self, faces="G"):
        self._faces = cycle(list(faces))

    def roll(self, game):
        want = next(self._faces)
        faces = game.roll_faces()
        for face in faces:
            if (face.colour or "") == want or str(face) in (want, f"roll:{want}"):
                return face
        return faces[0]


def pair(client, runtime) -> str:
    """Pair a Flask test client the way a phone does (reading the code off the board); the CSRF token."""
    r = client.post("/api/pair/start", json={})
    assert r.status_code == 200, r.get_json()
    code = "".join(runtime.effects.code)
    r = client.post("/api/pair", json={"code": code})
    assert r.status_code == 200, r.get_json()
    return r.get_json()["csrf"]
