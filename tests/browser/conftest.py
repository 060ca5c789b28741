"""Browser tests: Playwright (sync API) driving Debian's Chromium, never Playwright's own download.

The session fixture installs the ``chromium`` package with apt when /usr/bin/chromium is missing
(CI runs as root). Each test gets a real Runtime (temporary store), the app, and waitress on port 0.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from companion.config import Config
from companion.runtime import Runtime
from companion.store import Store
from web import create_app
from web.server import serve

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def chromium_path():
    if not os.path.exists(CHROMIUM):
        if os.geteuid() != 0 or shutil.which("apt-get") is None:
            pytest.skip("no /usr/bin/chromium and no root apt-get to install it")
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run("apt-get update && apt-get install -y chromium", shell=True, check=True, env=env,
                       stdout=subprocess.DEVNULL, timeout=900)
    return CHROMIUM


@pytest.fixture(scope="session")
def browser(chromium_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path, args=ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def artifacts():
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def site(tmp_path, request):
    """A started runtime, the app and waitress: (runtime, base_url). Die faces from @pytest.mark.die."""
    from web.testing import LoadedDie

    marker = request.node.get_closest_marker("die")
    die = LoadedDie(marker.args[0]) if marker else LoadedDie("GRYB")
    runtime = Runtime(Config(), Store(tmp_path / "gryb.db"), die=die)
    runtime.start()
    app = create_app(runtime, Config(), state_dir=tmp_path / "state")
    server = serve(app, "127.0.0.1", 0)
    yield runtime, server.url
    server.close()
    runtime.stop()
    runtime.store.close()


def pytest_configure(config):
    config.addinivalue_line("markers", "die(faces): the loaded die's faces for the site fixture")
