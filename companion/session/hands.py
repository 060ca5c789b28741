"""The players' hands: presses and buttons turned into engine actions (docs/runtime.md, "A turn"); pure."""

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
    """A stone to lift, put down or swap at ``node``; ``before``, ``after``: its owners."""

    node: Node
    kind: str  # LIFT, PUT or SWAP
    before: int | None
    after: int | None

    def describe(self, names: list[str]) -> str:
        where = nd.name(self.node)
        if self.kind == LIFT:
            return f"lift {names[self.before]}'s stone from {where}"
        if self.kind == PUT:
            return f"put a stone of {names[self.after]} on {where}"
        return f"replace {names[self.before]}'s stone on {where} with one of {names[self.after]}"


@dataclass(frozen=True)
class Feedback:
    """What the runtime shows and sounds after an input: ``ok``, or a refusal's reason."""

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


def moves_again(name: str) -> str:
    """A turn's second move ('Drangles, GRYBU's aggressive move), owed."""
    return f"{name} moves again: the same turn"


def said(game: Game, action: Action, names: list[str], by: int) -> str:
    """An action just played (the game's last) and who played it: "Ann rolled G", "Ann moved the stone
    on G to GR", "Bo removed Ann's man on GY"; a game's own words where it has them."""

    def name(player: int | None) -> str:
        return names[player] if player is not None and 0 <= player < len(names) else f"Player {player + 1}"

    who = name(by)
    if action.kind == ROLL:
        return f"{who} rolled {action.face}" if action.face else f"{who} chose to roll"
    if action.kind == PASS:
        return f"{who} passed"
    if action.kind == END:
        return f"{who} ended the turn"
    words = game.say(action)
    if type(action) is not Action or words != str(action):  # Grim Reaper's births, Multiverse's conduits
        return f"{who}: {words}"
    one, many = game.piece_words
    if action.kind == PLACE:
        return f"{who} placed a {one} on {nd.name(action.target)}"
    if action.kind == REMOVE:
        owner = game.owner_before_last(action.target)
        whose = "their own" if owner == by else "a" if owner is None else f"{name(owner)}'s"
        return f"{who} removed {whose} {one} on {nd.name(action.target)}"
    if action.kind == MOVE:
        piece = one if len(action.sources) == 1 else many
        return f"{who} moved the {piece} on {_listed(action.sources)} to {_listed(action.targets)}"
    return f"{who}: {words}"


def _listed(nodes: tuple[Node, ...]) -> str:
    """Node names as a list in words: "G", "G and GR", "G, GR and GG"."""
    named = [nd.name(n) for n in nodes]
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]


