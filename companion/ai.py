"""Computer players and hints: Monte Carlo tree search through the engine's hooks, for every game.

Chance nodes follow the die; a node keeps its mover's value (max^n); short playouts end in
``evaluate()``. A first look takes a win in one and ranks the rest; moves ranked by the game
(``action_order``) or the look (``wide_root``) widen with visits. Every step keeps the time budget.
Tuning: docs/performance.md, "Computer players".
"""

from __future__ import annotations

import gc
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from companion.games.engine import Game
from companion.rules.action import Action


@dataclass(frozen=True)
class Level:
    name: str
    iterations: int
    seconds: float
    playout: int
    exploration: float = 1.0
    blunder: float = 0.0  # chance of a random move


LEVELS = {
    "easy": Level("easy", iterations=60, seconds=0.05, playout=4, blunder=0.1),
    "medium": Level("medium", iterations=300, seconds=0.12, playout=8),
    "hard": Level("hard", iterations=100000, seconds=0.25, playout=8),
}

# Progressive widening: at most BASE + RATE * sqrt(visits) children.
WIDEN_BASE = 2
WIDEN_RATE = 0.5

REPEATABLE_ITERATIONS = 1000  # about hard's quarter second (`play --seed`)
HINT_LEVEL = "hard"
LAST_START = 0.9  # of the budget
LOOK_SHARE = 0.5

WARM_INDEX_NODES = 341  # the standard board's
WARM = Level("warm", iterations=50, seconds=math.inf, playout=8)
WARM_WALK = 8  # rolls and forced actions


class LevelError(ValueError):
    pass


def level(
    name: str, time_scale: float = 1.0, game: Game | type[Game] | None = None, repeatable: bool = False
) -> Level:
    """``name`` as ``game`` tunes it, its time times ``time_scale``; ``repeatable``: counted, not timed."""
    try:
        found = LEVELS[name]
    except KeyError:
        raise LevelError(f"no level {name!r}; levels: {', '.join(LEVELS)}") from None
    tuned = game.computer_levels.get(name) if game is not None else None
    if tuned:
        found = replace(found, **tuned)
    if repeatable:
        return replace(found, seconds=math.inf, iterations=min(found.iterations, REPEATABLE_ITERATIONS))
    return found if time_scale == 1.0 else replace(found, seconds=found.seconds * time_scale)


class _Node:
    # No parent link: no cycle for the collector (docs/performance.md, "The tree").
    __slots__ = ("action", "mover", "children", "untried", "visits", "value", "chance", "widen")

    def __init__(self, action: Action | None, mover: int | None):
        self.action = action
        self.mover = mover
        self.children: dict[Action, _Node] = {}
        self.untried: list[Action] | None = None
        self.visits = 0
        self.value = 0.0
        self.chance = False
        self.widen = False  # ``untried`` is best last


@dataclass
class Result:
    action: Action
    iterations: int
    seconds: float
    visits: dict[str, int]
    root: _Node | None = field(default=None, repr=False)
    how: str = "search"  # or "forced", "win", "beginner"
    looked: int = 0


@dataclass
class _Look:
    win: Action | None
    values: list[tuple[Action, float]]
    seconds: float
    stopped: bool = False


def search(
    game: Game,
    lvl: Level | str = "medium",
    rng: random.Random | None = None,
    clock: Callable[[], float] = time.perf_counter,
    stop: Callable[[], bool] | None = None,
) -> Result:
    """``lvl``'s action for the side to move; ``stop`` ends it early with the best so far."""
    # A collection (50-110 ms) would overrun the budget.
    collecting = gc.isenabled()
    gc.disable()
    try:
        chosen = level(lvl, game=game) if isinstance(lvl, str) else lvl
        return _search(game, chosen, rng or random.Random(), clock, stop)
    finally:
        if collecting:
            gc.enable()


def warm(game: Game, rng: random.Random | None = None) -> None:
    """Build what ``game``'s first search would build in its budget: seconds on a Pi, off the loop."""
    if game.finds_grybs and game.space.size <= WARM_INDEX_NODES:
        index = game.grybs_index
        for node in game.space.nodes:
            index.through(node)
    rng = rng or random.Random(0)
    board = game.copy()
    for _ in range(WARM_WALK):
        if board.over or not board.is_chance and len(board.legal_actions()) > 1:
            break
        board.push_legal(board.random_action(rng))
    if not board.over:  # not search(): another thread's search may have the collector off
        _search(board, WARM, rng, time.perf_counter, None)


