"""One setting of a game: an option, or a composition's parameter."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class OptionError(ValueError):
    """A game option that does not exist or has a value it cannot take."""


@dataclass(frozen=True)
class Option:
    """A game's option, or a composition's parameter (``schema.SCHEMA``, with ``section`` and ``kind``)."""

    name: str
    default: Any
    help: str
    choices: tuple | None = None
    minimum: int | None = None
    maximum: int | None = None
    section: str = ""  # a composition's table; "" for the top level
    kind: str = ""  # a parameter's type (schema._check_value)

    @property
    def key(self) -> str:
        """The name, as a composition file writes it."""
        return self.name

    @property
    def where(self) -> str:
        return f"{self.section}.{self.name}" if self.section else self.name

    def convert(self, value: Any) -> Any:
        """A value (text too) as the option's type, or OptionError."""
        kind = type(self.default)
        if kind is bool:
            if isinstance(value, str):
                lowered = value.strip().lower()
                if lowered in ("1", "true", "yes", "on"):
                    value = True
                elif lowered in ("0", "false", "no", "off"):
                    value = False
                else:
                    raise OptionError(f"option {self.name} is true or false, not {value!r}")
            if not isinstance(value, bool):
                raise OptionError(f"option {self.name} is true or false, not {value!r}")
        elif kind is int:
            try:
                value = int(value)
            except (TypeError, ValueError):
                raise OptionError(f"option {self.name} is a whole number, not {value!r}") from None
            if (self.minimum is not None and value < self.minimum) or (
                self.maximum is not None and value > self.maximum
            ):
                raise OptionError(
                    f"option {self.name} must be from {self.minimum} to {self.maximum}, not {value}"
                )
        else:
            value = str(value)
        if self.choices is not None and value not in self.choices:
            raise OptionError(
                f"option {self.name} is one of {', '.join(map(str, self.choices))}, not {value!r}"
            )
        return value

    def describe(self) -> dict:
        out = {"name": self.name, "default": self.default, "help": self.help}
        if self.choices is not None:
            out["choices"] = list(self.choices)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        return out
