"""How tests/hub/old_log/ was made, kept to say what the old log holds. Run with the code
of a91af19 (before issue 31.5), from its checkout:

    PYTHONPATH=. python make_a91af19.py OLD.db hub-lines.txt web

(web.en and web.fr became web-en.txt and web-fr.txt, OLD.db.sql a91af19.sql).

It writes a Trigono table's log (device inputs: scale, buttons, a refused and an unknown
button, drops, the referee) to a SQLite file, opens a hub on it, saves a snapshot
(format 1: English ``text`` and ``by`` sentences), opens it again from the snapshot and
prints what that hub said: the views' English lines, the web's words in en and fr, and
the export. tests/test_old_log.py reads the same log with today's code. main-prints.json
is ``trigono replay`` (and ``--pretty``) of every record in tests/records/ and ``trigono
export t1 --db OLD.db``, run with a91af19's ``trigono``.
"""

import json
import sqlite3
import sys

from hub.facade import Hub
from hub.log.sqlite import SqliteStore
from hub.log.store import Entry
from hub.tables.spec import TableSpec
from hub.tables.tableset import make_table
from web import create_app
from web.describe import alert_text, event_text, prompt_text

if __name__ == "__main__":  # a script, not a test module (pytest imports it for doctests)
    db = sys.argv[1]
    store = SqliteStore(db)
    spec = TableSpec.build("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=1,
                           options={"first": "Ana"}, referee={"settle_s": 1.0})
    body = spec.entry_body(1, 1.0)
    now = [100.0]
    seqs = {"n": 0}
    table = None

    def put(source, b, **kw):
        global table
        e = Entry.new(source, b, table_id="t1", at=now[0], **kw)
        (eid,) = store.append([e])
        e = Entry(eid, e.at, e.source, e.table_id, e.body, e.board, e.boot, e.seq, e.raw)
        if table is None:
            table = make_table("t1", b["create"], e.at)
            table.applied_through = eid
        else:
            try:
                table.apply_entry(e)
            except Exception as err:
                print("refused", err, file=sys.stderr)

    def dev(kind, t_ms, **f):
        seqs["n"] += 1
        msg = {"type": kind, "board": "B1", "boot": 1, "seq": seqs["n"], "t_us": t_ms * 1000, **f}
        put("device", msg, board="B1", boot=1, seq=seqs["n"])

    def tick(t):
        now[0] = t
        for b in table.due(t):
            put("hub", b)

    def console(**inp):
        put("console", {"input": inp, "by": "referee"})

    put("console", {"create": body})
    dev("weight", 0, board_palets=1)          # Ana: board:B1 by the scale
    tick(100.5)
    dev("button", 1000, button="floor")       # Ben: floor by the button
    tick(101.5)
    dev("button", 2000, button="undo")        # undo Ben's throw
    tick(102.5)
    dev("button", 3000, button="next_round")  # refused: the round is not over
    tick(103.5)
    dev("button", 4000, button="mystery")     # a button the table does not know
    tick(104.5)
    dev("drop", 5000, hole="big")             # Ben into B1.big
    tick(106.5)
    dev("weight", 7000, board_palets=5)       # not one more: only noted
    tick(107.5)
    dev("drop", 8000, hole="small")
    tick(108.0)
    dev("button", 8200, button="invalid")     # Ana's bounced on the floor (T10)
    tick(110.0)
    dev("button", 10500, button="board")      # Ben: board
    tick(111.0)
    console(landed="floor")
    tick(112.0)
    dev("drop", 12500, hole="tiny")           # not in the layout
    tick(113.0)
    store.close()

    def lines(hub):
        v = hub.table_view("t1")
        out = ["events:"] + [f"  {e['source']} {e['text']}" for e in v["events"]]
        out += ["alerts:"] + [f"  {a['text']}" for a in v["alerts"]]
        out += ["prompts:"] + [f"  {p['question']}" for p in v["prompts"]]
        return out, v

    hub = Hub(db)
    fresh, _ = lines(hub)
    hub.tables.save_snapshot(hub.tables["t1"])
    hub.close()
    hub = Hub(db)
    snapped, view = lines(hub)
    assert fresh == snapped, (fresh, snapped)
    record = hub.export("t1")
    hub.close()
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(snapped) + "\n")
        f.write("export: " + json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")

    app = create_app({"TESTING": True})
    for lang in ("en", "fr"):
        with app.test_request_context(headers={"Accept-Language": lang}):
            with open(sys.argv[3] + f".{lang}", "w") as f:
                for e in view["events"]:
                    f.write(event_text(e) + "\n")
                for a in view["alerts"]:
                    f.write(alert_text(a) + "\n")
                for p in view["prompts"]:
                    f.write(prompt_text(p, view) + "\n")
    with sqlite3.connect(db) as c:
        with open(sys.argv[1] + ".sql", "w") as f:
            for line in c.iterdump():
                f.write(line + "\n")
