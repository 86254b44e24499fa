# libFuzzer targets (tests/fuzz/README.md), included by the top Makefile.
#
#   make fuzz-build             build/fuzz/fuzz-<target>, one per target
#   make fuzz FUZZ_TIME=60      each target for FUZZ_TIME seconds on a copy
#                               of its seeds (build/fuzz/corpus/<target>);
#                               crashes land in build/fuzz/crashes/<target>
#   make fuzz FUZZ_TARGETS='tracedat6 report'   some of them
#   make fuzz FUZZ_SEEDS=small  seeded with tests/fuzz/seeds only (long runs)
#
# clang with libFuzzer, AddressSanitizer and UBSan, over the lib/ sources
# compiled again into build/fuzz/obj: the report and pageowner targets
# call lib/run as the commands do, no command.  The BPF loader and the recorder are left out:
# no input reaches them.

FUZZ_CC	?= clang
FUZZ_O	:= build/fuzz
FUZZ_TIME ?= 60
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all \
	    -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=gnu11 -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
	       -Wall -Wextra -Wshadow -Wno-format-nonliteral -Wno-unused-function \
	       -D_GNU_SOURCE -Ilib -Isrc -I$(O)/gen \
	       $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
FUZZ_LIBS = $(shell pkg-config --libs libtraceevent libtracefs libtracecmd \
	    libzstd zlib 2>/dev/null) -lm -lpthread

FUZZ_TARGETS ?= perfdata perfpipe tracedat6 tracedat7 tracedatz ftrace \
		perfscript pageowner report

FUZZ_LIB_SRCS := $(filter-out lib/bpf/% lib/record/%,$(LIB_SRCS))
FUZZ_CMD_SRCS :=
FUZZ_OBJS := $(patsubst %.c,$(FUZZ_O)/obj/%.o,$(FUZZ_LIB_SRCS) $(FUZZ_CMD_SRCS))
FUZZ_BINS := $(patsubst %,$(FUZZ_O)/fuzz-%,$(FUZZ_TARGETS))

# seeds per target: recordings from tests/data, and small recordings of
# the same formats made for fuzzing (tests/fuzz/seeds/<target>, README)
FUZZ_SEEDS_perfdata   := tests/data/perf-both-g.data tests/data/perf-lost.data \
			 tests/data/perf-z.data tests/data/perf-clock.data
FUZZ_SEEDS_perfpipe   := tests/data/perf-slab-pipe.data
FUZZ_SEEDS_tracedat6  := tests/data/capture.v6.dat tests/data/record/small.dat \
			 tests/data/record/boot.dat
FUZZ_SEEDS_tracedat7  := tests/data/capture.v7.dat
FUZZ_SEEDS_tracedatz  := tests/data/capture.dat tests/data/capture-lost.dat
FUZZ_SEEDS_ftrace     := $(wildcard tests/data/text/ftrace-*.txt \
			 tests/data/text/function-graph-*.txt) \
			 tests/data/capture.trace.txt tests/data/capture.noirq.txt \
			 tests/data/capture.tgid.txt
FUZZ_SEEDS_perfscript := tests/data/text/perf-both-g.script.txt \
			 tests/data/capture.perf.txt tests/data/capture-lost.pipe.txt
FUZZ_SEEDS_pageowner  := $(filter %.txt,$(wildcard tests/data/pageowner/*))
FUZZ_SEEDS_report     := tests/data/capture.v6.dat tests/data/perf-both-g.data \
			 tests/data/capture.trace.txt tests/data/capture.dat

# FUZZ_SEEDS=small: only the small seeds, for long runs (a whole recording
# costs a binary target ten times more a input than a few formats do)
FUZZ_SMALL_report := tests/fuzz/seeds/tracedat6/slab.dat \
		     tests/fuzz/seeds/tracedatz/page-g.dat \
		     tests/fuzz/seeds/perfdata/page-g.data \
		     tests/data/text/ftrace-6.18-fields.txt
fuzz_small = $(or $(FUZZ_SMALL_$(1)),$(wildcard tests/fuzz/seeds/$(1)/*))
fuzz_seeds = $(if $(filter small,$(FUZZ_SEEDS)),$(or $(call fuzz_small,$(1)), \
	     $(FUZZ_SEEDS_$(1))),$(FUZZ_SEEDS_$(1)) $(call fuzz_small,$(1)))

# the largest seed is 262 KB; room to grow, not to swell.  A long run
# sets FUZZ_FLAGS itself (tests/fuzz/README.md)
FUZZ_FLAGS ?= -rss_limit_mb=1024 -malloc_limit_mb=1024 -max_len=400000 \
	      -timeout=30 -print_final_stats=1 -workers=1

# text is read line by line: small inputs reach as far, many times faster
FUZZ_FLAGS_ftrace     := -max_len=8192
FUZZ_FLAGS_perfscript := -max_len=8192
FUZZ_FLAGS_pageowner  := -max_len=8192

.PHONY: fuzz fuzz-build

fuzz-build: $(FUZZ_BINS)

$(FUZZ_O)/obj/.cflags: FORCE
	@mkdir -p $(dir $@)
	@printf '%s\n' '$(FUZZ_CC) $(FUZZ_CFLAGS)' | cmp -s - $@ || \
		printf '%s\n' '$(FUZZ_CC) $(FUZZ_CFLAGS)' >$@

$(FUZZ_O)/obj/%.o: %.c $(FUZZ_O)/obj/.cflags
	@mkdir -p $(dir $@)
	$(say) FUZZCC $<
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

# the HTML report's script and style, generated (Makefile)
$(FUZZ_O)/obj/lib/render/html.o: $(O)/gen/html-assets.h

$(FUZZ_O)/fuzz-%: tests/fuzz/fuzz.c $(FUZZ_OBJS) $(FUZZ_O)/obj/.cflags
	@mkdir -p $(dir $@)
	$(say) FUZZLD $@
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer \
		-DFUZZ_TARGET_$(shell echo $* | tr a-z A-Z) -o $@ $< \
		$(FUZZ_OBJS) $(FUZZ_LIBS)

fuzz: $(FUZZ_BINS)
	@$(foreach t,$(FUZZ_TARGETS),tests/fuzz/run.sh $(FUZZ_O) $(t) \
		$(FUZZ_TIME) '$(FUZZ_FLAGS) $(FUZZ_FLAGS_$(t))' \
		$(call fuzz_seeds,$(t)) &&) true

-include $(shell find $(FUZZ_O)/obj -name '*.d' 2>/dev/null)

# the seeds of FUZZ_TARGETS, one a line, for tests/t0900-fuzz.sh
.PHONY: fuzz-seeds
fuzz-seeds:
	@printf '%s\n' $(sort $(foreach t,$(FUZZ_TARGETS),$(call fuzz_seeds,$(t))))
