# The build-id cache the tests give perf and kmemtrace, sourced by lib.sh
# (once per test file run alone) and run.sh (once per run, shared).
#
# perf and kmemtrace name a perf.data's kernel addresses from perf's
# build-id cache (~/.debug), which depends on the machine and its user.
# Tests use their own, holding the kallsyms of the kernels the committed
# perf.data files were recorded on (their build ids, `perf buildid-list`),
# each made from the committed `perf script -g` text of its recordings
# (tests/make-kallsyms.py).
REC_BUILD_ID=48dc540c8b76393804ca8088dbfa7d42911a9444
# the kernel of percpu-vmalloc.data (scripts/make-percpu-capture.sh)
PV_BUILD_ID=a3e4cd60a8ec14f02aa41b41d5b5846d3d9f1dd8

# make_buildid_dir DIR: DIR/[kernel.kallsyms]/ID/kallsyms for each kernel
make_buildid_dir () {
	mkdir -p "$1/[kernel.kallsyms]/$REC_BUILD_ID" \
		"$1/[kernel.kallsyms]/$PV_BUILD_ID" &&
	python3 "$TESTS_DIR/make-kallsyms.py" "$TESTS_DIR/data/text/perf-both-g.script.txt" \
		>"$1/[kernel.kallsyms]/$REC_BUILD_ID/kallsyms" &&
	python3 "$TESTS_DIR/make-kallsyms.py" "$TESTS_DIR/data/text/percpu-vmalloc.script.txt" \
		>"$1/[kernel.kallsyms]/$PV_BUILD_ID/kallsyms"
}
