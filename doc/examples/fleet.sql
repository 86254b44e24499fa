-- Rows of many hosts' recordings, loaded into sqlite 3.38 or later:
--   for f in *.dat; do kmemtrace report --format ndjson --slab --page --caller --caches "$f"; done >rows.ndjson
--   sqlite3 fleet.db '.read doc/examples/fleet.sql'
CREATE TABLE IF NOT EXISTS raw(j TEXT);
.mode tabs
.import rows.ndjson raw
-- boot_id and start_time (UTC, ISO 8601) tell a host's recordings apart;
-- NULL for recordings that do not keep them (kmemtrace record's do)
CREATE VIEW IF NOT EXISTS rows AS
	SELECT j ->> '$.host' AS host, j ->> '$.kernel' AS kernel,
	       j ->> '$.boot_id' AS boot_id, j ->> '$.start_time' AS start_time,
	       j ->> '$.table' AS tbl, j ->> '$.span_ns' AS span_ns, j AS row
	FROM raw;
.mode list
.separator " "
-- top growth across hosts: the slab callsites whose allocation rate
-- (bytes a second) differs most between the hosts
SELECT row ->> '$.callsite' AS callsite,
       round(max(row ->> '$.total_alloc' * 1e9 / span_ns)) AS most,
       round(min(row ->> '$.total_alloc' * 1e9 / span_ns)) AS least
FROM rows WHERE tbl = 'slab.callsites'
GROUP BY callsite ORDER BY most - least DESC, callsite LIMIT 10;
-- one function across kernels: its allocations and bytes per kernel,
-- whatever its offset in each build
SELECT kernel, sum(row ->> '$.hit'), sum(row ->> '$.total_alloc')
FROM rows WHERE tbl = 'slab.callsites' AND row ->> '$.callsite' LIKE 'copy_process+%'
GROUP BY kernel ORDER BY kernel;
-- what each host's slab still held at the end of its recording, and its
-- frees on another CPU than the allocation's: a summary is one row, its
-- pairs nested as --json has them
SELECT host, row ->> '$.live_bytes', row ->> '$.cross_cpu_frees.count',
       row ->> '$.cross_cpu_frees.of'
FROM rows WHERE tbl = 'slab.summary' ORDER BY host;
