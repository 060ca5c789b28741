"""Messages published straight to the broker with paho: forged, replayed, out of turn, for another
position, malformed. Each is refused and logged; nothing changes on the board; play goes on."""

import paho.mqtt.client as mqtt
import pytest
from boards import history, link, move, wait

from companion.link import protocol as p
from companion.service import commands as c


@pytest.fixture
def intruder(broker):
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="intruder")
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    yield client
    client.disconnect()
    client.loop_stop()


def send(client, name: str, payload: bytes | str) -> None:
    client.publish(name, payload, qos=1, retain=True).wait_for_publish(5)


def test_forged_replayed_out_of_turn_wrong_position_and_malformed_messages_change_nothing(boards, intruder):
    a, b = boards
    link(a, b, "25-mens-gryb")
    for board in (a, b, a, b):
        move(board)
    wait(lambda: history(a) == history(b) and len(history(a)) == 4)
    match, key = a.link.match, p.match_key(a.link.code)
    stranger = p.match_key(p.new_code())
    legal = a.state()["legal"]
    bran_ply_1 = p.make(key, match, "bran", p.ACTION, ply=1, seat=1, action="x", digest="0" * 64)[0]
    sent = [
        # malformed
        (p.topic(match, "bran", p.ACTION, 4), b"\xff\xfe not json"),
        (p.topic(match, "bran", p.ACTION, 4), b'{"type": "action", "ply": 4}'),
        (p.topic(match, "bran", p.ACTION, 4), b"[" * 5000),
        (f"gryb/{match}/bran/anything", b"{}"),
        # forged: signed with another key, or with the right one for another match
        p.make(stranger, match, "bran", p.ACTION, ply=4, seat=1, action=legal[0], digest="0" * 64),
        (
            p.topic(match, "bran", p.ACTION, 4),
            p.make(
                key, "0123456789abcdef", "bran", p.ACTION, ply=4, seat=1, action=legal[0], digest="0" * 64
            )[1],
        ),
        # out of turn: seat 1 while seat 1 is not to move; alba's seat claimed by bran
        p.make(key, match, "bran", p.ACTION, ply=4, seat=1, action=legal[0], digest="0" * 64),
        p.make(key, match, "bran", p.ACTION, ply=4, seat=0, action=legal[0], digest="0" * 64),
        p.make(key, match, "bran", p.ACTION, ply=4, seat=3, action=legal[0], digest="0" * 64),  # no seat 4
        # bran's signed message of ply 1 sent again under the topic of ply 4
        (p.topic(match, "bran", p.ACTION, 4), b.link.retained[bran_ply_1]),
    ]
    for name, payload in sent:
        send(intruder, name, payload)
    wait(lambda: len(a.link.refused) >= len(sent), what="every message refused")
    assert history(a) == history(b) and len(history(a)) == 4
    reasons = " | ".join(r["why"] for r in a.link.refused)
    for said in ("not JSON", "malformed", "too long", "bad signature", "for another match", "wrong topic"):
        assert said in reasons, reasons

    move(a)
    wait(lambda: b.state()["ply"] == 5)
    # Now bran is to move: a legal move with a wrong digest, an illegal one, and the replay of ply 1.
    state = a.state()
    refused = len(a.link.refused)
    for action, digest in ((state["legal"][0], "0" * 64), ("GGGGGGGG", "0" * 64)):
        send(intruder, *p.make(key, match, "bran", p.ACTION, ply=5, seat=1, action=action, digest=digest))
    send(intruder, bran_ply_1, b.link.retained[bran_ply_1])
    wait(lambda: len(a.link.refused) >= refused + 2, what="the wrong position and the illegal move refused")
    reasons = " | ".join(r["why"] for r in list(a.link.refused)[refused:])
    assert "the boards differ" in reasons and history(a)[:5] == history(b)[:5] and a.state()["ply"] == 5

    move(b)  # bran's real move goes through after all that
    wait(lambda: a.state()["ply"] == 6 and history(a) == history(b))
    assert a.runtime.call(c.Snapshot())["state"]["over"] is False
