"""The broker install.sh --broker sets up (systemd/mosquitto-gryb.conf and .acl), run for real: boards log
in with their own user and password, each may publish only under its own name, and two boards play
through it; a device without a password is turned away."""

import subprocess
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from boards import Board, link, move, wait
from broker import Broker

SYSTEMD = Path(__file__).resolve().parents[2] / "systemd"


@pytest.fixture
def secured(tmp_path):
    broker = Broker(tmp_path)
    conf_d = tmp_path / "conf.d"
    conf_d.mkdir()
    shipped = (SYSTEMD / "mosquitto-gryb.conf").read_text()
    (conf_d / "gryb.conf").write_text(
        shipped.replace("listener 1883", f"listener {broker.port} 127.0.0.1").replace(
            "/etc/mosquitto/", f"{tmp_path}/"
        )
    )
    (tmp_path / "gryb.acl").write_text((SYSTEMD / "mosquitto-gryb.acl").read_text())
    passwd = tmp_path / "gryb.passwd"
    for user in ("alba", "bran"):
        create = ["-c"] if user == "alba" else []
        subprocess.run(["mosquitto_passwd", *create, "-b", str(passwd), user, f"{user}-pw"], check=True)
    # Debian's own mosquitto.conf, as the package ships it: persistence on, then conf.d.
    broker.config.write_text(
        broker.user + f"persistence true\npersistence_location {tmp_path}/\ninclude_dir {conf_d}\n"
    )
    broker.start()
    yield broker
    broker.stop()


def client(broker, user: str | None, password: str | None = None) -> tuple[mqtt.Client, list]:
    heard, made = [], mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"test-{user}")
    if user:
        made.username_pw_set(user, password)
    made.on_message = lambda c, u, m: heard.append(m.topic)
    made.connect("127.0.0.1", broker.port)
    made.loop_start()
    return made, heard


def test_each_board_publishes_only_under_its_own_name_and_strangers_are_turned_away(secured, tmp_path):
    watcher, heard = client(secured, "alba", "alba-pw")
    watcher.subscribe("gryb/#", qos=1)
    wait(lambda: watcher.is_connected())
    bran, _ = client(secured, "bran", "bran-pw")
    wait(lambda: bran.is_connected())
    bran.publish("gryb/m/alba/action/1", b"{}", qos=1).wait_for_publish(5)  # as alba: dropped
    bran.publish("gryb/m/bran/action/1", b"{}", qos=1).wait_for_publish(5)
    wait(lambda: "gryb/m/bran/action/1" in heard)
    assert "gryb/m/alba/action/1" not in heard
    stranger, _ = client(secured, None)
    wrong, _ = client(secured, "bran", "guess")
    time.sleep(0.5)
    assert not stranger.is_connected() and not wrong.is_connected()
    for made in (watcher, bran, stranger, wrong):
        made.disconnect()
        made.loop_stop()


def test_two_boards_play_through_the_secured_broker(secured, tmp_path):
    boards = [
        Board("alba", tmp_path / "alba", secured.url, user="alba", password="alba-pw"),
        Board("bran", tmp_path / "bran", secured.url, user="bran", password="bran-pw"),
    ]
    try:
        a, b = boards
        link(a, b, "25-mens-gryb")
        for board in (a, b, a):
            move(board)
        wait(lambda: b.state()["ply"] == 3 == a.state()["ply"])
    finally:
        for board in boards:
            board.down()
