"""`trigono ARGS` run in this process: :func:`hub.cli.main.main` with stdin, stdout and stderr
swapped for strings — the command without the cost of starting a process (the tests in
tests/test_cli_replay.py that run the real process show it is the same command)."""

from __future__ import annotations

import io
import sys
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass

from hub.cli import main as cli


@dataclass(frozen=True)
class Run:
    """What a run of the command gave, like :class:`subprocess.CompletedProcess`."""

    returncode: int
    stdout: str
    stderr: str


def trigono(*args: str, stdin: str = "") -> Run:
    out, err = io.StringIO(), io.StringIO()
    saved, sys.stdin = sys.stdin, io.StringIO(stdin)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = cli.main(list(args))
            except SystemExit as exit_:  # argparse refusing the arguments
                code = exit_.code if isinstance(exit_.code, int) else 2
    finally:
        sys.stdin = saved
    return Run(code, out.getvalue(), err.getvalue())
