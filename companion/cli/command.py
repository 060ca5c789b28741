"""The ``gryb-companion`` command. Exit codes: 0 success (or "yes"), 1 a well-formed "no" (not a GRYB),
2 bad input, with the reason on stderr and nothing on stdout.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import sys
import textwrap
from pathlib import Path

from companion import __version__, ai
from companion.cli import board_text, console
from companion.games import engine
from companion.games.catalogue import Catalogue, shipped
from companion.games.composed import interpreter as composed
from companion.games.composed import schema as composition
from companion.games.die import Die
from companion.rules import gryb
from companion.rules import node as nd
from companion.rules.action import CHOOSE_ROLL
from companion.rules.node import NodeError
from companion.rules.space import MoveKind, space
from companion.service import config as config_mod
from companion.service import library as library_mod
from companion.service import logs
from companion.service.library import Library

EXIT_OK, EXIT_NO, EXIT_BAD_INPUT = 0, 1, 2


class UsageError(Exception):
    """Bad input on the command line: exit 2."""


class CannotStart(Exception):
    """A part of the board could not be opened (absent, not permitted): exit 1."""


def _depth(text: str) -> int:
    try:
        depth = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"depth must be a whole number, not {text!r}") from None
    if not 1 <= depth <= nd.MAX_DEPTH:
        raise argparse.ArgumentTypeError(f"depth must be from 1 to {nd.MAX_DEPTH}, not {depth}")
    return depth


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seconds must be a number, not {text!r}") from None
    if not seconds > 0:  # nan too
        raise argparse.ArgumentTypeError(f"seconds must be more than 0, not {text}")
    return seconds


def _board_options(parser: argparse.ArgumentParser, headless: bool = True, periodic: bool = False) -> None:
    parser.add_argument(
        "--depth",
        type=_depth,
        default=nd.STANDARD_DEPTH,
        help="levels below the head node: 4 standard (341 nodes), 5 Giant, 6 Super Giant",
    )
    if headless:
        parser.add_argument("--headless", action="store_true", help="the board without the head node 0")
    if periodic:
        parser.add_argument(
            "--periodic",
            action="store_true",
            help="periodic space: up from the top level reaches the bottom level and back",
        )


def _print_json(value) -> None:
    print(json.dumps(value, separators=(",", ":")))


# -- rules


def _rules_moves(args) -> int:
    board = space(args.depth, args.headless, args.periodic)
    starts = board.parse_many(args.nodes) if args.nodes else board.nodes
    result = {board.name(n): sorted(board.names(board.target_mask(args.kind, n))) for n in starts}
    _print_json(result)
    return EXIT_OK


def _gryb_answer(names: list[str], depth: int, big_endian: bool) -> dict:
    if len(names) != 4:
        raise UsageError(f"a GRYB is four nodes; got {len(names)}: {' '.join(names) or '(none)'}")
    found = gryb.check([nd.parse(n, depth) for n in names])
    if found is None:
        return {"valid": False, "levels": [], "points": 0, "quadrangle": False}
    return {
        "valid": True,
        "levels": list(found.levels),
        "points": found.points(depth, big_endian),
        "quadrangle": found.quadrangle,
    }


def _rules_gryb(args) -> int:
    if not args.stdin:
        answer = _gryb_answer(args.nodes, args.depth, args.big_endian)
        _print_json(answer)
        return EXIT_OK if answer["valid"] else EXIT_NO
    if args.nodes:
        raise UsageError("give the nodes either as arguments or on stdin (--stdin), not both")
    status = EXIT_OK
    for number, line in _lines(sys.stdin):
        if not line.strip():
            continue
        try:
            _print_json(_gryb_answer(line.split(), args.depth, args.big_endian))
        except (UsageError, NodeError) as err:
            # A line out per line in, so answers stay aligned with the questions.
            _print_json({"error": str(err)})
            print(f"gryb-companion: line {number}: {err}", file=sys.stderr)
            status = EXIT_BAD_INPUT
    return status


def _rules_count(args) -> int:
    board = space(args.depth, args.headless)
    quadrangles = sum(1 for n in board.nodes if nd.LEVEL[n] < args.depth)
    if args.headless:
        quadrangles += 1  # the top quadrangle G R Y B is still on a headless board
    _print_json({"nodes": len(board.nodes), "quadrangles": quadrangles, "grybs": gryb.count(args.depth)})
    return EXIT_OK


def _rules_position(args) -> int:
    _print_json(list(nd.position(nd.parse(args.node, args.depth), args.depth)))
    return EXIT_OK


def _board(args) -> int:
    draw = board_text.render_names if args.names else board_text.render
    print(draw(args.depth, headless=args.headless))
    return EXIT_OK


# -- games


def _library(args) -> Library:
    """The saved compositions in ``--state DIR`` or the companion's own."""
    state = Path(args.state) if getattr(args, "state", None) else config_mod.State().path()
    return Library(state / library_mod.FOLDER)