@dataclass
class Hands:
    game: Game
    names: list[str] = field(default_factory=list)
    picks: tuple[Node, ...] = ()
    chores: tuple[Chore, ...] = ()
    message: str = ""
    proposal: Action | None = None  # a computer player's move, for hands to carry out
    hint: Action | None = None
    # The actions the presses fit, when several (Grim Reaper's sex and life): the phone asks which.
    choices: tuple[Action, ...] = ()
    physical_die: bool = False  # the players say what their GRYB die shows
    # False at a terminal and with the LEDs for stones (the setting "stones"): nothing for hands to move.
    cloth: bool = True

    def __post_init__(self):
        if not self.names:
            self.names = [f"Player {i + 1}" for i in range(self.game.players)]
        self._legal_for: tuple | None = None  # (game, history's last entry): the position of _legal_now
        self._legal_now: list[Action] = []
        self._targets_for: tuple | None = None  # (position, picks, proposal, targets())

    def legal(self) -> list[Action]:
        """The legal actions, once per position (docs/performance.md, "What the session keeps for speed");
        not to be changed."""
        game = self.game
        top = game.history[-1] if game.history else None
        seen = self._legal_for
        if seen is None or seen[0] is not game or seen[1] is not top:
            self._legal_now = game.legal_actions()
            self._legal_for = (game, top)
        return self._legal_now

    # -- inputs

    def press(self, node: Node) -> Feedback:
        if self.chores:
            return self._chore_press(node)
        self.choices = ()
        game = self.game
        if game.over:
            return self._refuse("the game is over: OK plays it again", node)
        if game.is_chance:
            if self.physical_die:  # GRYB Dice II: the node it shows is pressed
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
        # Every press is one of an action's nodes: only the actions on this node can fit.
        near = [a for a in legal if node in a.targets or node in a.sources]
        complete = [a for a in near if _presses(a) and _matches(picks, a, complete=True)]
        partial = [a for a in near if _matches(picks, a, complete=False)]
        # A press on your own stone that can move selects it even where a placement through it is legal
        # too ('Drangles): moving is what players mean far more.
        if len(complete) > 1 and not (mine and len(picks) == 1 and partial):
            # Several actions fit: never guess. A legal press, so no buzz: the page shows a button each.
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
            if self.proposal is not None:
                return self._ok(self._computer_plays())
            return self._ok(f"{nd.name(node)} selected")
        if self.proposal is not None:
            return self._refuse(self._computer_plays(), node)
        return self._refuse(self._reason(picks), node)

    def propose(self, action: Action) -> Feedback:
        """A computer player's move, shown until its presses are made (a pass at once)."""
        if action not in self.legal():
            return self._refuse(f"{action} is not legal here")
        if not _presses(action):
            return self.act(action, pressed=())
        self.proposal, self.picks, self.hint = action, (), None
        return self._ok(self._computer_plays())

    def _computer_plays(self) -> str:
        """The computer's move and its next press."""
        return f"the computer plays {self.game.say(self.proposal)}: {self._proposal_step()}"

    def how_to(self, action: Action) -> tuple[tuple[str, Action | Node | None], ...]:
        """The steps that make ``action`` from nothing selected, tried on a copy: ("press", node), ("ok",
        None), ("roll", None), ("choose", action)."""
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
        """:meth:`how_to` in words: ``press R, then RG``."""
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
        """A fresh copy to try presses on."""
        return Hands(self.game.copy(), list(self.names), physical_die=self.physical_die, cloth=self.cloth)

    def _ok_action(self, legal: list[Action]) -> Action | None:
        """What OK does with the one stone selected, where that press is an action too (docs/runtime.md,
        "A turn")."""
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
        if len(self.picks) == len(seq):
            return "press OK"
        return f"press {nd.name(seq[len(self.picks)])}"

    def _legal(self) -> list[Action]:
        return [self.proposal] if self.proposal is not None else self.legal()

    def roll(self, die, computer: str | None = None) -> Feedback:
        """ROLL: the die rolls, or the players are asked what theirs shows (for ``computer``, if named)."""
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
            if faces[0].colour:  # a colour die (a game may roll a node die in one phase)
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

    def ok_does(self) -> bool:
        """Whether OK would do something now (else the page dims it); at a game's end it plays again."""
        if self.chores:
            return False
        if self.game.over:
            return True
        if self.proposal is not None:
            return self._ok_action([self.proposal]) is not None
        legal = self.legal()
        return self._ok_action(legal) is not None or any(a.kind in (END, PASS) for a in legal)

    def undo(self) -> list[Action]:
        """Take back the last player action and the rolls and passes after it; newest first."""
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
        """Back to the last move of one of the seats ``people``, the computer's replies too; nothing before
        their first (a computer's opening would only be chosen again)."""
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

    # -- applying

    def act(self, action: Action, pressed: tuple[Node, ...]) -> Feedback:
        """Apply an action: while a computer's move waits, only that one; while chores wait, none."""
        if self.chores:
            return self._refuse(self.chore_reason())
        if self.proposal is not None and action != self.proposal:
            return self._refuse(self._computer_plays())
        game = self.game
        # Picks the action presses again need no search (the common case).
        before = game.stones if set(self.picks) <= set(pressed) else self._on_cloth()
        try:
            return self._take(action, before, pressed)
        except IllegalAction as err:
            return self._refuse(err.reason, action.targets[0] if action.targets else None)

    def remote(self, action: Action) -> Feedback:
        """An action made at a linked board, chores waiting or not: its stones become chores here;
        IllegalAction if it is not legal."""
        return self._take(action, self._on_cloth(), ())

    def _take(self, action: Action, before: tuple[int, ...], pressed: tuple[Node, ...]) -> Feedback:
        game = self.game
        mover = game.to_move
        game.apply(action)
        self.picks, self.proposal, self.hint, self.choices = (), None, None, ()
        passed = False
        # A roll that leaves nothing to do passes at once; the message says why.
        if action.kind == ROLL and [a.kind for a in self.legal()] == [PASS]:
            game.apply(Action(PASS))
            passed = True
        self.chores = self._chores(before, pressed)
        self.message = self._describe(action, passed, mover) + self._nothing_to_play()
        return Feedback(True, self.message, action=action, passed=passed)

    def _nothing_to_play(self) -> str:
        """What the next player owes, or a pass offered beside moves: nothing on the board says so."""
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
            # PyraGRYB's pass beside moves (003: every move "may" be made): the words say OK passes.
            return " · make a move, or OK passes"
        owed = self.owed()
        return f" · {owed}" if owed else ""

    def owed(self) -> str:
        """What the player to move must do where it is not a turn as usual (a removal, a second move of the
        turn, a forced pass), in words; "" otherwise. The page, the terminal and the LEDs show it."""
        game = self.game
        if game.over or game.is_chance or not game.history:
            return ""
        legal = self.legal()
        kinds = {a.kind for a in legal}
        me, last = self.names[game.to_move], game.played()[-1]
        again = last[1] == game.to_move and last[0].kind != ROLL
        if kinds == {REMOVE}:
            return self._removal_owed(legal, me, again and last[0].kind == REMOVE)
        if kinds and kinds <= {PASS, END}:
            ok = "OK ends the turn" if END in kinds else "OK passes"
            return f"{me} has nothing {'more ' if again else ''}to play: {ok}"
        return moves_again(me) if again and game.players > 1 else ""

    def _removal_owed(self, legal: list[Action], me: str, more: bool) -> str:
        """The removal owed in words: "Ann made a GRYB: remove one of Bo's men"."""
        game = self.game
        owners = sorted({game.owner(a.target) for a in legal} - {None})
        many = game.piece_words[1]
        whose = " or ".join("their own" if p == game.to_move else f"{self.names[p]}'s" for p in owners)
        n = max(game.pending, 1)
        count = f"{n} of {whose} {many}" if n > 1 else f"one {'more ' if more else ''}of {whose} {many}"
        why = f"{me} made a GRYB: " if game.pending or game.formed() else f"{me}: "
        return f"{why}remove {count}"

    def removable(self) -> int:
        """Bitboard of the stones the player to move may remove, when a removal is owed."""
        return self.targets() if self.owed() and {a.kind for a in self.legal()} == {REMOVE} else 0

    def drop(self) -> None:
        """Forget the picks of a move that will not be made; what they moved becomes chores."""
        before = self._on_cloth()
        self.picks = ()
        self.chores = self._chores(before, pressed=())

    def _on_cloth(self) -> tuple[int, ...]:
        """The stones on the cloth: the engine's, as the move being made has lifted and put them."""
        stones = self.game.stones
        if not self.picks:
            return stones
        move = next(
            (a for a in self._legal() if a.kind == MOVE and _matches(self.picks, a, complete=False)), None
        )
        if move is None:  # selected for an action of one press: it stays where it is
            return stones
        k = len(_lift_put(move)[0])
        lifted, put = _mask(self.picks[:k]), _mask(self.picks[k:])
        whose = self.game.owner(self.picks[0])
        return tuple((m & ~lifted & ~put) | (put if p == whose else 0) for p, m in enumerate(stones))

    def _chores(self, before: tuple[int, ...], pressed: tuple[Node, ...]) -> tuple[Chore, ...]:
        """What the cloth needs to match the engine again (none where stones are LEDs: Multiverse)."""
        if not (self.cloth and self.game.physical_stones):
            return ()
        return _merge(self.chores + _diff(before, self.game.stones, pressed))

    # -- what the board shows

    def targets(self) -> int:
        """Bitboard of the nodes a press may go to next."""
        if self.chores or self.game.over or self.game.is_chance:
            return 0
        self.legal()  # sets _legal_for, with a computer's move waiting too
        legal = self._legal()
        seen = self._targets_for
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
                # Pressed in order: taken without _matches, for speed.
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
        """The computer's move still to carry out, as bitboards: (stones to lift, nodes to fill)."""
        action = self.proposal
        if action is None:
            return 0, 0
        if action.kind == MOVE:
            lift, put = _lift_put(action)
        elif action.kind == REMOVE:
            lift, put = action.targets, ()
        else:  # a placement, or Multiverse's conduit marker moved
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
            "owed": self.owed(),
            "ok_does": self.ok_does(),
            "names": self.names,
            "proposal": None if self.proposal is None else str(self.proposal),
            "hint": None if self.hint is None else str(self.hint),
            "choices": [{"action": str(a), "label": self.game.say(a)} for a in self.choices],
        }

    # -- internals

    def _chore_press(self, node: Node) -> Feedback:
        for chore in self.chores:
            if chore.node == node:
                self.chores = tuple(c for c in self.chores if c.node != node)
                if self.chores:
                    self.message = self.chore_reason()
                else:  # a game that ended with stones to lift says its result again
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
        """What just happened and who did it (shown under the next player's turn)."""
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
    """A move's nodes to lift and to put (``GR,GRY-GRY,GRYY`` slides along itself: GRY is neither)."""
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
    """The presses that make an action: a move's stones then their targets, else its nodes."""
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
    # A block's stones in any order, then its targets in any order.
    return set(picks[:k]) <= set(lift) and set(picks[k:]) <= set(put) and len(set(picks)) == len(picks)


def _mask(nodes) -> int:
    m = 0
    for n in nodes:
        m |= 1 << n
    return m


def _diff(before: tuple[int, ...], after: tuple[int, ...], pressed: tuple[Node, ...]) -> tuple[Chore, ...]:
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
    """Chores on one node combine (put down then lifted cancels out)."""
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
