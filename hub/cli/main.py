"""The ``trigono`` command line.

Subcommands register themselves in :data:`COMMANDS` (one function that adds its parser);
``replay`` and ``analyze`` implement the docs/records.md contract.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from engines import game_spec
from engines.core import GameError
from engines.records import ReplayError, replay
from hub import jsonlimits
from hub.cli import boards as board_commands
from hub.cli import commands as hub_commands
from hub.cli import federation as federation_commands
from hub.cli import store as store_commands
from hub.cli import tournament as tournament_commands

EXIT_BAD_RECORD = 2


def read_record(path: str, stdin: TextIO | None = None) -> Any:
    """Load a JSON record from a file or ``-`` (stdin); ReplayError(None, …) if unreadable."""
    try:
        if path == "-":
            return jsonlimits.load(stdin or sys.stdin)
        with open(path, encoding="utf-8") as fh:
            return jsonlimits.load(fh)
    except OSError as err:
        raise ReplayError(None, f"cannot read {path}: {err.strerror or err}") from err
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ReplayError(None, f"not JSON: {err}") from err
    except jsonlimits.JSONLimitError as err:  # too big, too deep, a huge integer
        raise ReplayError(None, str(err)) from err


DESCRIPTION = """\
Trigono: the automatic referee of the Trigono throwing game, and a hub for Triominos,
Trike and Triolet with computer opponents.

Game records (docs/records.md):
  trigono replay GAME.json              the state a record leads to (JSON, or --pretty)
  trigono analyze GAME.json             every legal move labelled win / loss / unknown
  trigono scoreboard GAME.json          a Trigono record's scoreboard, as text
The hub (event store, sensor boards, referee):
  trigono hub --db event.db --serial /dev/ttyACM0    run it (web pages: python -m web)
  trigono export t1 --db event.db       a table as a game record
  trigono sim --tables 3                a simulated event against the real hub
  trigono tournament ...                tournaments (see its --help)
  trigono store check --db event.db     damaged entries and snapshots (store repair: set aside)
  trigono boards keygen / bundle        the signing key and signed firmware update bundles
  trigono boards update FW.bundle --version 1.1 --url http://hub:8000
                                        update the boards' firmware in waves, with a progress bar

`trigono COMMAND --help` says more about each command. The demo (hub, pages and a
simulated event) is scripts/demo.
"""


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")


def print_lines(lines: list[str]) -> None:
    sys.stdout.write("\n".join(lines) + "\n")


class Progress:
    """``analyzing… 3 s of 5 s`` on stderr once a search takes more than a second
    (stdout keeps only the result)."""

    def __init__(self, what: str, budget_s: float, stream: TextIO | None = None,
                 every_s: float = 1.0) -> None:
        self.what, self.budget_s, self.every_s = what, budget_s, every_s
        self.stream = stream or sys.stderr
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.shown = False

    def __enter__(self) -> Progress:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()
        if self.shown:
            self.stream.write("\n" if self.stream.isatty() else "")
            self.stream.flush()

    def _run(self) -> None:
        start = time.monotonic()
        while not self._done.wait(self.every_s):
            elapsed = time.monotonic() - start
            end = "\r" if self.stream.isatty() else "\n"
            self.stream.write(f"{self.what}… {elapsed:.0f} s of about {self.budget_s:g} s{end}")
            self.stream.flush()
            self.shown = True


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        record = read_record(args.file)
        if not isinstance(record, dict):
            raise ReplayError(None, "a record is a JSON object")
        state = replay(record)
    except ReplayError as err:
        print(str(err), file=sys.stderr)
        return EXIT_BAD_RECORD
    if args.pretty:
        from hub.cli.readable import state_lines

        print_lines(state_lines(state.to_json()))
    else:
        print_json(state.to_json())
    return 0


def cmd_analyze(args: argparse.Namespace) -> int:
    try:
        record = read_record(args.file)
        if not isinstance(record, dict):
            raise ReplayError(None, "a record is a JSON object")
        state = replay(record)
        analyze = game_spec(state.game.name).analyze
        if analyze is None:
            raise ReplayError(None, f"analyze is not available for {record.get('game')}")
        with Progress("analyzing", args.budget):
            result = analyze(state, args.budget)
    except ReplayError as err:
        print(str(err), file=sys.stderr)
        return EXIT_BAD_RECORD
    except GameError as err:
        print(f"record: {err}", file=sys.stderr)
        return EXIT_BAD_RECORD
    if args.pretty:
        from hub.cli.readable import analysis_lines

        print_lines(analysis_lines(result))
    else:
        print_json(result)
    return 0


def cmd_scoreboard(args: argparse.Namespace) -> int:
    """The game's own text board (``GameSpec.scoreboard``) of the state a record leads to."""
    try:
        record = read_record(args.file)
        if not isinstance(record, dict):
            raise ReplayError(None, "a record is a JSON object")
        state = replay(record)
        scoreboard = game_spec(state.game.name).scoreboard
        if scoreboard is None:
            raise ReplayError(None, f"scoreboard is not available for {state.game.name}")
    except ReplayError as err:
        print(str(err), file=sys.stderr)
        return EXIT_BAD_RECORD
    print_lines([scoreboard(state.to_json())])
    return 0


def add_replay(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("replay", help="replay a game record and print the state as JSON",
                       description="Replay a game record (docs/records.md) and print the state it leads "
                                   "to: JSON, or readable text with --pretty. Exit 2 for a bad record.")
    p.add_argument("file", help="record file, or - for stdin")
    p.add_argument("--pretty", action="store_true", help="readable text instead of JSON")
    p.set_defaults(func=cmd_replay)


def add_analyze(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("analyze", help="label every legal action win/loss/unknown",
                       description="Replay a game record and label every legal move of the player "
                                   "to move win, loss or unknown (games with a solver: Trike, "
                                   "Triolet). Shows progress on stderr when it takes over a second.")
    p.add_argument("file", help="record file, or - for stdin")
    p.add_argument("--budget", type=float, default=5.0, help="seconds of search (default 5)")
    p.add_argument("--pretty", action="store_true", help="readable text instead of JSON")
    p.set_defaults(func=cmd_analyze)


def add_scoreboard(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("scoreboard", help="replay a Trigono record and print its scoreboard",
                       description="Replay a game record and print the state it leads to as the "
                                   "game's scoreboard (Trigono: rounds, hands, boards, the last "
                                   "event). Exit 2 for a bad record or a game with no scoreboard.")
    p.add_argument("file", help="record file, or - for stdin")
    p.set_defaults(func=cmd_scoreboard)


AddCommand = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]

# Each entry adds one subcommand. The hub's and the tournament's modules import the hub
# itself only inside their commands, so `trigono replay` never pays for its start-up.
COMMANDS: list[AddCommand] = [add_replay, add_analyze, add_scoreboard, *hub_commands.COMMANDS,
                              *tournament_commands.COMMANDS, *store_commands.COMMANDS,
                              *board_commands.COMMANDS,
                              *federation_commands.COMMANDS]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="trigono", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    for add in COMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    result: int = args.func(args)
    return result
