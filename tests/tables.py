"""The data files under tests/data. A module of its own, not conftest: every folder's conftest.py is
imported as ``conftest``, so ``from conftest import`` finds whichever was imported last."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).parent / "data"


def read_table(name: str) -> list[list[str]]:
    """Rows of a tab-separated data file under tests/data, comments and blank lines skipped."""
    rows = []
    for line in (DATA / name).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            rows.append(line.split("\t"))
    return rows
