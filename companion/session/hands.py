"""What happens at the table: node presses and control buttons turned into engine actions.

Pure like the engine (no clock, no I/O, no randomness: the die is passed in). The runtime owns one
:class:`Hands` and calls it from its loop; the renderer draws what it says.

How a turn feels:

- A placement is one press. A move is a press on the stone, then on its target (a line or shape: its
  stones, then their targets). Pressing the selected stone again puts it down.
- Die games: ROLL rolls; when nothing fits the roll the turn passes by itself. OK ends a turn early
  where the game allows it, and passes when passing is the only thing left.
- Anything the rules refuse is a :class:`Feedback` with the reason; nothing changes.
- A computer player's move is a *proposal*: its stone blinks, its target pulses, and only the presses
  that carry it out are accepted (the physical stones must follow the engine). A *hint* is shown the
  same way but binds nobody.
- The physical board and the engine never drift apart: after every change the runtime did not see
  the player do (a capture's loser, a push, a removal, an undo), each node whose stone must be lifted,
  put down or swapped becomes a :class:`Chore` and blinks until its node is pressed. Until then the
  game waits.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.games.engine import Game, IllegalAction
from companion.rules import node as nd
from companion.rules.action import CHOOSE_ROLL, END, MOVE, PASS, PLACE, REMOVE, ROLL, Action
from companion.rules.node import Node
from companion.rules.space import bits

LIFT, PUT, SWAP = "lift", "put", "swap"


@dataclass(frozen=True)
class Chore:
    """A stone the players must lift (``lift``), put down (``put``) or exchange (``swap``) at ``node``."""

    node: Node
    kind: str
    before: int | None  # owner of the stone there before
    after: int | None  # owner of the stone there after

    def describe(self, names: list[str]) -> str:
        where = nd.name(self.node)
        if self.kind == LIFT:
            return f"lift {names[self.before]}'s stone from {where}"
        if self.kind == PUT:
            return f"put a stone of {names[self.after]} on {where}"
        return f"replace {names[self.before]}'s stone on {where} with one of {names[self.after]}"


@dataclass(frozen=True)
class Feedback:
    """What the runtime shows and sounds after an input: ``ok`` or a refusal with its reason."""

    ok: bool
    message: str = ""
    node: Node | None = None
    action: Action | None = None
    rolled: bool = False
    passed: bool = False


def outcome(game: Game, names: list[str]) -> str:
    """A finished game's result in words: "Ann won", "Ann and Bo won", "a draw"."""
    if not game.winners:
        return "a draw"
    return " and ".join(names[w] for w in game.winners) + " won"


def said(game: Game, action: Action, names: list[str], by: int) -> str:
    """An action just played, with who played it: "Ann rolled G", "Ann: G-GR", "Bo: male, 10 turns, on GGG"
    (the live page's message and the replay's step)."""
    who = names[by] if 0 <= by < len(names) else f"Player {by + 1}"
    if action.kind == ROLL:
        return f"{who} rolled {action.face}" if action.face else f"{who} chose to roll"
    if action.kind == PASS:
        return f"{who} passed"
    if action.kind == END:
        return f"{who} ended the turn"
    return f"{who}: {game.say(action)}"