def _search(
    game: Game, lvl: Level, rng: random.Random, clock: Callable[[], float], stop: Callable[[], bool] | None
) -> Result:
    start = clock()
    legal = game.legal_actions()
    if not legal:
        raise ValueError("the game is over: no action to choose")
    if len(legal) == 1 or game.is_chance:
        return Result(
            legal[0] if len(legal) == 1 else rng.choice(legal), 0, clock() - start, {}, how="forced"
        )
    board = game.copy()
    board.redo_stack = []
    order = board.action_order(legal)
    if order is not None:
        legal = [a for _, a in sorted(zip(order, legal), key=lambda pair: -pair[0])]
    look = _first_look(board, legal, clock, start + lvl.seconds * LOOK_SHARE, stop)
    looked = len(look.values) + (look.win is not None)
    if look.win is not None:
        return Result(look.win, 0, clock() - start, {}, how="win", looked=looked)
    if rng.random() < lvl.blunder:
        return Result(rng.choice(legal), 0, clock() - start, {}, how="beginner", looked=looked)
    ranked = _ranked(legal, look.values, rng)
    root = _Node(None, None)
    # Capped below the root's width: at random (docs/performance.md, "Wide games").
    if order is None and lvl.iterations >= len(legal):
        root.untried = list(ranked)
        root.widen = game.wide_root
    deadline = start + lvl.seconds
    last_start = start + lvl.seconds * LAST_START
    # Before an iteration is timed: the look's time per action, per ply.
    guess = look.seconds / looked * (lvl.playout + 1) if looked else 0.0
    iterations, slowest, now = 0, 0.0, clock()
    while (
        iterations < lvl.iterations
        and now < last_start
        and now + (slowest if iterations else guess) < deadline
    ):
        if look.stopped or stop is not None and stop():
            break
        _iterate(board, root, lvl, rng)
        iterations += 1
        before, now = now, clock()
        slowest = max(slowest, now - before)
    if not root.children:  # no iteration fitted
        return Result(ranked[-1], 0, clock() - start, {}, root, looked=looked)
    best = max(root.children.values(), key=lambda n: (n.visits, n.value))
    visits = {str(a): n.visits for a, n in root.children.items()}
    return Result(best.action, iterations, clock() - start, visits, root, looked=looked)


def _first_look(
    board: Game,
    legal: list[Action],
    clock: Callable[[], float],
    until: float,
    stop: Callable[[], bool] | None,
) -> _Look:
    """A win in one for the side (a team too), or each action's value one ply deep, until ``until``."""
    began = clock()
    mover = board.to_move
    side = board.side(mover)
    values = []
    for action in legal:
        board.push_legal(action)
        if board.over and board.winners == side:
            board.retract()
            return _Look(action, values, clock() - began)
        values.append((action, board.evaluate()[mover]))
        board.retract()
        if stop is not None and stop():
            return _Look(None, values, clock() - began, stopped=True)
        if clock() >= until:
            break
    return _Look(None, values, clock() - began)


def _ranked(legal: list[Action], values: list[tuple[Action, float]], rng: random.Random) -> list[Action]:
    seen = dict(values)
    rest = [a for a in legal if a not in seen]
    rng.shuffle(rest)
    ranked = list(values)
    rng.shuffle(ranked)
    ranked.sort(key=lambda pair: pair[1])
    return rest + [a for a, _ in ranked]  # popped from the end: best first


def _iterate(board: Game, root: _Node, lvl: Level, rng: random.Random) -> None:
    node = root
    path = [root]
    while not board.over:
        if node.untried is None:
            node.chance = board.is_chance
            node.untried = [] if node.chance else board.legal_actions()
            rng.shuffle(node.untried)
            if len(node.untried) > 1:
                order = board.action_order(node.untried)
                if order is not None:  # best last; a stable sort keeps ties shuffled
                    node.untried = [a for _, a in sorted(zip(order, node.untried), key=lambda pair: pair[0])]
                    node.widen = True
        if node.chance:
            face = board.random_action(rng)
            child = node.children.get(face)
            if child is None:
                child = node.children[face] = _Node(face, None)
            board.push_legal(face)
            path.append(child)
            node = child
            if child.visits == 0:
                break
            continue
        if node.untried and (not node.widen or len(node.children) < _width(node.visits)):
            action = node.untried.pop()
            mover = board.to_move
            board.push_legal(action)
            child = node.children[action] = _Node(action, mover)
            path.append(child)
            node = child
            break
        node = _select(node, lvl.exploration)
        board.push_legal(node.action)
        path.append(node)
    reward = board.playout(rng, lvl.playout)
    for _ in range(len(path) - 1):
        board.retract()
    for node in path:
        node.visits += 1
        if node.mover is not None:
            node.value += reward[node.mover]


def _width(visits: int) -> float:
    return WIDEN_BASE + WIDEN_RATE * math.sqrt(visits)


def _select(node: _Node, c: float) -> _Node:
    log_n = math.log(node.visits + 1)
    best, best_score = None, -1.0
    for child in node.children.values():
        if child.visits == 0:
            return child
        score = child.value / child.visits + c * math.sqrt(log_n / child.visits)
        if score > best_score:
            best, best_score = child, score
    return best
