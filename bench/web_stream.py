"""Live-stream benchmark: N dashboard viewers on /api/stream while a referee drives one
table over HTTP, for the event-loop server (uvicorn) and the previous one (waitress, a
thread per viewer) in one run (issue 15).

Four processes, as at an event:
- the **server**: a real hub (SQLite file) and the web app (``web.server.start_server``);
- the **viewers**: N EventSource-like clients in one epoll loop (``--client-procs`` to
  split them); each frame is timed by the kernel's receive stamp (SO_TIMESTAMPNS), so a
  busy viewer process does not add to the delay it measures;
- the **referee**: this process logs in (CSRF token, password) and POSTs console
  inputs (a palet on the floor, then undo) to ``/api/tables/t1/input`` at ``--rate``,
  noting per change id when the POST was sent and when its answer came back;
- second figure, ``inside``: the same inputs submitted inside the server process
  (``Hub.submit``), which leaves out the HTTP side of the referee.

Delay = a viewer's kernel receive stamp of the first event whose id is at least the
change's (views are complete, so a newer one delivers it) minus the referee's POST
answer ("after commit") or its send ("from input"); CLOCK_REALTIME on both sides.
Server CPU (user + system, every thread) is read from /proc over the driving phase;
memory per idle viewer is the server's RSS growth once N viewers are connected, / N.

Last, for reference: the CPU one plain blocking ``send`` of a frame of the same size costs
this machine per viewer, to as many loopback readers (``--no-floor`` skips it).

``--storm``: after the measurement every viewer drops its connection at once (a Wi-Fi
blip) and reconnects immediately with its Last-Event-ID; reported is the time until
every one has its stream back (a refusal is retried after 1 s x 2^k with jitter, as
web/static/js/live.js does), and how many needed a snapshot instead of a resume.

    python bench/web_stream.py --clients 1000 --servers waitress,uvicorn --rate 10 --seconds 20
    python bench/web_stream.py --clients 5000 --servers uvicorn --storm
"""

from __future__ import annotations

import argparse
import array
import http.client
import json
import os
import random
import re
import select
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Linux
TIMESPEC = struct.Struct("qq")
FRAME_HEAD = re.compile(rb"id: (\d+)\nevent: (\w+)")
HERE = Path(__file__).resolve()
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))


def raise_fd_limit() -> int:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


# -- the viewers' process ----------------------------------------------------------------------
class Viewer:
    __slots__ = ("sock", "buf", "header_done", "events", "last_id", "served_at", "snapshots", "attempt",
                 "retry_at", "fd")

    def __init__(self) -> None:
        self.sock: socket.socket | None = None
        self.fd = -1
        self.buf = b""
        self.header_done = False
        self.events: list[tuple[int, int]] = []  # (event id, kernel receive stamp ns)
        self.last_id: int | None = None
        self.served_at = 0  # ns, when the 200 arrived (storm)
        self.snapshots = 0
        self.attempt = 0
        self.retry_at = 0.0


