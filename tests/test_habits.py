"""The code's habits, checked with the suite (docs/architecture.md): ruff's lint and format, the layers'
import contracts, and comments that say why in a line or three."""

from __future__ import annotations

import ast
import io
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
SOURCE = ("companion", "hardware", "firmware_bridge", "web", "bench", "docs")  # what is not a test
MOST_COMMENTS = 0.15  # of the source's characters, comments and docstrings together
LONGEST_BLOCK = 8  # comment lines in a row


def source_files() -> list[Path]:
    return sorted(p for folder in SOURCE for p in (ROOT / folder).rglob("*.py"))


def commented(text: str) -> tuple[int, int]:
    """(characters of comments and docstrings, the longest run of comment lines)."""
    chars, longest, run, last = 0, 0, 0, 0
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            chars += len(token.string)
            line = token.start[0]
            whole_line = token.line.strip().startswith("#")
            run = run + 1 if whole_line and line == last + 1 else (1 if whole_line else 0)
            last = line if whole_line else 0
            longest = max(longest, run)
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                if isinstance(first.value.value, str):
                    chars += len(ast.get_source_segment(text, first) or "")
    return chars, longest


@pytest.mark.parametrize(
    "command",
    [["ruff", "check", "."], ["ruff", "format", "--check", "."], ["lint-imports"]],
    ids=["ruff-check", "ruff-format", "import-contracts"],
)
def test_the_tools_find_nothing(command):
    done = subprocess.run([str(BIN / command[0]), *command[1:]], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_comments_say_why_in_a_line_or_three():
    total = comments = 0
    long_blocks = []
    for path in source_files():
        text = path.read_text(encoding="utf-8")
        chars, longest = commented(text)
        total, comments = total + len(text), comments + chars
        if longest > LONGEST_BLOCK:
            long_blocks.append(f"{path.relative_to(ROOT)}: {longest} comment lines in a row")
    assert not long_blocks, long_blocks
    assert comments / total <= MOST_COMMENTS, (
        f"comments and docstrings are {comments / total:.1%} of the source"
    )


def test_the_measure_counts_what_it_should():
    text = '"""Doc."""\n\n# one\n# two\nx = 1  # three\n\n\ndef f():\n    """Inner."""\n'
    chars, longest = commented(text)
    assert chars == len('"""Doc."""') + len("# one") + len("# two") + len("# three") + len('"""Inner."""')
    assert longest == 2
