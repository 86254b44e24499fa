#!/bin/sh
# kmemtrace serve: a real Prometheus (started here on the loopback, with
# its own data directory) scrapes it, and its HTTP API finds the percpu
# objects tests/helpers/plant-maps.sh plants at bpf_map_alloc_percpu,
# as many as top -b counts of the same planting; go tool pprof -raw of
# /debug/pprof/heap finds the planted leak watch finds, and ?seconds=N
# the change a planting makes meanwhile; no scrape holds more than
# --top + 1 series per kind and dimension; a remote address is refused
# without --allow-remote; SIGHUP loads again without leaking a
# descriptor or a program, SIGTERM leaves no program behind; --textfile
# writes the metrics whole.
# test: alone
. "$(dirname "$0")/lib.sh"

test_expect_success 'a remote address is refused without --allow-remote, 129, one line' '
	for a in 0.0.0.0:9474 "[::]:9474" :9474; do
		"$KMEMTRACE" serve --listen "$a" >out 2>err; test $? = 129 &&
		test $(wc -l <err) = 1 &&
		grep "^kmemtrace serve: error: refusing to listen on .*--allow-remote" err &&
		! test -s out || exit 1
	done &&
	"$KMEMTRACE" serve --listen nope >out 2>err; test $? = 129 &&
	grep "needs <addr>:<port>" err &&
	for a in 127.0.0.1:0 127.0.0.1:65536 127.0.0.1:99999 127.0.0.1:0000080; do
		"$KMEMTRACE" serve --listen "$a" >out 2>err; test $? = 129 &&
		test $(wc -l <err) = 1 &&
		grep "the port of .* is not one of 1 to 65535" err || exit 1
	done &&
	"$KMEMTRACE" serve --textfile /etc/passwd 2>err; test $? = 2 &&
	test $(wc -l <err) = 1 &&
	grep "cannot write in ./etc/passwd.: not a directory" err &&
	"$KMEMTRACE" serve --listen 127.0.0.1:1 --textfile . 2>err; test $? = 129 &&
	"$KMEMTRACE" serve --sample 3 2>err; test $? = 129
'

PLANT="$TESTS_DIR/helpers/plant-maps.sh"

have_all () {
	command -v prometheus >/dev/null ||
		{ echo "needs prometheus (scripts/deps.sh installs it)"; return 1; }
	command -v go >/dev/null ||
		{ echo "needs go tool pprof (golang-go)"; return 1; }
	have_bpf_rare
}

if ! why=$(have_all); then
	test_skip 'serve with prometheus and go tool pprof' "$why"
	test_done
	exit 0
fi

