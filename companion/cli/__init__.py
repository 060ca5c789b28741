"""The ``gryb-companion`` command and playing at a terminal."""

from companion.cli.command import main

__all__ = ["main"]
