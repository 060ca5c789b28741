"""A game being played (game, hands, seats, series), driven alike by the runtime and the terminal; pure."""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.games.engine import Game, IllegalAction
from companion.games.series import Series
from companion.rules import node as nd
from companion.rules.action import ROLL, Action
from companion.rules.node import Node
from companion.session.hands import Feedback, Hands
from companion.session.seating import HUMAN, SEATS, by_player, by_seat, next_along

CLOTH_DEPTH = nd.STANDARD_DEPTH  # the printed bandanna
PEOPLE = tuple(f"Player {i + 1}" for i in range(4))  # names for people who give none


class SessionError(ValueError):
    """A request refused before anything changes; says why."""


def given_name(player: int, kind: str, people: tuple[str, ...] = PEOPLE) -> str:
    """A name for a player who chose none (a computer's numbered, so two at one level differ)."""
    return people[player] if kind == HUMAN else f"Player {player + 1} (computer, {kind})"


@dataclass
class Session:
    hands: Hands
    seats: list[str]  # per seat: HUMAN or the computer's level
    order: list[int]  # per seat: the player sitting there
    series: Series | None = None
    people: tuple[str, ...] = PEOPLE
    game_id: int | None = None  # the store's row ids; None at a terminal
    series_id: int | None = None
    seated: int = field(default=0)  # seats handed over so far: a search begun before one is not used
    # A linked game (docs/linking.md): {"match", "code", "board", "seats": the board playing each seat}.
    link: dict | None = None

    @property
    def remote(self) -> frozenset[int]:
        """The seats another linked board plays: their moves come through the link."""
        if self.link is None:
            return frozenset()
        return frozenset(s for s, board in enumerate(self.link["seats"]) if board != self.link["board"])

    @classmethod
    def begin(
        cls,
        game: Game,
        names: list[str] | None = None,
        kinds: list[str] | None = None,
        order: list[int] | None = None,
        *,
        people: tuple[str, ...] = PEOPLE,
        cloth: bool = True,
        physical_die: bool = False,
        series: Series | None = None,
    ) -> Session:
        """A new game: ``names`` and ``kinds`` by player, ``order`` by seat (seat 0 moves first)."""
        kinds = list(kinds or [HUMAN] * game.players)
        if len(kinds) != game.players or any(k not in SEATS for k in kinds):
            raise SessionError(f"seats: one of {', '.join(SEATS)} for each of the {game.players} players")
        names = [
            names[p] if names and p < len(names) and names[p] else given_name(p, kinds[p], people)
            for p in range(game.players)
        ]
        order = list(order or range(game.players))
        hands = Hands(game, by_seat(names, order), cloth=cloth, physical_die=physical_die)
        return cls(hands, by_seat(kinds, order), order, series, people)

    @property
    def game(self) -> Game:
        return self.hands.game

    @property
    def names(self) -> list[str]:
        return self.hands.names

    def by_player(self, per_seat: list) -> list:
        return by_player(per_seat, self.order)

    def again(self) -> tuple[list[str], list[str], list[int]]:
        """The next game's (names, kinds, seating), begun by the next along."""
        return self.by_player(self.names), self.by_player(self.seats), next_along(self.order)

    def again_said(self, new_series: bool = False) -> str:
        return f"{self.game.name} again{', a new series' if new_series else ''}: {self.names[0]} begins"

    # -- whose turn

    def computer_to_move(self) -> str | None:
        """The level of the computer to move, when it is to act now."""
        hands, game = self.hands, self.game
        if game.over or hands.chores or hands.proposal is not None or game.to_move >= len(self.seats):
            return None
        kind = self.seats[game.to_move]
        return None if kind == HUMAN else kind

    def thinking(self) -> str | None:
        """Why a press, OK or a move is refused while the computer chooses (not the die)."""
        game = self.game
        if not (game.over or game.is_chance or self.hands.chores) and game.to_move in self.remote:
            return f"{self.names[self.game.to_move]} plays on another board: wait for the move"
        if self.game.is_chance or self.computer_to_move() is None:
            return None
        return f"{self.names[self.game.to_move]} is thinking: wait for its move"

    def why_no_hint(self) -> str | None:
        game = self.game
        if game.over:
            return "the game is over: OK plays it again"
        if game.is_chance:
            return "roll first: the hint is for the move after the roll"
        if self.seats[game.to_move] != HUMAN:
            return "the computer is to move"
        if game.to_move in self.remote:
            return f"{self.names[game.to_move]} plays on another board: the hint is for the players here"
        return None

    def people_at_table(self) -> set[int]:
        """The seats people play (all when none): UNDO goes back to theirs."""
        return {s for s, kind in enumerate(self.seats) if kind == HUMAN} or set(range(self.game.players))

    def on_cloth(self) -> bool:
        """Whether the game fits the cloth (docs/runtime.md, "Boards that do not fit the cloth")."""
        return self.game.space.depth <= CLOTH_DEPTH

    # -- what the players do

    def pressed(self, name: str) -> Node | Feedback:
        """A node by name, or the refusal of one the game leaves out; SessionError if no board has it."""
        space = self.game.space
        try:
            return space.parse(name)
        except ValueError as err:
            try:
                node = nd.parse(name, space.depth)
            except ValueError:
                raise SessionError(str(err)) from None
            return Feedback(False, f"{err}: {self.game.name} does not use it", node)

    def press(self, node: Node) -> Feedback:
        if thinking := self.thinking():
            return Feedback(False, thinking, node)
        return self.hands.press(node)

    def ok(self) -> Feedback:
        if thinking := self.thinking():
            return Feedback(False, thinking)
        return self.hands.ok()

    def act(self, text: str) -> Feedback:
        """An action in the notation, typed or tapped; counts as its presses."""
        action = self.game.parse(text)
        if action.kind == ROLL and not self.hands.physical_die:
            raise IllegalAction("the die is rolled with ROLL, not typed in")
        if thinking := self.thinking():
            return Feedback(False, thinking)
        return self.hands.act(action, pressed=action.sources + action.targets)

    def roll(self, die) -> Feedback:
        """ROLL (a physical die the players roll, for the computer too)."""
        if thinking := self.thinking():  # the computer chooses between rolling and a move without the die
            return Feedback(False, thinking)
        kind = self.seats[self.game.to_move] if self.game.to_move < len(self.seats) else HUMAN
        return self.hands.roll(die, computer=None if kind == HUMAN else self.names[self.game.to_move])

    def undo(self) -> list[Action]:
        """Back to a person's last move (:meth:`Hands.undo_for`)."""
        return self.hands.undo_for(self.people_at_table())

    def propose(self, action: Action) -> Feedback:
        """The computer's move, for hands to carry out (at once without a cloth)."""
        if not self.hands.cloth:
            return self.hands.act(action, pressed=())
        return self.hands.propose(action)

    def show_hint(self, action: Action) -> str:
        """A hint for the person to move, shown from nothing selected; returns what it says."""
        hands = self.hands
        hands.drop()
        hands.hint = action
        first = hands.chore_reason() + " · " if hands.chores else ""
        how = f" ({hands.say_how(action)})" if hands.cloth else ""
        hands.message = f"{first}hint: {self.game.say(action)}{how}"
        return hands.message

    def seat(self, seat: int, kind: str) -> Feedback:
        """Hand a seat to the computer at a level, or back to a person (docs/runtime.md, "Computer
        players and hints")."""
        game = self.game
        if type(seat) is not int or not 0 <= seat < game.players:
            raise SessionError(f"seat: 0 to {game.players - 1}, one for each of the {game.players} players")
        if kind not in SEATS:
            raise SessionError(f"a seat is one of {', '.join(SEATS)}")
        was, before = self.seats[seat], self.names[seat]
        if kind == was:
            return Feedback(True, f"{before} plays on as before")
        player = self.order[seat]
        if before == given_name(player, was, self.people):
            self.hands.names = (
                self.names[:seat] + [given_name(player, kind, self.people)] + self.names[seat + 1 :]
            )
        self.seats = self.seats[:seat] + [kind] + self.seats[seat + 1 :]
        self.seated += 1
        hands = self.hands
        if seat == game.to_move and not game.over:
            hands.drop()  # before the proposal goes: a stone lifted for it is to be put back
            hands.proposal, hands.hint, hands.choices = None, None, ()
        name = self.names[seat]
        hands.message = (
            f"a person plays for {name} now"
            if kind == HUMAN
            else f"the computer ({kind}) plays for {before} now"
        )
        return Feedback(True, hands.message)

    # -- the series

    def series_goes_on(self, players: int, elapsed: float) -> list[int] | None:
        """The seating of the next game of the series (None: this game's players differ); SessionError
        when the series cannot go on."""
        series = self.series
        if series is None:
            raise SessionError("no series is being played: start one, or play just this game")
        if series.over(elapsed):
            raise SessionError("the series is over: start a new one, or play just this game")
        if series.players != players:
            raise SessionError(
                f"the series being played is for {series.players} players: "
                f"choose {series.players}, or play just this game"
            )
        return next_along(self.order) if len(self.order) == players else None

    def count_result(self, elapsed: float) -> bool:
        """Count the finished game in the series, never twice; True if counted."""
        series, game = self.series, self.game
        if series is None or not series.accepts() or any(g.game == self.game_id for g in series.games):
            return False
        winners = sorted(self.order[w] for w in game.winners)
        series.add(self.by_player(game.scores), winners, ended_at=elapsed, game=self.game_id)
        return True

    def series_dict(self, elapsed: float) -> dict | None:
        """The series for the page."""
        series = self.series
        if series is None:
            return None
        return series.to_dict() | {
            "id": self.series_id,
            "over": series.over(elapsed),
            "names": self.by_player(self.names),
            "winners": list(series.winners(elapsed)),
            "elapsed": round(elapsed, 1),
        }
