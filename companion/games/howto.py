"""How to play each game (the rules page, ``play``'s ``rules``): ``howto/<game id>.txt``, blocks split by
blank lines: ``## `` a heading, ``- `` lines a list, else a paragraph."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from importlib import resources

from companion.games.engine import Game

HEADING, LIST, PARAGRAPH = "heading", "list", "paragraph"


@dataclass(frozen=True)
class Block:
    kind: str  # HEADING, LIST or PARAGRAPH
    text: str = ""  # a heading's or a paragraph's words
    items: tuple[str, ...] = ()  # a list's items


def parse(text: str) -> list[Block]:
    """The blocks of a text in the format above."""
    blocks = []
    for chunk in text.replace("\r\n", "\n").split("\n\n"):
        lines = [line.strip() for line in chunk.strip().splitlines() if line.strip()]
        if not lines:
            continue
        if len(lines) == 1 and lines[0].startswith("## "):
            blocks.append(Block(HEADING, lines[0][3:].strip()))
        elif all(line.startswith("- ") for line in lines):
            blocks.append(Block(LIST, items=tuple(line[2:].strip() for line in lines)))
        else:
            blocks.append(Block(PARAGRAPH, " ".join(lines)))
    return blocks


def shipped(game_id: str) -> str | None:
    """The text shipped for ``game_id``, or None; only a catalogue id, so no name leaves the folder."""
    if not game_id or not all(c.isascii() and (c.islower() or c.isdigit() or c == "-") for c in game_id):
        return None
    path = resources.files(__package__) / "howto" / f"{game_id}.txt"
    return path.read_text(encoding="utf-8") if path.is_file() else None


def of(game: type[Game]) -> list[Block]:
    """How to play ``game``: its shipped text, or a composition's summary and parameters of play."""
    text = shipped(game.id)
    if text is not None:
        return parse(text)
    blocks = [Block(PARAGRAPH, game.summary)] if game.summary else []
    rules = getattr(game, "base_rules", None)
    if rules is not None:
        from companion.games.composed.schema import SCHEMA, to_data  # composed games only

        data = to_data(rules)
        items = tuple(
            f"{p.key.replace('_', ' ')}: {_value(data[p.section][p.key])} — {p.help}"
            for p in SCHEMA
            if p.section
        )
        blocks += [
            Block(HEADING, "Parameters of play"),
            Block(PARAGRAPH, "A game made with the composer: these parameters are its rules."),
            Block(LIST, items=items),
        ]
    return blocks


def _value(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(_value(v) for v in value) if value else "none"
    return str(value)


def as_text(blocks: list[Block], width: int = 78) -> str:
    """The blocks for a terminal: headings underlined, lists bulleted, wrapped to ``width``."""
    out = []
    for block in blocks:
        if block.kind == HEADING:
            out.append(f"{block.text}\n{'-' * len(block.text)}")
        elif block.kind == LIST:
            out.append(
                "\n".join(
                    textwrap.fill(item, width, initial_indent="- ", subsequent_indent="  ")
                    for item in block.items
                )
            )
        else:
            out.append(textwrap.fill(block.text, width))
    return "\n\n".join(out) + "\n"
