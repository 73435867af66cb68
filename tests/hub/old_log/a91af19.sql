BEGIN TRANSACTION;
CREATE TABLE log (
    id INTEGER PRIMARY KEY,
    at REAL NOT NULL,
    source TEXT NOT NULL,
    table_id TEXT,
    board TEXT,
    boot INTEGER,
    seq INTEGER,
    body TEXT NOT NULL
);
INSERT INTO "log" VALUES(1,100.0,'console','t1',NULL,NULL,NULL,'{"create":{"game":"trigono","options":{"first":"Ana","boards":[{"id":"B1","cell":[0,0,"up"]}],"players":["Ana","Ben"]},"seed":1,"seats":[{"name":"Ana","bot":false},{"name":"Ben","bot":false}],"boards":[{"board":"B1","as":"B1","holes":{"big":"B1.big","small":"B1.small"}}],"referee":{"settle_s":1.0}}}');
INSERT INTO "log" VALUES(2,100.0,'device','t1','B1',1,1,'{"type":"weight","board":"B1","boot":1,"seq":1,"t_us":0,"board_palets":1}');
INSERT INTO "log" VALUES(3,100.5,'device','t1','B1',1,2,'{"type":"button","board":"B1","boot":1,"seq":2,"t_us":1000000,"button":"floor"}');
INSERT INTO "log" VALUES(4,101.5,'device','t1','B1',1,3,'{"type":"button","board":"B1","boot":1,"seq":3,"t_us":2000000,"button":"undo"}');
INSERT INTO "log" VALUES(5,102.5,'device','t1','B1',1,4,'{"type":"button","board":"B1","boot":1,"seq":4,"t_us":3000000,"button":"next_round"}');
INSERT INTO "log" VALUES(6,103.5,'device','t1','B1',1,5,'{"type":"button","board":"B1","boot":1,"seq":5,"t_us":4000000,"button":"mystery"}');
INSERT INTO "log" VALUES(7,104.5,'device','t1','B1',1,6,'{"type":"drop","board":"B1","boot":1,"seq":6,"t_us":5000000,"hole":"big"}');
INSERT INTO "log" VALUES(8,106.5,'hub','t1',NULL,NULL,NULL,'{"settle":{"first":7}}');
INSERT INTO "log" VALUES(9,106.5,'device','t1','B1',1,7,'{"type":"weight","board":"B1","boot":1,"seq":7,"t_us":7000000,"board_palets":5}');
INSERT INTO "log" VALUES(10,107.5,'device','t1','B1',1,8,'{"type":"drop","board":"B1","boot":1,"seq":8,"t_us":8000000,"hole":"small"}');
INSERT INTO "log" VALUES(11,108.0,'device','t1','B1',1,9,'{"type":"button","board":"B1","boot":1,"seq":9,"t_us":8200000,"button":"invalid"}');
INSERT INTO "log" VALUES(12,110.0,'hub','t1',NULL,NULL,NULL,'{"settle":{"first":10}}');
INSERT INTO "log" VALUES(13,110.0,'device','t1','B1',1,10,'{"type":"button","board":"B1","boot":1,"seq":10,"t_us":10500000,"button":"board"}');
INSERT INTO "log" VALUES(14,111.0,'console','t1',NULL,NULL,NULL,'{"input":{"landed":"floor"},"by":"referee"}');
INSERT INTO "log" VALUES(15,112.0,'device','t1','B1',1,11,'{"type":"drop","board":"B1","boot":1,"seq":11,"t_us":12500000,"hole":"tiny"}');
CREATE TABLE snapshot (
    table_id TEXT PRIMARY KEY,
    entry_id INTEGER NOT NULL,
    final INTEGER NOT NULL,
    summary TEXT NOT NULL,
    data TEXT NOT NULL
);
INSERT INTO "snapshot" VALUES('t1',15,0,'{}','{"spec":{"game":"trigono","options":{"first":"Ana","boards":[{"id":"B1","cell":[0,0,"up"]}],"players":["Ana","Ben"]},"seed":1,"seats":[{"name":"Ana","bot":false},{"name":"Ben","bot":false}],"boards":[{"board":"B1","as":"B1","holes":{"big":"B1.big","small":"B1.small"}}],"referee":{"settle_s":1.0}},"created_at":100.0,"table":{"actions":[{"action":{"throw":{"player":"Ana","to":"board:B1"}},"src":[2],"by":"weight on B1"},{"action":{"throw":{"player":"Ben","to":"B1.big"}},"src":[7],"by":"sensors"},{"action":{"throw":{"player":"Ana","to":"B1.small","invalid":true}},"src":[10],"by":"sensors"},{"action":{"throw":{"player":"Ben","to":"board:B1"}},"src":[13],"by":"button board on B1"},{"action":{"throw":{"player":"Ana","to":"floor"}},"src":[14],"by":"referee"}],"state":{"options":{"players":["Ana","Ben"],"boards":[{"id":"B1","cell":[0,0,"up"]}],"palets_per_player":10,"rounds_to_win":2,"first":"Ana","throw_line_m":3.0,"step_back_m":0.3,"draw_starter":"same","finals":"auto","final_holes_take":false},"first":"Ana","round":1,"starter":"Ana","rounds_won":{"Ana":0,"Ben":0},"round_results":[],"hands":{"Ana":7,"Ben":10},"eliminated":[],"boards":{"B1":1},"floor":1,"holes":{"B1.big":0,"B1.small":1},"phase":"normal","target":null,"finalists":[],"final_throws":0,"steps":0,"to_move":"Ben","winner":null,"log":[{"player":"Ana","action":{"throw":{"player":"Ana","to":"board:B1"}},"points":0,"round":1},{"player":"Ben","action":{"throw":{"player":"Ben","to":"B1.big"}},"points":2,"round":1},{"player":"Ana","action":{"throw":{"player":"Ana","to":"B1.small","invalid":true}},"points":0,"round":1},{"player":"Ben","action":{"throw":{"player":"Ben","to":"board:B1"}},"points":0,"round":1},{"player":"Ana","action":{"throw":{"player":"Ana","to":"floor"}},"points":0,"round":1}],"events":[]},"events":[{"id":2,"at":100.0,"source":"device","kind":"input","params":{"by":"weight on B1","key":"landed","value":"board:B1"},"text":"weight on B1: landed board:B1"},{"id":3,"at":100.5,"source":"device","kind":"input","params":{"by":"button floor on B1","key":"landed","value":"floor"},"text":"button floor on B1: landed floor"},{"id":4,"at":101.5,"source":"device","kind":"input","params":{"by":"button undo on B1","key":"undo","value":true},"text":"button undo on B1: undo True"},{"id":6,"at":103.5,"source":"device","kind":"button","params":{"board":"B1","button":"mystery"},"text":"B1: button mystery"},{"id":7,"at":104.5,"source":"device","kind":"drop","params":{"hole":"B1.big","player":"Ben"},"text":"B1.big: drop (Ben throwing)"},{"id":8,"at":106.5,"source":"hub","kind":"throw","params":{"player":"Ben","hole":"B1.big","n":0,"invalid":false},"text":"Ben: throw into B1.big"},{"id":9,"at":106.5,"source":"device","kind":"weight","params":{"board":"B1","palets":5},"text":"B1: weight says 5 palet(s) on the board"},{"id":10,"at":107.5,"source":"device","kind":"drop","params":{"hole":"B1.small","player":"Ana"},"text":"B1.small: drop (Ana throwing)"},{"id":11,"at":108.0,"source":"device","kind":"input","params":{"by":"button invalid on B1","key":"invalid","value":true},"text":"button invalid on B1: invalid True"},{"id":12,"at":110.0,"source":"hub","kind":"throw_invalid","params":{"player":"Ana","hole":"B1.small","n":0,"invalid":true},"text":"Ana: throw into B1.small (invalid, T10)"},{"id":13,"at":110.0,"source":"device","kind":"input","params":{"by":"button board on B1","key":"landed","value":"board:B1"},"text":"button board on B1: landed board:B1"},{"id":14,"at":111.0,"source":"console","kind":"input","params":{"by":"referee","key":"landed","value":"floor","player":null},"text":"referee: landed floor"},{"id":15,"at":112.0,"source":"device","kind":"not_in_layout","params":{"hole":"B1.tiny","kind":"drop"},"text":"B1.tiny: drop in a hole not in the layout, ignored"}],"alerts":[{"id":5,"at":102.5,"level":"warning","kind":"input_refused","params":{"by":"button next_round on B1","reason":"next_round: the round is already under way","refusal":"round_under_way","refusal_params":{}},"board":null,"key":"next_round","text":"button next_round on B1 refused: next_round: the round is already under way"},{"id":15,"at":112.0,"level":"warning","kind":"unmapped","params":{"board":"B1","holes":["tiny"]},"board":"B1","key":"unmapped:B1","text":"B1: holes tiny are not in the layout"}],"applied_through":15,"version":14,"archived":false,"abandoned":false,"decided":null,"moments":{"items":[{"seq":1,"action":0,"kind":"board","params":{"player":"Ana","board":"B1"}},{"seq":3,"action":1,"kind":"undone","params":{"player":"Ben","index":1}},{"seq":4,"action":1,"kind":"big","params":{"player":"Ben","n":2,"hole":"B1.big"},"place":{"kind":"big","board":"B1"}},{"seq":5,"action":2,"kind":"invalid","params":{"player":"Ana","hole":"B1.small"},"place":{"kind":"small","board":"B1"}},{"seq":6,"action":3,"kind":"board","params":{"player":"Ben","board":"B1"}},{"seq":7,"action":4,"kind":"floor","params":{"player":"Ana"}}],"seq":7},"referee":{"armed":true,"throw":null,"stuck":false,"rounds_seen":0,"voided":[],"landing":null,"weighed":{"B1":true},"misread":null}}}');
CREATE UNIQUE INDEX log_device ON log (board, boot, seq) WHERE seq IS NOT NULL;
CREATE INDEX log_table ON log (table_id, id) WHERE table_id IS NOT NULL;
CREATE TRIGGER log_append_only_update BEFORE UPDATE ON log
BEGIN SELECT RAISE(ABORT, 'the log is append-only'); END;
CREATE TRIGGER log_append_only_delete BEFORE DELETE ON log
BEGIN SELECT RAISE(ABORT, 'the log is append-only'); END;
COMMIT;