@dataclass
class Hands:
    game: Game
    names: list[str] = field(default_factory=list)
    picks: tuple[Node, ...] = ()
    chores: tuple[Chore, ...] = ()
    message: str = ""
    proposal: Action | None = None  # a computer player's move, waiting for a human to carry it out
    hint: Action | None = None  # a suggested move for the human to move (shown, not binding)
    choices: tuple[
        Action, ...
    ] = ()  # presses that fit several actions (Grim Reaper's sex and life): pick one
    physical_die: bool = False  # the players roll a real GRYB die and tell the companion what it shows
    # The stones are on a cloth, moved by hands: what changed without a press becomes a chore. Without
    # one (a terminal), nothing waits for hands.
    cloth: bool = True

    def __post_init__(self):
        if not self.names:
            self.names = [f"Player {i + 1}" for i in range(self.game.players)]
        self._legal_for: tuple | None = None  # the position legal() last worked out (see there)
        self._legal_now: list[Action] = []
        self._targets_for: tuple | None = None  # targets() for a position, picks and proposal, and its answer

    def legal(self) -> list[Action]:
        """The game's legal actions now, worked out once per position: a press that plays asks for them
        three times after its move (its words, the page's list, the targets), and 25 Men's GRYB lists ~320
        placements each time. The position is known by the game and its history's last entry: a new one
        every action, held here so that no other can take its place (an entry stands at one place in the
        history, so it gives the length too). The list is shared: not to be changed by the caller."""
        game = self.game
        top = game.history[-1] if game.history else None
        seen = self._legal_for
        if seen is None or seen[0] is not game or seen[1] is not top:
            self._legal_now = game.legal_actions()
            self._legal_for = (game, top)
        return self._legal_now

    # -- inputs ---------------------------------------------------------------------------------

    def press(self, node: Node) -> Feedback:
        if self.chores:
            return self._chore_press(node)
        self.choices = ()
        game = self.game
        if game.over:
            return self._refuse("the game is over: OK plays it again", node)
        if game.is_chance:
            if self.physical_die:  # GRYB Dice II on the table: the node it shows is pressed
                face = next((f for f in game.roll_faces() if f.targets == (node,)), None)
                if face is not None:
                    return self.act(face, pressed=())
                if not game.roll_faces()[0].colour:
                    return self._refuse(f"the die cannot show {nd.name(node)} now", node)
            return self._refuse("roll the die first (ROLL)", node)
        if node in self.picks:
            self.picks = ()
            return self._ok("put down")
        picks = self.picks + (node,)
        legal = self._legal()
        mine = game.owner(node) == game.to_move
        # Every press is one of an action's nodes, so only the actions on this node can fit the presses:
        # a handful to match instead of every legal one (~340 placements of 25 Men's GRYB, 1 ms a press).
        near = [a for a in legal if node in a.targets or node in a.sources]
        complete = [a for a in near if _presses(a) and _matches(picks, a, complete=True)]
        partial = [a for a in near if _matches(picks, a, complete=False)]
        # A press on your own stone that can move is a selection, even where a placement through it
        # would also be legal ('Drangles entering onto a stone): moving is what players mean far more.
        if len(complete) > 1 and not (mine and len(picks) == 1 and partial):
            # The presses fit several actions (a placement with a sex and a lifespan): never guess, ask. A
            # legal press, so no refusal's buzz and flash: the page shows a button for each way.
            self.picks, self.choices = (), tuple(complete)
            return self._ok(
                f"{nd.name(node)} can be played {len(complete)} ways: choose one with the buttons "
                "below the board"
            )
        if complete and not (mine and len(picks) == 1 and partial):
            return self.act(complete[0], pressed=picks)
        if partial:
            self.picks = picks
            alone = self._ok_action(legal)
            if alone is not None:
                moves = self.proposal is None and any(a.kind == MOVE for a in partial)
                then = "press a target, or OK" if moves else "press OK"
                return self._ok(f"{nd.name(node)} selected: {then} to {_words(alone)}")
            if self.proposal is not None:  # the computer's stone in hand: the board says where it goes
                return self._ok(self._computer_plays())
            return self._ok(f"{nd.name(node)} selected")
        if self.proposal is not None:
            return self._refuse(self._computer_plays(), node)
        return self._refuse(self._reason(picks), node)

    def propose(self, action: Action) -> Feedback:
        """A computer player's move: applied at once when there is nothing to carry out on the board
        (a pass, an end of turn), otherwise shown until its presses are made."""
        if action not in self.legal():
            return self._refuse(f"{action} is not legal here")
        if not _presses(action):
            return self.act(action, pressed=())
        self.proposal, self.picks, self.hint = action, (), None
        return self._ok(self._computer_plays())

    def _computer_plays(self) -> str:
        """The computer's move waiting for hands, in a player's words, and the next press that makes it."""
        return f"the computer plays {self.game.say(self.proposal)}: {self._proposal_step()}"

    def how_to(self, action: Action) -> tuple[tuple[str, Action | Node | None], ...]:
        """The steps that make ``action`` at the table, starting with nothing selected: ``("press", node)``,
        ``("ok", None)``, ``("roll", None)``, ``("choose", action)`` (a button on the phone). Found by trying
        them on a copy of the table, so they are what :meth:`press` and :meth:`ok` really do. Empty when
        presses and buttons cannot make it."""
        if action == CHOOSE_ROLL:
            return (("roll", None),) if action in self.legal() else ()
        if action.kind in (PASS, END):
            trial = self._trial()
            return (("ok", None),) if trial.ok().action == action else ()
        steps: list[tuple[str, Action | Node | None]] = []
        trial = self._trial()
        for node in _presses(action):
            steps.append(("press", node))
            done = trial.press(node).action
            if done is not None:
                return tuple(steps) if done == action else ()
        if action in trial.choices:
            return (*steps, ("choose", action))
        if trial.picks and trial.ok().action == action:
            return (*steps, ("ok", None))
        return ()

    def say_how(self, action: Action) -> str:
        """:meth:`how_to` in words: ``press R, then RG``, ``press OK``, ``press B, then choose "B+" on
        the phone`` (a choice by the label of its button). Every legal action has a way (the tests make sure)."""
        steps = self.how_to(action)
        if not steps:
            return f"{action} is not legal here"
        words, pressed = [], []
        for kind, what in steps:
            if kind == "press":
                pressed.append(nd.name(what))
                continue
            if pressed:
                words.append("press " + ", then ".join(pressed))
                pressed = []
            buttons = {"ok": "press OK", "roll": "press ROLL"}
            words.append(buttons.get(kind) or f'choose "{self.game.say(what)}" on the phone')
        if pressed:
            words.append("press " + ", then ".join(pressed))
        return ", then ".join(words)

    def _trial(self) -> Hands:
        """A copy of the table with its game copied, nothing selected and no chores, to try presses on."""
        return Hands(self.game.copy(), list(self.names), physical_die=self.physical_die, cloth=self.cloth)

    def _ok_action(self, legal: list[Action]) -> Action | None:
        """What OK does with one stone of the player's own selected, when that one press is also a whole
        action: entering on it ('Drangles' head node), taking it back (PyraGRYB's reincarnation), moving
        a conduit marker onto it (Multiverse). Otherwise the press selects the stone, to move it."""
        if len(self.picks) != 1:
            return None
        alone = [a for a in legal if a.kind != MOVE and _presses(a) == self.picks]
        order = {PLACE: 0, REMOVE: 1}
        return min(alone, key=lambda a: order.get(a.kind, 2), default=None)

    def _proposal_step(self) -> str:
        seq = _presses(self.proposal)
        if self.proposal.kind == MOVE:
            lift, put = _lift_put(self.proposal)
            if len(self.picks) < len(lift):
                return (
                    "lift its stone from "
                    + ", ".join(nd.name(n) for n in lift if n not in self.picks)
                    + " and press there"
                )
            return (
                "put it on " + ", ".join(nd.name(n) for n in put if n not in self.picks) + " and press there"
            )
        if len(self.picks) == len(seq):  # a press that selected a stone of its own: OK makes the move
            return "press OK"
        return f"press {nd.name(seq[len(self.picks)])}"

    def _legal(self) -> list[Action]:
        return [self.proposal] if self.proposal is not None else self.legal()

    def roll(self, die, computer: str | None = None) -> Feedback:
        """ROLL: the electronic die rolls; with a physical die, the players are asked what theirs shows
        (rolling it for the computer player named ``computer`` when it is the computer's turn)."""
        if self.chores:
            return self._refuse(self.chore_reason())
        if not self.game.roll_offered:
            return self._refuse(
                "no roll now" if not self.game.over else "the game is over: OK plays it again"
            )
        if not self.game.is_chance:  # chosen over the moves offered before the roll
            chose = self.act(CHOOSE_ROLL, pressed=())
            if not chose.ok:
                return chose
        if self.physical_die:
            faces = self.game.roll_faces()
            whose = "your GRYB die" if computer is None else f"the GRYB die for {computer}"
            if faces[0].colour:  # a colour die (some games roll a node die in one phase, colours later)
                self.choices = tuple(faces)
                return self._ok(f"roll {whose}, then choose the colour it shows on the phone")
            dice = "GRYB Dice II" if computer is None else f"GRYB Dice II for {computer}"
            return self._ok(f"roll {dice}, then press the node it shows")
        feedback = self.act(die.roll(self.game), pressed=())
        return Feedback(
            feedback.ok, feedback.message, action=feedback.action, rolled=True, passed=feedback.passed
        )

    def ok(self) -> Feedback:
        if self.chores:
            return self._refuse(self.chore_reason())
        if self.proposal is not None:
            if self._ok_action([self.proposal]) is not None:  # its one press made on a stone of its own
                return self.act(self.proposal, pressed=self.picks)
            return self._refuse(self._computer_plays())
        legal = self.legal()
        alone = self._ok_action(legal)
        if alone is not None:
            return self.act(alone, pressed=self.picks)
        for kind in (END, PASS):
            for action in legal:
                if action.kind == kind:
                    return self.act(action, pressed=())
        if self.game.is_chance:
            return self._refuse("roll first (ROLL)")
        if CHOOSE_ROLL in legal:
            return self._refuse("nothing to confirm: ROLL, or select a move that needs no roll")
        return self._refuse("nothing to confirm: make your move" if legal else "the game is over")

    def undo(self) -> list[Action]:
        """Take back the last player action and what followed it (rolls, passes); the rolls before
        it stand, so undo never re-rolls the die. Returns the actions taken back, newest first."""
        game = self.game
        before = self._on_cloth()
        undone: list[Action] = []
        while game.history:
            action = game.undo()
            undone.append(action)
            if action.kind not in (ROLL, PASS):
                break
        self.picks, self.proposal, self.hint = (), None, None
        self.chores = self._chores(before, pressed=())
        self.message = f"took back {', '.join(map(str, undone))}" if undone else "nothing to take back"
        return undone

    def undo_for(self, people: set[int]) -> list[Action]:
        """UNDO against the computer: back to the last move of one of ``people`` (the players at the
        table), taking back the computer's replies after it too, so it is that person's turn again (the
        roll before the move stands). Nothing when none of them has moved yet: taking back a computer's
        opening would only let it choose again. With no computer seats this is :meth:`undo`."""
        theirs = [
            i for i, (a, p) in enumerate(self.game.played()) if p in people and a.kind not in (ROLL, PASS)
        ]
        if not theirs:
            moved = any(a.kind not in (ROLL, PASS) for a, _ in self.game.history)
            self.message = "nothing to take back" + (": no move of yours yet" if moved else "")
            return []
        undone: list[Action] = []
        while len(self.game.history) > theirs[-1]:
            undone += self.undo()
        self.message = f"took back {', '.join(map(str, undone))}"
        return undone

    # -- applying -------------------------------------------------------------------------------

    def act(self, action: Action, pressed: tuple[Node, ...]) -> Feedback:
        """Apply an action (from a press, a button, the phone or a computer player) and its aftermath. While
        a computer player's move waits, only that move. While stones are still to be lifted or put down,
        nothing: a move from the phone played then would lose track of them, as a press would."""
        if self.chores:
            return self._refuse(self.chore_reason())
        if self.proposal is not None and action != self.proposal:
            return self._refuse(self._computer_plays())
        game = self.game
        # The picks pressed again as part of the action need no chore (the common case: no search for them).
        before = game.stones if set(self.picks) <= set(pressed) else self._on_cloth()
        mover = game.to_move
        try:
            game.apply(action)
        except IllegalAction as err:
            return self._refuse(err.reason, action.targets[0] if action.targets else None)
        self.picks, self.proposal, self.hint, self.choices = (), None, None, ()
        passed = False
        # A roll that leaves nothing to do passes the turn at once; the board shows the roll and why.
        if action.kind == ROLL and [a.kind for a in self.legal()] == [PASS]:
            game.apply(Action(PASS))
            passed = True
        self.chores = self._chores(before, pressed)
        self.message = self._describe(action, passed, mover) + self._nothing_to_play(mover)
        return Feedback(True, self.message, action=action, passed=passed)

    def _nothing_to_play(self, mover: int) -> str:
        """When all the player to move can do is pass or end the turn (Grim Reaper's births with no pair
        to give birth), say so: nothing on the board pulses, and the page would otherwise only say whose
        turn it is."""
        game = self.game
        if game.over or game.is_chance:
            return ""
        legal = self.legal()
        if CHOOSE_ROLL in legal:  # moves offered before the roll (PyraGRYB's reincarnation)
            return " · ROLL, or without rolling: " + ", ".join(
                self.game.say(a) for a in legal if a != CHOOSE_ROLL
            )
        kinds = {a.kind for a in legal}
        if PASS in kinds and not kinds <= {PASS, END}:
            # A pass offered beside moves (PyraGRYB's: every move "may" be made, 003):
            # nothing on the board says OK passes, so the words do.
            return " · make a move, or OK passes"
        if not kinds or not kinds <= {PASS, END}:
            return ""
        ok = "OK ends the turn" if END in kinds else "OK passes"
        if game.to_move == mover:
            return f" · nothing more to play: {ok}"
        return f" · {self.names[game.to_move]} has nothing to play: {ok}"

    def drop(self) -> None:
        """Forget the stones picked for a move that will not be made (the seat handed over, a hint shown
        from nothing selected): a stone already lifted is to be put back, one already put down lifted."""
        before = self._on_cloth()
        self.picks = ()
        self.chores = self._chores(before, pressed=())

    def _on_cloth(self) -> tuple[int, ...]:
        """The stones as they are on the cloth: the engine's, less those lifted for the move being made
        and plus those already put down for it (the presses so far of a move: its stones, then targets)."""
        stones = self.game.stones
        if not self.picks:
            return stones
        move = next(
            (a for a in self._legal() if a.kind == MOVE and _matches(self.picks, a, complete=False)), None
        )
        if move is None:  # a stone selected for an action of one press: it stays where it is
            return stones
        k = len(_lift_put(move)[0])
        lifted, put = _mask(self.picks[:k]), _mask(self.picks[k:])
        whose = self.game.owner(self.picks[0])
        return tuple((m & ~lifted & ~put) | (put if p == whose else 0) for p, m in enumerate(stones))

    def _chores(self, before: tuple[int, ...], pressed: tuple[Node, ...]) -> tuple[Chore, ...]:
        """The stones the players must lift or put down for the cloth to match the engine again. A game
        whose stones are the LEDs alone (Multiverse) has none."""
        if not (self.cloth and self.game.physical_stones):
            return ()
        return _merge(self.chores + _diff(before, self.game.stones, pressed))

    # -- what the board shows -------------------------------------------------------------------

    def targets(self) -> int:
        """Bitboard of the nodes a press may go to next (for the pulsing targets)."""
        if self.chores or self.game.over or self.game.is_chance:
            return 0
        self.legal()  # the position's key (_legal_for), with a computer's move waiting too
        legal = self._legal()
        seen = self._targets_for  # the page's list and the LEDs' scene both ask after every change
        if (
            seen is not None
            and seen[0] is self._legal_for
            and seen[1] == self.picks
            and seen[2] is self.proposal
        ):
            return seen[3]
        mask = 0
        picks = self.picks
        n = len(picks)
        for action in legal:
            if action.kind != MOVE:
                # A placement's or removal's nodes, pressed in order (ROLL, PASS and END have none): the
                # usual case, taken without _matches (25 Men's GRYB looks through ~320 placements a press).
                seq = () if action.kind in (ROLL, PASS, END) else action.targets
                if n < len(seq) and seq[:n] == picks:
                    if len(seq) == 1:  # a placement: its node
                        mask |= 1 << seq[0]
                    else:
                        mask |= _mask(t for t in seq[n:] if t not in picks)
            elif _matches(picks, action, complete=False):
                lift, put = _lift_put(action)
                if n < len(lift):
                    mask |= _mask(s for s in lift if s not in picks)
                elif n < len(lift) + len(put):
                    mask |= _mask(t for t in put if t not in picks[len(lift) :])
        self._targets_for = (self._legal_for, picks, self.proposal, mask)
        return mask

    def proposed(self) -> tuple[int, int]:
        """A computer player's move still to be carried out, as bitboards: its stones still to lift and the
        nodes still to fill (those already pressed left out); (0, 0) when no move waits. The board shows
        both from the start, so the players see where the stone goes before they lift it."""
        action = self.proposal
        if action is None:
            return 0, 0
        if action.kind == MOVE:
            lift, put = _lift_put(action)
        elif action.kind == REMOVE:
            lift, put = action.targets, ()
        else:  # a placement (or Multiverse's conduit marker moved): its node is the one filled
            lift, put = (), _presses(action)
        return _mask(n for n in lift if n not in self.picks), _mask(n for n in put if n not in self.picks)

    def to_dict(self) -> dict:
        return {
            "picks": [nd.name(n) for n in self.picks],
            "targets": [nd.NODE_NAMES[n] for n in bits(self.targets())],
            "chores": [
                {
                    "node": nd.name(c.node),
                    "kind": c.kind,
                    "before": c.before,
                    "after": c.after,
                    "text": c.describe(self.names),
                }
                for c in self.chores
            ],
            "message": self.message,
            "names": self.names,
            "proposal": None if self.proposal is None else str(self.proposal),
            "hint": None if self.hint is None else str(self.hint),
            # A button each: the action to send and what it says (Grim Reaper: "male, 10 turns, on GGG").
            "choices": [{"action": str(a), "label": self.game.say(a)} for a in self.choices],
        }

    # -- internals ------------------------------------------------------------------------------

    def _chore_press(self, node: Node) -> Feedback:
        for chore in self.chores:
            if chore.node == node:
                self.chores = tuple(c for c in self.chores if c.node != node)
                if self.chores:
                    self.message = self.chore_reason()
                else:  # a game that ended with stones to lift says its result again once they are
                    self.message = "board and game agree again" + (
                        f": {outcome(self.game, self.names)}" if self.game.over else ""
                    )
                return self._ok(self.message)
        return self._refuse(self.chore_reason(), node)

    def chore_reason(self) -> str:
        return "first " + self.chores[0].describe(self.names) + " and press it"

    def _reason(self, picks: tuple[Node, ...]) -> str:
        game = self.game
        node = picks[-1]
        if len(picks) >= 2:
            k = len(picks) // 2
            guess = Action.block(picks[:k], picks[k:]) if len(picks) % 2 == 0 else Action.move(picks[0], node)
            return game.why_illegal(guess)
        owner = game.owner(node)
        if owner == game.to_move:
            return f"the stone on {nd.name(node)} has no legal move now"
        if owner is not None:
            return game.why_illegal(Action.remove(node)) if game.pending else f"{nd.name(node)} is occupied"
        return game.why_illegal(Action.place(node))

    def _describe(self, action: Action, passed: bool, mover: int) -> str:
        """What just happened, with who did it: the page shows it under the next player's turn, so a
        bare ``G-GR`` or ``rolled B`` did not say whose it was."""
        game = self.game
        if game.over and action.kind != ROLL:
            return outcome(game, self.names)
        return said(game, action, self.names, mover) + (": no move, the turn passes" if passed else "")

    def _ok(self, message: str) -> Feedback:
        self.message = message
        return Feedback(True, message)

    def _refuse(self, reason: str, node: Node | None = None) -> Feedback:
        self.message = reason
        return Feedback(False, reason, node=node)


