"""Link boards from the control panel: UNDO held opens the menu, held again hosts a match of the game on
the board and shows its code on the LEDs; another board joins with the code read off them."""

import time
from dataclasses import replace

from boards import Board, read_code, wait

from companion.assembly import Companion
from companion.rules import node as nd
from companion.service import commands as c
from companion.service import config as config_mod


def hold_undo(companion) -> None:
    pin = companion.panel.pin("undo")
    pin.drive_low()
    time.sleep(companion.config.panel.hold_time + 0.3)
    pin.drive_high()
    time.sleep(companion.config.panel.bounce_time + 0.02)


def test_undo_held_twice_shows_a_match_code_on_the_leds_that_another_board_joins(tmp_path, broker):
    config = config_mod.load(None, sim=True)
    config = replace(
        config,
        state=replace(config.state, dir=str(tmp_path / "alba")),
        link=replace(config.link, url=broker.url, board="alba"),
    )
    bran = None
    with Companion(config, sim=True, port=0) as alba:
        try:
            alba.runtime.call(c.NewGame("25-mens-gryb", 2, {"turn_limit": 12}))
            assert alba.runtime.call(c.Menu()).message.endswith("UNDO held links boards")
            assert alba.runtime.call(c.Menu()).message == "menu closed"
            hold_undo(alba)
            wait(lambda: alba.runtime.board.settings.menu, what="the menu open")
            hold_undo(alba)
            wait(lambda: alba.link.hosting, what="a match hosted")
            wait(lambda: not alba.runtime.board.settings.menu, what="the menu closed")

            def on_the_leds() -> str | None:
                nodes = {nd.parse(name): rgb for name, rgb in alba.surface.shown()["nodes"].items()}
                try:
                    return read_code(nodes)
                except KeyError:  # not drawn yet
                    return None

            wait(lambda: on_the_leds() is not None, what="the code on the LEDs")
            code = on_the_leds()
            assert code == alba.link.code
            bran = Board("bran", tmp_path / "bran", broker.url)
            bran.link.join(code)
            wait(lambda: alba.link.game_id is not None and bran.link.game_id is not None, what="both began")
            state = bran.state()
            assert state["game"]["id"] == "25-mens-gryb" and state["game"]["settings"]["turn_limit"] == 12
            assert state["link"]["seats"] == ["alba", "bran"]
            wait(lambda: alba.runtime.board.effects.match_code is None, what="the code hidden")
        finally:
            if bran is not None:
                bran.down()


def test_the_status_led_blinks_slowly_while_the_broker_is_away_in_a_linked_game(tmp_path, broker):
    """Issue 47: while the link is down the LEDs say so: the status LED, steady in a linked game, blinks
    slowly while the broker is gone and is steady again once the board is back on it."""
    config = config_mod.load(None, sim=True)
    config = replace(
        config,
        state=replace(config.state, dir=str(tmp_path / "alba")),
        link=replace(config.link, url=broker.url, board="alba"),
    )
    bran = Board("bran", tmp_path / "bran", broker.url)
    try:
        with Companion(config, sim=True, port=0) as alba:
            bran.link.join(alba.link.host("ez-gryb", 2, None))
            wait(lambda: alba.link.game_id is not None and bran.link.game_id is not None, what="both began")
            wait(lambda: alba.panel.state == "ready", what="steady in the linked game")
            broker.stop(kill=True)
            wait(lambda: alba.panel.state == "link-down", what="a slow blink while the broker is away")
            broker.start()
            wait(lambda: alba.panel.state == "ready", seconds=20, what="steady again with the broker back")
    finally:
        bran.down()