def _catalogue(args) -> Catalogue:
    """The shipped games and the saved compositions."""
    games, problems = _library(args).install(shipped())
    for problem in problems:
        print(f"gryb-companion: skipped a saved composition: {problem}", file=sys.stderr)
    return games


def _variants(args) -> int:
    games = [cls.describe() for cls in _catalogue(args)]
    if args.json or not sys.stdout.isatty():
        _print_json(games)
    else:
        print(variants_table(games, shutil.get_terminal_size().columns))
    return EXIT_OK


def _default(value) -> str:
    """An option's default as ``--option`` takes it."""
    return json.dumps(value) if isinstance(value, bool) or value is None else str(value)


def variants_table(games: list[dict], columns: int = 100) -> str:
    """The games at a glance, a row each; the options' KEY=DEFAULT wrapped to fit ``columns``."""
    head = ("GAME", "NAME", "PLAYERS", "OPTIONS (KEY=DEFAULT)", "SERIES")
    rows = []
    for g in games:
        low, high = g["players"]["min"], g["players"]["max"]
        options = " ".join(f"{o['name']}={_default(o['default'])}" for o in g["options"])
        series = [p["id"] for p in g["series"]["presets"]] or ["-"]
        rows.append((g["id"], g["name"], str(low) if low == high else f"{low}-{high}", options, series))
    widths = [max(len(head[i]), *(len(r[i]) for r in rows)) for i in range(3)]
    series_width = max(len(head[4]), *(len(s) for r in rows for s in r[4]))
    room = max(24, columns - sum(widths) - series_width - 8)  # two spaces between columns
    lines = []
    for game, name, players, options, series in [(*head[:4], [head[4]]), *rows]:
        wrapped = textwrap.wrap(options, room, break_on_hyphens=False, break_long_words=False) or ["-"]
        for i in range(max(len(wrapped), len(series))):
            cells = (game, name, players) if i == 0 else ("", "", "")
            left = "  ".join(c.ljust(w) for c, w in zip(cells, widths))
            option = wrapped[i] if i < len(wrapped) else ""
            lines.append(f"{left}  {option.ljust(room)}  {series[i] if i < len(series) else ''}".rstrip())
    lines.append("")
    footer = "play one: gryb-companion play GAME --option KEY=VALUE; what each option means: variants --json"
    lines.extend(textwrap.wrap(footer, max(40, columns - 1), break_on_hyphens=False))
    return "\n".join(lines)


# -- compositions


def _rules_of(source: str, args) -> composition.Rules:
    """A composition from a file, or by id (saved or shipped)."""
    path = Path(source)
    if path.suffix in (".toml", ".json") or path.is_file():
        return library_mod.load(path)
    library = _library(args)
    if source in library.ids():
        return library.get(source)
    try:
        cls = _catalogue(args).find(source)
    except engine.UnknownGame as err:
        raise UsageError(str(err)) from None
    if not getattr(cls, "composed", False):
        raise UsageError(f"{source} is written in Python, not a composition (see docs/composer.md)")
    return cls.base_rules


