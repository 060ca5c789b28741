"""Computer players and hints: Monte Carlo tree search over the engine, for every game.

One general search works through ``legal_actions()`` / ``push_legal`` / ``retract`` only, so every game
of the catalogue gets a computer player without code of its own. Details that matter:

- Chance is handled by chance nodes: where the die is to be rolled the tree branches on each face,
  visited as often as the die would show it (sampled uniformly), so the search never "chooses" a roll.
- Several players: every tree node keeps the value for the player who moved into it (max^n), so
  three- and four-player games are searched like two-player ones.
- Playouts are random but short; where one stops before the end, ``game.evaluate()`` says how each
  player stands (games with a better sense of progress than their scores override it). The game plays
  them itself (``Game.playout``), so a game with a faster way of playing the same random game (EZ GRYB,
  companion/games/composed/ez_playout.py) gives its computer player more iterations in the same time.
- A game that can rank its moves at a glance (``Game.action_order``: Hyper-Chess, by what a capture
  wins and what a move hangs) gets them tried best first, and each node widens to the rest step by step
  as it earns visits (progressive widening), so a few hundred iterations reach the replies that matter
  (a recapture) instead of spreading over every quiet move. Other games try every action (the root's
  in the first look's order, below), but for a few whose root is wider than the hard level's
  iterations (``WIDE_ROOTS``: Blobs, The Borg, Siege): their root widens in that order (but for a
  level capped below the root's width, below).
- Before the tree, a first look plays each action once (in the game's order, where it has one) and
  reads ``evaluate()`` after it. A win in one (a checkmate, a GRYB completed; a team's, in Doubles) is
  taken at once, before any search and before a beginner's random move: the tree would find it too,
  but at the easy level's few iterations not always. The look ranks the rest one ply deep: a game that
  ranks nothing itself has its root's actions tried in that order (so a search whose time runs out
  before it has tried every action tries the likeliest; a level capped at fewer iterations than the
  root has actions tries them at random, as a beginner would), and a search in which no iteration
  fits plays the best of them, not a random move.
- Every part of the search keeps the time budget, the first look included: it reads the clock after
  every action and stops when half the budget is spent (on a cold start, where each action builds
  tables the game fills on first use, or on a deep board with hundreds of actions, it would otherwise
  take seconds). The tree reads the clock after every iteration, and no iteration is started after
  90 % of the budget or when the slowest iteration so far (before the first, what the first look took
  per action, times the plies of an iteration) would not fit before the budget's end; the garbage
  collector waits until the search is done (a full collection would not fit). It never touches the
  game it is given (it works on a copy), so it can run on its own thread beside the runtime.
- A caller whose game moved on while its search ran (an UNDO, a new game) can end it early: ``stop``, asked
  after each action of the first look and before each iteration, ends it when it answers True, and the
  answer is the best so far. Searches on two threads share one interpreter (Python's GIL), so a search
  nobody waits for would otherwise cost the next one nearly half its iterations.
- ``warm()`` builds beforehand what a game's first search would otherwise build inside its budget (the
  tables a game fills on first use, the board's whole GRYB index where it is small), for a caller to run
  off its own loop when a game starts, as the runtime runs its searches on a worker thread.
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
    iterations: int  # upper bound on tree iterations
    seconds: float  # time budget
    playout: int  # plies of a random playout before evaluating
    exploration: float = 1.0
    blunder: float = 0.0  # chance of playing a random legal move instead, as a beginner would


# Short playouts: the games' evaluate() judges a position better than a long random continuation does.
# Measured in EZ GRYB (20 games each, 1200 iterations against medium's 300 at playout 16): playout 24
# won 50 %, 16 won 50 %, 8 won 90 %, 4 won 80 % (bench/bench_ai.py, docs/performance.md).
# The levels are spaced by search budget; easy also plays a random move one time in ten, as beginners
# do (at 0.3 it lost 15 % of Drangles games to a random player; the target is >= 95 % wins).
# Easy 30 -> 60 iterations: at 30 it drew 6 of 40 'Drangles games against a random player at the turn
# limit (0 of 60 at 60). Medium 150 -> 300: at 150 it drew 3-4 of 40 Connection games against a random
# player (1 of 40 at 300). Playout 0 (the evaluation alone) was tried and is worse for hard in
# Hyper-Chess (1 win, 7 draws, 12 losses against medium); per-root-action budgets made easy stronger
# than medium in Hyper-Chess. Measurements: docs/performance.md, "Computer players".
LEVELS = {
    "easy": Level("easy", iterations=60, seconds=0.05, playout=4, blunder=0.1),
    "medium": Level("medium", iterations=300, seconds=0.12, playout=8),
    "hard": Level("hard", iterations=100000, seconds=0.25, playout=8),
}


# Progressive widening (Coulom 2007; Chaslot et al. 2008), for games that order their moves
# (Game.action_order): a node tries its actions best first and holds at most
# WIDEN_BASE + WIDEN_RATE * sqrt(visits) children, so the search looks deeper into the likely moves and
# reaches the rest as a node earns visits. Hyper-Chess, hard against medium, 40 games each: 2 + 0.5
# sqrt(n) won 23, drew 7, lost 10 (and 15-6-19 on other seeds); 3 + sqrt(n) 20-3-17; 5 + 2 sqrt(n)
# 18-3-19 (docs/performance.md).
WIDEN_BASE = 2
WIDEN_RATE = 0.5

# Games whose root holds about as many moves as the hard level's quarter second has iterations, or more
# (medians per hard move, an audit of 2026-11-27: Blobs 54 iterations for 195 moves, The Borg 88 for 183,
# Siege 103 for 90): the search gave each move a playout or two, little better than a random pick. Their
# root widens the same way, in the first look's order (one ply deep by evaluate()). Hard against hard as
# it was, 30 games each (one-off script, other seeds, budgets on the CPU clock): Blobs won 24, drew 2,
# lost 4; The Borg 26-0-4; Siege, with its evaluation of the surround (companion/games/composed/interpreter.py), 30-0-0,
# and 27-3-0 against the same search without the widening. Battlefield (138 for 136) won 17-1-12, within
# its seats' spread, and is left out; Square Deal, whose evaluation tells only a capture from the rest,
# was not tried (docs/performance.md, "Wide games").
WIDE_ROOTS = frozenset({"blobs", "the-borg", "siege"})

# Games whose strength stops growing with search well before the hard level's budget get their lower
# levels placed lower, so that each level is still a step up from the one below (issue 8: each beats the
# level below in >= 60 % of games) while hard keeps its whole budget (a game may change how hard searches,
# never how long: Hyper-Chess's shorter playout, below). EZ GRYB is decided mostly by the die: hard
# (about 2,000 iterations) won about 55 % of its games against the general medium (300 iterations) but
# 70 % against one of 60 (140 games); a 20-iteration easy with no random moves was as strong as that
# medium (98 of 200 games), while one that plays a random move one time in five lost 74 % of 200 games
# to it and still beat a random player in 97.8 % of 400. In Hyper-Chess medium's 0.12 s held it to about
# 270 iterations, half of hard's, and hard won about 53 % of 120 games against it; against a medium of
# 180 iterations hard won 70 % of 80 games, and that medium 71 % of 100 against easy (one of 150 won 63 %
# of 100 against easy). PyraGRYB's easy, with the game's race evaluation, beat two random players in
# 85.0 % of 40 games as it was and 87.0 % of 100 without its random moves; with 2-ply playouts, which
# leave more to the evaluation, and no random moves it won 164 of 180 (91.1 %), still short of 95 %
# (92.5 % of 1,000 once the race counted an opponent's piece in a quadrangle as a turn more; medium 93.0 %
# of 600, a hard of 1,000 iterations 91.6 % of 250: more search buys little here). Spacing PyraGRYB's
# levels by random moves as EZ GRYB's was tried and not kept: medium at 0.6 and easy at 0.9 still left
# hard v medium at 56 % and medium v easy at 48.5 % (200 games each), easy then winning only 70 % against
# random players, since the win in one every level takes is most of this race. On the slower machine of
# 2026-11-28 (hard about 240 iterations a move in Hyper-Chess, medium's 0.12 s about 108) Hyper-Chess's
# medium at 72 and easy at 25, caps that bind there, were tried and not kept: hard still won 57.5 % of 40
# against medium, and easy lost a game to a random player. What opened the step was the playout:
# Hyper-Chess's evaluation counts a piece left hanging for the side to move, so 8 random plies after the
# tree added more noise than they told. Against the medium of 8 plies, hard won 23 of 40 games with 8
# plies, 34 with 4 and 36 with 2 (each iteration costing half as much); a medium of 2 plies was as
# strong as hard again (hard won 23 of 40), so medium plays out 4: hard won 30 of 40 against it, and it
# 33 of 40 against easy.
# docs/performance.md, "Computer players", has every run.
GAME_LEVELS: dict[str, dict[str, dict[str, float]]] = {
    "ez-gryb": {"easy": {"iterations": 20, "blunder": 0.2}, "medium": {"iterations": 60}},
    "hyper-chess": {"medium": {"iterations": 180, "playout": 4}, "hard": {"playout": 2}},
    "pyragryb": {"easy": {"blunder": 0.0, "playout": 2}},
}

# With a seed (`play --seed`) a level searches a number of iterations, not a time, so the same seed plays
# the same moves on any machine: hard's count is about what its quarter of a second holds here (from 900
# in Connection to 3,700 in 25 Men's GRYB; docs/performance.md).
REPEATABLE_ITERATIONS = 1000
HINT_LEVEL = "hard"  # a hint is what a good player would do: the hard search, a quarter of a second
LAST_START = 0.9  # share of the time budget after which no new iteration starts
LOOK_SHARE = 0.5  # share of the time budget the first look (a win in one, each action one ply deep) may take

# warm(): a game that finds GRYBs gets its board's whole GRYB index built up to this many nodes. The standard
# board's 341 take a fraction of a second and about 8 MB; a Giant board's 1,365 take seconds and 100 MB, and
# a Super Giant's 5,461 most of a minute and over a gigabyte, too much to build ahead (their lists are built
# as play reaches their nodes, and the first look keeps the budget meanwhile).
WARM_INDEX_NODES = 341
WARM = Level("warm", iterations=50, seconds=math.inf, playout=8)  # warm()'s search: counted, not timed
WARM_WALK = 8  # rolls and forced actions warm() plays through, on a copy, to reach a choice to search


class LevelError(ValueError):
    pass


def level(name: str, time_scale: float = 1.0, game: str | None = None, repeatable: bool = False) -> Level:
    """The level called ``name`` (for the game with id ``game``, where its levels are spaced otherwise:
    ``GAME_LEVELS``); ``time_scale`` multiplies its time budget (a slower machine needs longer for the
    same search: the ``computer.time_scale`` setting). ``repeatable``: counted, not timed (at most
    ``REPEATABLE_ITERATIONS``), so that with the same random stream it plays the same moves anywhere."""
    try:
        found = LEVELS[name]
    except KeyError:
        raise LevelError(f"no level {name!r}; levels: {', '.join(LEVELS)}") from None
    tuned = GAME_LEVELS.get(game, {}).get(name)
    if tuned:
        found = replace(found, **tuned)
    if repeatable:
        return replace(found, seconds=math.inf, iterations=min(found.iterations, REPEATABLE_ITERATIONS))
    return found if time_scale == 1.0 else replace(found, seconds=found.seconds * time_scale)


class _Node:
    """One node of the search tree (``Result.root`` hands the tree out for inspection).

    ``children`` maps an action to its node; a *chance* node (the die is to be rolled there) has one
    child per face drawn so far, each drawn as often as the die would show it. ``visits`` counts the
    iterations through the node and ``value`` sums the rewards of ``mover``, the player who moved into
    it (None for the root and for die faces).

    A node knows its children, not its parent: an iteration keeps the path it walked. The tree has no
    cycle, so it is freed the moment its last reference goes (the answer handed on), not by a garbage
    collection walking it some moves later (docs/performance.md, "Garbage collection while the computer
    plays")."""

    __slots__ = ("action", "mover", "children", "untried", "visits", "value", "chance", "widen")

    def __init__(self, action: Action | None, mover: int | None):
        self.action = action
        self.mover = mover  # the player who made ``action`` (None for rolls and the root)
        self.children: dict[Action, _Node] = {}
        self.untried: list[Action] | None = None
        self.visits = 0
        self.value = 0.0
        self.chance = False
        self.widen = False  # the untried actions are in the game's order, best last: widen step by step


@dataclass
class Result:
    action: Action
    iterations: (
        int  # tree iterations run (0: a forced move, a win in one, a beginner's random move, or none fitted)
    )
    seconds: float  # from the call to the answer, by the search's clock
    visits: dict[str, int]  # visits of each root action, by its text
    root: _Node | None = field(default=None, repr=False)  # the search tree, for tests and debugging
    # How the action was chosen: "forced" (the only action, or the die to roll), "win" (a win in one),
    # "beginner" (a beginner's random move) or "search" (the tree; with 0 iterations, the first look's best).
    how: str = "search"
    looked: int = 0  # actions the first look played before the answer or its share of the budget


@dataclass
class _Look:
    """What the first look found: a win in one, or each action it had time for with its value one ply
    deep for the side to move (``evaluate()``), in the order looked at."""

    win: Action | None
    values: list[tuple[Action, float]]
    seconds: float  # what it took, by the search's clock
    stopped: bool = False  # the caller's ``stop`` ended it


def search(
    game: Game,
    lvl: Level | str = "medium",
    rng: random.Random | None = None,
    clock: Callable[[], float] = time.perf_counter,
    stop: Callable[[], bool] | None = None,
) -> Result:
    """The action a computer player at ``lvl`` would take for the side to move; ``stop`` (asked between
    steps of the search) ends it early with the best so far once it answers True."""
    # Python's full garbage collection takes 50-110 ms in this process; falling inside a search it
    # overran the budget (hard moves of 0.26-0.33 s). It is put off until the search has answered.
    collecting = gc.isenabled()
    gc.disable()
    try:
        chosen = level(lvl, game=game.id) if isinstance(lvl, str) else lvl
        return _search(game, chosen, rng or random.Random(), clock, stop)
    finally:
        if collecting:
            gc.enable()


def warm(game: Game, rng: random.Random | None = None) -> None:
    """Build what the first search of ``game`` would otherwise build inside its time budget: the board's
    GRYB index (for a game that finds GRYBs, on a board of up to ``WARM_INDEX_NODES`` nodes) and the
    tables a search fills on first use (Hyper-Chess's distances; the GRYB lists of the nodes the moves
    reach), by a search counted in iterations (``WARM``) from the first choice within ``WARM_WALK`` rolls
    and forced actions. It works on a copy and takes as long as that takes (a fraction of a second on the
    standard board here, several times that on a Raspberry Pi Zero 2 W): for a thread of its own when a
    game starts, never the runtime's loop."""
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
    if (
        not board.over
    ):  # not search(): the collector stays as it is (a search on another thread may have it off)
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
    if order is not None:  # the first look takes the game's best first: a look cut short has seen those
        legal = [a for _, a in sorted(zip(order, legal), key=lambda pair: -pair[0])]
    look = _first_look(board, legal, clock, start + lvl.seconds * LOOK_SHARE, stop)
    looked = len(look.values) + (look.win is not None)
    if look.win is not None:
        return Result(look.win, 0, clock() - start, {}, how="win", looked=looked)
    if rng.random() < lvl.blunder:
        return Result(rng.choice(legal), 0, clock() - start, {}, how="beginner", looked=looked)
    ranked = _ranked(legal, look.values, rng)
    root = _Node(None, None)
    # A game that ranks nothing has its root try the first look's best first, where the time budget is
    # what may cut the search short; a level capped below the root's width (easy's 60 iterations among
    # 25 Men's GRYB's 200 moves, or Blobs' 190) tries them at random, as before, in every game: the cap
    # is what makes it a beginner (ranked, easy won 19 of 40 games against medium in 25 Men's GRYB; at
    # random 2).
    if order is None and lvl.iterations >= len(legal):
        root.untried = list(ranked)
        root.widen = game.id in WIDE_ROOTS  # and a wide root widens to the rest step by step
    deadline = start + lvl.seconds
    last_start = start + lvl.seconds * LAST_START
    # Until an iteration is timed, the first look's cost per action stands in for each of its plies.
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
    if not root.children:  # no iteration fitted: the first look's best (a random action if it saw none)
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
    """Each action played once, until ``until`` by ``clock`` or until ``stop`` says so: the first that
    wins the game outright for the side to move (with their partner, in a game of teams) is taken, so
    no level misses a win in one it has time to see (a checkmate, a GRYB completed), a beginner
    included; the others get their value one ply deep for the side to move."""
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
    """The root's untried actions, to be popped from the end: those the first look valued, best last
    (ties shuffled, so no stone's moves go first for being listed first), after the rest (shuffled)."""
    seen = dict(values)
    rest = [a for a in legal if a not in seen]
    rng.shuffle(rest)
    ranked = list(values)
    rng.shuffle(ranked)
    ranked.sort(key=lambda pair: pair[1])
    return rest + [a for a, _ in ranked]


def _iterate(board: Game, root: _Node, lvl: Level, rng: random.Random) -> None:
    node = root
    path = [root]
    # Selection and expansion.
    while not board.over:
        if node.untried is None:
            node.chance = board.is_chance
            node.untried = [] if node.chance else board.legal_actions()
            rng.shuffle(node.untried)
            if len(node.untried) > 1:
                order = board.action_order(node.untried)
                if order is not None:  # best last, to be popped first; ties stay shuffled (a stable sort)
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
    # Playout (the game plays it and comes back: companion/games/engine.py, Game.playout).
    reward = board.playout(rng, lvl.playout)
    for _ in range(len(path) - 1):
        board.retract()
    # Backpropagation.
    for node in path:
        node.visits += 1
        if node.mover is not None:
            node.value += reward[node.mover]


def _width(visits: int) -> float:
    """How many children a widening node may hold after ``visits`` iterations through it."""
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
