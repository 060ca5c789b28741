"""Settings: brightness and night mode, the hardware status, pairing management."""

from __future__ import annotations

from flask import Blueprint, jsonify, render_template

from .play import _call
from .security import body, paired, refuse, web

bp = Blueprint("settings", __name__)

SELF_TEST_AVAILABLE = False  # the runtime has no self-test command yet: the page shows it as coming


@bp.get("/settings")
def settings_page():
    return render_template("settings.html", settings=web().runtime.snapshot()["settings"],
                           status=web().status(), self_test=SELF_TEST_AVAILABLE)


@bp.get("/api/settings")
def get_settings():
    return jsonify(settings=web().runtime.snapshot()["settings"], status=web().status())


@bp.get("/api/status")
def status():
    return jsonify(web().status())


@bp.post("/api/settings")
@paired
def set_settings():
    data = body()
    changes = {k: data[k] for k in ("brightness", "night") if k in data}
    unknown = set(data) - {"brightness", "night"}
    if unknown or not changes:
        refuse(400, "settings are brightness (0 to 1) and night (true or false)")
    if "brightness" in changes:
        value = changes["brightness"]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            refuse(400, "brightness is a number from 0 to 1")
    if "night" in changes and not isinstance(changes["night"], bool):
        refuse(400, "night is true or false")
    snapshot = None
    for key, value in changes.items():
        snapshot = _call("set", key, value)
    return jsonify(ok=True, settings=snapshot["settings"])