class Viewers:
    """N SSE clients on one epoll."""

    def __init__(self, host: str, port: int, n: int) -> None:
        self.host, self.port = host, port
        self.viewers = [Viewer() for _ in range(n)]
        self.ep = select.epoll()
        self.by_fd: dict[int, Viewer] = {}
        self.errors: list[str] = []
        self.refused = 0
        self.lock = threading.Lock()
        self.last_data = time.monotonic()  # when a viewer last received anything
        self.retrying: list[Viewer] = []  # dropped, waiting for their retry_at
        self.into = memoryview(bytearray(1 << 18))

    def connect(self, v: Viewer) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        sock.setblocking(False)
        try:
            sock.connect((self.host, self.port))
        except BlockingIOError:
            pass
        v.sock, v.fd, v.buf, v.header_done = sock, sock.fileno(), b"", False
        self.by_fd[v.fd] = v
        self.ep.register(v.fd, select.EPOLLOUT)

    def drop(self, v: Viewer) -> None:
        if v.sock is not None:
            try:
                self.ep.unregister(v.fd)
            except (OSError, ValueError):
                pass
            self.by_fd.pop(v.fd, None)
            v.sock.close()
            v.sock = None

    def retry_later(self, v: Viewer) -> None:
        self.drop(v)
        base = min(30.0, 1.0 * 2 ** v.attempt)
        v.attempt += 1
        v.retry_at = time.monotonic() + base / 2 + random.random() * base / 2
        self.retrying.append(v)

    def on_writable(self, v: Viewer) -> None:
        assert v.sock is not None
        err = v.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if err:
            self.refused += 1
            self.retry_later(v)
            return
        query = {"last_event_id": v.last_id} if v.last_id is not None else {}
        path = "/api/stream" + ("?" + urlencode(query) if query else "")
        request = f"GET {path} HTTP/1.1\r\nHost: {self.host}\r\nAccept: text/event-stream\r\n\r\n"
        v.sock.send(request.encode())
        self.ep.modify(v.fd, select.EPOLLIN)

    def on_readable(self, v: Viewer) -> None:
        assert v.sock is not None
        try:
            # Into one reused buffer: a fresh 256 KiB bytes per call is an mmap each time.
            n, anc, _flags, _addr = v.sock.recvmsg_into([self.into], 64)
            data = bytes(self.into[:n])
        except (ConnectionError, BlockingIOError):
            data, anc = b"", []
        if not data:
            self.retry_later(v)
            return
        self.last_data = time.monotonic()
        stamp = time.time_ns()
        for level, kind, raw in anc:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                sec, nsec = TIMESPEC.unpack(raw[:TIMESPEC.size])
                stamp = sec * 1_000_000_000 + nsec
        buf = v.buf + data
        if not v.header_done:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                v.buf = buf
                return
            status = buf[:buf.find(b"\r\n")]
            if b" 200 " not in status:
                self.refused += 1
                self.retry_later(v)
                return
            v.header_done, v.attempt = True, 0
            v.served_at = stamp
            buf = buf[end + 4:]
        *frames, v.buf = buf.split(b"\n\n")
        for frame in frames:
            m = FRAME_HEAD.search(frame)
            if m is None:
                continue
            event_id = int(m.group(1))
            v.last_id = event_id
            if m.group(2) == b"snapshot":
                v.snapshots += 1
            v.events.append((event_id, stamp))

    def run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            if self.retrying:  # (never a scan of every viewer per poll: that is O(N) each time)
                now = time.monotonic()
                with self.lock:
                    due = [v for v in self.retrying if v.retry_at <= now]
                    if due:
                        self.retrying = [v for v in self.retrying if v.retry_at > now]
                        for v in due:
                            v.retry_at = 0.0
                            self.connect(v)
            ready = self.ep.poll(0.05, 4096)
            with self.lock:
                for fd, mask in ready:
                    v = self.by_fd.get(fd)
                    if v is None:
                        continue
                    if mask & select.EPOLLOUT:
                        self.on_writable(v)
                    else:
                        self.on_readable(v)

    def ready(self) -> int:
        return sum(1 for v in self.viewers if v.sock is not None and v.events)

    def blip(self) -> int:
        """Every viewer drops its connection and reconnects at once (Wi-Fi came back)."""
        with self.lock:
            self.retrying.clear()
            for v in self.viewers:
                self.drop(v)
                v.served_at, v.attempt, v.snapshots, v.retry_at = 0, 0, 0, 0.0
            start = time.time_ns()
            for v in self.viewers:
                self.connect(v)
        return start


def delays(viewers: list[Viewer], submitted: dict[str, list[int]]) -> tuple[array.array[float], array.array[float], int]:
    import bisect

    after_commit: array.array[float] = array.array("f")
    from_input: array.array[float] = array.array("f")
    missing = 0
    changes = sorted((int(k), v) for k, v in submitted.items())
    for v in viewers:
        ids = [e[0] for e in v.events]
        for change_id, (before, after) in changes:
            k = bisect.bisect_left(ids, change_id)
            if k == len(ids):
                missing += 1
                continue
            t = v.events[k][1]
            after_commit.append((t - after) / 1e6)
            from_input.append((t - before) / 1e6)
    return after_commit, from_input, missing