def _compose(args) -> int:
    try:
        if args.action == "check":
            rules = library_mod.load(args.source)
            cls = composed.game_class(rules)
            cls(rules.players[0])  # the game sets up: residents, tables
            _print_json(cls.describe())
        elif args.action == "export":
            print(composition.export(_rules_of(args.source, args), "json" if args.json else "toml"), end="")
        elif args.action == "import":
            rules = library_mod.load(args.source)
            library = _library(args)
            library.add(_catalogue(args), rules, replace=args.replace)
            _print_json({"id": rules.id, "name": rules.name, "saved": str(library.path(rules.id))})
        elif args.action == "list":
            library = _library(args)
            _print_json(
                [{"id": r.id, "name": r.name, "path": str(library.path(r.id))} for r in library.all()]
            )
        elif args.action == "delete":
            _library(args).delete(args.source)
            _print_json({"id": args.source, "deleted": True})
    except composition.CompositionError as err:
        raise UsageError(str(err)) from None
    except OSError as err:  # the state directory cannot be made or written
        raise UsageError(f"cannot save in {_library(args).folder}: {err.strerror or err}") from None
    return EXIT_OK


def _options(pairs: list[str]) -> dict[str, str]:
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--option takes KEY=VALUE, not {pair!r}")
        options[key.strip()] = value.strip()
    return options


def _play(args) -> int:
    """Play from stdin or at random, a JSON state line an action; at a terminal, the console."""
    import random

    try:
        if args.rules:
            if args.game:
                raise UsageError("give a GAME id or --rules FILE, not both")
            cls = composed.game_class(library_mod.load(args.rules))
        elif not args.game:
            raise UsageError("name a GAME (see 'gryb-companion variants') or give --rules FILE")
        else:
            cls = _catalogue(args).find(args.game)
        game = cls(args.players if args.players is not None else cls.min_players, **_options(args.option))
    except (engine.UnknownGame, engine.OptionError, composition.CompositionError) as err:
        raise UsageError(str(err.args[0] if err.args else err)) from None
    rolled = Die(args.seed)
    # --seed: the computer searches iterations, not a time, so the same game comes again.
    repeatable = args.seed is not None
    seats = _ai_seats(args.ai, game, args.time_scale, repeatable)
    thinker = random.Random(args.seed)

    def computer_turn() -> bool:
        return not game.over and not game.is_chance and game.to_move in seats

    def show(action) -> None:
        state = game.state_dict()
        state["action"] = str(action)
        _print_json(state)

    def step(action) -> None:
        game.apply(action)
        show(action)

    if args.random is not None:
        if args.random < 0:
            raise UsageError(f"--random takes how many actions to play, 0 or more, not {args.random}")
        if args.interactive:
            raise UsageError("--random plays by itself: it cannot be --interactive")
        chooser = random.Random(args.seed) if args.seed is not None else random.SystemRandom()
        for _ in range(args.random):
            if game.over:
                break
            if game.is_chance:
                step(rolled.roll(game))
            elif computer_turn():
                step(ai.search(game, seats[game.to_move], thinker).action)
            else:
                step(chooser.choice(game.legal_actions()))
        return EXIT_OK

    if args.interactive or (args.interactive is None and sys.stdin.isatty()):

        def level_of(name: str) -> ai.Level:  # for the hint and ``seat N``
            return ai.level(name, args.time_scale, game, repeatable)

        return console.Console(game, rolled, seats, thinker, sys.stdout, level_of).play(sys.stdin)

    def advance(for_humans: bool) -> None:
        """Play the computer seats until a human is to choose; ``for_humans``: roll for one too."""
        while not game.over:
            if game.is_chance and (for_humans or game.to_move in seats):
                step(rolled.roll(game))
            elif computer_turn():
                step(ai.search(game, seats[game.to_move], thinker).action)
            else:
                return

    advance(for_humans=False)  # computer seats that play before the script's first line
    for number, line in _lines(sys.stdin):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            action = game.parse(text)
            legal = game.legal_actions()
            if CHOOSE_ROLL in legal and action not in legal:  # a roll, or a move after one: the die chosen
                step(CHOOSE_ROLL)
            if action.kind != "roll":
                advance(for_humans=True)
            # A script names only the human players' choices; a roll or pass in it is applied as written.
            while not game.over and action.kind not in ("roll", "pass"):
                if game.is_chance:
                    step(rolled.roll(game))
                elif [str(a) for a in game.legal_actions()] == ["pass"]:
                    step(game.legal_actions()[0])
                else:
                    break
            step(action)
            advance(for_humans=False)
        except engine.IllegalAction as err:
            print(f"gryb-companion: line {number}: {console.refusal(text, err.reason)}", file=sys.stderr)
            return EXIT_BAD_INPUT
    return EXIT_OK


