"""``gryb-companion play GAME`` at a terminal (README.md, "Without a board"): the die and the computer
seats play by themselves, an action a line; players keep their numbers from game to game.
"""

from __future__ import annotations

import difflib
import random
import select
import textwrap
from collections.abc import Callable, Iterable
from typing import TextIO

from companion import ai
from companion.cli import board_text
from companion.games import howto
from companion.games.die import Die
from companion.games.engine import Game, IllegalAction
from companion.rules.action import CHOOSE_ROLL, MOVE, PASS, PLACE, REMOVE, ROLL, Action
from companion.session.hands import moves_again, outcome, said
from companion.session.seating import HUMAN, SEATS, by_player
from companion.session.session import Session

# Hyper-Chess's pieces, Player 1's white and Player 2's black; every other stone is its player's number.
FIGURES = {"king": "♔♚", "queen": "♕♛", "rook": "♖♜", "bishop": "♗♝", "knight": "♘♞", "pawn": "♙♟"}

WORDS = (
    "moves (the legal actions), hint (what a good player would do), undo (back to your last move), "
    f"seat N {'|'.join(SEATS)} (who plays for Player N), board [names] (the board, or its node names), "
    "stop and go (the computers wait, play on), rules (how to play), help, quit"
)
OVER = "again (the same game once more), undo (back to your last move), seat N KIND (who plays it) or quit"
# What a mistyped word is compared with: the console's words and the notation's.
COMMANDS = tuple("moves hint undo seat board stop go rules help quit again roll pass end".split())
STOPPED = "the computers wait: go lets them play on, undo takes a move back, seat N human takes a seat"


def unknown(word: str) -> str | None:
    """What to say to a word that is neither a command nor notation (``dance``); None for a word that
    may be a node name typed in small letters (``gg``: the node's refusal says so)."""
    small = word.isascii() and word.isalpha() and word.islower()
    if not small or set(word.removeprefix("x")) <= set("gryb"):
        return None
    said = repr(word if len(word) <= 24 else word[:19] + "…")
    close = difflib.get_close_matches(word, COMMANDS, n=3)
    if close:
        return f"no command {said}: did you mean {' or '.join(close)}? (help lists them all)"
    nearest = ", ".join(difflib.get_close_matches(word, COMMANDS, n=3, cutoff=0))
    return f"no command {said}; the nearest are {nearest} (help lists them all)"


class Typed:
    """The lines typed. While the computers play among themselves the console asks, between and during
    their searches, whether a line waits (docs/cli.md, "Every seat a computer's"): a terminal or a pipe
    can say; a list cannot, and is read only when a person is to play, as before."""

    def __init__(self, lines: Iterable[str]):
        self._lines = iter(lines)
        try:
            self._fd: int | None = lines.fileno()  # type: ignore[attr-defined]
        except (AttributeError, OSError, ValueError):  # a list, io.StringIO
            self._fd = None
        self.heard = False  # a line was read
        self.ended = False

    def waiting(self) -> bool:
        """A line (or the end of the input) can be read without waiting."""
        if self._fd is None or self.ended:
            return False
        return bool(select.select([self._fd], [], [], 0)[0])

    def next(self) -> str | None:
        """The next line, waiting for it; None at the end of the input."""
        line = None if self.ended else next(self._lines, None)
        self.ended = line is None
        self.heard = self.heard or line is not None
        return line


def fill(text: str) -> str:
    """A long line cut into lines of 100 characters, the later ones indented."""
    return textwrap.fill(text, width=100, subsequent_indent="  ", break_on_hyphens=False)


def refusal(text: str, reason: str) -> str:
    """What was typed and why it is refused, the text said once, cut short."""
    said = reason if repr(text) in reason or f"node {text} " in reason else f"{text}: {reason}"
    return said if len(said) <= 200 else said[:200] + "…"


