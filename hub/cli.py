"""The ``trigono`` command line.

Subcommands register themselves in :data:`COMMANDS` (one function that adds its parser);
``replay`` and ``analyze`` implement the RECORDS.md contract.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from engines import game_spec
from engines.core import GameError
from engines.records import ReplayError, replay
from hub import jsonlimits

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
    except UnicodeDecodeError as err:
        raise ReplayError(None, f"not JSON: {err}") from err
    except jsonlimits.JSONLimitError as err:  # not JSON, too big, too deep, a huge integer
        raise ReplayError(None, str(err)) from err


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        record = read_record(args.file)
        if not isinstance(record, dict):
            raise ReplayError(None, "a record is a JSON object")
        state = replay(record)
    except ReplayError as err:
        print(str(err), file=sys.stderr)
        return EXIT_BAD_RECORD
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
        result = analyze(state, args.budget)
    except ReplayError as err:
        print(str(err), file=sys.stderr)
        return EXIT_BAD_RECORD
    except GameError as err:
        print(f"record: {err}", file=sys.stderr)
        return EXIT_BAD_RECORD
    print_json(result)
    return 0


def add_replay(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("replay", help="replay a game record and print the state as JSON")
    p.add_argument("file", help="record file, or - for stdin")
    p.set_defaults(func=cmd_replay)


def add_analyze(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("analyze", help="label every legal action win/loss/unknown")
    p.add_argument("file", help="record file, or - for stdin")
    p.add_argument("--budget", type=float, default=5.0, help="seconds of search (default 5)")
    p.set_defaults(func=cmd_analyze)


AddCommand = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]

# Each entry adds one subcommand. Other modules' commands are imported lazily inside
# their adder so `trigono replay` never pays for the hub's start-up.
COMMANDS: list[AddCommand] = [add_replay, add_analyze]


def _optional_commands() -> list[AddCommand]:
    found: list[AddCommand] = []
    for module_name in ("hub.commands", "hub.tournament.commands"):
        try:
            module = __import__(module_name, fromlist=["COMMANDS"])
        except ModuleNotFoundError as err:
            if err.name != module_name:
                raise
            continue
        found.extend(module.COMMANDS)
    return found


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="trigono", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for add in COMMANDS + _optional_commands():
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    result: int = args.func(args)
    return result
