#!/bin/sh
# Plants a known number of percpu objects and vmalloc areas in the
# kernel, and frees them, with pinned BPF maps (bpftool):
#
#   plant-maps.sh plant DIR NPERCPU NVMALLOC [PAGES]
#       DIR/pcpu: a percpu_array of NPERCPU entries of 8 bytes, one
#       percpu object each, allocated at bpf_map_alloc_percpu (none when
#       NPERCPU is 0); DIR/vm0 .. DIR/vm<NVMALLOC-1>: arrays of PAGES
#       (default 37) entries of 4096 bytes, one vmalloc area each,
#       allocated at __bpf_map_area_alloc
#   plant-maps.sh free DIR [NAME...]
#       unpins NAMEs (all of DIR when none are given); the kernel frees a
#       map once nothing holds it, after an RCU grace period
#
# DIR is made under /sys/fs/bpf (mounted when it is not).  bpftool itself
# allocates percpu and vmalloc memory for its feature probes: count only
# the callsites above.
set -e
die() { echo "plant-maps: $*" >&2; exit 1; }
BPFTOOL=$(command -v bpftool || echo /usr/sbin/bpftool)
[ -x "$BPFTOOL" ] || die "bpftool is not installed"

mountpoint -q /sys/fs/bpf 2>/dev/null ||
	mount -t bpf bpf /sys/fs/bpf 2>/dev/null ||
	die "bpffs is not mounted at /sys/fs/bpf and could not be"

cmd=${1:-}
dir=${2:-}
[ -n "$dir" ] || die "usage: plant-maps.sh plant|free DIR ..."
case $dir in /sys/fs/bpf/*) ;; *) dir=/sys/fs/bpf/$dir ;; esac

case $cmd in
plant)
	npcpu=${3:?NPERCPU}
	nvm=${4:?NVMALLOC}
	pages=${5:-37}
	mkdir -p "$dir"
	if [ "$npcpu" -gt 0 ]; then
		"$BPFTOOL" map create "$dir/pcpu" type percpu_array key 4 \
			value 8 entries "$npcpu" name kmt_pcpu ||
			die "cannot create a percpu_array of $npcpu entries"
	fi
	i=0
	while [ "$i" -lt "$nvm" ]; do
		"$BPFTOOL" map create "$dir/vm$i" type array key 4 \
			value 4096 entries "$pages" name kmt_vm ||
			die "cannot create array map $i of $pages pages"
		i=$((i + 1))
	done
	;;
free)
	shift 2
	if [ $# -eq 0 ]; then
		rm -rf "$dir"
	else
		for n in "$@"; do
			rm -f "$dir/$n"
		done
	fi
	;;
*)
	die "unknown command '$cmd' (plant or free)"
	;;
esac
