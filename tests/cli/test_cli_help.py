"""The command's options as a user meets them: each says what it does in ``--help``, and each is in the docs
beside its command (README.md, docs/), where the owner of a board looks before reading ``--help``."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from companion.cli.command import build_parser

ROOT = Path(__file__).resolve().parents[2]


def _options(parser: argparse.ArgumentParser, command: tuple[str, ...] = ()):
    """(command words, option, its action) for every long option of every subcommand."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _options(sub, command + (name,))
        else:
            for option in action.option_strings:
                if option.startswith("--") and option not in ("--help", "--version"):
                    yield command, option, action


def _paragraphs() -> list[str]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [p for f in files for p in re.split(r"\n\s*\n", f.read_text(encoding="utf-8"))]


def test_every_option_says_what_it_does():
    silent = [f"{' '.join(c)} {o}" for c, o, a in _options(build_parser()) if not a.help]
    assert not silent, f"options without help: {silent}"


def test_every_option_is_documented_beside_its_command():
    """In a paragraph that names its command ("rules" for the board options every rules question takes)."""
    paragraphs = _paragraphs()
    missing = [
        f"{' '.join(c)} {o}"
        for c, o, _ in _options(build_parser())
        if not any(o in p and any(word in p for word in c) for p in paragraphs)
    ]
    assert not missing, f"in --help only, in no paragraph of README.md or docs/ naming the command: {missing}"


def test_run_help_says_where_the_state_is_kept_and_how_to_start_afresh(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "elsewhere"))
    with pytest.raises(SystemExit):
        build_parser().parse_args(["run", "--help"])
    text = "".join(capsys.readouterr().out.split())  # argparse wraps the lines, at hyphens too

    def said(words: str) -> bool:
        return "".join(words.split()) in text

    assert said(f"(for you now: {tmp_path / 'elsewhere' / 'gryb-companion'})")
    assert said("To start afresh, stop the companion and move companion.db")


def _section(text: str, title: str) -> str:
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_the_readme_starts_with_five_steps_whose_commands_are_the_ones_documented_below():
    """A newcomer reads five lines before the details; their commands are the README's own first command
    (which CI's .ci/run keeps beside the test command) and a `play` the parser takes."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert text.index("\n## Quick start\n") < text.index("\n## Two commands\n") < text.index("\n## Playing\n")
    steps = _section(text, "Quick start").strip().splitlines()
    assert [step.split(". ", 1)[0] for step in steps] == ["1", "2", "3", "4", "5"]
    commands = [c for step in steps for c in re.findall(r"`([^`]*gryb-companion [^`]*)`", step)]
    blocks = re.findall(r"```sh\n(.*?)\n```", _section(text, "Two commands"), re.S)
    assert commands[0] == blocks[0] == ".ci/bootstrap && .venv/bin/gryb-companion run --sim"
    assert blocks[1] == ".ci/bootstrap --tests && .venv/bin/python -m pytest"
    assert blocks[1] in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    for command in commands:
        build_parser().parse_args(command.split("gryb-companion ", 1)[1].split())


def test_the_readmes_playing_section_says_one_fact_a_sentence():
    """Short sentences, one fact each: every line of prose is a list item of one sentence, or the few
    words that introduce a list."""
    playing = re.sub(
        r"```sh\n.*?\n```", "", _section((ROOT / "README.md").read_text("utf-8"), "Playing"), flags=re.S
    )
    long = []
    for item in re.split(r"\n(?=- |\n)", playing.strip()):
        said = " ".join(item.split())
        if said and not said.startswith("- "):
            if not (said.endswith(":") and len(said) <= 60):
                long.append(said)
        # A full stop, colon or semicolon before the next word ends a fact.
        elif said and (len(said) > 220 or re.search(r"[.!?:;] [A-Za-z`(]", said)):
            long.append(said)
    assert not long, "\n".join(long)
