# kmemtrace: trace and analyse Linux kernel memory allocation
#
#   make            build build/kmemtrace and its manual pages (installs
#                   missing packages first)
#   make V=1        the same, printing every command
#   make doc        the manual pages alone: build/doc/*.1
#   make install    the binary, the pages (and the bash completion) under
#                   PREFIX (/usr/local); DESTDIR for packagers
#   make uninstall  removes what install put
#   make check      every test: unit, end-to-end, and again under ASan+UBSan
#   make test       the plain build and its tests only (a few minutes);
#                   T=t0100 the tests of one area: tNNNN files whose name
#                   starts with it, unit tests named test-T (T=text)
#   make bench      the benchmarks (see bench/README.md)
#   make fuzz       each libFuzzer target for FUZZ_TIME seconds (tests/fuzz)

CC	?= cc
PKGS	:= libtraceevent libtracefs libtracecmd libzstd zlib
# top and watch: their BPF programs load through libbpf
PKGS	+= libbpf
# serve: its HTTP server
PKGS	+= libmicrohttpd
O	?= build
SAN	?=
VERSION	:= $(shell sed -n 's/.*KMT_VERSION "\(.*\)"/\1/p' src/builtin.h)

# where install puts things, as the GNU conventions name them: make
# install PREFIX=/usr DESTDIR=/tmp/pkg (prefix=/usr works too)
PREFIX	= /usr/local
prefix	= $(PREFIX)
exec_prefix = $(prefix)
bindir	= $(exec_prefix)/bin
datarootdir = $(prefix)/share
mandir	= $(datarootdir)/man
man1dir	= $(mandir)/man1
bashcompdir = $(datarootdir)/bash-completion/completions
# serve's unit: systemd reads /usr/lib and /usr/local/lib alike
systemdunitdir = $(prefix)/lib/systemd/system
INSTALL	= install

# -Werror where a diagnostic depends on the source alone: compiling each
# file, plainly and under the sanitizers.  What gcc finds while it links
# (link-time optimization inlines across files, and with a profile what
# it inlines depends on the training run) is printed but fails no build.
WARN	:= -Wall -Wextra -Wshadow -Wformat=2 -Wno-format-nonliteral -Werror
LINK_FLAGS = -Wno-error $(PREFIX_MAP)
# link-time optimization: the event path crosses files (hash lookups,
# number formatting) in every event and every row drawn
CFLAGS	?= -O2 -g -flto=auto
# the same bytes from any clone, directory or $HOME: no build path in the
# binary, and names gcc would otherwise draw at random (LTO) seeded by
# the source file
PREFIX_MAP := -ffile-prefix-map=$(CURDIR)=.
REPRO	= $(PREFIX_MAP) -frandom-seed=$<

# Profile-guided optimization (gcc), off unless asked for: make PGO=1
# builds the objects instrumented in $(O)/pgo, runs that kmemtrace over
# the recordings in tests/data (scripts/pgo-train.sh), and builds $(O)
# with the profile it leaves: about 8% fewer instructions on the
# benchmark (bench/README.md).  Its counts depend on thread interleavings
# and its diagnostics on the profile, so it is neither reproducible nor
# built with -Werror; sanitizer builds never use it.
PGO	?= 0
ifeq ($(PGO)$(SAN),1)
ifeq ($(shell $(CC) -v 2>&1 | grep -c '^gcc version'),1)
PGO_STAMP := $(O)/.profile
PGO_FLAGS := -fprofile-use -fprofile-partial-training -Wno-missing-profile \
	     -Wno-error
endif
endif
ifeq ($(PGO),gen)
PGO_FLAGS := -fprofile-generate -fprofile-update=atomic
PGO_BASE = -dumpbase $(PGO_FOR)/$*.c -dumpbase-ext .c
endif

ALL_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) $(PGO_FLAGS) $(SAN) -D_GNU_SOURCE \
	     -Ilib $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LIBS	= $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm
