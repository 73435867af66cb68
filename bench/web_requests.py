"""Server CPU per HTTP request, no viewer connected: what a page, an API read and a
referee's console input cost the hub's process, through each server.

    .venv/bin/python bench/web_requests.py                 # uvicorn and waitress, 600 of each
    .venv/bin/python bench/web_requests.py --servers uvicorn --requests 2000

The server (real hub on a SQLite file, ``web.server.start_server``) runs in this process;
the client runs in another (one keep-alive connection, the referee logged in with the
password and CSRF token as the console does) and asks for each kind of request in turn.
CPU = user + system of this whole process while the client runs one kind, divided by the
number of requests: the server's threads, the hub's and the live feed's (which encodes
the table's view once per change). Prints one JSON object per server.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE.parent))

KINDS = {  # name: (method, path, JSON body or None)
    "page GET /": ("GET", "/", None),
    "API GET /api/games": ("GET", "/api/games", None),
    "API GET /api/tables/t1": ("GET", "/api/tables/t1", None),
    "console POST /api/tables/t1/input": ("POST", "/api/tables/t1/input", None),
}


def client_main(url: str, password: str, count: int) -> None:
    from web_stream import Referee

    referee = Referee(url, password)
    for name, (method, path, _) in KINDS.items():
        for i in range(50):  # warm up
            run_one(referee, method, path, i)
        print(json.dumps({"ready": name}), flush=True)
        sys.stdin.readline()
        for i in range(count):
            run_one(referee, method, path, i)
        print(json.dumps({"done": name}), flush=True)


def run_one(referee: Any, method: str, path: str, i: int) -> None:
    from web_stream import INPUTS

    if method == "POST":
        referee.submit(INPUTS[i % 2])
    else:
        referee.request(method, path)


def measure(server: str, count: int) -> dict[str, Any]:
    from hub.assemble import tune_gc
    from hub.facade import Hub
    from web.server import start_server

    hub = Hub(Path(tempfile.mkdtemp(prefix="web-requests-")) / "hub.db")
    tune_gc()
    hub.start()
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=1, table_id="t1")
    password = "bench-referee"
    handle = start_server(hub, password=password, server=server)  # type: ignore[arg-type]
    client = subprocess.Popen([sys.executable, str(HERE), "--client", handle.url, "--password", password,
                               "--requests", str(count)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, cwd=ROOT)
    assert client.stdin is not None and client.stdout is not None
    report: dict[str, Any] = {"server": server, "requests": count, "load_avg_1m": round(os.getloadavg()[0], 1),
                              "server_cpu_ms_per_request": {}}
    try:
        for name in KINDS:
            assert json.loads(client.stdout.readline()) == {"ready": name}
            time.sleep(0.3)  # the warm-up's changes have reached the feed
            before, wall0 = os.times(), time.monotonic()
            client.stdin.write("go\n")
            client.stdin.flush()
            assert json.loads(client.stdout.readline()) == {"done": name}
            time.sleep(0.05)  # the last change's view is encoded by the feed
            after, wall = os.times(), time.monotonic() - wall0
            cpu = after.user - before.user + after.system - before.system
            report["server_cpu_ms_per_request"][name] = round(cpu * 1000 / count, 3)
            print(f"  {server}: {name}: {cpu * 1000 / count:.3f} ms CPU, {wall * 1000 / count:.2f} ms wall per request",
                  file=sys.stderr, flush=True)
        client.wait(timeout=60)
    finally:
        client.kill()
        handle.close()
        hub.close()
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--servers", default="uvicorn,waitress", help="comma-separated: uvicorn, waitress")
    parser.add_argument("--requests", type=int, default=600, help="of each kind")
    parser.add_argument("--client", help=argparse.SUPPRESS)
    parser.add_argument("--password", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:
        client_main(args.client, args.password, args.requests)
        return
    for server in args.servers.split(","):
        print(json.dumps(measure(server.strip(), args.requests), indent=2), flush=True)


if __name__ == "__main__":
    main()