def _lift_put(action: Action) -> tuple[tuple[Node, ...], tuple[Node, ...]]:
    """A move's nodes the stones leave and the nodes they go to. A line or shape sliding along itself
    (``GR,GRY-GRY,GRYY``) leaves a stone where one arrives: that node is neither lifted nor put."""
    if len(action.sources) == 1:
        return action.sources, action.targets
    return (
        tuple(n for n in action.sources if n not in action.targets),
        tuple(n for n in action.targets if n not in action.sources),
    )


def _words(action: Action) -> str:
    """An action that is one press, as what OK does with it."""
    if action.kind == PLACE:
        return "enter a new stone here"
    if action.kind == REMOVE:
        return "take it off the board"
    return f"play {action}"


def _presses(action: Action) -> tuple[Node, ...]:
    """The presses that make an action at the table: a move's stones then their targets; any other
    action's nodes (a placement, a removal, Multiverse's conduit move); none for rolls, passes, ends."""
    if action.kind in (ROLL, PASS, END):
        return ()
    if action.kind == MOVE:
        lift, put = _lift_put(action)
        return lift + put
    return action.targets


def _matches(picks: tuple[Node, ...], action: Action, complete: bool) -> bool:
    seq = _presses(action)
    if not seq or len(picks) > len(seq) or (complete and len(picks) != len(seq)):
        return False
    if action.kind != MOVE:
        return picks == seq[: len(picks)]
    lift, put = _lift_put(action)
    k = len(lift)
    # The stones of a block may be pressed in any order, then their targets in any order.
    return set(picks[:k]) <= set(lift) and set(picks[k:]) <= set(put) and len(set(picks)) == len(picks)


