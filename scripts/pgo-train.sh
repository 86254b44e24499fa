#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The training run of the profile-guided build (see the Makefile, PGO):
# an instrumented kmemtrace reads the real recordings in tests/data the
# way people run it, and leaves its profile (.gcda files) beside its
# objects.  Every reader (perf.data, trace.dat v6 and v7, ftrace and
# perf script text), both analyses with their tables, the views, text,
# JSON and CSV, one and two threads.
#
#   scripts/pgo-train.sh KMEMTRACE DATA_DIR
set -eu

kmt=$1
data=$2

die () { echo "pgo-train: $*" >&2; exit 1; }
[ -x "$kmt" ] || die "'$kmt' is not an executable"
[ -d "$data" ] || die "no recordings in '$data'"

run () {
	"$kmt" "$@" >/dev/null 2>&1 ||
		die "'kmemtrace $*' failed on a recording that must read (make PGO=0 builds without this training run)"
}

for f in perf-both-g.data perf-lost.data capture.dat capture.v6.dat \
	 capture.v7.dat capture.trace.txt capture.perf.txt capture.report.txt; do
	in=$data/$f
	[ -f "$in" ] || die "missing recording '$in'"
	# the usual job eight times: where its paths share code with the
	# rarer options', the profile lays that code out for it
	for i in 1 2 3 4 5 6 7 8; do
		run report --slab --page --caller --alloc -i "$in"
	done
	run report -i "$in"
	run report --threads 1 --slab --page --caller --alloc -i "$in"
	run report --slab --page --caller --alloc --json -i "$in"
	run report --slab --caller --csv -s ptr -i "$in"
	run report --leaks --errors --procs --caches --sizes --lifetimes \
		--timeline --pcpu --extfrag -i "$in"
done
