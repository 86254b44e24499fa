#!/bin/sh
# A kernel-heavy workload for the benchmarks and the demo: several
# `find /usr`, a stream of short-lived processes and a tar of
# /usr/share/doc, all in parallel.  On 2 cores it makes well over a
# million kmem events per second (dentries, inodes, pages, task structs).
#
#   bench/workload.sh SECONDS      run for about SECONDS, then stop
#   bench/workload.sh -n N         fixed work: N rounds of each worker
#                                  (for timing: the same work every run)
set -u

usage () {
	echo "usage: workload.sh SECONDS | -n ROUNDS" >&2
	exit 129
}

rounds=0 seconds=0
case "${1:-}" in
-n)	[ $# -eq 2 ] || usage; rounds=$2 ;;
''|-*)	usage ;;
*)	[ $# -eq 1 ] || usage; seconds=$1 ;;
esac
case "$rounds$seconds" in *[!0-9]*) usage ;; esac
[ "$rounds" -gt 0 ] || [ "$seconds" -gt 0 ] || usage

# runs "$@" once per round, or until stopped; a TERM ends the current
# command too, so the workload stops when asked
worker () {
	child=
	trap '[ -n "$child" ] && kill "$child" 2>/dev/null; exit 0' TERM
	i=0
	while [ "$rounds" -eq 0 ] || [ "$i" -lt "$rounds" ]; do
		"$@" &
		child=$!
		wait "$child"
		child=
		i=$((i + 1))
	done
}

finder () {
	find /usr -xdev >/dev/null 2>&1
}

# 200 processes that each exec and exit at once
spawner () {
	j=0
	while [ $j -lt 200 ]; do
		/bin/true
		j=$((j + 1))
	done
}

# through a pipe: GNU tar does not read the files when writing to /dev/null
archiver () {
	tar cf - /usr/share/doc 2>/dev/null | cat >/dev/null
}

pids=
for w in finder finder spawner archiver; do
	worker $w &
	pids="$pids $!"
done
if [ "$seconds" -gt 0 ]; then
	trap 'kill $pids 2>/dev/null; wait; exit 0' INT TERM HUP
	sleep "$seconds"
	# shellcheck disable=SC2086
	kill $pids 2>/dev/null
fi
wait