def _mask(nodes) -> int:
    m = 0
    for n in nodes:
        m |= 1 << n
    return m


def _diff(before: tuple[int, ...], after: tuple[int, ...], pressed: tuple[Node, ...]) -> tuple[Chore, ...]:
    """Chores for every node whose stone changed and that the player did not press."""
    changed = 0
    for b, a in zip(before, after):
        changed |= b ^ a
    chores = []
    for n in bits(changed):
        if n in pressed:
            continue
        was = next((p for p, m in enumerate(before) if m >> n & 1), None)
        now = next((p for p, m in enumerate(after) if m >> n & 1), None)
        if was == now:
            continue
        kind = LIFT if now is None else PUT if was is None else SWAP
        chores.append(Chore(n, kind, was, now))
    return tuple(chores)


def _merge(chores: tuple[Chore, ...]) -> tuple[Chore, ...]:
    """Chores on one node combine (a stone put down then lifted again cancels out)."""
    by_node: dict[Node, Chore] = {}
    for c in chores:
        first = by_node.get(c.node)
        if first is None:
            by_node[c.node] = c
            continue
        was, now = first.before, c.after
        if was == now:
            del by_node[c.node]
        else:
            by_node[c.node] = Chore(c.node, LIFT if now is None else PUT if was is None else SWAP, was, now)
    return tuple(by_node.values())
