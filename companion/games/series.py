"""Scoring a series of games (001 "Scoring GRYB"): a set number of games, time or score. Pure: times are
seconds since the series began."""

from __future__ import annotations

from dataclasses import dataclass, field

GAMES, TIME, POINTS = "games", "time", "points"
METHODS = (GAMES, TIME, POINTS)


@dataclass(frozen=True)
class Preset:
    id: str
    name: str
    method: str
    target: int
    source: str


PRESETS = {
    p.id: p
    for p in (
        Preset("ez-best-of-five", "EZ GRYB: most points out of five games", GAMES, 5, "000 EZ GRYB"),
        Preset("ez-first-to-21", "EZ GRYB: first to 21 points", POINTS, 21, "000 EZ GRYB"),
        Preset(
            "quick-best-of-three",
            "Quick & Easy: most points out of three games",
            GAMES,
            3,
            "001 Quick & Easy GRYB",
        ),
        Preset("quick-first-to-8", "Quick & Easy: first to 8 points", POINTS, 8, "001 Quick & Easy GRYB"),
    )
}


def describe(preset_id: str) -> dict:
    """A preset as the catalogue lists it; ``short`` is its name without its game ("first to 21 points")."""
    p = PRESETS[preset_id]
    return {
        "id": p.id,
        "name": p.name,
        "short": p.name.split(": ", 1)[-1],
        "method": p.method,
        "target": p.target,
        "source": p.source,
    }


class SeriesError(ValueError):
    pass


@dataclass(frozen=True)
class GameResult:
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    ended_at: float  # seconds since the series began
    game: int | None = None  # the stored game's id, where the runtime has one


@dataclass
class Series:
    players: int
    method: str = GAMES
    target: int = 5
    games: list[GameResult] = field(default_factory=list)

    def __post_init__(self):
        if self.method not in METHODS:
            raise SeriesError(f"series method is one of {', '.join(METHODS)}, not {self.method!r}")
        if not isinstance(self.target, int) or self.target < 1:
            raise SeriesError(f"series target must be a whole number of at least 1, not {self.target!r}")
        if not 2 <= self.players <= 4:
            raise SeriesError(f"a series is for 2 to 4 players, not {self.players}")

    @classmethod
    def preset(cls, preset_id: str, players: int = 2) -> Series:
        try:
            p = PRESETS[preset_id]
        except KeyError:
            raise SeriesError(f"no series preset {preset_id!r}; presets: {', '.join(PRESETS)}") from None
        return cls(players, p.method, p.target)

    def add(self, scores, winners=(), ended_at: float = 0.0, game: int | None = None) -> None:
        """Record a finished game; in a timed series a game ending after the time scores nothing."""
        if not self.accepts():
            raise SeriesError("the series is over")
        scores = tuple(int(s) for s in scores)
        if len(scores) != self.players:
            raise SeriesError(f"expected {self.players} scores, got {len(scores)}")
        if self.method == TIME and ended_at > self.target:
            scores = (0,) * self.players
            winners = ()
        self.games.append(GameResult(scores, tuple(winners), float(ended_at), game))

    def taken_back(self, game: int) -> bool:
        """A finished game undone into play again leaves the series; whether it had counted."""
        if self.games and self.games[-1].game == game:
            self.games.pop()
            return True
        return False

    def accepts(self) -> bool:
        """Whether a game finishing now still counts (not once the series is over)."""
        return not self.over(self.games[-1].ended_at if self.games else 0.0)

    def totals(self) -> tuple[int, ...]:
        totals = [0] * self.players
        for game in self.games:
            for i, s in enumerate(game.scores):
                totals[i] += s
        return tuple(totals)

    def over(self, now: float | None = None) -> bool:
        if self.method == GAMES:
            return len(self.games) >= self.target
        if self.method == POINTS:
            return max(self.totals()) >= self.target
        return now is not None and now >= self.target

    def leaders(self) -> tuple[int, ...]:
        totals = self.totals()
        best = max(totals)
        return tuple(i for i, t in enumerate(totals) if t == best)

    def winners(self, now: float | None = None) -> tuple[int, ...]:
        """The series winners once it is over (ties share it); () while it goes on."""
        return self.leaders() if self.over(now) and max(self.totals()) > 0 else ()

    def to_dict(self) -> dict:
        return {
            "players": self.players,
            "method": self.method,
            "target": self.target,
            "games": [
                {"scores": list(g.scores), "winners": list(g.winners), "ended_at": g.ended_at, "game": g.game}
                for g in self.games
            ],
            "totals": list(self.totals()),
        }

    @classmethod
    def from_dict(cls, data: dict) -> Series:
        series = cls(data["players"], data["method"], data["target"])
        for g in data.get("games", []):
            series.games.append(
                GameResult(tuple(g["scores"]), tuple(g["winners"]), float(g["ended_at"]), g.get("game"))
            )
        return series
