#!/bin/sh
# report --html: one self-contained page, opened in headless Chromium
# (Debian's chromium): no script error, nothing fetched, and the numbers
# the page shows are the report's; the flame graph's search and zoom,
# asked for by the URL, work.
. "$(dirname "$0")/lib.sh"

RECS="perf-both-g.data capture.dat capture.trace.txt capture-lost.dat"

test_expect_success 'one file, nothing it could fetch' '
	for r in $RECS; do
		"$KMEMTRACE" report --html "$r.html" "$DATA/$r" &&
		grep -q "Content-Security-Policy\" content=\"default-src .none.;" "$r.html" &&
		! grep -o "https\{0,1\}://[^\"]*" "$r.html" | grep -v "^http://www.w3.org/2000/svg$" &&
		! grep -qi "<script[^>]*src=\|<link" "$r.html" || exit 1
	done
'

test_expect_success 'mistakes and damaged input: as the text report, no file left' '
	"$KMEMTRACE" report --html x.html --alloc "$DATA/capture.dat" 2>err
	test $? = 129 && grep "leave out --alloc" err &&
	"$KMEMTRACE" report --html x.html -o y.html "$DATA/capture.dat" 2>err
	test $? = 129 && test ! -e x.html && test ! -e y.html &&
	head -c 3000 "$DATA/perf-both-g.data" >cut.data &&
	"$KMEMTRACE" report cut.data >/dev/null 2>text.err; t=$? &&
	"$KMEMTRACE" report --html cut.html cut.data 2>html.err; h=$? &&
	test $t = 1 && test $h = 1 && test_cmp text.err html.err &&
	test ! -e cut.html && ! ls cut.html* 2>/dev/null
'

if [ "$(id -u)" = 0 ]; then
test_expect_success 'a disk that fills: the old page stays whole, no part left' '
	mkdir small &&
	mount -t tmpfs -o size=24k tmpfs small &&
	echo old >small/r.html &&
	"$KMEMTRACE" report --html small/r.html "$DATA/capture.dat" 2>err; rc=$?
	ls small >left; cat small/r.html >content; umount small
	test $rc = 2 && grep "^kmemtrace report: error: cannot write .*No space left" err &&
	test "$(cat left)" = r.html && test "$(cat content)" = old
'
else
	test_skip 'a disk that fills' 'needs root to mount a small tmpfs'
fi

CHROMIUM=$(command -v chromium || command -v chromium-browser)
if [ -z "$CHROMIUM" ]; then
	test_skip 'the page in a browser' 'no chromium here (Debian: chromium)'
	test_done
	exit 0
fi

# the DOM once the page's script ran, and the browser's console
open_page () {
	timeout 120 "$CHROMIUM" --headless=new --no-sandbox --disable-gpu \
		--user-data-dir="$TRASH/chromium" --enable-logging=stderr --v=0 \
		--virtual-time-budget=5000 --dump-dom "file://$TRASH/$1" \
		>"$2" 2>"$2.log"
}

test_expect_success 'in Chromium: drawn, no console message, nothing refused' '
	for r in $RECS; do
		open_page "$r.html" dom &&
		grep -q "data-ready=\"1\"" dom &&
		! grep ":CONSOLE" dom.log &&
		grep -q "class=\"kmt-frame" dom || { cat dom.log; exit 1; }
	done
'

# the text report's figures, and the folded stacks' sums, against the DOM
test_expect_success 'the numbers on the page are the report' '
	for r in $RECS; do
		"$KMEMTRACE" report --json --slab --page --leaks "$DATA/$r" >rep.json &&
		"$KMEMTRACE" report --format folded "$DATA/$r" >folded &&
		open_page "$r.html" dom &&
		python3 - rep.json folded dom <<-\EOF || exit 1
		import json, re, sys
		rep = json.load(open(sys.argv[1]))
		folded = [l.rsplit(" ", 1) for l in open(sys.argv[2]).read().splitlines()]
		dom = open(sys.argv[3]).read()
		def text(i):
		    return re.search(r"id=\"%s\"[^>]*>([^<]*)<" % i, dom).group(1)
		assert text("kmt-lost") == "{:,}".format(rep["lost_events"]), text("kmt-lost")
		assert text("kmt-unreadable").startswith("{:,}".format(rep["unreadable_records"]))
		total = sum(int(w) for _, w in folded)
		root = re.search(r"data-node=\"0\" data-value=\"(\d+)\"", dom)
		assert root and int(root.group(1)) == total, (root and root.group(1), total)
		space = rep.get("slab", {}).get("summary", {}).get("bytes_allocated", 0) + \
		    rep.get("page", {}).get("summary", {}).get("allocations", {}).get("bytes", 0)
		assert total == space, (total, space)
		EOF
	done