# the BPF skeleton (generated) and the structs both sides share
ALL_CFLAGS += -I$(O)/bpf -Ibpf -I$(O)/gen
DEPFLAGS = -MMD -MP

# one short line a step; make V=1 prints the commands
ifeq ($(V),1)
Q	:=
say	:= @true
else
Q	:= @
say	:= @printf '  %-6s %s\n'
endif
MAKEFLAGS += --no-print-directory

LIB_SRCS  := $(sort $(wildcard lib/*/*.c))
CMD_SRCS  := $(sort $(wildcard src/*.c))
UNIT_SRCS := $(sort $(wildcard tests/unit/test-*.c))
HELPER_SRCS := $(sort $(wildcard tests/helpers/*.c))

LIB_OBJS  := $(patsubst %.c,$(O)/%.o,$(LIB_SRCS))
CMD_OBJS  := $(patsubst %.c,$(O)/%.o,$(CMD_SRCS))
UNIT_BINS := $(patsubst tests/unit/%.c,$(O)/tests/%,$(UNIT_SRCS))
HELPER_BINS := $(patsubst tests/helpers/%.c,$(O)/tests/%,$(HELPER_SRCS))
DOC_SRCS  := $(sort $(wildcard doc/*.adoc))
MAN_PAGES := $(patsubst doc/%.adoc,$(O)/doc/%.1,$(DOC_SRCS))
COMPLETION := contrib/completion/kmemtrace.bash
SERVE_UNIT := contrib/kmemtrace-serve.service

.PHONY: all deps doc man-pages check test bench clean tests-build demo install uninstall FORCE
# a sub-make, so that pkg-config is asked after deps installed the libraries
all: deps
	@$(MAKE) $(O)/kmemtrace man-pages

# checks the libraries and tools the build needs; installs them when it can
deps:
	@scripts/deps.sh

$(O)/libkmemtrace.a: $(LIB_OBJS)
	@mkdir -p $(dir $@)
	@rm -f $@
	$(say) AR $@
	$(Q)$(AR) rcsD $@ $^

$(O)/kmemtrace: $(CMD_OBJS) $(O)/libkmemtrace.a
	$(say) LINK $@
	$(Q)$(CC) $(ALL_CFLAGS) $(LINK_FLAGS) -o $@ $(CMD_OBJS) $(O)/libkmemtrace.a $(LIBS)

# objects are remade when the compiler or its flags change (make check
# builds twice, plainly and with the sanitizers, in two directories);
# the command is quoted for the shell as it is, quotes and backslashes
# included
CC_LINE = '$(subst ','\'',$(CC) $(ALL_CFLAGS))'
$(O)/.cflags: FORCE
	@mkdir -p $(dir $@)
	@printf '%s\n' $(CC_LINE) | cmp -s - $@ || printf '%s\n' $(CC_LINE) >$@

# The BPF programs of top and watch: C in bpf/, compiled with clang
# against this kernel's BTF (CO-RE, so the object runs on other kernels
# too), linked by bpftool (which drops the DWARF) and embedded in the
# binary as a libbpf skeleton.  The object names no directory: clang's
# line info is mapped to the tree's relative paths.
BPF_CLANG ?= clang
BPFTOOL	?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
BPF_ARCH := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/;s/ppc64le/powerpc/;s/s390x/s390/;s/riscv64/riscv/')
BPF_CFLAGS = -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_$(BPF_ARCH) \
	     -fdebug-prefix-map=$(CURDIR)=. -I$(O)/bpf -Ibpf

$(O)/bpf/vmlinux.h: $(wildcard $(VMLINUX_BTF))
	@mkdir -p $(dir $@)
	$(say) GEN $@
	$(Q)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c >$@.tmp && mv $@.tmp $@

$(O)/bpf/%.bpf.o: bpf/%.bpf.c bpf/kmt.h $(O)/bpf/vmlinux.h
	@mkdir -p $(dir $@)
	$(say) BPF $<
	$(Q)$(BPF_CLANG) $(BPF_CFLAGS) -c -o $@.tmp.o $<
	$(Q)$(BPFTOOL) gen object $@ $@.tmp.o && rm -f $@.tmp.o

$(O)/bpf/kmt.skel.h: $(O)/bpf/kmt.bpf.o
	$(say) GEN $@
	$(Q)$(BPFTOOL) gen skeleton $< name kmt_skel >$@.tmp && mv $@.tmp $@

$(O)/lib/bpf/loader.o: $(O)/bpf/kmt.skel.h

# the HTML report's script and style, carried by the binary
$(O)/gen/html-assets.h: lib/render/html-report.js lib/render/html-report.css scripts/embed.py
	@mkdir -p $(dir $@)
	$(say) GEN $@
	$(Q)python3 scripts/embed.py $@.tmp kmt_html_js=lib/render/html-report.js \
		kmt_html_css=lib/render/html-report.css && mv $@.tmp $@

$(O)/lib/render/html.o: $(O)/gen/html-assets.h

$(O)/%.o: %.c $(O)/.cflags $(PGO_STAMP)
	@mkdir -p $(dir $@)
	$(say) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) $(REPRO) $(PGO_BASE) $(DEPFLAGS) -c -o $@ $<

# The training run.  gcc finds an object's profile by the object's name,
# and names its static functions' counts by it too: the instrumented
# objects take the names of the objects they train (-dumpbase), so the
# profile lands beside those, $(O)/lib/.../x.gcda, and matches them.
# Counts from an earlier run would add up with this one's: they go first.
$(O)/.profile: $(LIB_SRCS) $(CMD_SRCS) $(wildcard lib/*/*.h src/*.h) \
	       scripts/pgo-train.sh $(O)/.cflags
	@$(MAKE) O=$(O)/pgo PGO=gen PGO_FOR=$(O) $(O)/pgo/kmemtrace
	@find $(O)/lib $(O)/src -name '*.gcda' -delete 2>/dev/null || true
	$(say) TRAIN "$(O)/pgo/kmemtrace on tests/data"
	$(Q)scripts/pgo-train.sh $(O)/pgo/kmemtrace tests/data
	@touch $@

$(O)/tests/%.o: tests/unit/%.c $(O)/.cflags tests/unit/check.h
	@mkdir -p $(dir $@)
	$(say) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) $(REPRO) -Itests/unit $(DEPFLAGS) -c -o $@ $<

$(O)/tests/%.o: tests/helpers/%.c $(O)/.cflags
	@mkdir -p $(dir $@)
	$(say) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) $(REPRO) $(DEPFLAGS) -c -o $@ $<

$(O)/tests/%: $(O)/tests/%.o $(O)/libkmemtrace.a
	$(say) LINK $@
	$(Q)$(CC) $(ALL_CFLAGS) $(LINK_FLAGS) -o $@ $< $(O)/libkmemtrace.a $(LIBS)

# Manual pages, section 1, from doc/*.adoc.  The date in a page is the
# last commit to doc/ (or the packager's SOURCE_DATE_EPOCH), or none
# outside git: never the build's, so every build writes the same bytes.
# Any asciidoctor warning fails the page.
doc: deps
	@$(MAKE) man-pages

man-pages: $(MAN_PAGES)
	@:

DOC_EPOCH := $(or $(SOURCE_DATE_EPOCH),$(shell git log -1 --format=%ct -- doc 2>/dev/null))
ASCIIDOC = $(if $(DOC_EPOCH),SOURCE_DATE_EPOCH=$(DOC_EPOCH) )asciidoctor -b manpage \
	   --failure-level=WARN -a mansource='kmemtrace $(VERSION)' \
	   $(if $(DOC_EPOCH),,-a reproducible)

# pages are remade when that command (the date in it) changes
$(O)/doc/.asciidoc: FORCE
	@mkdir -p $(dir $@)
	@printf '%s\n' "$(ASCIIDOC)" | cmp -s - $@ || printf '%s\n' "$(ASCIIDOC)" >$@

$(O)/doc/%.1: doc/%.adoc $(O)/doc/.asciidoc
	@command -v asciidoctor >/dev/null || \
		{ echo "asciidoctor not found: scripts/deps.sh installs it" >&2; exit 1; }
	$(say) MAN $@
	$(Q)$(ASCIIDOC) -o $@.tmp $< && mv $@.tmp $@ || { rm -f $@.tmp; exit 1; }

# Installs what make built, with the flags it was built with; needs no
# network and writes nothing outside $(DESTDIR)$(prefix).
install: $(O)/kmemtrace $(MAN_PAGES)
	$(say) INSTALL '$(DESTDIR)$(bindir)/kmemtrace'
	$(Q)$(INSTALL) -d -m 0755 '$(DESTDIR)$(bindir)' '$(DESTDIR)$(man1dir)'
	$(Q)$(INSTALL) -m 0755 $(O)/kmemtrace '$(DESTDIR)$(bindir)/kmemtrace'
	$(say) INSTALL '$(DESTDIR)$(man1dir)/kmemtrace*.1'
	$(Q)$(INSTALL) -m 0644 $(MAN_PAGES) '$(DESTDIR)$(man1dir)'
	$(say) INSTALL '$(DESTDIR)$(bashcompdir)/kmemtrace'
	$(Q)$(INSTALL) -d -m 0755 '$(DESTDIR)$(bashcompdir)'
	$(Q)$(INSTALL) -m 0644 $(COMPLETION) '$(DESTDIR)$(bashcompdir)/kmemtrace'
	$(say) INSTALL '$(DESTDIR)$(systemdunitdir)/kmemtrace-serve.service'
	$(Q)$(INSTALL) -d -m 0755 '$(DESTDIR)$(systemdunitdir)'
	$(Q)sed 's|@bindir@|$(bindir)|g' $(SERVE_UNIT) >'$(DESTDIR)$(systemdunitdir)/kmemtrace-serve.service' && \
		chmod 0644 '$(DESTDIR)$(systemdunitdir)/kmemtrace-serve.service'

# every file install may put, and no directory: they may hold others'
uninstall:
	$(say) RM "kmemtrace's files under $(DESTDIR)$(prefix)"
	$(Q)rm -f '$(DESTDIR)$(bindir)/kmemtrace' \
		$(patsubst %,'$(DESTDIR)$(man1dir)/%',$(notdir $(MAN_PAGES))) \
		'$(DESTDIR)$(bashcompdir)/kmemtrace' \
		'$(DESTDIR)$(systemdunitdir)/kmemtrace-serve.service'

tests-build: $(O)/kmemtrace $(UNIT_BINS) $(HELPER_BINS) $(MAN_PAGES)
# kept, so that a second make relinks nothing
.SECONDARY: $(patsubst %,%.o,$(UNIT_BINS) $(HELPER_BINS))

# the builds for the tests on every core unless make was given -j (CI
# runs a plain `make check`)
TEST_MAKE = $(MAKE) $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc))
TEST_AREA = $(if $(T),-t '$(T)')

# one run of every test, then the same under the sanitizers; one total line
check: deps
	@$(TEST_MAKE) tests-build
	@$(TEST_MAKE) O=build/asan CFLAGS="-O1 -g" \
		SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		tests-build
	@tests/run.sh $(TEST_AREA) build build/asan

# the everyday loop: the plain build's tests, or one area of them (T=)
test: deps
	@$(TEST_MAKE) tests-build
	@tests/run.sh $(TEST_AREA) $(O)

bench: all
	@bench/run.sh

# records this machine while a workload runs and reports on it
demo: all
	@KMEMTRACE=$(O)/kmemtrace scripts/demo.sh

clean:
	rm -rf build

include tests/fuzz/fuzz.mk

-include $(shell find $(O) -name '*.d' -not -path '*/fuzz/*' 2>/dev/null)
