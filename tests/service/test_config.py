"""Configuration: defaults for the simulator, and every broken or contradictory file refused by key."""

import pytest

from companion.service import config
from companion.service.config import ConfigError


def test_simulator_defaults():
    c = config.load(None, sim=True)
    assert c.leds.driver == "sim" and c.serial.url == "sim" and c.web.port == 8080
    assert c.web.host == "127.0.0.1"
    assert len({c.players.rgb(i) for i in range(4)}) == 4


def test_a_file_for_the_pi(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(
        '[leds]\ndriver = "ws281x"\nbrightness = 0.4\n[serial]\nurl = "/dev/ttyACM0"\n'
        '[web]\nhost = "0.0.0.0"\n'
    )
    c = config.load(path)
    assert (c.leds.driver, c.leds.brightness, c.serial.url, c.web.host) == (
        "ws281x",
        0.4,
        "/dev/ttyACM0",
        "0.0.0.0",
    )
    sim = config.load(path, sim=True)
    assert sim.leds.driver == "sim" and sim.serial.url == "sim" and sim.leds.brightness == 0.4


def test_a_file_for_the_one_cable_build_keeps_the_pico_on_the_simulator(tmp_path):
    """issue 48: the Pico draws the LEDs and holds the panel; under --sim the emulated Pico does."""
    path = tmp_path / "config.toml"
    path.write_text('[leds]\ndriver = "pico"\n[panel]\ndriver = "pico"\n[serial]\nurl = "/dev/ttyACM0"\n')
    c = config.load(path)
    assert (c.leds.driver, c.panel.driver, c.serial.url) == ("pico", "pico", "/dev/ttyACM0")
    sim = config.load(path, sim=True)
    assert (sim.leds.driver, sim.panel.driver, sim.serial.url) == ("pico", "pico", "sim")


@pytest.mark.parametrize(
    "text, message",
    [
        ("[leds]\nbrightness = 2", "leds.brightness must be from 0.0 to 1.0"),
        ("[leds]\nbogus = 1", "leds.bogus is not a setting"),
        ("[lights]\n", "[lights] is not a section"),
        ("[panel]\nroll = 27", "panel.ok uses GPIO27, already used by panel.roll"),
        ("[panel]\nundo = 18", "panel.undo uses GPIO18, which drives the LEDs"),
        ("[web]\nport = '80'", "web.port must be int, not str"),
        ("[web]\nport = 70000", "web.port must be from 1 to 65535"),
        ("[leds]\nnight_brightness = 0.9", "night mode would dazzle"),
        ("[leds]\ndriver = 'neopixel'", "leds.driver is one of sim, ws281x"),
        (
            "[players]\ncolours = ['#00A03C', '#FF00C8', '#00E5FF', '#9A00FF']",
            "too close to the board's G nodes",
        ),
        (
            "[players]\ncolours = ['#00FF00', '#FF00C8', '#00E5FF', '#9A00FF']",
            "#00FF00 is too close to the board's G",
        ),
        (
            "[players]\ncolours = ['#FFFFFF', '#FF00C8', '#00E5FF', '#0000FF']",
            "#0000FF is too close to the board's B",
        ),
        (
            "[players]\ncolours = ['#FFFFFF', '#FFFFF0', '#00E5FF', '#9A00FF']",
            "too close to players.colours[0]",
        ),
        ("[leds]\nlayout = 'nosuch'", "leds.layout: no LED layout 'nosuch'"),
        ("[leds]\nbudget_ma = 100", "leds.budget_ma: 100 mA does not cover the idle draw of the 1024 LEDs"),
        ("[players]\ncolours = ['white', '#FF00C8', '#00E5FF', '#9A00FF']", "#RRGGBB"),
        ("[leds]\nfps = true", "leds.fps must be int"),
        ("[leds]\nnight = 'yes'", "leds.night must be bool, not str 'yes'"),
        ("[leds]\nnight = 1", "leds.night must be bool, not int 1"),
        ("[computer]\ntime_scale = 0", "computer.time_scale must be from 0.1 to 20.0"),
        ("[computer]\ntime_scale = '8'", "computer.time_scale must be float, not str"),
        ("leds = 3", "[leds] must be a table"),
        ("[leds\n", "is not valid TOML"),
    ],
)
def test_broken_files_name_the_key_and_the_problem(tmp_path, text, message):
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        config.load(path)


def test_a_slower_board_gives_the_computer_players_longer(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[computer]\ntime_scale = 8\n")
    assert config.load(path).computer.time_scale == 8.0
    assert config.load(None, sim=True).computer.time_scale == 1.0


def test_night_mode_at_the_start_is_off_unless_the_file_turns_it_on(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[leds]\nnight = true\n")
    assert config.load(path).leds.night is True and config.load(None, sim=True).leds.night is False
    with pytest.raises(ConfigError, match="leds.night is true or false, not 'on'"):  # a Config built in code
        config.Leds(night="on").check()
    with pytest.raises(ConfigError, match="panel.sounds is true or false, not 1"):  # the other switch, alike
        config.Panel(sounds=1).check()


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="no config file at"):
        config.load(tmp_path / "nope.toml")


def test_a_file_that_is_not_utf8_text_is_named(tmp_path):
    path = tmp_path / "config.toml"
    path.write_bytes("[players]\nnames = ['Zoë', 'B', 'C', 'D']\n".encode("latin-1"))  # saved as Latin-1
    with pytest.raises(ConfigError, match=rf"^{path} is not UTF-8 text \(line 2\): save it as UTF-8$"):
        config.load(path)


def test_the_pi_listens_on_every_interface_unless_the_file_says_otherwise(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[leds]\ndriver = "ws281x"\n')
    assert config.load(path).web.host == "0.0.0.0"
    assert config.load(path, sim=True).web.host == "127.0.0.1"
    path.write_text('[web]\nhost = "192.168.1.20"\n')
    assert config.load(path).web.host == "192.168.1.20"


def test_the_layout_is_loaded_and_the_budget_checked_against_it(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[leds]\nlayout = 'chain-341'\nbudget_ma = 400\n")  # 341 LEDs idle at ~341 mA
    assert config.load(path).leds.budget_ma == 400
    broken = tmp_path / "mine.json"
    broken.write_text("{")
    path.write_text(f"[leds]\nlayout = '{broken}'\n")
    with pytest.raises(ConfigError, match="leds.layout: LED layout .* is not valid JSON"):
        config.load(path, sim=True)


def test_a_colour_too_dark_to_show_is_refused():
    from hardware.leds import MIN_VISIBLE, gamma_table

    with pytest.raises(ConfigError, match=r"players.colours\[1\] #202020 is too dark"):
        config.Players(colours=("#FFFFFF", "#202020", "#00E5FF", "#9A00FF")).check()
    config.Players(colours=("#FFFFFF", "#800080", "#00E5FF", "#9A00FF")).check()  # the darkest kept
    # What the floor is for: at the dimmest the LEDs show colours at, the floor still lights its channel.
    assert (
        gamma_table(MIN_VISIBLE)[config.MIN_GLOW] >= 1 and gamma_table(MIN_VISIBLE)[config.MIN_GLOW // 2] == 0
    )


@pytest.mark.parametrize("colour", ["#00FF00", "#004010", "#0000FF", "#400000"])
def test_a_brighter_or_dimmer_copy_of_a_board_colour_is_refused(colour):
    # The LEDs scale every colour, so the same hue at another brightness glows as the board's node does.
    with pytest.raises(ConfigError, match="too close to the board's"):
        config.Players(colours=(colour, "#FF00C8", "#00E5FF", "#9A00FF")).check()


def _example_ranges():
    """(section, key, low, high) for each key of the example config whose comment gives its range."""
    import re
    from pathlib import Path

    section, found = None, []
    example = Path(__file__).resolve().parents[2] / "systemd" / "config.example.toml"
    for line in example.read_text(encoding="utf-8").splitlines():
        if line.startswith("["):
            section = line.strip("[]")
        match = re.match(r"(\w+) = [^#]+#.*?(-?[\d.]+) \.\. (-?[\d.]+)\b", line)
        if match:
            found.append((section, match[1], match[2], match[3]))
    return found


def test_the_example_config_says_the_ranges_the_loader_keeps():
    ranges = _example_ranges()
    assert {f"{s}.{k}" for s, k, *_ in ranges} >= {
        "leds.brightness",
        "leds.budget_ma",
        "leds.fps",
        "panel.hold_time",
        "panel.bounce_time",
        "web.port",
    }
    for section, key, low, high in ranges:
        whole = "." not in low + high
        step = 1 if whole else 0.01
        number = int if whole else float
        assert config.from_dict({section: {key: number(high)}})  # the top of the range is accepted
        for beyond in (number(low) - step, number(high) + step):
            with pytest.raises(ConfigError, match=rf"{section}\.{key}"):
                config.from_dict({section: {key: beyond}})