N=6
PIN=/sys/fs/bpf/kmt-t0740-$$
SERVE= PROM= CURL=
# everything started here, ended on every way out, so nothing hangs CI
cleanup () {
	for p in $SERVE $PROM $CURL; do
		kill "$p" 2>/dev/null
	done
	for p in $SERVE $PROM $CURL; do
		wait "$p" 2>/dev/null
	done
	rm -rf "$PIN" "$PIN-top" "$PIN-w" "$PIN-d"
	rm -rf "$TRASH"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# free_port: a port of the loopback nobody listens on
free_port () {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# get URL [ACCEPT]: the body on stdout, or a failure
get () {
	python3 - "$@" <<-\PY
	import sys, urllib.request
	req = urllib.request.Request(sys.argv[1])
	if len(sys.argv) > 2:
	    req.add_header("Accept", sys.argv[2])
	with urllib.request.urlopen(req, timeout=60) as r:
	    sys.stdout.write(r.headers.get("Content-Type") + "\n" if len(sys.argv) > 2 else "")
	    sys.stdout.buffer.write(r.read())
	PY
}

TOPN=10
SP=$(free_port)
"$KMEMTRACE" serve --listen 127.0.0.1:$SP --interval 0.5 --top $TOPN --cgroups \
	>serve.out 2>serve.err &
SERVE=$!
if ! wait_for "^kmemtrace serve: listening on http://127.0.0.1:$SP/" serve.err; then
	test_expect_success 'serve starts' 'false'
	test_done
	exit 1
fi

PP=$(free_port)
cat >prometheus.yml <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: kmemtrace
    static_configs:
      - targets: ['127.0.0.1:$SP']
EOF
prometheus --config.file=prometheus.yml --storage.tsdb.path="$TRASH/tsdb" \
	--web.listen-address=127.0.0.1:$PP >prom.log 2>&1 &
PROM=$!
API=http://127.0.0.1:$PP/api/v1/query

# query PROMQL: the value of its one series, 0 when none, or a failure
query () {
	python3 - "$API" "$1" <<-\PY
	import json, sys, urllib.parse, urllib.request
	url = sys.argv[1] + "?" + urllib.parse.urlencode({"query": sys.argv[2]})
	d = json.load(urllib.request.urlopen(url, timeout=10))
	assert d["status"] == "success", d
	res = d["data"]["result"]
	assert len(res) <= 1, res
	print(int(float(res[0]["value"][1])) if res else 0)
	PY
}

# wait_query PROMQL VALUE: up to 30 s for Prometheus to see VALUE
wait_query () {
	i=0
	while [ "$(query "$1" 2>/dev/null)" != "$2" ]; do
		i=$((i + 1))
		[ $i -le 60 ] || { echo "$1: $(query "$1"), not $2" >&2; return 1; }
		sleep 0.5
	done
}

test_expect_success 'the start states the memory bound, the address and the limit' '
	grep "up to $((TOPN + 1)) series per kind of callsites, caches and cgroups;" serve.err &&
	grep "the maps pin [0-9.]* MiB of kernel memory, the state at most [0-9.]* [KM]iB$" serve.err
'

test_expect_success 'Prometheus scrapes it: the target is up' '
	wait_query "up{job=\"kmemtrace\"}" 1 &&
	wait_query "kmemtrace_live_sample_ratio" 64
'

# /proc/allocinfo: served where the kernel has it, said to be absent
# where not
if [ -r /proc/allocinfo ]; then AI_UP=1; else AI_UP=0; fi
test_expect_success 'allocinfo: kmemtrace_allocinfo_up says whether the kernel has it' '
	wait_query "kmemtrace_allocinfo_up" $AI_UP
'

PCPU='{kind="percpu",callsite=~"bpf_map_alloc_percpu\\+.*"}'

test_expect_success 'top -b counts the planted percpu objects' '
	"$KMEMTRACE" top -b --json -n 1 -d 3 -l 0 --follow -- \
		sh -c "\"$PLANT\" plant $PIN-top $N 0 >&2" >top.json 2>top.err &&
	rm -rf "$PIN-top" &&
	python3 - >top.count <<-\PY &&
	import json
	d = json.load(open("top.json"))
	pc = [r for r in d["rows"] if r["kind"] == "percpu" and
	      r["callsite"].startswith("bpf_map_alloc_percpu+")]
	assert len(pc) == 1, pc
	print(pc[0]["allocs"])
	PY
	test "$(cat top.count)" = $N
'

test_expect_success 'Prometheus finds the same planting at its callsite, with its counts' '
	sleep 3 &&
	a0=$(query "kmemtrace_allocations_total$PCPU") &&
	l0=$(query "kmemtrace_live_objects$PCPU") &&
	f0=$(query "kmemtrace_frees_total$PCPU") &&
	"$PLANT" plant $PIN $N 0 &&
	wait_query "kmemtrace_allocations_total$PCPU" $((a0 + $(cat top.count))) &&
	wait_query "kmemtrace_live_objects$PCPU" $((l0 + N)) &&
	rm -rf "$PIN" &&
	wait_query "kmemtrace_live_objects$PCPU" $l0 &&
	test "$(query "kmemtrace_allocations_total$PCPU")" = $((a0 + N)) &&
	wait_query "kmemtrace_frees_total$PCPU" $((f0 + N)) &&
	test "$(query "sum(kmemtrace_lost_events_total{reason=\"counts_map_full\"})")" = 0
'

# raw_sum FILE FUNC KIND VALUE: VALUE summed over the samples of go tool
# pprof -raw output FILE of kind KIND whose stack holds FUNC
raw_sum () {
	python3 - "$@" <<-\PY
	import re, sys
	path, func, kind, value = sys.argv[1:]
	lines = open(path).read().splitlines()
	i = lines.index("Samples:")
	types = [t.split("/")[0] for t in lines[i + 1].replace("[dflt]", "").split()]
	locs, samples = {}, []
	for l in lines[i + 2:]:
	    m = re.match(r"^\s*(-?\d+(?:\s+-?\d+)*): ([\d ]+)$", l)
	    if m:
	        samples.append([list(map(int, m.group(1).split())),
	                        m.group(2).split(), None])
	        continue
	    m = re.match(r"^\s+kind:\[(\w+)\]", l)
	    if m and samples:
	        samples[-1][2] = m.group(1)
	        continue
	    m = re.match(r"^\s*(\d+): 0x[0-9a-f]+ M=\d+ (\S+)", l)
	    if m:
	        locs[m.group(1)] = m.group(2)
	assert samples and locs, path
	col = types.index(value)
	print(sum(v[col] for v, ids, k in samples
	          if k == kind and any(locs.get(x) == func for x in ids)))
	PY
}

pprof_raw () {
	HOME=$TRASH PPROF_TMPDIR=$TRASH go tool pprof -raw "$1"
}

test_expect_success 'go tool pprof -raw of /debug/pprof/heap: the leak watch finds' '
	"$KMEMTRACE" watch --json -I 1 --older-than 0 -l 0 --follow -- \
		sh -c "\"$PLANT\" plant $PIN-w $N $N >&2; sleep 1.5" >watch.json 2>watch.err &&
	python3 - >watch.counts <<-\PY &&
	import json
	last = [json.loads(l) for l in open("watch.json")][-1]
	cs = last["callsites"]
	pc = [c for c in cs if c["kind"] == "percpu" and
	      c["callsite"].startswith("bpf_map_alloc_percpu+")]
	vm = [c for c in cs if c["kind"] == "vmalloc" and
	      c["callsite"].startswith("__bpf_map_area_alloc+")]
	assert len(pc) == 1 and len(vm) == 1, (pc, vm)
	print(pc[0]["count"], vm[0]["count"])
	PY
	test "$(cat watch.counts)" = "$N $N" &&
	sleep 2 &&
	pprof_raw http://127.0.0.1:$SP/debug/pprof/heap >heap.raw 2>heap.err &&
	grep "^alloc_objects/count alloc_space/bytes inuse_objects/count inuse_space/bytes\[dflt\]$" heap.raw &&
	set -- $(cat watch.counts) &&
	test "$(raw_sum heap.raw bpf_map_alloc_percpu percpu inuse_objects)" = $1 &&
	test "$(raw_sum heap.raw __bpf_map_area_alloc vmalloc inuse_objects)" = $2 &&
	test "$(raw_sum heap.raw __bpf_map_area_alloc vmalloc inuse_space)" -gt $((N * 37 * 4096)) &&
	pprof_raw http://127.0.0.1:$SP/debug/pprof/allocs >allocs.raw 2>&1 &&
	grep "^alloc_objects/count alloc_space/bytes\[dflt\] inuse_objects/count inuse_space/bytes$" allocs.raw
'

# the profile's wait, begun here so that cleanup can end it
(pprof_raw "http://127.0.0.1:$SP/debug/pprof/heap?seconds=4" >delta.raw 2>delta.err
 echo $? >delta.rc) &
CURL=$!
sleep 1
test_expect_success '?seconds=4: what a planting meanwhile changed' '
	"$PLANT" plant $PIN-d $N $N &&
	rm -rf "$PIN-w" &&
	wait_for . delta.rc && test "$(cat delta.rc)" = 0 &&
	test "$(raw_sum delta.raw bpf_map_alloc_percpu percpu alloc_objects)" = $N &&
	test "$(raw_sum delta.raw __bpf_map_area_alloc vmalloc alloc_objects)" = $N &&
	inuse=$(raw_sum delta.raw bpf_map_alloc_percpu percpu inuse_objects) &&
	test "$(raw_sum delta.raw __bpf_map_area_alloc vmalloc inuse_objects)" -le $N &&
	test $inuse -le $N && test $inuse -ge 0 &&
	rm -rf "$PIN-d"
'
wait $CURL
CURL=

test_expect_success 'OpenMetrics when asked: # EOF, counters named bare' '
	get http://127.0.0.1:$SP/metrics "application/openmetrics-text;version=1.0.0,text/plain;q=0.5" >om &&
	head -n 1 om | grep "^application/openmetrics-text; version=1.0.0" &&
	grep "^# TYPE kmemtrace_allocations counter$" om &&
	grep "^kmemtrace_allocations_total{" om &&
	test "$(tail -n 1 om)" = "# EOF" &&
	get http://127.0.0.1:$SP/metrics >plain &&
	grep "^# TYPE kmemtrace_allocations_total counter$" plain &&
	! grep "# EOF" plain
'

test_expect_success 'many callsites: never more than --top + 1 series per kind and dimension' '
	for i in 1 2 3; do
		find /usr/lib -maxdepth 3 >/dev/null
		tar cf - /usr/share/doc 2>/dev/null | gzip -1 >/dev/null
		python3 -c "import socket, os; [socket.socket().close() for _ in range(50)]; os.listdir(\"/proc\")"
		# a task that ends between the glob and its read fails cat:
		# the workload is all that matters here, not its status
		cat /proc/*/status >/dev/null 2>&1 || :
	done &&
	sleep 1 &&
	get http://127.0.0.1:$SP/metrics >metrics &&
	python3 - $TOPN <<-\PY
	import collections, re, sys
	top = int(sys.argv[1])
	groups = collections.Counter()
	others = set()
	for l in open("metrics"):
	    if l.startswith("#"):
	        continue
	    m = re.match(r"^(kmemtrace_\w+)\{(.*)\} \S+$", l)
	    if not m or m.group(1) not in ("kmemtrace_allocations_total",
	            "kmemtrace_frees_total", "kmemtrace_allocated_bytes_total",
	            "kmemtrace_live_objects", "kmemtrace_live_bytes"):
	        continue
	    labels = dict(re.findall(r"(\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"", m.group(2)))
	    dims = [d for d in ("callsite", "cache", "cgroup") if d in labels]
	    assert len(dims) == 1, l
	    key = (m.group(1), labels.get("kind", ""), dims[0])
	    groups[key] += 1
	    if labels[dims[0]] == "(other)":
	        others.add(key)
	assert groups, "no series"
	worst = max(groups.values())
	assert worst <= top + 1, [(k, n) for k, n in groups.items() if n > top + 1]
	# the bound was met: slab callsites beyond it went to "(other)"
	k = ("kmemtrace_allocations_total", "slab", "callsite")
	assert k in others and groups[k] == top + 1, (groups[k], others)
	PY
'

test_expect_success 'gzip when asked, the version and the start time; 405 says what is allowed' '
	python3 - http://127.0.0.1:$SP/metrics <<-\PY
	import gzip, sys, time, urllib.error, urllib.request
	req = urllib.request.Request(sys.argv[1], headers={"Accept-Encoding": "gzip"})
	with urllib.request.urlopen(req, timeout=60) as r:
	    assert r.headers.get("Content-Encoding") == "gzip", r.headers
	    assert "Accept-Encoding" in r.headers.get("Vary", ""), r.headers
	    text = gzip.decompress(r.read()).decode()
	assert "\nkmemtrace_updates_total " in text, text[:300]
	assert "\nkmemtrace_build_info{version=\"" in text
	start = [l for l in text.splitlines() if l.startswith("kmemtrace_start_time_seconds ")]
	assert start and 0 <= time.time() - int(start[0].split()[1]) < 3600, start
	with urllib.request.urlopen(sys.argv[1], timeout=60) as r:
	    assert r.headers.get("Content-Encoding") is None
	    assert r.read().startswith(b"# HELP")
	try:
	    urllib.request.urlopen(urllib.request.Request(sys.argv[1], method="POST", data=b""), timeout=60)
	    sys.exit("POST was taken")
	except urllib.error.HTTPError as e:
	    assert e.code == 405 and e.headers.get("Allow") == "GET, HEAD", (e.code, e.headers)
	PY
'

test_expect_success 'a second serve on the same port is refused, the first one answers' '
	# a second one that started would run on: held to 20 s, it fails
	timeout 20 "$KMEMTRACE" serve --listen 127.0.0.1:$SP >out2 2>err2; test $? = 2 &&
	grep "cannot listen on .127.0.0.1:$SP.: Address already in use" err2 &&
	test $(bpftool prog show | grep -c "name kmt_") -gt 0 &&
	get http://127.0.0.1:$SP/metrics >m2 && grep "^kmemtrace_updates_total" m2
'

test_expect_success '?seconds=N: at most 8 wait at once, /metrics answers meanwhile' '
	pids= &&
	for i in 1 2 3 4 5 6 7 8; do
		python3 -c "import sys, urllib.request
urllib.request.urlopen(sys.argv[1], timeout=60).read()" \
			"http://127.0.0.1:$SP/debug/pprof/heap?seconds=6" &
		pids="$pids $!"
	done &&
	sleep 2 &&
	python3 - http://127.0.0.1:$SP/debug/pprof/heap?seconds=6 <<-\PY &&
	import sys, urllib.error, urllib.request
	try:
	    urllib.request.urlopen(sys.argv[1], timeout=60)
	    sys.exit("a ninth wait was taken")
	except urllib.error.HTTPError as e:
	    assert e.code == 503, e.code
	PY
	get http://127.0.0.1:$SP/metrics >m3 && grep "^kmemtrace_updates_total" m3 &&
	for p in $pids; do wait $p || exit 1; done
'

test_expect_success 'SIGHUP: loaded again, no descriptor or program more' '
	# the scrapers connections come and go: what is not a socket
	fds0=$(ls -l /proc/$SERVE/fd | grep -vc "socket:") &&
	progs0=$(bpftool prog show | grep -c "name kmt_") &&
	kill -HUP $SERVE &&
	wait_for "SIGHUP: programs loaded again" serve.err &&
	sleep 1 &&
	test "$(ls -l /proc/$SERVE/fd | grep -vc "socket:")" = $fds0 &&
	test "$(bpftool prog show | grep -c "name kmt_")" = $progs0 &&
	get http://127.0.0.1:$SP/metrics >after-hup &&
	grep "^kmemtrace_updates_total [0-9]$" after-hup
'

kill -TERM $SERVE
wait $SERVE
echo $? >serve.rc
SERVE=
kill $PROM
wait $PROM
PROM=
test_expect_success 'SIGTERM: exit 0, and no BPF program is left' '
	test "$(cat serve.rc)" = 0 &&
	grep "stopped$" serve.err &&
	bpf_programs_gone
'

mkdir tf
"$KMEMTRACE" serve --textfile tf --interval 0.2 --top 2 \
	--allocinfo "$DATA/allocinfo/v1.txt" 2>tf.err &
SERVE=$!
wait_for "^kmemtrace serve: writing tf/kmemtrace.prom" tf.err
i=0
while ! test -s tf/kmemtrace.prom && [ $i -le 100 ]; do
	i=$((i + 1))
	sleep 0.1
done
sleep 1
kill -TERM $SERVE
wait $SERVE
echo $? >tf.rc
SERVE=
test_expect_success '--textfile: the metrics written whole, renamed into place' '
	test "$(cat tf.rc)" = 0 &&
	grep "^# TYPE kmemtrace_allocations_total counter$" tf/kmemtrace.prom &&
	grep "^kmemtrace_updates_total [0-9]*$" tf/kmemtrace.prom &&
	test "$(ls -A tf)" = kmemtrace.prom &&
	bpf_programs_gone
'

# the 8 tags of the file: the top 2, and 6 in "(other)"
test_expect_success '--allocinfo: the tags of the file, the top ones and the rest' '
	grep "^kmemtrace serve: the allocation tags of .*v1.txt at each scrape, up to 3 series$" tf.err &&
	grep "^kmemtrace_allocinfo_up 1$" tf/kmemtrace.prom &&
	grep "^kmemtrace_allocinfo_tags 8$" tf/kmemtrace.prom &&
	grep "^kmemtrace_allocinfo_total_bytes 1703936$" tf/kmemtrace.prom &&
	grep "^kmemtrace_allocinfo_bytes{function=\"alloc_slab_page\",location=\"mm/slub.c:2474\"} 1048576$" tf/kmemtrace.prom &&
	grep "^kmemtrace_allocinfo_calls{function=\"alloc_page_ext\",location=\"mm/page_ext.c:270\"} 128$" tf/kmemtrace.prom &&
	grep "^kmemtrace_allocinfo_bytes{function=\"(other)\"} $((1703936 - 1048576 - 524288))$" tf/kmemtrace.prom &&
	test "$(grep -c "^kmemtrace_allocinfo_bytes{" tf/kmemtrace.prom)" = 3
'

test_expect_success '--allocinfo of a file that cannot be read: one line, exit 2' '
	"$KMEMTRACE" serve --textfile tf --allocinfo nosuch 2>err; test $? = 2 &&
	test "$(cat err)" = "kmemtrace serve: error: cannot read '\''nosuch'\'': No such file or directory"
'

test_done
