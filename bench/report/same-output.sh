#!/bin/sh
# Two builds of kmemtrace give the same report, byte for byte.
#
#   bench/report/same-output.sh BEFORE AFTER [FILE...]
#
# BEFORE and AFTER are kmemtrace binaries (build/before/kmemtrace,
# build/kmemtrace).  Each runs `report` on every file under tests/data,
# every file of /work/shared/corpus (SAME_CORPUS=DIR for another, or
# empty for none) and the benchmark recordings in $KMT_BENCH_DIR
# (default /var/tmp/kmemtrace-bench), plus any FILE given, with several
# sets of options (text and --json, the tables, the views); the two
# runs' standard output, standard error and exit status must agree.  A
# file that is not a recording must fail the same way in both.  Speed
# work on the readers must not move a byte of any report.
#
# Prints one line per difference and a summary; exits 1 on any.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${KMT_BENCH_DIR:-/var/tmp/kmemtrace-bench}
CORPUS=${SAME_CORPUS-/work/shared/corpus}

die () { echo "bench/report/same-output: $*" >&2; exit 2; }
[ $# -ge 2 ] || die "usage: same-output.sh BEFORE AFTER [FILE...]"
before=$1
after=$2
shift 2
for b in "$before" "$after"; do
	[ -x "$b" ] || die "'$b' is not an executable"
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kmt-same.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

list=$tmp/files
find "$TOP/tests/data" -type f | sort >"$list"
if [ -n "$CORPUS" ] && [ -d "$CORPUS" ]; then
	find "$CORPUS" -type f | sort >>"$list"
fi
for f in "$DIR"/bench.perf.data "$DIR"/bench.trace.dat \
	 "$DIR"/bench.trace.txt; do
	[ -s "$f" ] && echo "$f" >>"$list"
done
for f in "$@"; do
	echo "$f" >>"$list"
done

# one set of options a line; the large files get the first four only
# (every view on every file of the bench would take minutes)
opts=$tmp/opts
cat >"$opts" <<'EOF'
-
--json
--slab --page --caller --alloc
--slab --page --caller --alloc --json
--leaks --errors --procs --lifetimes --timeline --profile
--leaks --errors --procs --lifetimes --timeline --profile --json
--slab --page --caller --alloc --pcpu --extfrag --caches --sizes --percpu --vmalloc
--caller --alloc -s ptr,hit --csv
EOF

run () {	# binary, file, options, output prefix
	bin=$1 f=$2 o=$3 out=$4
	[ "$o" = - ] && o=
	# shellcheck disable=SC2086 # the options split on purpose
	set +e
	"$bin" report $o -i "$f" >"$out.out" 2>"$out.err" </dev/null
	echo "rc=$?" >>"$out.err"
	set -e
	# the binary's own path may appear in messages
	sed -i "s|$bin|KMT|g" "$out.err"
}

nr=0 bad=0
while read -r f; do
	size=$(stat -c %s "$f")
	n=0
	while read -r o; do
		n=$((n + 1))
		[ "$size" -gt 50000000 ] && [ $n -gt 4 ] && break
		run "$before" "$f" "$o" "$tmp/a"
		run "$after" "$f" "$o" "$tmp/b"
		nr=$((nr + 1))
		if ! cmp -s "$tmp/a.out" "$tmp/b.out" ||
		   ! cmp -s "$tmp/a.err" "$tmp/b.err"; then
			bad=$((bad + 1))
			echo "DIFFERS: report $o -i $f"
		fi
	done <"$opts"
done <"$list"
echo "same-output: $nr runs on $(wc -l <"$list") files, $bad differ"
[ $bad = 0 ]
