#!/bin/sh
# Makes sure the build can find what it needs on Debian 12: the tracing
# libraries, libzstd (perf record -z files), asciidoctor for the manual
# pages, and the tools the tests drive (man shows the pages).  Installs
# what is missing when run as root with apt-get; otherwise says the exact
# command to run.
set -e

pkgs=""
for pc in libtraceevent libtracefs libtracecmd libzstd; do
	pkg-config --exists "$pc" 2>/dev/null || pkgs="$pkgs $pc-dev"
done
# zlib: the gzip of pprof profiles
pkg-config --exists zlib 2>/dev/null || pkgs="$pkgs zlib1g-dev"
command -v trace-cmd >/dev/null 2>&1 || pkgs="$pkgs trace-cmd"
# top and watch: BPF programs built with clang and bpftool, loaded by libbpf
pkg-config --exists libbpf 2>/dev/null || pkgs="$pkgs libbpf-dev"
command -v bpftool >/dev/null 2>&1 || [ -x /usr/sbin/bpftool ] ||
	pkgs="$pkgs bpftool"
command -v clang >/dev/null 2>&1 || pkgs="$pkgs clang"
# serve: an HTTP server library, and the Prometheus its test scrapes with
pkg-config --exists libmicrohttpd 2>/dev/null || pkgs="$pkgs libmicrohttpd-dev"
command -v prometheus >/dev/null 2>&1 || pkgs="$pkgs prometheus"
# the tests drive top's live view in a terminal
command -v tmux >/dev/null 2>&1 || pkgs="$pkgs tmux"
command -v pkg-config >/dev/null 2>&1 || pkgs="pkg-config $pkgs"
command -v python3 >/dev/null 2>&1 || pkgs="$pkgs python3"
command -v asciidoctor >/dev/null 2>&1 || pkgs="$pkgs asciidoctor"
command -v man >/dev/null 2>&1 || pkgs="$pkgs man-db"
# the tests read report's pprof profiles with go tool pprof, and load
# its ndjson rows into sqlite
command -v go >/dev/null 2>&1 || pkgs="$pkgs golang-go"
command -v sqlite3 >/dev/null 2>&1 || pkgs="$pkgs sqlite3"
# and open its HTML pages in headless Chromium
command -v chromium >/dev/null 2>&1 || pkgs="$pkgs chromium"

[ -z "$pkgs" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing$pkgs"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
	echo "deps: installed$pkgs"
	exit 0
fi
echo "deps: missing:$pkgs" >&2
echo "deps: run: sudo apt-get install$pkgs" >&2
exit 1