def _lines(stream):
    """(number, line) without a byte-order mark; UsageError at a line that is not UTF-8."""
    for number, line in enumerate(stream, start=1):
        if number == 1:
            line = line.removeprefix("\ufeff")
        try:
            line.encode("utf-8")
        except UnicodeEncodeError:
            raise UsageError(f"line {number}: not UTF-8 text") from None
        yield number, line


def _ai_seats(
    pairs: list[str], game: engine.Game, time_scale: float, repeatable: bool = False
) -> dict[int, ai.Level]:
    """--ai SEAT=LEVEL (seats from 1) at --time-scale, as the config's computer.time_scale."""
    low, high = config_mod.TIME_SCALES
    if not low <= time_scale <= high:
        raise UsageError(f"--time-scale is from {low:g} to {high:g}, not {time_scale:g}")
    seats = {}
    for pair in pairs:
        seat, sep, lvl = pair.partition("=")
        if not sep or not seat.isdigit() or not 1 <= int(seat) <= game.players:
            raise UsageError(f"--ai takes SEAT=LEVEL with SEAT from 1 to {game.players}, not {pair!r}")
        if lvl not in ai.LEVELS:
            raise UsageError(f"--ai {pair}: no level {lvl!r}; levels: {', '.join(ai.LEVELS)}")
        seats[int(seat) - 1] = ai.level(lvl, time_scale, game, repeatable)
    return seats


def _run(args) -> int:
    from companion import assembly as app
    from companion.service import logs

    logs.setup(args.log_level)
    try:
        config = config_mod.load(args.config, sim=args.sim)
    except config_mod.ConfigError as err:
        raise UsageError(f"config: {err}") from None
    if args.port is not None and not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be from 0 to 65535, not {args.port}")
    with _cannot_start():
        return app.run(config, sim=args.sim, host=args.host, port=args.port)


@contextlib.contextmanager
def _cannot_start():
    """Parts that cannot be opened stop the command with one line: exit 2 where the config is at fault,
    else 1 (absent or forbidden hardware, a port in use, a database that cannot be written)."""
    import sqlite3

    from companion.service.store import StoreUnavailable
    from hardware.led_layout import LayoutError
    from hardware.leds import LedError, LedInputError
    from hardware.panel import PanelError

    try:
        yield
    except (LayoutError, LedInputError) as err:
        raise UsageError(f"config: leds: {err}") from None
    except (LedError, PanelError, OSError, StoreUnavailable) as err:
        raise CannotStart(str(err)) from None
    except sqlite3.Error as err:  # opened but cannot be written (a full disk, locked)
        raise CannotStart(f"the database: {err}") from None


def _selftest(args) -> int:
    import threading
    import time

    from companion.service.geometry import board_geometry
    from hardware.buttons import load_button_layout
    from hardware.led_layout import load_layout
    from hardware.leds import open_surface
    from hardware.node_input import open_node_input
    from hardware.selftest import selftest

    if args.auto and not args.sim:
        raise UsageError("--auto presses the simulator's nodes: use it with --sim")
    try:
        config = config_mod.load(args.config, sim=args.sim)
    except config_mod.ConfigError as err:
        raise UsageError(f"config: {err}") from None
    leds = config.leds
    names = [nd.name(n) for n in nd.nodes()]
    with contextlib.ExitStack() as parts:
        with _cannot_start():
            surface = parts.enter_context(
                open_surface(
                    leds.driver,
                    load_layout(leds.layout, board_geometry()),
                    interface=leds.interface,
                    strip=leds.strip,
                    brightness=leds.brightness,
                    budget_ma=leds.budget_ma,
                    fps=leds.fps,
                )
            )
            node_input = parts.enter_context(
                open_node_input(config.serial.url, load_button_layout(board_geometry()))
            )

        def press_all() -> None:
            for name in names:  # a quick finger: each node held 20 ms, the next 3 ms later
                node_input.tap(name, hold=0.02)
                time.sleep(0.003)

        def ask() -> None:
            print(
                f"Press every node of the board once ({len(names)}); lit nodes are still to press.",
                file=sys.stderr,
            )

        on_ready = (lambda: threading.Thread(target=press_all, daemon=True).start()) if args.auto else ask
        # A person watches: each block 50 ms (about 3 s in all), as the page's self-test.
        report = selftest(
            surface,
            node_input,
            names,
            timeout=args.timeout,
            on_ready=on_ready,
            pause=0 if args.auto else 0.05,
        )
    if args.json:
        _print_json(report.to_dict())
    else:
        print(report.text())
    return EXIT_OK if report.ok else EXIT_NO


