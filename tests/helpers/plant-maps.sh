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
#       unpins NAMEs (all of DIR when none are given) and waits (up to
#       20 s) until the vmalloc areas of the vm* maps among them are gone
#       from /proc/vmallocinfo: the kernel frees a map in a worker after
#       an RCU grace period, which on a loaded machine can come well after
#       the unpin, and a recording stopped before it would miss the free
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

# the array maps' vmalloc areas the kernel lists (the caller it names is
# the map type's allocator, or the map area allocator where that is not
# inlined); empty when /proc/vmallocinfo cannot be read
map_areas() {
	[ -r /proc/vmallocinfo ] || return 0
	grep -c 'array_map_alloc\|bpf_map_area_alloc' /proc/vmallocinfo || :
}

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
	[ $# -gt 0 ] || set -- $(ls "$dir" 2>/dev/null)
	nvm=0
	for n in "$@"; do
		case $n in vm*) [ -e "$dir/$n" ] && nvm=$((nvm + 1)) ;; esac
	done
	before=$(map_areas)
	for n in "$@"; do
		rm -f "$dir/$n"
	done
	rmdir "$dir" 2>/dev/null || :
	[ "$nvm" -gt 0 ] && [ -n "$before" ] || exit 0
	tries=0
	while [ "$(map_areas)" -gt $((before - nvm)) ]; do
		tries=$((tries + 1))
		[ $tries -lt 400 ] ||
			die "the $nvm unpinned array maps' vmalloc areas were not freed in 20 s"
		sleep 0.05
	done
	;;
*)
	die "unknown command '$cmd' (plant or free)"
	;;
esac
