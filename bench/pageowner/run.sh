#!/bin/sh
# kmemtrace pageowner against page_owner_sort: time, peak memory, groupings.
#
#   bench/pageowner/run.sh KERNEL_SRC [SIZE_MB]
#
# Builds page_owner_sort from KERNEL_SRC/tools/mm/page_owner_sort.c (or
# tools/vm/ on kernels before 6.3) and a dump generator into a temporary
# directory, writes a SIZE_MB (default 1100) dump in the current
# page_owner format, then runs each job three times, the two tools
# alternating, and prints the median wall time, CPU time (user + system)
# and peak RSS of each, and whether both grouped the records alike.
# $KMEMTRACE picks the binary (default: build/kmemtrace); $TMPDIR where
# the dump goes.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
KSRC=${1:?usage: run.sh KERNEL_SRC [SIZE_MB]}
SIZE=${2:-1100}
KMEMTRACE=${KMEMTRACE:-$TOP/build/kmemtrace}
ROUNDS=3

src=
for f in "$KSRC/tools/mm/page_owner_sort.c" "$KSRC/tools/vm/page_owner_sort.c"; do
	[ -f "$f" ] && src=$f && break
done
[ -n "$src" ] || { echo "run.sh: no tools/mm/page_owner_sort.c under '$KSRC'" >&2; exit 1; }
[ -x "$KMEMTRACE" ] || { echo "run.sh: no kmemtrace binary at '$KMEMTRACE' (make first)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kmt-pobench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
cc -O2 -o "$tmp/page_owner_sort" "$src"
cc -O2 -o "$tmp/gen" "$HERE/gen.c"
cc -O2 -o "$tmp/measure" "$HERE/measure.c"
POS=$tmp/page_owner_sort

echo "page_owner_sort: $src"
echo "kmemtrace:       $KMEMTRACE"
echo "generating a ${SIZE} MB dump ..."
"$tmp/gen" -s "$SIZE" -o "$tmp/dump.txt"
echo "dump: $(wc -c <"$tmp/dump.txt") bytes, $(grep -c '^Page allocated' "$tmp/dump.txt") records"

# page_owner_sort since 6.9 leaves timestamps out of a record's text; older
# ones keep them, which kmemtrace does when sorting by allocation time
if grep -q remove_pattern "$src"; then same_text=; else same_text=-a; fi

median () {
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# job name, page_owner_sort options, kmemtrace options
run_job () {
	name=$1 popts=$2 kopts=$3
	: >"$tmp/pos.t"; : >"$tmp/kmt.t"
	i=0
	while [ $i -lt $ROUNDS ]; do
		# shellcheck disable=SC2086
		"$tmp/measure" "$POS" $popts "$tmp/dump.txt" "$tmp/pos.out" >>"$tmp/pos.t"
		# shellcheck disable=SC2086
		"$tmp/measure" "$KMEMTRACE" pageowner $kopts "$tmp/dump.txt" "$tmp/kmt.out" >>"$tmp/kmt.t"
		i=$((i + 1))
	done
	pw=$(cut -d' ' -f1 <"$tmp/pos.t" | median); pm=$(cut -d' ' -f2 <"$tmp/pos.t" | median)
	kw=$(cut -d' ' -f1 <"$tmp/kmt.t" | median); km=$(cut -d' ' -f2 <"$tmp/kmt.t" | median)
	pc=$(cut -d' ' -f3 <"$tmp/pos.t" | median); kc=$(cut -d' ' -f3 <"$tmp/kmt.t" | median)
	if python3 "$HERE/compare.py" "$tmp/pos.out" "$tmp/kmt.out" >"$tmp/cmp"; then
		same="same groupings ($(sed 's/.*: //' "$tmp/cmp"))"
	else
		same="GROUPINGS DIFFER: $(head -1 "$tmp/cmp")"
	fi
	awk -v n="$name" -v pw="$pw" -v pm="$pm" -v kw="$kw" -v km="$km" \
	    -v pc="$pc" -v kc="$kc" -v s="$same" 'BEGIN {
		printf "%-20s page_owner_sort %7.2f s (cpu %6.2f s) %7.1f MiB | kmemtrace %6.2f s (cpu %5.2f s) %6.1f MiB | %4.1fx faster (cpu %4.1fx), %5.1fx less memory | %s\n",
			n, pw, pc, pm / 1024, kw, kc, km / 1024, pw / kw, pc / kc, pm / km, s }'
}

echo "median of $ROUNDS runs, alternating:"
run_job "default" "" "$same_text"
run_job "--cull=stacktrace" "--cull=stacktrace" "--cull=stacktrace"
run_job "-m --cull=pid,name" "-m --cull=pid,name" "-m --cull=pid,name"
