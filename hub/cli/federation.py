"""``trigono federation``: set up a federation and its clubs (issue 35, docs/deploy.md).

- ``init --dir D``: the federation's nats-server configuration (deploy/nats/federation.conf),
  its own user, and ``sync.json`` for ``trigono hub --sync``;
- ``add-club CLUB --dir D``: a club's user (it may publish only its own subjects), and the
  one line the club runs to join;
- ``join --club CLUB --password PW --federation HOST:PORT --dir D``: on the club's laptop,
  its nats-server configuration (a leaf node with its own JetStream domain) and
  ``sync.json``.

Each prints the commands that start it: ``nats-server -c D/nats.conf`` and
``trigono hub --db … --sync D/sync.json``; with ``--up`` (init, join) it runs them itself —
the nats-server and the hub with its pages (``python -m web``) — until Ctrl-C: one command
per side. After ``add-club`` the federation's server reloads its users with
``nats-server --signal reload``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

EXIT_BAD_INPUT = 2


def _write_sync(folder: Path, config: dict[str, object]) -> Path:
    path = folder / "sync.json"
    path.write_text(json.dumps(config, indent=2) + "\n")
    return path


def up(folder: Path, db: Path, web_args: list[str]) -> int:
    """Run the folder's nats-server and the hub with its pages on ``sync.json`` until
    either ends (Ctrl-C ends both)."""
    nats = shutil.which("nats-server") or "/usr/sbin/nats-server"
    server = subprocess.Popen([nats, "-c", str(folder / "nats.conf")])
    try:
        hub = subprocess.run([sys.executable, "-m", "web", "--db", str(db), "--sync",
                              str(folder / "sync.json"), *web_args], check=False)
        return hub.returncode
    except KeyboardInterrupt:
        return 0
    finally:
        server.terminate()
        server.wait(timeout=30)


def cmd_init(args: argparse.Namespace) -> int:
    from hub.sync.natsconf import FEDERATION_USER, FederationFolder

    folder = FederationFolder(Path(args.dir).resolve())
    folder.init(listen=args.listen, leaf_listen=args.leaf_listen)
    password = folder.secrets()[FEDERATION_USER]
    host_port = args.listen.replace("0.0.0.0", "127.0.0.1")
    sync = _write_sync(folder.folder, {"mode": "federation", "nats": f"nats://{FEDERATION_USER}:{password}@{host_port}",
                                       "clubs": folder.clubs(), "copies": str(folder.folder / "clubs.db")})
    print(f"nats-server -c {folder.folder / 'nats.conf'}")
    print(f"trigono hub --db {folder.folder / 'federation.db'} --sync {sync}")
    if args.up:
        return up(folder.folder, folder.folder / "federation.db", args.web)
    return 0


def cmd_add_club(args: argparse.Namespace) -> int:
    from hub.errors import HubError
    from hub.sync.natsconf import FederationFolder

    folder = FederationFolder(Path(args.dir).resolve())
    if not (folder.folder / "nats.conf").exists():
        print(f"--dir: no federation in {folder.folder} (run `trigono federation init` first)", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        password = folder.add_club(args.club)
    except HubError as err:
        print(f"club: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    sync_path = folder.folder / "sync.json"
    config = json.loads(sync_path.read_text())
    config["clubs"] = folder.clubs()
    _write_sync(folder.folder, config)
    print(f"nats-server --signal reload   # the federation's server: {args.club}'s user is in")
    print(f"# restart the federation hub to consume {args.club}'s stream; on the club's laptop:")
    print(f"trigono federation join --club {args.club} --password {password} --federation {args.federation}")
    return 0


def cmd_join(args: argparse.Namespace) -> int:
    from hub.errors import HubError
    from hub.sync.natsconf import club_conf

    folder = Path(args.dir).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    try:
        conf = club_conf(club=args.club, listen=args.listen, federation=args.federation,
                         password=args.password, store_dir=folder / "jetstream")
    except HubError as err:
        print(f"--club: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    (folder / "nats.conf").write_text(conf)
    host_port = args.listen.replace("0.0.0.0", "127.0.0.1")
    sync = _write_sync(folder, {"mode": "club", "club": args.club, "nats": f"nats://{host_port}"})
    print(f"nats-server -c {folder / 'nats.conf'}")
    print(f"trigono hub --db {folder / 'club.db'} --sync {sync}")
    if args.up:
        return up(folder, folder / "club.db", args.web)
    return 0


def cmd_up(args: argparse.Namespace) -> int:
    folder = Path(args.dir).resolve()
    try:
        config = json.loads((folder / "sync.json").read_text())
    except (OSError, ValueError) as err:
        print(f"--dir: no sync.json to run in {folder} ({err}): init or join first", file=sys.stderr)
        return EXIT_BAD_INPUT
    db = folder / ("federation.db" if config.get("mode") == "federation" else "club.db")
    return up(folder, db, args.web)


def add_federation(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("federation", help="set up a federation of clubs that sync over NATS (docs/deploy.md)",
                       description="Write the nats-server configurations and sync files of a federation "
                                   "and its clubs (issue 35). Each command prints what to run next.")
    cmds = p.add_subparsers(dest="federation_command", required=True)
    init = cmds.add_parser("init", help="the federation's nats-server configuration and sync.json")
    init.add_argument("--dir", default="federation", help="its folder (default: ./federation)")
    init.add_argument("--listen", default="127.0.0.1:4222", help="client address (default: 127.0.0.1:4222)")
    init.add_argument("--leaf-listen", default="0.0.0.0:7422",
                      help="where clubs' leaf nodes connect (default: 0.0.0.0:7422)")
    init.add_argument("--up", action="store_true",
                      help="then run its nats-server and the hub with its pages (python -m web) until Ctrl-C")
    init.add_argument("--web", nargs=argparse.REMAINDER, default=[],
                      help="the rest goes to python -m web (e.g. --web --port 8080 --password …)")
    init.set_defaults(func=cmd_init)
    add = cmds.add_parser("add-club", help="a club's user; prints the club's join command")
    add.add_argument("club", help="the club's id: a-z, 0-9, - (names its subjects and JetStream domain)")
    add.add_argument("--dir", default="federation", help="the federation's folder (default: ./federation)")
    add.add_argument("--federation", default="federation.example.org:7422",
                     help="host:port of the federation's leaf node port, as clubs reach it")
    add.set_defaults(func=cmd_add_club)
    join = cmds.add_parser("join", help="a club's nats-server configuration (a leaf node) and sync.json")
    join.add_argument("--club", required=True)
    join.add_argument("--password", required=True, help="what add-club printed")
    join.add_argument("--federation", required=True, help="host:port of the federation's leaf node port")
    join.add_argument("--dir", default="club", help="its folder (default: ./club)")
    join.add_argument("--listen", default="127.0.0.1:4222", help="client address (default: 127.0.0.1:4222)")
    join.add_argument("--up", action="store_true",
                      help="then run its nats-server and the hub with its pages (python -m web) until Ctrl-C")
    join.add_argument("--web", nargs=argparse.REMAINDER, default=[],
                      help="the rest goes to python -m web (e.g. --web --port 8080 --password …)")
    join.set_defaults(func=cmd_join)
    run = cmds.add_parser("up", help="run a federation's or a club's nats-server and hub (with its pages)")
    run.add_argument("--dir", default="federation", help="the folder init or join wrote")
    run.add_argument("--web", nargs=argparse.REMAINDER, default=[],
                     help="the rest goes to python -m web (e.g. --web --port 8080 --password …)")
    run.set_defaults(func=cmd_up)


COMMANDS = [add_federation]
