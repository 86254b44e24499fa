// SPDX-License-Identifier: GPL-2.0
// kmemtrace's HTML report: draws the report the page carries (the JSON
// in #kmt-report, the flame graph's tree in #kmt-flame) with the DOM and
// SVG alone, no library and no network.  The URL's hash can ask for a
// view: #weight=inuse_space&zoom=do_wp_page&search=alloc_pages.
"use strict";

(function () {
	const report = JSON.parse(document.getElementById("kmt-report").textContent);
	const flame = JSON.parse(document.getElementById("kmt-flame").textContent);
	const $ = (id) => document.getElementById(id);
	const fmt = (v) => typeof v === "number" ?
		(Number.isInteger(v) ? v.toLocaleString("en-US") : v.toFixed(3)) : String(v);
	const esc = (s) => String(s).replace(/[&<>"]/g, (c) =>
		({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
	const params = new URLSearchParams(location.hash.slice(1));

	function el(tag, attrs, text) {
		const e = document.createElement(tag);
		for (const k in attrs || {})
			e.setAttribute(k, attrs[k]);
		if (text !== undefined)
			e.textContent = text;
		return e;
	}

	// "<key>_not_recorded" of a table, worded as the text report words it:
	// what the page leaves out is said, not drawn as zeros
	function unrecorded(box, nr) {
		if (!nr)
			return;
		const what = nr.rows ? Object.values(nr.rows)[0] + " rows" :
			nr.columns.join(", ");
		box.appendChild(el("p", { "class": "kmt-unrecorded" }, "not recorded: " +
			what + ": the recording has no " +
			(nr.what ? nr.what : nr.events.join(", ") + " events") +
			" (record them with: " + nr.record_with + ")"));
	}

	function svgEl(tag, attrs) {
		const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
		for (const k in attrs || {})
			e.setAttribute(k, attrs[k]);
		return e;
	}

	// ---- the header: what was read ----
	function header() {
		const t = $("kmt-facts");
		const row = (k, v, id) => {
			const tr = el("tr");
			tr.appendChild(el("th", {}, k));
			const td = el("td", id ? { id: id } : {}, v);
			tr.appendChild(td);
			t.appendChild(tr);
		};
		row("input", report.input);
		row("format", report.format);
		row("kernel", report.kernel || "not recorded");
		row("CPUs", report.cpus);
		row("span", (report.span_ns / 1e9).toFixed(6) + " s");
		if (report.start_time)
			row("start", report.start_time.replace("T", " ").replace("Z", " UTC"));
		if (report.boot_id)
			row("boot", report.boot_id);
		const ev = report.events || {};
		row("events", Object.keys(ev).map((k) => k + " " + fmt(ev[k])).join(", "));
		row("lost events", fmt(report.lost_events), "kmt-lost");
		let un = fmt(report.unreadable_records);
		if (report.unreadable && report.unreadable.length)
			un += " (" + report.unreadable.map((n) =>
				(n.line !== undefined ? "line " + n.line :
				 n.byte !== undefined ? "byte " + n.byte : "") +
				": " + n.why).join("; ") + ")";
		row("unreadable records", un, "kmt-unreadable");
		if (report.unreadable_records)
			$("kmt-warning").textContent = "Part of the input could not be " +
				"read: this report leaves " + fmt(report.unreadable_records) +
				" records out.";
	}

	// ---- the flame graph (an icicle: callers above callees) ----
	const nodes = flame.nodes;	// [parent, name, v0, v1, v2, v3]
	const children = nodes.map(() => []);
	for (let i = 1; i < nodes.length; i++)
		children[nodes[i][0]].push(i);
	let weight = Math.max(0, flame.values.indexOf(params.get("weight") || "alloc_space"));
	let root = 0;
	let search = params.get("search") || "";

	function nodeName(i) {
		return flame.names[nodes[i][1]];
	}

	function matches(i) {
		return search !== "" && nodeName(i).indexOf(search) >= 0;
	}

	// the weight of the outermost matching frames under i: no double count
	function matched(i) {
		if (matches(i))
			return nodes[i][2 + weight];
		let s = 0;
		for (const c of children[i])
			s += matched(c);
		return s;
	}

	function drawFlame() {
		const box = $("kmt-flame-graph");
		box.textContent = "";
		const total = nodes[root][2 + weight];
		const width = box.clientWidth || 1200;
		let depthMax = 0;
		const place = (i, x, depth) => {
			const v = nodes[i][2 + weight];
			const w = total ? v / total * width : 0;
			if (w < 0.5)
				return;
			depthMax = Math.max(depthMax, depth);
			const d = el("div", {
				"class": "kmt-frame" + (matches(i) ? " kmt-match" : ""),
				"data-node": i,
				"data-value": v,
				title: nodeName(i) + "\n" + flame.values[weight] + ": " +
					fmt(v) + " (" + (total ? (v * 100 / total).toFixed(2) : "0") +
					"%)",
			}, w > 30 ? nodeName(i) : "");
			d.style.left = x + "px";
			d.style.width = Math.max(w - 1, 0.5) + "px";
			d.style.top = depth * 18 + "px";
			box.appendChild(d);
			let cx = x;
			for (const c of children[i].slice().sort((a, b) =>
				nodes[b][2 + weight] - nodes[a][2 + weight])) {
				place(c, cx, depth + 1);
				cx += total ? nodes[c][2 + weight] / total * width : 0;
			}
		};
		place(root, 0, 0);
		box.style.height = (depthMax + 1) * 18 + "px";
		const path = [];
		for (let i = root; i; i = nodes[i][0])
			path.unshift(nodeName(i));
		$("kmt-zoom").textContent = root ? "zoomed: " + path.join(" > ") +
			" (click the top frame to zoom out)" : "";
		const m = matched(0), all = nodes[0][2 + weight];
		$("kmt-match").textContent = search === "" ? "" :
			"'" + search + "': " + fmt(m) + " of " + fmt(all) + " " +
			flame.values[weight] + " (" +
			(all ? (m * 100 / all).toFixed(2) : "0.00") + "%)";
		$("kmt-match").setAttribute("data-matched", m);
	}

	function flameSetup() {
		if (nodes.length <= 1) {
			$("kmt-flame-graph").textContent = "not recorded: the recording " +
				"has no allocations to draw";
			return;
		}
		const sel = $("kmt-weight");
		flame.values.forEach((v, k) => {
			const o = el("option", { value: v }, v);
			if (k === weight)
				o.selected = true;
			sel.appendChild(o);
		});
		sel.onchange = () => { weight = sel.selectedIndex; drawFlame(); };
		$("kmt-search").value = search;
		$("kmt-search").oninput = (e) => { search = e.target.value; drawFlame(); };
		$("kmt-flame-graph").onclick = (e) => {
			const n = e.target.getAttribute("data-node");
			if (n === null)
				return;
			root = +n === root ? nodes[root][0] : +n;
			drawFlame();
		};
		const z = params.get("zoom");
		if (z) {
			for (let i = 1; i < nodes.length; i++) {
				if (nodeName(i) === z) {
					root = i;
					break;
				}
			}
		}
		$("kmt-flame-note").textContent = report.has_stacks ? "" :
			"The recording has no stacks: each allocation is drawn at its " +
			"callsite (record with -g for page stacks).";
		drawFlame();
	}

	// ---- time lines ----
	function lineChart(box, xs, series, unit) {
		const W = 1000, H = 220, L = 130, B = 30;
		const svg = svgEl("svg", { viewBox: "0 0 " + (W + L) + " " + (H + B),
			"class": "kmt-chart" });
		let ymax = 1;
		for (const s of series)
			for (const v of s.values)
				ymax = Math.max(ymax, v);
		const xmax = xs.length > 1 ? xs[xs.length - 1] : 1;
		const X = (x) => L + x / xmax * W, Y = (y) => H - y / ymax * (H - 10);
		svg.appendChild(svgEl("line", { x1: L, y1: H, x2: L + W, y2: H, "class": "kmt-axis" }));
		svg.appendChild(svgEl("line", { x1: L, y1: 0, x2: L, y2: H, "class": "kmt-axis" }));
		const lab = (x, y, t, a) => {
			const e = svgEl("text", { x: x, y: y, "text-anchor": a || "end" });
			e.textContent = t;
			svg.appendChild(e);
		};
		lab(L - 4, 12, fmt(ymax) + " " + unit);
		lab(L - 4, H, "0");
		lab(L + W, H + 20, (xmax / 1e9).toFixed(3) + " s", "end");
		series.forEach((s, k) => {
			const pts = s.values.map((v, i) => X(xs[i]) + "," + Y(v)).join(" ");
			svg.appendChild(svgEl("polyline", { points: pts, "class": "kmt-line kmt-line" + k }));
			s.values.forEach((v, i) => {
				const c = svgEl("circle", { cx: X(xs[i]), cy: Y(v), r: 2.5,
					"class": "kmt-dot kmt-line" + k });
				const t = svgEl("title", {});
				t.textContent = s.name + " at " + (xs[i] / 1e9).toFixed(6) +
					" s: " + fmt(v) + " " + unit;
				c.appendChild(t);
				svg.appendChild(c);
			});
			lab(L + 10 + k * 220, H + 20, "\u25a0 " + s.name, "start");
			svg.lastChild.setAttribute("class", "kmt-line" + k);
		});
		box.appendChild(svg);
	}

	function timeline() {
		const box = $("kmt-timeline");
		const t = report.timeline && report.timeline.series;
		if (!t || !t.offset_ns) {
			box.textContent = "not recorded";
			return;
		}
		// a kind not recorded has no line: a line at 0 would say none
		const nr = report.timeline.series_not_recorded;
		const lines = (list) => list
			.filter(([key]) => !(nr && nr.columns.includes(key)))
			.map(([key, name]) => ({ name: name, values: t[key] }));
		lineChart(box, t.offset_ns, lines([
			["slab_bytes", "slab bytes live"],
			["page_bytes", "page bytes live"],
		]), "B");
		lineChart(box, t.offset_ns, lines([
			["slab_alloc_bytes", "slab bytes allocated"],
			["slab_freed_bytes", "slab bytes freed"],
			["page_alloc_bytes", "page bytes allocated"],
			["page_freed_bytes", "page bytes freed"],
		]), "B/step");
		unrecorded(box, nr);
		// the top callsites' outstanding bytes, one line each
		const sites = (report.timeline.callsites || []).slice(0, 4);
		if (sites.length)
			lineChart(box, t.offset_ns, sites.map((c, k) => ({
				name: c.kind + " " + c.callsite,
				values: t["site_" + (k + 1)] || [],
			})), "B");
		if (report.lost_events)
			box.appendChild(el("p", { "class": "kmt-warn" }, "The recording lost " +
				fmt(report.lost_events) + " events; when is not recorded."));
	}

	// ---- order x migratetype ----
	function heatmap() {
		const box = $("kmt-heatmap");
		const rows = report.page && report.page.order_migratetype;
		if (!rows || !rows.length) {
			box.textContent = "not recorded";
			return;
		}
		const cols = Object.keys(rows[0]).filter((k) => k !== "order");
		let max = 1;
		for (const r of rows)
			for (const c of cols)
				max = Math.max(max, r[c]);
		const t = el("table", { "class": "kmt-heat" });
		const h = el("tr");
		h.appendChild(el("th", {}, "order"));
		cols.forEach((c) => h.appendChild(el("th", {}, c)));
		t.appendChild(h);
		for (const r of rows) {
			const tr = el("tr");
			tr.appendChild(el("th", {}, r.order));
			for (const c of cols) {
				const td = el("td", { title: "order " + r.order + ", " + c + ": " +
					fmt(r[c]) + " allocations", "data-value": r[c] }, r[c] ? fmt(r[c]) : "");
				td.style.background = "rgba(200,60,30," + (r[c] / max).toFixed(3) + ")";
				tr.appendChild(td);
			}
			t.appendChild(tr);
		}
		box.appendChild(t);
	}

	// ---- histograms ----
	function histogram(box, rows, label, value, unit) {
		if (!rows || !rows.length) {
			box.appendChild(el("p", {}, "not recorded"));
			return;
		}
		const max = Math.max(1, ...rows.map((r) => r[value]));
		const t = el("table", { "class": "kmt-hist" });
		for (const r of rows) {
			const tr = el("tr");
			tr.appendChild(el("th", {}, r[label]));
			const td = el("td", { title: r[label] + ": " + fmt(r[value]) + " " + unit });
			const bar = el("div", { "class": "kmt-bar", "data-value": r[value] });
			bar.style.width = (r[value] / max * 100).toFixed(2) + "%";
			td.appendChild(bar);
			tr.appendChild(td);
			tr.appendChild(el("td", { "class": "kmt-num" }, fmt(r[value])));
			t.appendChild(tr);
		}
		box.appendChild(t);
	}

	// ---- tables, sortable, stacks folded in place ----
	// nr: the table's "<key>_not_recorded", said under it and in its cells
	function table(box, title, rows, nr) {
		box.appendChild(el("h3", {}, title));
		if (!rows || !rows.length) {
			box.appendChild(el("p", {}, "(none)"));
			unrecorded(box, nr);
			return;
		}
		const cols = Object.keys(rows[0]);
		const t = el("table", { "class": "kmt-table" });
		const head = el("tr");
		const body = el("tbody");
		let key = null, desc = true;
		const fill = () => {
			body.textContent = "";
			const sorted = key === null ? rows : rows.slice().sort((a, b) => {
				const x = a[key], y = b[key];
				const c = typeof x === "number" ? x - y : String(x).localeCompare(String(y));
				return desc ? -c : c;
			});
			for (const r of sorted) {
				const tr = el("tr");
				for (const c of cols) {
					const v = r[c];
					const td = el("td", typeof v === "number" ?
						{ "class": "kmt-num", "data-value": v } : {});
					if (c === "stack" && typeof v === "string" && v.indexOf(" <- ") > 0) {
						const d = el("details");
						d.appendChild(el("summary", {}, v.split(" <- ")[0] + " ..."));
						d.appendChild(el("pre", {}, v.split(" <- ").join("\n")));
						td.appendChild(d);
					} else {
						td.textContent = v !== null ? fmt(v) :
							nr && nr.columns && nr.columns.includes(c) ?
							"not recorded" : "";
					}
					tr.appendChild(td);
				}
				body.appendChild(tr);
			}
		};
		cols.forEach((c) => {
			const th = el("th", { title: "sort by " + c }, c);
			th.onclick = () => { desc = key === c ? !desc : true; key = c; fill(); };
			head.appendChild(th);
		});
		t.appendChild(head);
		t.appendChild(body);
		fill();
		box.appendChild(t);
		unrecorded(box, nr);
	}

	function tables() {
		const box = $("kmt-tables");
		const want = [
			["leaks", "callsites", "Leaks: still allocated at the end, by callsite"],
			["leaks", "stacks", "Leaks: by stack"],
			["errors", "callsites", "Misuse findings, certain first"],
			["errors", "classes", "Misuse findings by kind and class"],
			["procs", "processes", "Processes"],
			["caches", "caches", "Slab caches"],
			["percpu", "callsites", "Percpu allocator by callsite"],
			["vmalloc", "callers", "vmalloc areas by caller (first frame outside vmalloc)"],
		];
		for (const [g, k, title] of want) {
			if (report[g] && report[g][k] !== undefined)
				table(box, title, report[g][k], report[g][k + "_not_recorded"]);
		}
	}

	header();
	flameSetup();
	timeline();
	heatmap();
	histogram($("kmt-sizes"), report.sizes && report.sizes.histogram, "range",
		"allocs", "allocations");
	const life = report.lifetimes && report.lifetimes.histogram;
	const lifeNr = report.lifetimes && report.lifetimes.histogram_not_recorded;
	// the kinds recorded: a kind not recorded adds nothing, and is said
	const lifeKinds = ["slab", "page"].filter((k) =>
		!(lifeNr && lifeNr.columns.includes(k + "_frees")));
	histogram($("kmt-lifetimes"), life && life.map((r) => Object.assign({
		range: (r.from_ns / 1e3).toFixed(0) + "-" + (r.to_ns / 1e3).toFixed(0) + " us",
		frees: lifeKinds.reduce((n, k) => n + r[k + "_frees"], 0),
	}, r)), "range", "frees", "frees (" + lifeKinds.join(" and ") + ")");
	unrecorded($("kmt-lifetimes"), lifeNr);
	tables();
	// from the start of the navigation to the page drawn, for bench/html
	document.body.setAttribute("data-render-ms", Math.round(performance.now()));
	document.body.setAttribute("data-ready", "1");
})();