def clients_main(args: argparse.Namespace) -> None:
    raise_fd_limit()
    parts = urlsplit(args.url)
    pool = Viewers(parts.hostname or "127.0.0.1", parts.port or 80, args.clients)
    stop = threading.Event()
    loop = threading.Thread(target=pool.run, args=(stop,), daemon=True)
    for k, v in enumerate(pool.viewers):
        with pool.lock:
            pool.connect(v)
        if k % 200 == 199:
            time.sleep(0.02)  # the first connections, not a storm: that is --storm's job
        if k == 0:
            loop.start()
    deadline = time.monotonic() + 60 + args.clients / 50
    while pool.ready() < args.clients and time.monotonic() < deadline:
        time.sleep(0.1)
    print(json.dumps({"ready": pool.ready(), "refused": pool.refused}), flush=True)
    for line in sys.stdin:
        cmd, _, rest = line.strip().partition(" ")
        if cmd == "report":  # rest: file with {change id: [before, after]}
            submitted = json.loads(Path(rest).read_text())
            # Read what is still in the sockets first (this process may lag behind; the
            # kernel's stamps say when each frame really arrived).
            limit = time.monotonic() + 60
            while time.monotonic() - pool.last_data < 1.0 and time.monotonic() < limit:
                time.sleep(0.1)
            with pool.lock:
                after, before, missing = delays(pool.viewers, submitted)
                for v in pool.viewers:
                    v.events.clear()
            out = Path(rest).with_suffix(".delays")
            with out.open("wb") as fh:
                after.tofile(fh)
                before.tofile(fh)
            print(json.dumps({"deliveries": len(after), "missing": missing, "file": str(out)}), flush=True)
        elif cmd == "blip":
            start = pool.blip()
            limit = time.monotonic() + float(rest or 30)
            while time.monotonic() < limit:
                with pool.lock:
                    served = [v.served_at for v in pool.viewers if v.served_at]
                if len(served) == len(pool.viewers):
                    break
                time.sleep(0.05)
            with pool.lock:
                served = [v.served_at for v in pool.viewers if v.served_at]
                snapshots = sum(1 for v in pool.viewers if v.snapshots)
            print(json.dumps({
                "served": len(served), "of": len(pool.viewers), "refused": pool.refused,
                "all_served_s": round((max(served) - start) / 1e9, 2) if served else None,
                "p50_served_s": round((sorted(served)[len(served) // 2] - start) / 1e9, 2) if served else None,
                "resumed_without_snapshot": len(served) - snapshots,
            }), flush=True)
        elif cmd == "quit":
            break
    stop.set()


# -- the server's process ----------------------------------------------------------------------
def server_main(args: argparse.Namespace) -> None:
    raise_fd_limit()
    from hub.assemble import tune_gc
    from hub.facade import Hub
    from web.server import start_server

    tmp = Path(tempfile.mkdtemp(prefix="web-bench-"))
    hub = Hub(tmp / "hub.db")
    tune_gc()  # as every server process does (hub.assemble.open_hub)
    hub.start()
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=1, table_id="t1")
    password = "bench-referee"
    # Every viewer comes from this machine's one address: no per-address bound here
    # (web/connections.py; a phone in a hall has its own address).
    handle = start_server(hub, password=password, max_streams=args.max_streams, server=args.serve,
                          config={"WEB_MAX_PER_ADDRESS": 0})
    print(json.dumps({"url": handle.url, "password": password, "pid": os.getpid()}), flush=True)
    for line in sys.stdin:
        cmd, _, rest = line.strip().partition(" ")
        if cmd == "drive-inside":  # rest: "rate seconds file"
            rate, seconds, out = rest.split()
            submitted = drive(lambda inp: hub.submit("t1", {**inp, "by": "bench"}), float(rate), float(seconds))
            Path(out).write_text(json.dumps(submitted))
            print(json.dumps({"changes": len(submitted)}), flush=True)
        elif cmd == "open":
            print(json.dumps({"open": handle.app.extensions["stream_slots"].open}), flush=True)
        elif cmd == "quit":
            break
    handle.close()
    hub.close()


# -- the referee (this process) ------------------------------------------------------------------
INPUTS = ({"landed": "floor"}, {"undo": True})


def drive(submit: Any, rate: float, seconds: float) -> dict[str, list[int]]:
    """Submit the inputs at ``rate`` for ``seconds``: {change id: [sent ns, answered ns]}."""
    submitted: dict[str, list[int]] = {}
    period = 1.0 / rate
    next_at = time.monotonic()
    end = next_at + seconds
    n = 0
    while time.monotonic() < end:
        before = time.time_ns()
        view = submit(INPUTS[n % 2])
        submitted[str(view["change_id"])] = [before, time.time_ns()]
        n += 1
        next_at += period
        time.sleep(max(0.0, next_at - time.monotonic()))
    return submitted


class Referee:
    """The console as a browser drives it: session cookie, CSRF token, JSON POSTs."""

    def __init__(self, url: str, password: str) -> None:
        parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        self.cookie = ""
        page = self.request("GET", "/auth/login")
        token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page) or re.search(
            r'<meta name="csrf-token" content="([^"]+)"', page)
        assert token, "no CSRF token on the login page"
        body = urlencode({"password": password, "csrf_token": token.group(1)})
        self.request("POST", "/auth/login", body, {"Content-Type": "application/x-www-form-urlencoded"}, expect=302)
        meta = re.search(r'<meta name="csrf-token" content="([^"]+)"', self.request("GET", "/console/"))
        assert meta, "not logged in"
        self.token = meta.group(1)

    def request(self, method: str, path: str, body: str | None = None, headers: dict[str, str] | None = None,
                expect: int = 200) -> str:
        headers = dict(headers or {})
        if self.cookie:
            headers["Cookie"] = self.cookie
        try:
            self.conn.request(method, path, body=body, headers=headers)
            response = self.conn.getresponse()
        except (ConnectionError, http.client.RemoteDisconnected):  # an idle keep-alive closed
            self.conn.close()
            self.conn.request(method, path, body=body, headers=headers)
            response = self.conn.getresponse()
        text = response.read().decode()
        for value in response.headers.get_all("Set-Cookie") or []:
            self.cookie = value.split(";", 1)[0]
        if response.status != expect:
            raise RuntimeError(f"{method} {path}: {response.status} {text[:200]}")
        return text

    def submit(self, inp: dict[str, Any]) -> dict[str, Any]:
        text = self.request("POST", "/api/tables/t1/input", json.dumps(inp),
                            {"Content-Type": "application/json", "X-CSRFToken": self.token})
        return dict(json.loads(text))


def proc_cpu_split_s(pid: int) -> tuple[float, float]:
    """(user, system) CPU seconds of a process, every thread."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def proc_cpu_s(pid: int) -> float:
    return sum(proc_cpu_split_s(pid))


def proc_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def percentiles(values: array.array[float]) -> dict[str, float] | None:
    if not values:
        return None
    ordered = sorted(values)

    def at(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))], 1)

    return {"p50": round(statistics.median(ordered), 1), "p99": at(0.99), "max": round(ordered[-1], 1)}


def read_delays(path: str) -> tuple[array.array[float], array.array[float]]:
    raw = array.array("f")
    with open(path, "rb") as fh:
        raw.frombytes(fh.read())
    half = len(raw) // 2
    return raw[:half], raw[half:]


def measure(kind: str, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    me = [sys.executable, str(HERE)]
    server = subprocess.Popen(me + ["--serve", kind, "--max-streams", str(args.clients + 64)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert server.stdin is not None and server.stdout is not None
    info = json.loads(server.stdout.readline())
    url, pid = info["url"], info["pid"]
    report: dict[str, Any] = {"server": kind, "clients": args.clients, "rate_per_s": args.rate,
                              "seconds": args.seconds, "load_avg_1m": round(os.getloadavg()[0], 1)}
    referee = Referee(url, info["password"])
    time.sleep(1.0)
    rss_before = proc_rss_mb(pid)
    shares = [args.clients // args.client_procs + (1 if k < args.clients % args.client_procs else 0)
              for k in range(args.client_procs)]
    clients = [subprocess.Popen(me + ["--run-clients", "--url", url, "--clients", str(n)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
               for n in shares]

    def ask_all(line: str | None) -> list[dict[str, Any]]:
        answers = []
        for c in clients:
            assert c.stdin is not None and c.stdout is not None
            if line is not None:
                c.stdin.write(line + "\n")
                c.stdin.flush()
        for c in clients:
            assert c.stdout is not None
            answers.append(json.loads(c.stdout.readline()))
        return answers

    readiness = ask_all(None)
    report["ready"] = sum(r["ready"] for r in readiness)
    report["refused_at_connect"] = sum(r["refused"] for r in readiness)
    time.sleep(2.0)
    report["memory_per_idle_client_kb"] = round((proc_rss_mb(pid) - rss_before) * 1024 / max(1, report["ready"]), 1)

    def phase(name: str, run: Any) -> None:
        viewers_cpu = lambda: sum(proc_cpu_s(c.pid) for c in clients)  # noqa: E731
        (user0, sys0), viewers0, t0 = proc_cpu_split_s(pid), viewers_cpu(), time.monotonic()
        submitted = run()
        user1, sys1 = proc_cpu_split_s(pid)
        cpu = user1 - user0 + sys1 - sys0
        wall = time.monotonic() - t0
        viewers_share = (viewers_cpu() - viewers0) / wall
        time.sleep(2.0)  # the tail of the deliveries
        path = work / f"{kind}-{name}.json"
        path.write_text(json.dumps(submitted))
        answers = ask_all(f"report {path}")
        after, before = array.array("f"), array.array("f")
        for a in answers:
            x, y = read_delays(a["file"])
            after.extend(x)
            before.extend(y)
        changes = len(submitted)
        report[name] = {
            "changes": changes,
            "deliveries": f"{len(after)} / {changes * report['ready']}",
            "missing": sum(a["missing"] for a in answers),
            "delay_after_commit_ms": percentiles(after),
            "delay_from_input_ms": percentiles(before),
            "server_cpu_ms_per_change": round(cpu * 1000 / max(1, changes), 2),
            "server_cpu_us_per_change_per_client": round(cpu * 1e6 / max(1, changes * report["ready"]), 2),
            # The kernel's part: on loopback it includes the viewers' side of TCP too.
            "server_system_share": round((sys1 - sys0) / max(cpu, 1e-9), 2),
            "server_cpu_share_of_a_core": round(cpu / wall, 2),
            "viewer_processes_cpu_share_of_a_core": round(viewers_share, 2),
        }

    phase("http", lambda: drive(referee.submit, args.rate, args.seconds))
    if args.inside:
        def inside() -> dict[str, list[int]]:
            path = work / f"{kind}-inside-submitted.json"
            server.stdin.write(f"drive-inside {args.rate} {args.seconds} {path}\n")  # type: ignore[union-attr]
            server.stdin.flush()  # type: ignore[union-attr]
            server.stdout.readline()  # type: ignore[union-attr]
            return dict(json.loads(path.read_text()))

        phase("inside", inside)
    if args.storm:
        stop = threading.Event()

        def keep_driving() -> None:
            while not stop.is_set():
                drive(referee.submit, args.rate, 0.5)

        driver = threading.Thread(target=keep_driving, daemon=True)
        driver.start()
        time.sleep(1.0)
        answers = ask_all(f"blip {args.storm_limit}")
        stop.set()
        driver.join()
        served = [a["all_served_s"] for a in answers if a["all_served_s"] is not None]
        report["storm"] = {
            "served": sum(a["served"] for a in answers), "of": sum(a["of"] for a in answers),
            "all_served_s": max(served) if served else None,
            "p50_served_s": max(a["p50_served_s"] or 0 for a in answers),
            "refused_then_retried": sum(a["refused"] for a in answers) - report["refused_at_connect"],
            "resumed_without_snapshot": sum(a["resumed_without_snapshot"] for a in answers),
        }
    report["load_avg_1m_end"] = round(os.getloadavg()[0], 1)
    for c in clients:
        assert c.stdin is not None
        c.stdin.write("quit\n")
        c.stdin.flush()
    for c in clients:
        c.wait(timeout=60)
    server.stdin.write("quit\n")
    server.stdin.flush()
    server.wait(timeout=60)
    return report


# -- the floor: what the kernel alone charges a sender per viewer -----------------------------
def floor_reader(port: int, count: int, ready: Any) -> None:
    raise_fd_limit()
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(count)]
    poll = select.epoll()
    by_fd = {}
    for sock in socks:
        sock.setblocking(False)
        poll.register(sock.fileno(), select.EPOLLIN)
        by_fd[sock.fileno()] = sock
    ready.set()
    while True:
        for fd, _ in poll.poll(1.0):
            try:
                if not by_fd[fd].recv(65536):
                    return
            except BlockingIOError:
                continue


def loopback_floor(count: int, size: int, rounds: int = 100) -> float:
    """CPU (user + system) of this process per plain ``send`` of ``size`` bytes to each of
    ``count`` loopback TCP readers in another process, one round every 0.1 s: the part of
    "CPU per change per viewer" no server can avoid here (on loopback, delivering into the
    reader's socket is charged to the sender), in µs."""
    import multiprocessing

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4096)
    ready = multiprocessing.get_context("spawn").Event()
    reader = multiprocessing.get_context("spawn").Process(
        target=floor_reader, args=(listener.getsockname()[1], count, ready))
    reader.start()
    conns = [listener.accept()[0] for _ in range(count)]
    ready.wait(60)
    frame = b"x" * size
    before = os.times()
    for _ in range(rounds):
        for conn in conns:
            conn.send(frame)
        time.sleep(0.1)
    after = os.times()
    for conn in conns:
        conn.close()
    reader.join(10)
    listener.close()
    cpu = after.user - before.user + after.system - before.system
    return cpu * 1e6 / (rounds * count)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--servers", default="waitress,uvicorn", help="comma-separated: waitress, uvicorn")
    parser.add_argument("--rate", type=float, default=10.0, help="table changes per second")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--client-procs", type=int, default=1, help="processes holding the viewers")
    parser.add_argument("--no-inside", dest="inside", action="store_false",
                        help="skip the second figure (changes submitted inside the server process)")
    parser.add_argument("--storm", action="store_true", help="then every viewer reconnects at once")
    parser.add_argument("--storm-limit", type=float, default=30.0, help="give up on the storm after this, s")
    parser.add_argument("--no-floor", dest="floor", action="store_false",
                        help="skip the reference figure: a plain send to as many loopback readers")
    parser.add_argument("--floor-bytes", type=int, default=3300, help="frame size for that figure")
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--max-streams", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--run-clients", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run_clients:
        clients_main(args)
    elif args.serve:
        server_main(args)
    else:
        raise_fd_limit()
        with tempfile.TemporaryDirectory(prefix="web-bench-") as tmp:
            for kind in args.servers.split(","):
                print(json.dumps(measure(kind.strip(), args, Path(tmp)), indent=2), flush=True)
        if args.floor:
            size = args.floor_bytes
            print(json.dumps({"loopback_send_floor_us_per_viewer": round(loopback_floor(args.clients, size), 2),
                              "frame_bytes": size, "viewers": args.clients}), flush=True)


if __name__ == "__main__":
    main()