'

test_expect_success 'search: the matching share, as the folded stacks add it up' '
	"$KMEMTRACE" report --format folded "$DATA/perf-both-g.data" >folded &&
	want=$(awk "/;do_anonymous_page( |;)/ { s += \$NF } END { print s }" folded) &&
	test "$want" -gt 0 &&
	open_page "perf-both-g.data.html#search=do_anonymous_page" dom &&
	grep -q "id=\"kmt-match\" data-matched=\"$want\"" dom &&
	grep -q "kmt-frame kmt-match" dom
'

test_expect_success 'zoom: the frame asked for is the top, with its value' '
	open_page "perf-both-g.data.html#zoom=do_anonymous_page&weight=alloc_space" dom &&
	grep -q "zoomed: page &gt; .*do_anonymous_page (click" dom &&
	python3 - dom folded <<-\EOF
	import html, re, sys
	dom = open(sys.argv[1]).read()
	path = html.unescape(re.search(r"zoomed: ([^(]*) \(click", dom).group(1)).split(" > ")
	prefix = ";".join(path)
	want = sum(int(l.rsplit(" ", 1)[1]) for l in open(sys.argv[2]).read().splitlines()
	           if l.startswith(prefix + ";") or l.startswith(prefix + " "))
	first = re.search(r"class=\"kmt-frame[^\"]*\" data-node=\"\d+\" data-value=\"(\d+)\"", dom)
	print(path, want, first and first.group(1))
	assert want > 0 and first and int(first.group(1)) == want
	EOF
'

test_expect_success 'a recording of one kind: the other is said not recorded, not drawn as 0' '
	for r in perf-slab-pipe.data:slab:page page-only.dat:page:slab; do
		f=${r%%:*} && k=${r#*:} && has=${k%:*} && not=${k#*:} &&
		"$KMEMTRACE" report --html "$f.html" "$DATA/$f" &&
		open_page "$f.html" dom &&
		! grep ":CONSOLE" dom.log &&
		python3 - dom $has $not <<-\EOF || exit 1
		import re, sys
		dom, has, nothas = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
		notes = re.findall(r"class=\"kmt-unrecorded\">not recorded: ([^<]*)", dom)
		for what in (nothas + "_bytes, " + nothas + "_alloc_bytes",
		             nothas + "_frees, ", nothas + " rows: "):
		    assert [n for n in notes if n.startswith(what)], (what, notes)
		assert all("record them with: kmemtrace record" in n for n in notes), notes
		# no line drawn for the kind not recorded, lines for the other
		assert "\u25a0 " + nothas + " bytes" not in dom
		assert "\u25a0 " + has + " bytes live" in dom
		assert "frees (" + has + ")" in dom
		assert ">not recorded</td>" in dom
		EOF
	done
'

test_expect_success 'percpu and vmalloc: their tables, the rows and figures of --json' '
	f=percpu-vmalloc.data &&
	"$KMEMTRACE" report --html "$f.html" "$DATA/$f" &&
	"$KMEMTRACE" report --json --percpu --vmalloc "$DATA/$f" >pv.json &&
	open_page "$f.html" dom &&
	! grep ":CONSOLE" dom.log &&
	python3 - pv.json dom <<-\EOF
	import html, json, re, sys
	rep, dom = json.load(open(sys.argv[1])), open(sys.argv[2]).read()
	for title, rows in (("Percpu allocator by callsite", rep["percpu"]["callsites"]),
	                    ("vmalloc areas by caller", rep["vmalloc"]["callers"])):
	    assert rows, title
	    start = dom.index("<h3>" + title)
	    tab = dom[start:dom.index("</table>", start)]
	    trs = re.findall(r"<tr><td>([^<]*)</td>(.*?)</tr>", tab)
	    assert len(trs) == len(rows), (title, len(trs), len(rows))
	    got = {html.unescape(n): [int(v) for v in re.findall(r"data-value=\"(\d+)\"", rest)]
	           for n, rest in trs}
	    for r in rows:
	        name = r.get("callsite", r.get("caller"))
	        want = [v for k, v in r.items() if isinstance(v, int) and k != "address"]
	        assert got[name] == want, (title, name, got[name], want)
	EOF
'

test_done
