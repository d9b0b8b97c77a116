BEGIN TRANSACTION;
CREATE TABLE fault_reasons (
                session TEXT NOT NULL REFERENCES sessions (id),
                bot TEXT NOT NULL,
                kind TEXT NOT NULL,                     -- timeout, illegal, malformed, crash
                reason TEXT NOT NULL,                   -- what happened, as the arena saw it
                count INTEGER NOT NULL CHECK (count > 0),  -- the bot's faults in the session with this reason
                PRIMARY KEY (session, bot, kind, reason)
            );
INSERT INTO "fault_reasons" VALUES('s0003','call','crash','exited before it was ready (exit status 1); its stderr:
Traceback (most recent call last):
  File "/work/wt-commit27/sample_bots/call_bot.py", line 14, in <module>
    from arena.sdk import Action, Bot, SvaraOffer, Turn, run
ModuleNotFoundError: No module named ''arena''',2);
INSERT INTO "fault_reasons" VALUES('s0003','strong','crash','exited before it was ready (exit status 1); its stderr:
Traceback (most recent call last):
  File "/work/wt-commit27/sample_bots/strong_bot.py", line 40, in <module>
    from arena.engine import GEORGIAN_EVALUATOR, Card
ModuleNotFoundError: No module named ''arena''',2);
INSERT INTO "fault_reasons" VALUES('s0001','call','crash','exited before it was ready (exit status 1); its stderr:
Traceback (most recent call last):
  File "/work/wt-commit27/sample_bots/call_bot.py", line 14, in <module>
    from arena.sdk import Action, Bot, SvaraOffer, Turn, run
ModuleNotFoundError: No module named ''arena''',2);
INSERT INTO "fault_reasons" VALUES('s0001','threshold','crash','exited before it was ready (exit status 1); its stderr:
Traceback (most recent call last):
  File "/work/wt-commit27/sample_bots/threshold_bot.py", line 19, in <module>
    from arena.sdk import Action, Bot, Fold, Hello, Turn, run
ModuleNotFoundError: No module named ''arena''',2);
INSERT INTO "fault_reasons" VALUES('s0004','strong','crash','exited before it was ready (exit status 1); its stderr:
Traceback (most recent call last):
  File "/work/wt-commit27/sample_bots/strong_bot.py", line 40, in <module>
    from arena.engine import GEORGIAN_EVALUATOR, Card
ModuleNotFoundError: No module named ''arena''',2);
INSERT INTO "fault_reasons" VALUES('s0004','call','crash','exited before it was ready (exit status 1); its stderr:
Traceback (most recent call last):
  File "/work/wt-commit27/sample_bots/call_bot.py", line 14, in <module>
    from arena.sdk import Action, Bot, SvaraOffer, Turn, run
ModuleNotFoundError: No module named ''arena''',2);
INSERT INTO "fault_reasons" VALUES('s0002','threshold','crash','exited before it was ready (exit status 1); its stderr:
Traceback (most recent call last):
  File "/work/wt-commit27/sample_bots/threshold_bot.py", line 19, in <module>
    from arena.sdk import Action, Bot, Fold, Hello, Turn, run
ModuleNotFoundError: No module named ''arena''',2);
INSERT INTO "fault_reasons" VALUES('s0002','call','crash','exited before it was ready (exit status 1); its stderr:
Traceback (most recent call last):
  File "/work/wt-commit27/sample_bots/call_bot.py", line 14, in <module>
    from arena.sdk import Action, Bot, SvaraOffer, Turn, run
ModuleNotFoundError: No module named ''arena''',2);
INSERT INTO "fault_reasons" VALUES('s0005','threshold','crash','exited before it was ready (exit status 1); its stderr:
Traceback (most recent call last):
  File "/work/wt-commit27/sample_bots/threshold_bot.py", line 19, in <module>
    from arena.sdk import Action, Bot, Fold, Hello, Turn, run
ModuleNotFoundError: No module named ''arena''',2);
INSERT INTO "fault_reasons" VALUES('s0005','strong','crash','exited before it was ready (exit status 1); its stderr:
Traceback (most recent call last):
  File "/work/wt-commit27/sample_bots/strong_bot.py", line 40, in <module>
    from arena.engine import GEORGIAN_EVALUATOR, Card
ModuleNotFoundError: No module named ''arena''',2);
INSERT INTO "fault_reasons" VALUES('s0006','strong','crash','exited before it was ready (exit status 1); its stderr:
Traceback (most recent call last):
  File "/work/wt-commit27/sample_bots/strong_bot.py", line 40, in <module>
    from arena.engine import GEORGIAN_EVALUATOR, Card
ModuleNotFoundError: No module named ''arena''',2);
INSERT INTO "fault_reasons" VALUES('s0006','threshold','crash','exited before it was ready (exit status 1); its stderr:
Traceback (most recent call last):
  File "/work/wt-commit27/sample_bots/threshold_bot.py", line 19, in <module>
    from arena.sdk import Action, Bot, Fold, Hello, Turn, run
ModuleNotFoundError: No module named ''arena''',2);
CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL);
INSERT INTO "migrations" VALUES('0001_tournament_and_sessions','2026-12-04T20:34:14.403+00:00');
INSERT INTO "migrations" VALUES('0002_fault_reasons','2026-12-04T20:34:14.430+00:00');
INSERT INTO "migrations" VALUES('0003_session_key','2026-12-04T20:34:14.453+00:00');
CREATE TABLE sessions (
                id TEXT PRIMARY KEY,                    -- s0001, ...
                idx INTEGER NOT NULL UNIQUE,            -- 1-based position in the plan
                seating TEXT NOT NULL,                  -- JSON list of bot names, seat 0 first
                block TEXT NOT NULL,
                mirror INTEGER NOT NULL,
                seed TEXT NOT NULL,
                status TEXT NOT NULL DEFAULT 'planned' CHECK (status IN ('planned', 'running', 'finished')),
                attempts INTEGER NOT NULL DEFAULT 0,    -- times marked running (more than 1 after a resume)
                balances TEXT,                          -- JSON {bot: "15/2"}, exact amounts
                winners TEXT,                           -- JSON list of bot names
                faults TEXT,                            -- JSON {bot: {fault type: count}}
                telemetry TEXT,                         -- JSON, free-form
                history_path TEXT,
                started_at TEXT,
                finished_at TEXT,
                CHECK ((status = 'finished') = (balances IS NOT NULL AND winners IS NOT NULL AND finished_at IS NOT NULL))
            );
