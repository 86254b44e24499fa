#!/bin/sh
# plant-maps.sh COUNT DIR: makes COUNT percpu objects and COUNT vmalloc
# areas the kernel keeps until DIR is removed (rm -rf DIR, then wait for
# the RCU-deferred frees): a percpu_array map of COUNT entries (one
# percpu allocation an entry, at bpf_map_alloc_percpu) and COUNT array
# maps of 256 entries of 4096 bytes (each vmalloc'd, 1 MiB, through
# __bpf_map_area_alloc), pinned in DIR on bpffs.  Prints "planted" last.
set -e
count=$1
dir=$2
[ -n "$count" ] && [ -n "$dir" ] || {
	echo "usage: plant-maps.sh COUNT DIR" >&2
	exit 2
}
bpftool=${BPFTOOL:-$(command -v bpftool || echo /usr/sbin/bpftool)}
grep -q " /sys/fs/bpf bpf " /proc/mounts || mount -t bpf bpf /sys/fs/bpf
mkdir -p "$dir"
"$bpftool" map create "$dir/pa" type percpu_array key 4 value 8 \
	entries "$count" name kmt_plant_pa
i=0
while [ $i -lt "$count" ]; do
	"$bpftool" map create "$dir/va$i" type array key 4 value 4096 \
		entries 256 name kmt_plant_va
	i=$((i + 1))
done
echo planted
