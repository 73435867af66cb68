"""Phones that call players, statistics from the log (issue 34.4, 34.5).

1. Call latency, hub side: a Swiss Trigono tournament on one station whose matches are
   ended by simulated sensors alone (a throw-line button, a drop, the board's clock, on
   the hub's device path); timed from the board's clock message that closes the last
   throw to the change feed announcing the tournament entry that calls the next match
   to the freed station (what the phones' stream carries).
2. With ``--browser``: the same, to a player's phone page ringing in Chromium (stream,
   page fetch, the call shown) — the issue's promise is ≤ 5 s.
3. Statistics: the cost of counting one finished match from its log, per game (cold;
   a finished table's counts are then kept), and of ``stats`` over one entry list
   once warm.

    python bench/phone_call.py                       # 12 calls, hub side
    python bench/phone_call.py --browser --calls 6   # to a ringing phone
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines import game_spec  # noqa: E402
from hub.facade import Hub  # noqa: E402
from hub.tournament.stats import count_record  # noqa: E402
from tests.web.test_browser_phone import Board  # noqa: E402  (a board on the hub's device path)


def calls(n: int, browser: bool) -> list[float]:
    hub = Hub(":memory:", settle_s=0.05)
    hub.start()
    svc = hub.tournaments
    players = 2 * (n + 1)
    svc.create({"name": "Bench", "game": "trigono", "format": "swiss", "rounds": 1, "check_in": False,
                "options": {"palets_per_player": 1, "rounds_to_win": 1}}, tournament_id="T1")
    svc.submit("T1", {"type": "station", "station": {"id": "7", "seats": 2, "boards": ["S7"]}})
    svc.submit_many("T1", [{"type": "register", "player": {"name": f"P{i}"}} for i in range(players)])
    svc.submit("T1", {"type": "start"})
    board = Board(hub, "S7")
    board.event("hello", fw="t", config="c", holes=["big", "small"])
    server = page = pw = None
    if browser:
        from playwright.sync_api import sync_playwright

        from tests.conftest import CHROMIUM, CHROMIUM_ARGS
        from web.phone import entry_token
        from web.server import start_server
        server = start_server(hub, password="pw")
        pw = sync_playwright().start()
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    out: list[float] = []
    for _ in range(n):
        view = svc.view("T1")
        nxt = next(m for m in view["matches"] if m["status"] == "ready")
        if browser:
            assert server is not None
            with server.app.test_request_context():
                link = f"{server.url}/me/T1/{entry_token('T1', nxt['players'][0])}"
            page = chromium.new_context(viewport={"width": 390, "height": 844}).new_page()
            page.goto(link)
            page.wait_for_function("() => window.__live && window.__live.source.readyState === 1")
        last = hub.last_change_id()
        board.event("button", button="floor")
        board.event("drop", hole="small")
        start = time.perf_counter()
        board.clock()
        if browser:
            assert page is not None
            page.wait_for_function("() => document.body.classList.contains('ringing')", timeout=10_000)
            out.append(time.perf_counter() - start)
            page.context.close()
        else:
            while True:
                changes = hub.changes_since(last, timeout=5.0)
                last = max([last, *(c["id"] for c in changes)])
                if svc.view("T1")["matches"][nxt["number"] - 1]["status"] == "called":
                    out.append(time.perf_counter() - start)
                    break
    if pw is not None:
        pw.stop()
    if server is not None:
        server.close()
    hub.close()
    return out


def random_record(game: str, rng: random.Random) -> dict[str, Any]:
    """A finished game of random legal moves (Trigono: random throws, 10 palets, 2 rounds)."""
    from engines.records import initial_state
    spec = game_spec(game)
    options: dict[str, Any] = {"players": ["Ana", "Ben"]}
    if spec.game_type.sensor_boards:  # Trigono: a full match
        options |= {"palets_per_player": 10, "rounds_to_win": 2}
    doc: dict[str, Any] = {"game": game, "options": options, "seed": rng.randrange(1000), "actions": []}
    state = initial_state(doc)
    while not state.is_terminal():
        if spec.game_type.sensor_boards:
            player = state.current_player()
            action: Any = {"throw": {"player": player, "to": rng.choice(["board:B1", "B1.big", "B1.small", "floor"])}}
            if state.to_json().get("phase") == "final" and state.to_json().get("target") is None:
                action = {"target": rng.choice(sorted(state.to_json()["holes"]))}
        else:
            action = spec.action_to_json(rng.choice(state.legal_actions()))
        state.apply(state.parse_action(action))
        doc["actions"].append(action)
    return doc


def stats_costs(repeat: int) -> dict[str, tuple[int, float]]:
    rng = random.Random(34)
    out = {}
    for game in ("trigono", "trike", "triolet", "triominos"):
        docs = [random_record(game, rng) for _ in range(repeat)]
        start = time.process_time()
        for doc in docs:
            count_record(doc)
        out[game] = (round(statistics.mean(len(d["actions"]) for d in docs)),
                     (time.process_time() - start) / repeat * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=12)
    parser.add_argument("--browser", action="store_true")
    parser.add_argument("--repeat", type=int, default=20, help="games counted per game (statistics)")
    args = parser.parse_args()
    lat = calls(args.calls, args.browser)
    where = "phone ringing (Chromium)" if args.browser else "call on the change feed"
    print(f"sensor end -> {where}: median {statistics.median(lat) * 1000:.0f} ms, "
          f"max {max(lat) * 1000:.0f} ms over {len(lat)} calls")
    for game, (moves, ms) in stats_costs(args.repeat).items():
        print(f"statistics of one finished {game} game ({moves} actions): {ms:.2f} ms CPU")


if __name__ == "__main__":
    main()