def _state_dir() -> str:
    """Where ``run`` keeps its state when the config names none."""
    return str(config_mod.State().path())


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gryb-companion",
        description="GRYB Companion: the electronic GRYB "
        "board, its games and its simulator. One subcommand per job.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    rules = commands.add_parser("rules", help="settle rules questions: moves, GRYBs, counts, positions")
    rules_commands = rules.add_subparsers(dest="rules_command", required=True, metavar="QUESTION")

    moves = rules_commands.add_parser("moves", help="where one move of a kind reaches, as JSON")
    moves.add_argument("--kind", required=True, choices=[k.value for k in MoveKind], help="the kind of move")
    _board_options(moves, periodic=True)
    moves.add_argument("nodes", nargs="*", metavar="NODE", help="start nodes (default: every node)")
    moves.set_defaults(run=_rules_moves)

    is_gryb = rules_commands.add_parser("gryb", help="is this a GRYB? levels and points, as JSON")
    is_gryb.add_argument("nodes", nargs="*", metavar="NODE")
    _board_options(is_gryb, headless=False)
    is_gryb.add_argument("--big-endian", action="store_true", help="score from the bottom level up")
    is_gryb.add_argument(
        "--stdin", action="store_true", help="read four names a line, answer a JSON line each"
    )
    is_gryb.set_defaults(run=_rules_gryb)

    count = rules_commands.add_parser("count", help="nodes, quadrangles and GRYBs of a board, as JSON")
    _board_options(count)
    count.set_defaults(run=_rules_count)

    position = rules_commands.add_parser("position", help="a node's [x, y] on the board grid")
    position.add_argument("node", metavar="NODE")
    _board_options(position, headless=False)
    position.set_defaults(run=_rules_position)

    state_help = "the companion's state directory, which keeps the saved compositions (default: its own)"
    variants = commands.add_parser(
        "variants", help="the games, their options and series: a table at a terminal, else JSON"
    )
    variants.add_argument("--state", metavar="DIR", help=state_help)
    variants.add_argument(
        "--json", action="store_true", help="JSON at a terminal too, with every detail (as when piped)"
    )
    variants.set_defaults(run=_variants)

    play = commands.add_parser(
        "play", help="play a game at the terminal; from a pipe, a JSON state line per action"
    )
    play.add_argument("game", metavar="GAME", nargs="?", help="a game id from 'gryb-companion variants'")
    play.add_argument(
        "--rules", metavar="FILE", help="play a composition (a TOML or JSON file, docs/composer.md)"
    )
    play.add_argument("--state", metavar="DIR", help=state_help)
    play.add_argument(
        "--players", type=int, metavar="N", help="number of players (default: the game's minimum)"
    )
    play.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="seed the die, the random player and the computer players for a repeatable game (the "
        "computer players then search a number of steps, not a time)",
    )
    play.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option")
    play.add_argument("--random", type=int, metavar="N", help="play N random legal actions instead of stdin")
    play.add_argument(
        "--interactive",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a person at the keyboard: the board as text and a prompt, mistakes answered and "
        "asked again (default: when stdin is a terminal; otherwise a JSON state line per action)",
    )
    play.add_argument(
        "--ai",
        action="append",
        default=[],
        metavar="SEAT=LEVEL",
        help="a computer player in seat SEAT (1..4): easy, medium or hard",
    )
    play.add_argument(
        "--time-scale",
        type=float,
        default=1.0,
        metavar="F",
        help="multiply the computer players' and the hint's time budgets (0.1-20; 8 on a Raspberry "
        "Pi Zero 2 W, as the config's computer.time_scale)",
    )
    play.set_defaults(run=_play)

    compose = commands.add_parser(
        "compose", help="games of your own from the manuals' parameters (docs/composer.md)"
    )
    compose_commands = compose.add_subparsers(dest="action", required=True, metavar="ACTION")
    for name, text, source in (
        ("check", "check a composition file; print the game it makes, as JSON", "FILE"),
        ("export", "print a composition in full, every parameter with its meaning", "FILE|ID"),
        ("import", "check a composition file and save it under its id: it joins the catalogue", "FILE"),
        ("list", "the saved compositions, as JSON", None),
        ("delete", "delete a saved composition", "ID"),
    ):
        sub = compose_commands.add_parser(name, help=text)
        if source:
            sub.add_argument("source", metavar=source)
        if name != "check":  # checking a file reads no saved compositions
            sub.add_argument("--state", metavar="DIR", help=state_help)
        if name == "export":
            sub.add_argument("--json", action="store_true", help="JSON instead of commented TOML")
        if name == "import":
            sub.add_argument(
                "--replace", action="store_true", help="replace a saved composition of the same id"
            )
        sub.set_defaults(run=_compose)

    run = commands.add_parser(
        "run",
        help="the companion: board, rules, storage and the web page",
        description="The companion: board, rules, storage and the web page. It keeps its state "
        "(companion.db: every game, series and setting; the web page's secret key and pairings; saved "
        "compositions) in the state directory: the config's [state] dir, else $STATE_DIRECTORY (systemd: "
        "/var/lib/gryb-companion), else $XDG_STATE_HOME/gryb-companion or ~/.local/state/gryb-companion "
        f"(for you now: {_state_dir()}). "
        "To start afresh, stop the companion and move companion.db (with its -wal and -shm) out of that "
        "directory: the next start begins with a new game and the config's settings. Moving the whole "
        "directory away also forgets the paired phones and your saved compositions.",
    )
    run.add_argument(
        "--sim",
        action="store_true",
        help="every part simulated (LEDs, node buttons, control panel): play in the browser",
    )
    run.add_argument(
        "--config",
        metavar="PATH",
        help=f"the TOML config (default {config_mod.DEFAULT_PATH}; none needed with --sim)",
    )
    run.add_argument("--host", help="the web page's address (default: the config's web.host)")
    run.add_argument(
        "--port",
        type=int,
        help="the web page's port (default: the config's web.port, 8080; 0 picks a free one)",
    )
    run.add_argument(
        "--log-level",
        default="info",
        choices=["debug", "info", "warning", "error"],
        help="info (the default) logs every event, warning or error only problems",
    )
    run.set_defaults(run=_run)

    check = commands.add_parser("selftest", help="light every LED, press every node, check the serial link")
    check.add_argument("--sim", action="store_true", help="test the simulator instead of the hardware")
    check.add_argument(
        "--config", metavar="PATH", help=f"the TOML config (default {config_mod.DEFAULT_PATH})"
    )
    check.add_argument(
        "--timeout",
        type=_seconds,
        default=300.0,
        metavar="SECONDS",
        help="seconds to wait for every node (default 300)",
    )
    check.add_argument(
        "--auto",
        action="store_true",
        help="with --sim: press every node through the emulated Pico, as a player would",
    )
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    check.set_defaults(run=_selftest)

    board = commands.add_parser("board", help="print the board as the bandanna lays it out")
    _board_options(board)
    board.add_argument("--names", action="store_true", help="each node's name (GGBY) instead of its letter")
    board.set_defaults(run=_board)
    return parser


def _fail(message: str) -> None:
    """Why the command stopped; ``<3>`` under systemd, so ``journalctl -p warning`` shows it."""
    print(f"{'<3>' if logs.to_journal(sys.stderr) else ''}gryb-companion: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if hasattr(sys.stdin, "reconfigure"):
        # Bytes that are not UTF-8 reach the reader, which names the line, rather than a traceback.
        sys.stdin.reconfigure(errors="surrogateescape")
    if hasattr(sys.stdout, "reconfigure"):
        # A terminal that is not UTF-8 shows a chess figure as "?" rather than a traceback.
        sys.stdout.reconfigure(errors="replace")
    try:
        return args.run(args)
    except (UsageError, NodeError) as err:
        _fail(str(err))
        return EXIT_BAD_INPUT
    except CannotStart as err:
        _fail(f"cannot start: {err}")
        return EXIT_NO
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:  # quietly, on a line of its own, 128 + SIGINT as shells expect
        print(file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
