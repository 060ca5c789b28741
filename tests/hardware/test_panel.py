"""The control panel on gpiozero's own MockFactory: pins driven low/high as fingers would."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from gpiozero import Button
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.panel import PATTERNS, ControlPanel, PanelError, open_panel

BOUNCE = 0.05


@pytest.fixture
def panel():
    p = open_panel("sim", hold_time=0.3, bounce_time=BOUNCE)
    p.events = []
    p.when_roll = lambda: p.events.append("roll")
    p.when_ok = lambda: p.events.append("ok")
    p.when_undo = lambda: p.events.append("undo")
    p.when_menu = lambda: p.events.append("menu")
    yield p
    p.close()


def press(panel, name, seconds=0.0):
    pin = panel.pin(name)
    pin.drive_low()
    time.sleep(seconds)
    pin.drive_high()


def wait_until(check, timeout=2.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.005)
    return check()


def watch(pin, seconds):
    """The (frequency, value) the buzzer pin goes through, polled every few ms."""
    seen = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        now = (pin.frequency, pin.state)
        if not seen or seen[-1] != now:
            seen.append(now)
        time.sleep(0.003)
    return seen


# -- buttons -------------------------------------------------------------------------------------------


def test_roll_and_ok_act_when_pressed(panel):
    panel.pin("roll").drive_low()
    assert panel.events == ["roll"] and panel.is_pressed("roll")
    panel.pin("roll").drive_high()
    time.sleep(BOUNCE * 1.5)
    press(panel, "ok")
    assert panel.events == ["roll", "ok"]


def test_a_bouncing_press_counts_once(panel):
    pin = panel.pin("roll")
    for _ in range(5):  # contact chatter: a few edges within a millisecond or so
        pin.drive_low()
        pin.drive_high()
    pin.drive_low()
    time.sleep(BOUNCE * 2)
    assert panel.events == ["roll"] and panel.is_pressed("roll")
    pin.drive_high()
    pin.drive_low()  # chatter on release
    pin.drive_high()
    time.sleep(BOUNCE * 2)
    assert not panel.is_pressed("roll")
    press(panel, "roll")  # a real second press, after the window
    assert panel.events == ["roll", "roll"]


def test_a_release_inside_the_bounce_window_is_not_lost(panel):
    panel.pin("ok").drive_low()
    panel.pin("ok").drive_high()  # released again at once: inside the window, so ignored for now ...
    assert panel.is_pressed("ok")
    assert wait_until(lambda: not panel.is_pressed("ok"), BOUNCE * 4)  # ... and picked up when it closes
    time.sleep(BOUNCE * 1.2)
    press(panel, "ok")
    assert panel.events == ["ok", "ok"]


def test_mock_pins_do_not_debounce_which_is_why_the_panel_does():
    factory = MockFactory()
    button = Button(5, pull_up=True, bounce_time=BOUNCE, pin_factory=factory)
    count = []
    button.when_pressed = lambda: count.append(1)
    for _ in range(3):
        button.pin.drive_low()
        button.pin.drive_high()
    assert len(count) == 3  # gpiozero's bounce_time did nothing on the mock
    button.close()


def test_undo_acts_on_a_short_press(panel):
    press(panel, "undo", 0.05)
    assert panel.events == ["undo"]


def test_holding_undo_opens_the_menu_and_no_undo_follows(panel):
    pin = panel.pin("undo")
    pin.drive_low()
    assert wait_until(lambda: panel.events == ["menu"], 1.5)
    time.sleep(0.2)
    pin.drive_high()
    time.sleep(BOUNCE * 2)
    assert panel.events == ["menu"]  # held once: one menu, and the release is not an undo
    time.sleep(BOUNCE)
    press(panel, "undo", 0.05)
    assert panel.events == ["menu", "undo"]


def test_a_failing_callback_does_not_break_the_panel(panel):
    def boom():
        raise RuntimeError("runtime gone")

    panel.when_roll = boom
    press(panel, "roll", BOUNCE * 1.5)
    time.sleep(BOUNCE * 1.5)
    panel.when_roll = lambda: panel.events.append("roll")
    press(panel, "roll")
    assert panel.events == ["roll"]


# -- buzzer ----------------------------------------------------------------------------------------------


def test_beep_plays_its_pattern_in_the_background(panel):
    buzzer = panel.pin("buzzer")
    started = time.monotonic()
    panel.beep("gryb")
    assert time.monotonic() - started < 0.05  # non-blocking
    seen = watch(buzzer, 0.6)
    tones = [f for f, v in seen if v]
    assert tones == [1047, 1319, 1568, 2093]  # G R Y B, rising
    assert seen[-1][1] == 0  # silent afterwards


def test_illegal_has_a_rest_between_two_low_tones(panel):
    panel.beep("illegal")
    seen = watch(panel.pin("buzzer"), 0.5)
    values = [v for f, v in seen]
    assert [f for f, v in seen if v] == [330, 247]
    assert 0 in values[values.index(0.5) :]  # stopped between the tones


def test_a_new_beep_cuts_the_one_playing(panel):
    panel.beep("win")
    time.sleep(0.05)
    panel.beep("ok")
    seen = watch(panel.pin("buzzer"), 0.4)
    assert 1760 in [f for f, v in seen if v] and 2093 not in [f for f, v in seen if v]


def test_sounds_off_keeps_the_buzzer_silent():
    with open_panel("sim", sounds=False) as p:
        p.beep("win")
        seen = watch(p.pin("buzzer"), 0.2)
        assert all(not v for f, v in seen)


def test_unknown_sound(panel):
    with pytest.raises(PanelError, match="no sound 'boing'"):
        panel.beep("boing")
    assert set(PATTERNS) == {"ok", "illegal", "gryb", "win", "roll"}


# -- status LED ----------------------------------------------------------------------------------------------


def test_status_led_states(panel):
    led = panel.pin("status_led")
    panel.set_status("ready")
    assert led.state == 1
    panel.set_status("off")
    assert led.state == 0
    led.clear_states()
    panel.set_status("busy")
    time.sleep(0.45)
    fast = len(led.states)
    assert fast >= 4  # on/off every 0.1 s
    panel.set_status("link-down")
    led.clear_states()
    time.sleep(0.45)
    assert len(led.states) < fast  # slower
    panel.set_status("ready")
    time.sleep(0.05)
    assert led.state == 1
    with pytest.raises(PanelError, match="no status 'happy'"):
        panel.set_status("happy")


# -- life cycle and options ------------------------------------------------------------------------------


def test_close_releases_the_pins_and_is_idempotent():
    factory = MockFactory(pin_class=MockPWMPin)
    first = ControlPanel(pin_factory=factory)
    first.close()
    first.close()
    with ControlPanel(pin_factory=factory) as second:  # the same pins again
        assert not second.closed
    assert second.closed
    first.beep("ok")  # harmless after close
    first.set_status("ready")


@pytest.mark.parametrize(
    "kw,message",
    [
        ({"roll": 17, "ok": 17}, "ok and roll both use GPIO17"),
        ({"buzzer": 40}, "buzzer must be a GPIO number 0..27"),
        ({"hold_time": 0}, "hold_time must be a positive number"),
        ({"bounce_time": 2.0}, "bounce_time must be 0 or more and shorter than hold_time"),
    ],
)
def test_bad_options(kw, message):
    with pytest.raises(PanelError, match=message):
        open_panel("sim", **kw)


def test_unknown_driver_and_no_gpio_here():
    with pytest.raises(PanelError, match="unknown panel driver 'usb'"):
        open_panel("usb")
    if Path("/proc/device-tree/model").exists():
        pytest.skip("a real Pi: its GPIO opens")
    import warnings

    with warnings.catch_warnings(record=True) as seen, pytest.raises(PanelError) as err:
        warnings.simplefilter("always")
        open_panel("gpio")
    # One message that says what to do, not gpiozero's warning for every pin library it tried.
    assert "GPIO could not be opened" in str(err.value) and 'panel.driver = "sim"' in str(err.value)
    assert not [w for w in seen if "gpiozero" in (w.filename or "")], [str(w.message) for w in seen]