class Console:
    def __init__(
        self,
        game: Game,
        die: Die,
        seats: dict[int, ai.Level],
        rng: random.Random,
        out: TextIO,
        level_of: Callable[[str], ai.Level] | None = None,
    ):
        """``seats``: the computer's level by player; ``level_of(name)`` makes one."""
        self.die, self.rng, self.out = die, rng, out
        self.level_of = level_of or (lambda name: ai.level(name, 1.0, game))
        self.hint = self.level_of(ai.HINT_LEVEL)
        self._hint_rng = random.Random()  # a hint leaves the computer players' stream alone
        self.levels = dict(seats)
        kinds = [self.levels[p].name if p in self.levels else HUMAN for p in range(game.players)]
        self.session = Session.begin(game, kinds=kinds, cloth=False)
        self._last_shown: tuple | None = None  # (game, turn, player) of the last "to play" line
        self.stopped = False  # ``stop``: the computer seats wait
        self.typed = Typed(())

    @property
    def game(self) -> Game:
        return self.session.game

    @property
    def order(self) -> list[int]:
        return self.session.order

    @property
    def names(self) -> list[str]:
        """By seat."""
        return self.session.names

    @property
    def players(self) -> list[str]:
        """By player."""
        return self.session.by_player(self.session.names)

    @property
    def seats(self) -> dict[int, ai.Level]:
        """The computer's levels by seat."""
        return {seat: self.levels[p] for seat, p in enumerate(self.order) if p in self.levels}

    def all_computers(self) -> bool:
        return len(self.seats) == self.game.players

    def watching(self) -> bool:
        """Every seat the computer's, playing on: no prompt, and a line typed is taken between moves."""
        return self.all_computers() and not self.game.over and not self.stopped

    # -- the loop

    def play(self, lines: Iterable[str]) -> int:
        """Play until the input ends or the person quits; the exit status."""
        self.write(fill(f"{self.game.name}: type an action in the notation, or {WORDS}."))
        self.say_aims()
        typed = self.typed = Typed(lines)
        self.advance()
        if not self.watching():
            self.show()
        while True:
            if self.watching():  # no prompt: a line is read once one is typed
                if not typed.waiting():
                    self.advance()
                    if not self.watching():
                        self.show()
                    continue
            elif self.game.over and self.all_computers() and not typed.heard:
                return 0  # a game the computers played through with nothing typed
            else:
                self.prompt()
            line = typed.next()
            if line is None:
                if self.watching():
                    continue  # the computers play on to the end
                self.write("")  # Ctrl-D: the shell's prompt on a line of its own
                return 0
            text = line.split("#", 1)[0].strip().removeprefix("\ufeff")
            if text in ("quit", "q", "exit"):
                return 0
            if not text.isprintable():
                self.write("that is not text the notation knows: letters, digits and - x + / : only")
            elif text:
                self.answer(text)

    def answer(self, text: str) -> None:
        """A word or an action; what is wrong is said, and nothing changes."""
        game = self.game
        if (
            game.over
            and text not in ("undo", "again", "help", "rules", "board", "board names")
            and (text.split()[0] != "seat")
        ):
            self.write(f"the game is over: type {OVER}")
            return
        if text == "again":
            self.again()
            return
        if text == "help":
            self.write(
                f"the game is over: type {OVER}"
                if game.over
                else fill(
                    f"type an action in the notation (docs/notation.md: R, R-RG, xRG, pass, end), or {WORDS}"
                )
            )
            return
        if text == "rules":
            self.write(howto.as_text(howto.of(type(game))).rstrip("\n"))
            return
        if text in ("moves", "legal", "?"):
            self.write(fill("legal: " + " ".join(str(a) for a in game.legal_actions())))
            return
        if text == "hint":
            self.write(f"hint: {self.words(ai.search(game.copy(), self.hint, self._hint_rng).action)}")
            return
        if text == "undo":
            self.undo()
            return
        if text == "board names":
            self.write(board_text.render_names(game.space.depth, game.space.headless))
            return
        if text == "board":
            self._last_shown = None
            self.show()
            return
        if text in ("stop", "go"):
            self.stop(text == "stop")
            return
        if text.split()[0] == "seat":
            self.seat(text.split()[1:])
            return
        if text == "roll" and CHOOSE_ROLL not in game.legal_actions():  # rather than "bad node name"
            die = game.state_dict()["die_shown"]
            self.write(
                f"the die is rolled for you: it shows {die}"
                if die is not None
                else "the die is rolled for you when the rules call for a roll"
            )
            return
        try:
            action = game.parse(text)
        except IllegalAction as err:
            self.write(unknown(text.split()[0]) or f"{refusal(text, err.reason)} (try 'moves')")
            return
        if game.to_move in self.seats and not game.is_chance:
            player = self.order[game.to_move] + 1
            self.write(f"{self.names[game.to_move]} plays for itself: go, or seat {player} human to play it")
            return
        try:
            self.act(action)
        except IllegalAction as err:
            self.write(f"{refusal(text, err.reason)} (try 'moves')")
            return
        self.advance()
        self.show()

    def again(self) -> None:
        """The same game once more, begun by the next player along."""
        game = self.game
        if not game.over:
            self.write("'again' starts the game anew once it is over; 'quit' ends this one")
            return
        names, kinds, order = self.session.again()
        self.session = Session.begin(
            type(game)(game.players, **game.settings), names, kinds, order, cloth=False
        )
        self.write(self.session.again_said())
        self.say_aims()
        self.stopped = False
        self.advance()
        if not self.watching():  # else a line typed stopped the computers: it is answered first
            self.show()

    def advance(self) -> None:
        """Roll, and play the computer seats and forced passes, until a person is to choose (or, while
        the computers play among themselves, a line typed waits: its move is searched again after)."""
        game = self.game
        while not game.over:
            if game.is_chance:
                self.act(self.die.roll(game))
            elif game.to_move in self.seats:
                if self.stopped:
                    return
                typed = self.typed.waiting if self.watching() else None
                if typed and typed():
                    return
                action = ai.search(game, self.seats[game.to_move], self.rng, stop=typed).action
                if typed and typed():
                    return
                self.act(action)
            elif [a.kind for a in game.legal_actions()] == [PASS]:
                self.act(Action(PASS))
            else:
                return

    def seat(self, words: list[str]) -> None:
        """``seat N KIND``: who plays Player N from now on; a computer to move plays at once."""
        players = self.game.players
        if (
            len(words) != 2
            or not words[0].isdigit()
            or not 1 <= int(words[0]) <= players
            or words[1] not in SEATS
        ):
            self.write(f"type seat N {'|'.join(SEATS)}, N from 1 to {players} (e.g. seat {players} hard)")
            return
        player, kind = int(words[0]) - 1, words[1]
        if kind == HUMAN:
            self.levels.pop(player, None)
            self.stopped = False  # a person took a seat to play on
        else:
            self.levels[player] = self.level_of(kind)
        self.write(self.session.seat(self.order.index(player), kind).message)
        self._last_shown = None  # whoever is to play, it is not their turn's second move
        if not self.game.over:
            self.advance()
            self.show()

    def words(self, action: Action) -> str:
        """An action as typed, with the game's words where they say more ("M6GGG (male, 6 turns, on GGG)")."""
        said = self.game.say(action)
        return str(action) if said == str(action) else f"{action} ({said})"

    def act(self, action: Action) -> None:
        """Say it as the page does; with the notation typed, unless the sentence has it."""
        mover = self.game.to_move
        if action.kind == ROLL:
            self.game.apply(action)
            who = self.names[mover]
            self.write(f"{who} rolled {action.face}" if action.face else f"{who} chose to roll")
            return
        typed = self.words(action)  # said of the position it is played in
        self.game.apply(action)
        sentence = said(self.game, action, self.names, mover)
        if sentence == f"{self.names[mover]}: {self.game.say(action)}":  # the game's own words
            sentence = f"{self.names[mover]}: {typed}"
        elif action.kind in (PLACE, MOVE, REMOVE) and str(action) not in sentence.split():
            sentence += f" ({action})"
        self.write(sentence)

    def stop(self, stop: bool) -> None:
        """``stop``: the computer seats wait (every seat a computer's, the game holds); ``go``: on."""
        if not self.seats:
            self.write("no computer plays here: seat N easy gives it a seat")
            return
        self.stopped = stop
        if stop:
            self.write(STOPPED)
            self._last_shown = None
            self.show()
            return
        self.write("the computers play on")
        self.advance()
        self._last_shown = None
        self.show()

    def undo(self) -> None:
        """Back to the person's own turn, as UNDO on the board; with every seat a computer's, the last
        move, and the computers wait."""
        self.stopped = self.stopped or self.watching()
        taken = self.session.undo()
        self.write(self.session.hands.message)
        if taken:
            self.advance()
            self._last_shown = None  # the start of a turn, not its second move
            self.show()

    # -- what is shown

    def show(self) -> None:
        game = self.game
        state = game.state_dict()
        marks = {game.space.parse(name): self.mark(stone) for name, stone in state["stones"].items()}
        self.write(board_text.render(game.space.depth, marks, game.space.headless))
        if any(stone.get("kind") in FIGURES for stone in state["stones"].values()):
            self.write(
                f"{''.join(f[0] for f in FIGURES.values())} {self.players[0]}, "
                f"{''.join(f[1] for f in FIGURES.values())} {self.players[1]} (king, queen, rook, bishop, "
                "knight, pawn)"
            )
        # None in a game played win or lose.
        scores = "-".join(map(str, by_player(state["scores"], self.order))) if game.score else None
        if game.over:
            self.write(f"game over: {outcome(game, self.names)}" + (f" (scores {scores})" if scores else ""))
            if len(self.seats) < game.players:
                self.write(f"type {OVER}")
            return
        die = f", die {state['die_shown']}" if state["die_shown"] is not None else ""
        legal = game.legal_actions()
        only = f"; the only move: {self.words(legal[0])}" if len(legal) == 1 else ""
        if CHOOSE_ROLL in legal:  # PyraGRYB's reincarnation: offered before the roll
            only = "; roll, or without the die: " + " ".join(self.words(a) for a in legal if a != CHOOSE_ROLL)
        # A turn's second move ('Drangles, GRYBU's aggressive move) is not a new turn: say so.
        now = (id(game), state["turn"], game.to_move)
        more = " again (the same turn)" if now == self._last_shown else ""
        self._last_shown = now
        self.write(
            f"{self.names[game.to_move]} to play{more}{die}" + (f"; scores {scores}" if scores else "") + only
        )
        owed = self.session.hands.owed()  # as the page and the LEDs say it
        if owed and not (more and owed == moves_again(self.names[game.to_move])):
            self.write(owed)

    def say_aims(self) -> None:
        """Each seat's aim, where they differ (Grim Reaper, Connection)."""
        for name, aim in zip(self.names, self.game.aims() or ()):
            self.write(f"{name}: {aim}")

    def mark(self, stone: dict) -> str:
        """A stone on the text board: * for no one's or several players' (Multiverse)."""
        if "player" not in stone or len(stone.get("players", ())) > 1:
            return "*"
        player = self.order[stone["player"]]
        figures = FIGURES.get(stone.get("kind", ""))
        return figures[player] if figures and self.game.players == 2 else str(player + 1)

    def prompt(self) -> None:
        who = "game over" if self.game.over else self.names[self.game.to_move]
        print(f"{who}> ", end="", file=self.out, flush=True)

    def write(self, text: str) -> None:
        print(text, file=self.out, flush=True)
