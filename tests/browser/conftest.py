"""Browser tests: Playwright (sync API) driving Debian's Chromium, never Playwright's own download.

Chromium comes from Debian's ``chromium`` package (``.ci/bootstrap`` installs it; as root this setup
installs it too when /usr/bin/chromium is missing). Without Chromium or Playwright the tests FAIL with
the reason: in CI a skipped browser test would look like a pass.

Each test gets the whole companion on the simulator, wired as ``gryb-companion run --sim`` wires it
(``companion.assembly.Companion``: temporary state directory, emulated Pico over a pty, mock panel, LEDs in
memory, waitress on port 0), so a tap on the page's board presses the node through the emulated MCU,
the pty and the serial bridge, as on a laptop.
"""

import os
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import pytest

from companion.assembly import Companion
from companion.service import config as config_mod

# Debian's and Raspberry Pi OS's package; GRYB_CHROMIUM names another build (Ubuntu's is a snap:
# /snap/bin/chromium), which is then used as it is and never installed.
CHROMIUM = os.environ.get("GRYB_CHROMIUM") or "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
INSTALL_HINT = (
    "run .ci/bootstrap --tests (it installs Debian's chromium with apt-get, through sudo when not root), "
    "or: sudo apt-get install chromium"
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def chromium_path():
    if (
        not os.path.exists(CHROMIUM)
        and not os.environ.get("GRYB_CHROMIUM")
        and os.geteuid() == 0
        and shutil.which("apt-get")
    ):
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        result = subprocess.run(
            "apt-get update -qq && apt-get install -y -qq chromium",
            shell=True,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        if result.returncode != 0:
            pytest.fail(
                f"installing Debian's chromium failed (exit {result.returncode}): "
                f"{result.stderr.strip()[-2000:]}",
                pytrace=False,
            )
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(
            f"the browser tests need Chromium at {CHROMIUM}, and it is missing: {INSTALL_HINT}", pytrace=False
        )
    return CHROMIUM


@pytest.fixture(scope="session")
def browser(chromium_path):
    try:
        from playwright import sync_api
    except ImportError as err:
        pytest.fail(
            f"the browser tests need Playwright for Python ({err}): run .ci/bootstrap --tests, or "
            f".venv/bin/python -m pip install -e '.[test]'",
            pytrace=False,
        )
    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path, args=ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def artifacts():
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


class Site(NamedTuple):
    runtime: object  # the started companion.runtime.Runtime
    url: str  # the page, on waitress
    companion: Companion
    pressed: list  # the nodes whose press came in from the serial bridge (the emulated Pico's key events)


@pytest.fixture
def site(tmp_path, request):
    """The companion on the simulator, started (a :class:`Site`). Die faces from @pytest.mark.die."""
    from web.testing import LoadedDie

    marker = request.node.get_closest_marker("die")
    die = LoadedDie(marker.args[0]) if marker else LoadedDie("GRYB")
    config = config_mod.load(None, sim=True)  # what `gryb-companion run --sim` reads
    config = replace(config, state=replace(config.state, dir=str(tmp_path / "state")))
    companion = Companion(config, sim=True, port=0, die=die)
    companion.start()
    pressed: list[str] = []
    forward = companion.node_input.when_event  # the bridge's key events on their way to the runtime

    def record(event) -> None:
        if event.pressed:
            pressed.append(event.node)
        forward(event)

    companion.node_input.when_event = record
    if request.node.get_closest_marker("cloth"):  # `run --sim` has the LEDs for stones
        from companion.service import commands as c

        companion.runtime.call(c.ChangeSettings(stones="cloth"))
    yield Site(companion.runtime, companion.url, companion, pressed)
    companion.stop()


def pytest_configure(config):
    config.addinivalue_line("markers", "die(faces): the loaded die's faces for the site fixture")
    config.addinivalue_line("markers", "cloth: the site fixture's stones on the cloth, as on a real board")
