# The build-id cache the tests give perf and kmemtrace, sourced by lib.sh
# (once per test file run alone) and run.sh (once per run, shared).
#
# perf and kmemtrace name a perf.data's kernel addresses from perf's
# build-id cache (~/.debug), which depends on the machine and its user.
# Tests use their own, holding the kallsyms of the kernel the committed
# perf.data files were recorded on (its build id, `perf buildid-list`),
# made from the committed `perf script -g` text (tests/make-kallsyms.py).
REC_BUILD_ID=48dc540c8b76393804ca8088dbfa7d42911a9444

# make_buildid_dir DIR: DIR/[kernel.kallsyms]/$REC_BUILD_ID/kallsyms
make_buildid_dir () {
	mkdir -p "$1/[kernel.kallsyms]/$REC_BUILD_ID" &&
	python3 "$TESTS_DIR/make-kallsyms.py" "$TESTS_DIR/data/text/perf-both-g.script.txt" \
		>"$1/[kernel.kallsyms]/$REC_BUILD_ID/kallsyms"
}