INSERT INTO "sessions" VALUES('s0006',6,'["strong","threshold"]','b0003',1,'4e07d7c5e263cb11c3984f72d176fffa4ebdf2b67355376dc3f373025eacfe38','finished',1,'{"strong":"0","threshold":"0"}','["strong","threshold"]','{"strong":{"crash":2},"threshold":{"crash":2}}','{"strong":{"decisions":0,"latency_ms":{"median":null,"p99":null,"max":null},"faults":{"crash":2},"hello":null,"credited":{"calls":0,"ms":0},"launch":null,"process_session":1,"cpu_ms":0,"peak_memory_kb":6628,"isolation":"sandbox","worker":"local","attempt":1},"threshold":{"decisions":0,"latency_ms":{"median":null,"p99":null,"max":null},"faults":{"crash":2},"hello":null,"credited":{"calls":0,"ms":0},"launch":null,"process_session":1,"cpu_ms":0,"peak_memory_kb":6240,"isolation":"sandbox","worker":"local","attempt":1}}','histories/s0006.jsonl','2026-12-04T20:34:17.324+00:00','2026-12-04T20:34:17.820+00:00');
INSERT INTO "sessions" VALUES('s0001',1,'["call","threshold"]','b0001',0,'a07e8f96792ab5e6f9e4e536ffb0d5ed631df26ffb403c0c922b31044a00eb39','finished',1,'{"call":"0","threshold":"0"}','["call","threshold"]','{"call":{"crash":2},"threshold":{"crash":2}}','{"call":{"decisions":0,"latency_ms":{"median":null,"p99":null,"max":null},"faults":{"crash":2},"hello":null,"credited":{"calls":0,"ms":0},"launch":null,"process_session":1,"cpu_ms":0,"peak_memory_kb":5828,"isolation":"sandbox","worker":"local","attempt":1},"threshold":{"decisions":0,"latency_ms":{"median":null,"p99":null,"max":null},"faults":{"crash":2},"hello":null,"credited":{"calls":0,"ms":0},"launch":null,"process_session":1,"cpu_ms":0,"peak_memory_kb":6260,"isolation":"sandbox","worker":"local","attempt":1}}','histories/s0001.jsonl','2026-12-04T20:34:14.935+00:00','2026-12-04T20:34:16.053+00:00');
INSERT INTO "sessions" VALUES('s0002',2,'["threshold","call"]','b0001',1,'a07e8f96792ab5e6f9e4e536ffb0d5ed631df26ffb403c0c922b31044a00eb39','finished',1,'{"threshold":"0","call":"0"}','["threshold","call"]','{"threshold":{"crash":2},"call":{"crash":2}}','{"threshold":{"decisions":0,"latency_ms":{"median":null,"p99":null,"max":null},"faults":{"crash":2},"hello":null,"credited":{"calls":0,"ms":0},"launch":null,"process_session":1,"cpu_ms":0,"peak_memory_kb":6184,"isolation":"sandbox","worker":"local","attempt":1},"call":{"decisions":0,"latency_ms":{"median":null,"p99":null,"max":null},"faults":{"crash":2},"hello":null,"credited":{"calls":0,"ms":0},"launch":null,"process_session":1,"cpu_ms":0,"peak_memory_kb":5856,"isolation":"sandbox","worker":"local","attempt":1}}','histories/s0002.jsonl','2026-12-04T20:34:16.060+00:00','2026-12-04T20:34:16.968+00:00');
INSERT INTO "sessions" VALUES('s0003',3,'["call","strong"]','b0002',0,'39a764044fb2ed37d2e230bb05e6f6513f2544af49b1c42baf139e52cb0dc4ca','finished',1,'{"call":"0","strong":"0"}','["call","strong"]','{"call":{"crash":2},"strong":{"crash":2}}','{"call":{"decisions":0,"latency_ms":{"median":null,"p99":null,"max":null},"faults":{"crash":2},"hello":null,"credited":{"calls":0,"ms":0},"launch":null,"process_session":1,"cpu_ms":0,"peak_memory_kb":5716,"isolation":"sandbox","worker":"local","attempt":1},"strong":{"decisions":0,"latency_ms":{"median":null,"p99":null,"max":null},"faults":{"crash":2},"hello":null,"credited":{"calls":0,"ms":0},"launch":null,"process_session":1,"cpu_ms":0,"peak_memory_kb":6628,"isolation":"sandbox","worker":"local","attempt":1}}','histories/s0003.jsonl','2026-12-04T20:34:14.932+00:00','2026-12-04T20:34:15.667+00:00');
INSERT INTO "sessions" VALUES('s0004',4,'["strong","call"]','b0002',1,'39a764044fb2ed37d2e230bb05e6f6513f2544af49b1c42baf139e52cb0dc4ca','finished',1,'{"strong":"0","call":"0"}','["strong","call"]','{"strong":{"crash":2},"call":{"crash":2}}','{"strong":{"decisions":0,"latency_ms":{"median":null,"p99":null,"max":null},"faults":{"crash":2},"hello":null,"credited":{"calls":0,"ms":0},"launch":null,"process_session":1,"cpu_ms":0,"peak_memory_kb":6596,"isolation":"sandbox","worker":"local","attempt":1},"call":{"decisions":0,"latency_ms":{"median":null,"p99":null,"max":null},"faults":{"crash":2},"hello":null,"credited":{"calls":0,"ms":0},"launch":null,"process_session":1,"cpu_ms":0,"peak_memory_kb":5832,"isolation":"sandbox","worker":"local","attempt":1}}','histories/s0004.jsonl','2026-12-04T20:34:15.719+00:00','2026-12-04T20:34:16.535+00:00');
INSERT INTO "sessions" VALUES('s0005',5,'["threshold","strong"]','b0003',0,'4e07d7c5e263cb11c3984f72d176fffa4ebdf2b67355376dc3f373025eacfe38','finished',1,'{"threshold":"0","strong":"0"}','["threshold","strong"]','{"threshold":{"crash":2},"strong":{"crash":2}}','{"threshold":{"decisions":0,"latency_ms":{"median":null,"p99":null,"max":null},"faults":{"crash":2},"hello":null,"credited":{"calls":0,"ms":0},"launch":null,"process_session":1,"cpu_ms":0,"peak_memory_kb":6284,"isolation":"sandbox","worker":"local","attempt":1},"strong":{"decisions":0,"latency_ms":{"median":null,"p99":null,"max":null},"faults":{"crash":2},"hello":null,"credited":{"calls":0,"ms":0},"launch":null,"process_session":1,"cpu_ms":0,"peak_memory_kb":6460,"isolation":"sandbox","worker":"local","attempt":1}}','histories/s0005.jsonl','2026-12-04T20:34:16.666+00:00','2026-12-04T20:34:17.232+00:00');
CREATE TABLE tournament (
                id INTEGER PRIMARY KEY CHECK (id = 1),  -- one tournament per file
                name TEXT NOT NULL,
                definition TEXT NOT NULL,               -- the YAML text as read
                commitment TEXT NOT NULL,               -- SHA-256 hex of the secret, published first
                secret TEXT NOT NULL,
                secret_revealed INTEGER NOT NULL DEFAULT 0 CHECK (secret_revealed IN (0, 1)),
                created_at TEXT NOT NULL,
                finished_at TEXT
            , session_key TEXT);
INSERT INTO "tournament" VALUES(1,'small','name: small
participants:
  - {name: call, command: python3 sample_bots/call_bot.py, cwd: /work/wt-commit27}
  - {name: threshold, command: python3 sample_bots/threshold_bot.py, cwd: /work/wt-commit27}
  - {name: strong, command: python3 sample_bots/strong_bot.py, cwd: /work/wt-commit27}
table: {pots: 2}
table_size: 2
sessions_per_table: 1
duplicate: true
seed: 5477080635db037329b74afb07035ec4
concurrency: 2
','3356737ea4e2b2d7a5a1bec664e99dfbc93c209d76a141b560b81d0dab66620a','5477080635db037329b74afb07035ec4',1,'2026-12-04T20:34:14.529+00:00','2026-12-04T20:34:18.090+00:00','0d7a0359fc7cbdf6104d462da1d059d214390f3725d406531a92ab4fdd467574');
CREATE INDEX sessions_by_status ON sessions (status, idx);
COMMIT;
