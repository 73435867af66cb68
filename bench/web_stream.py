"""Live-stream benchmark: N concurrent dashboard clients on /api/stream, p50/p99 delay
from a table's state change to its delivery in every client (issue 6: 200 clients,
p99 ≤ 100 ms).

The server side runs as in production: a real hub (SQLite file), the Flask app under
waitress (web.server.start_server) in this process. The clients run in a separate
process (one asyncio loop holding every connection), so their reading does not compete
with the server for this process's GIL. A driver changes one table at a steady rate
(a palet on the floor, then undo: two refereed changes, each stored and applied) and
notes, per change id, when the hub returned; each client notes when the event with that
id arrived. Both use CLOCK_MONOTONIC, which is system-wide on Linux.

    python bench/web_stream.py --clients 200 --rate 10 --seconds 20
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


# -- the clients' process --------------------------------------------------------------------
async def one_client(host: str, port: int, until: float, got: list[tuple[int, int]], ready: list[int]) -> None:
    reader, writer = await asyncio.open_connection(host, port, limit=1 << 22)
    writer.write(f"GET /api/stream HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode())
    await writer.drain()
    status = await reader.readline()
    if b" 200 " not in status:
        raise RuntimeError(f"stream refused: {status!r}")
    counted = False
    try:
        async with asyncio.timeout_at(asyncio.get_running_loop().time() + (until - time.monotonic())):
            while True:
                # One await per event (a frame ends with a blank line): the reader must
                # not be the bottleneck it measures.
                frame = await reader.readuntil(b"\n\n")
                arrived = time.monotonic_ns()
                if b"event: table\n" in frame:
                    start = frame.find(b"id: ")
                    got.append((int(frame[start + 4:frame.index(b"\n", start)]), arrived))
                elif b"event: snapshot\n" in frame and not counted:
                    ready.append(1)
                    counted = True
    except TimeoutError:
        pass
    writer.close()


async def run_clients(host: str, port: int, clients: int, seconds: float) -> dict[str, Any]:
    until = time.monotonic() + seconds
    received: list[list[tuple[int, int]]] = [[] for _ in range(clients)]
    ready: list[int] = []
    tasks = []
    for k in range(clients):
        tasks.append(asyncio.create_task(one_client(host, port, until, received[k], ready)))
        if k % 20 == 19:
            await asyncio.sleep(0.05)  # do not stampede the accept queue
    while len(ready) < clients and time.monotonic() < until:
        await asyncio.sleep(0.05)
    print(json.dumps({"ready": len(ready)}), flush=True)
    results = await asyncio.gather(*tasks, return_exceptions=True)
    errors = [repr(r) for r in results if isinstance(r, BaseException)]
    return {"received": received, "errors": errors}


def clients_main(args: argparse.Namespace) -> None:
    out = asyncio.run(run_clients(args.host, args.port, args.clients, args.client_seconds))
    print(json.dumps(out), flush=True)


# -- the server and the driver ----------------------------------------------------------------
def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def server_main(args: argparse.Namespace) -> None:
    from hub.service import Hub
    from web.server import start_server

    if args.switch_interval:
        sys.setswitchinterval(args.switch_interval)
    tmp = Path(tempfile.mkdtemp(prefix="web-bench-"))
    hub = Hub(tmp / "hub.db")
    hub.start()
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=1, table_id="t1")
    server = start_server(hub, max_streams=args.clients + 16)
    host, port = server.server.effective_host, server.server.effective_port
    warmup = 5.0 + args.clients / 100
    client_seconds = warmup + args.seconds + 3.0
    proc = subprocess.Popen(
        [sys.executable, __file__, "--run-clients", "--host", str(host), "--port", str(port),
         "--clients", str(args.clients), "--client-seconds", str(client_seconds)],
        stdout=subprocess.PIPE, text=True,
    )
    assert proc.stdout is not None
    ready = json.loads(proc.stdout.readline())["ready"]
    open_streams = server.app.extensions["stream_slots"].open
    submitted: dict[int, tuple[int, int]] = {}  # change id -> (before submit, after submit) ns
    inputs = [{"landed": "floor"}, {"undo": True}]
    period = 1.0 / args.rate
    next_at = time.monotonic()
    end = next_at + args.seconds
    cpu_start = time.process_time()
    n = 0
    while time.monotonic() < end:
        before = time.monotonic_ns()
        view = hub.submit("t1", inputs[n % 2])
        after = time.monotonic_ns()
        submitted[int(view["change_id"])] = (before, after)
        n += 1
        next_at += period
        time.sleep(max(0.0, next_at - time.monotonic()))
    cpu_s = time.process_time() - cpu_start
    out = json.loads(proc.stdout.read())
    proc.wait()
    server.close()
    hub.close()

    from_commit: list[float] = []
    from_input: list[float] = []
    missing = 0
    for client in out["received"]:
        # A view is complete, so a change is delivered by the first event whose id is at
        # least the change's (the stream may fold several changes of a table into one).
        ids = [event_id for event_id, _ in client]
        for change_id, (before, after) in submitted.items():
            k = bisect.bisect_left(ids, change_id)
            if k == len(ids):
                missing += 1
                continue
            t = client[k][1]
            from_commit.append((t - after) / 1e6)
            from_input.append((t - before) / 1e6)
    report = {
        "clients": args.clients, "ready": ready, "open_streams_seen_by_server": open_streams,
        "changes": len(submitted), "rate_per_s": args.rate, "deliveries": len(from_commit),
        "missing": missing, "client_errors": out["errors"][:3],
        "server_cpu_ms_per_change": round(cpu_s * 1000 / max(1, len(submitted)), 2),
        "delay_after_commit_ms": {"p50": round(statistics.median(from_commit), 1),
                                  "p99": round(percentile(from_commit, 0.99), 1),
                                  "max": round(max(from_commit), 1)} if from_commit else None,
        "delay_from_input_ms": {"p50": round(statistics.median(from_input), 1),
                                "p99": round(percentile(from_input, 0.99), 1)} if from_input else None,
    }
    print(json.dumps(report, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--rate", type=float, default=10.0, help="table changes per second")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--switch-interval", type=float, default=0.0,
                        help="sys.setswitchinterval for the server process (default: Python's 0.005)")
    parser.add_argument("--run-clients", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--host", default="127.0.0.1", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--client-seconds", type=float, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run_clients:
        clients_main(args)
    else:
        server_main(args)


if __name__ == "__main__":
    main()
