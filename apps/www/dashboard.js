/*
 * The allocator dashboard. Once a second (or every ?interval=MS, 200 to
 * 1000) it makes one request, GET /stats.json, and redraws every card from
 * that one document: a chart drawn as plain SVG by the few functions below,
 * and beside it the current values as text to copy (the text layouts follow
 * Linux's /proc files where one exists). Counters that only grow (packets,
 * hits) are shown as rates per second, from the guest's own uptime_ms.
 *
 * No charting library: the charts are bars of current state (free blocks
 * per order, list occupancy, cache fill) plus a few short time series, a
 * few hundred lines of SVG, and the guest serves the whole page as a few
 * static files (docs/dashboard.md).
 *
 * What each value is comes from the guest too: /stats-schema.json, read
 * once, gives every value of /stats.json its unit, its kind (a counter
 * only grows and is shown as a rate; a gauge or a setting as it is) and a
 * label, so the cards show the units beside the numbers and the labels
 * as tooltips (over each line of text, each bar and legend) without a
 * copy of them here. Until it has loaded, values show bare.
 *
 * Every chart sets data-points (values drawn) and data-updated (update
 * number) on its <svg>, which the browser test reads; the body's
 * data-described is the number of values the schema described.
 */
'use strict';

const NS = 'http://www.w3.org/2000/svg';
const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd',
	'#8c564b', '#e377c2', '#17becf'];
const HISTORY = 120; /* points per time series: two minutes at 1/s */
const W = 560, H = 220, PAD_L = 46, PAD_R = 8, PAD_T = 18, PAD_B = 34;

const interval = (() => {
	const v = parseInt(new URLSearchParams(location.search).get('interval'), 10);
	return Number.isFinite(v) ? Math.min(1000, Math.max(200, v)) : 1000;
})();

/* ---- small helpers ------------------------------------------------- */

function el(tag, attrs, parent, text) {
	const e = document.createElementNS(NS, tag);
	for (const k in attrs)
		e.setAttribute(k, attrs[k]);
	if (text !== undefined)
		e.textContent = text;
	if (parent)
		parent.appendChild(e);
	return e;
}

/* "node0", "node1", ... sorted by their number. */
function numKeys(obj) {
	const n = (k) => parseInt(k.replace(/^\D+/, ''), 10) || 0;
	return Object.keys(obj || {}).sort((a, b) => n(a) - n(b) || (a < b ? -1 : 1));
}

function pad(s, n) {
	s = String(s);
	return s.length >= n ? s : ' '.repeat(n - s.length) + s;
}

function padR(s, n) {
	s = String(s);
	return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

function fmt(v) {
	if (v === null || v === undefined || !Number.isFinite(v))
		return '-';
	const a = Math.abs(v);
	if (a >= 1e9) return (v / 1e9).toFixed(2) + 'G';
	if (a >= 1e6) return (v / 1e6).toFixed(2) + 'M';
	if (a >= 1e4) return (v / 1e3).toFixed(1) + 'k';
	if (a >= 100 || Number.isInteger(v)) return String(Math.round(v));
	return v.toFixed(1);
}

/* ---- what each value is: /stats-schema.json ---------------------------- */

/* [path pattern split at '.', {unit, kind, label, per}] for every value;
 * a pattern's "*" is any key, "queues[]" the objects of a list. */
let schema = null;
const described = new Map();

async function loadSchema() {
	try {
		const r = await fetch('/stats-schema.json', {cache: 'no-store'});
		if (!r.ok)
			return;
		const s = await r.json();
		schema = Object.keys(s).map((k) => [k.split('.'), s[k]]);
		described.clear();
		document.body.setAttribute('data-described', schema.length);
	} catch (e) {
		/* values show bare; the next update asks again */
	}
}

/* Does component c of a path fit p of a pattern ("*" any key, "*[]" any
 * key's list of objects)? */
function fits(p, c) {
	if (p.endsWith('[]') || c.endsWith('[]'))
		return p.endsWith('[]') && c.endsWith('[]') && fits(p.slice(0, -2), c.slice(0, -2));
	return p === c || (p === '*' && c !== '');
}

/* The description of the value at path ("nic.eth0.queues[].rx_packets"),
 * or null. */
function describe(path) {
	if (!schema)
		return null;
	if (!described.has(path)) {
		const parts = path.split('.');
		const hit = schema.find(([p]) => p.length === parts.length && p.every((c, i) => fits(c, parts[i])));
		described.set(path, hit ? hit[1] : null);
	}
	return described.get(path);
}

function unit(path) {
	const d = describe(path);
	return d ? d.unit : '';
}

/* A counter is shown as a rate; without the schema, everything asked. */
function isCounter(path) {
	const d = describe(path);
	return !d || d.kind === 'counter';
}

/* "frames received (packets, counter)" for a tooltip; "" if unknown. */
function tooltip(path) {
	const d = describe(path);
	return d ? d.label + ' (' + (d.unit ? d.unit + ', ' : '') + d.kind + ')' : '';
}

/* The rate of counter path as text with its unit: "1.2k packets/s". */
function rateText(path, key) {
	if (!isCounter(path))
		return '';
	const u = unit(path);
	return fmt(rate(key)) + (u ? ' ' + u : '') + '/s';
}

/* The text beside a chart: lines, each with the tooltip of the value it
 * shows (tip: a schema path, or none). */
class Lines {
	constructor() {
		this.lines = [];
	}
	add(text, tip) {
		this.lines.push([text, tip ? tooltip(tip) : '']);
	}
	text() {
		return this.lines.map(([t]) => t).join('\n');
	}
}

/* ---- charts ---------------------------------------------------------- */

function frame(svg) {
	svg.textContent = '';
	svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
	el('line', {x1: PAD_L, y1: H - PAD_B, x2: W - PAD_R, y2: H - PAD_B, class: 'axis'}, svg);
	el('line', {x1: PAD_L, y1: PAD_T, x2: PAD_L, y2: H - PAD_B, class: 'axis'}, svg);
}

function legend(svg, series) {
	let x = PAD_L;
	for (const s of series) {
		const g = el('g', {}, svg);
		el('rect', {x: x, y: 3, width: 9, height: 9, fill: s.color}, g);
		el('text', {x: x + 12, y: 11}, g, s.name);
		if (s.tip)
			el('title', {}, g, tooltip(s.tip));
		x += 18 + 6.2 * s.name.length;
	}
}

/* The y axis' unit, written along it ("packets/s", "pages"). */
function axisTitle(svg, text) {
	if (text)
		el('text', {'text-anchor': 'middle',
			transform: 'translate(9,' + (H - PAD_B + PAD_T) / 2 + ') rotate(-90)'}, svg, text);
}

/* y position of value v on a 0..max axis, linear or log10(1 + v). */
function scaler(max, log) {
	const f = log ? (v) => Math.log10(1 + Math.max(0, v)) : (v) => Math.max(0, v);
	const top = f(max) || 1;
	return (v) => H - PAD_B - (f(v) / top) * (H - PAD_B - PAD_T);
}

function yTicks(svg, max, log, unit) {
	const y = scaler(max, log);
	const ticks = [];
	if (log)
		for (let t = 1; t <= max * 1.0001; t *= 10)
			ticks.push(t);
	else
		ticks.push(max / 2, max);
	ticks.unshift(0);
	for (const t of ticks) {
		el('line', {x1: PAD_L - 3, y1: y(t), x2: W - PAD_R, y2: y(t), class: 'axis', 'stroke-opacity': 0.5}, svg);
		el('text', {x: PAD_L - 5, y: y(t) + 3, 'text-anchor': 'end'}, svg, fmt(t) + (unit || ''));
	}
	return y;
}

function noData(svg, why) {
	frame(svg);
	el('text', {x: W / 2, y: H / 2, 'text-anchor': 'middle', class: 'empty'}, svg, why);
	return 0;
}

/*
 * Grouped bars: groups along x, one bar per series in each group.
 * opt: {groups: [label], series: [{name, color, values: [per group],
 * marks: [[value, cls], ...] per group (optional)}], log, max, unit}.
 * Returns the number of values drawn.
 */
function bars(svg, opt) {
	let max = opt.max || 0;
	for (const s of opt.series)
		for (const v of s.values)
			max = Math.max(max, v || 0);
	if (!opt.groups.length || !opt.series.length)
		return noData(svg, 'no data');
	frame(svg);
	const y = yTicks(svg, max || 1, opt.log, opt.unit);
	const gw = (W - PAD_L - PAD_R) / opt.groups.length;
	const bw = Math.max(1, (gw - 4) / opt.series.length);
	let n = 0;
	opt.groups.forEach((g, gi) => {
		const gx = PAD_L + gi * gw + 2;
		opt.series.forEach((s, si) => {
			const v = s.values[gi];
			if (v === undefined || v === null)
				return;
			const x = gx + si * bw;
			el('rect', {x: x, y: y(v), width: Math.max(1, bw - 1), height: H - PAD_B - y(v),
				fill: s.color}, svg).appendChild(el('title', {}, null, s.name + ' ' + g + ': ' + v +
				(s.tip ? '\n' + tooltip(s.tip) : '')));
			for (const [mv, cls] of (s.marks && s.marks[gi]) || [])
				el('line', {x1: x, x2: x + bw - 1, y1: y(mv), y2: y(mv), class: cls}, svg);
			n++;
		});
		el('text', {x: gx + gw / 2 - 2, y: H - PAD_B + 12, 'text-anchor': 'middle'}, svg, g);
	});
	if (opt.xlabel)
		el('text', {x: (W + PAD_L) / 2, y: H - 4, 'text-anchor': 'middle'}, svg, opt.xlabel);
	axisTitle(svg, opt.ytitle);
	legend(svg, opt.series);
	return n;
}

/*
 * Horizontal gauges, one row per item: a log-scaled bar for the total and,
 * inside it, the share in use. opt: {rows: [{name, total, used, note}]}.
 */
function gauges(svg, opt) {
	const rows = opt.rows;
	if (!rows.length)
		return noData(svg, 'no data');
	const rh = 14, top = 4, lw = 150;
	const h = top + rows.length * rh + 6;
	svg.textContent = '';
	svg.setAttribute('viewBox', '0 0 ' + W + ' ' + h);
	let max = 1;
	for (const r of rows)
		max = Math.max(max, r.total);
	const len = (v) => (W - lw - 120) * Math.log10(1 + v) / Math.log10(1 + max);
	rows.forEach((r, i) => {
		const yy = top + i * rh;
		el('text', {x: lw - 4, y: yy + 10, 'text-anchor': 'end'}, svg, r.name);
		const tl = len(r.total);
		el('rect', {x: lw, y: yy + 2, width: Math.max(1, tl), height: rh - 4, fill: '#c6d4e8'}, svg);
		if (r.total > 0)
			el('rect', {x: lw, y: yy + 2, width: Math.max(r.used ? 1 : 0, tl * r.used / r.total),
				height: rh - 4, fill: COLORS[0]}, svg);
		el('text', {x: lw + tl + 4, y: yy + 10}, svg, r.note);
	});
	return rows.length;
}

/*
 * Time series: opt.series: [{name, color, points: [v or null per sample]}],
 * opt.times: [seconds]. Returns the number of points drawn.
 */
function lines(svg, opt) {
	const t = opt.times;
	if (t.length < 2)
		return noData(svg, 'rates need two samples');
	let max = 0;
	for (const s of opt.series)
		for (const v of s.points)
			if (v !== null)
				max = Math.max(max, v);
	frame(svg);
	const y = yTicks(svg, max || 1, false, opt.unit);
	const t0 = t[0], span = Math.max(1, t[t.length - 1] - t0);
	const x = (tt) => PAD_L + (tt - t0) / span * (W - PAD_L - PAD_R);
	let n = 0;
	for (const s of opt.series) {
		let d = '';
		s.points.forEach((v, i) => {
			if (v === null)
				return;
			d += (d ? 'L' : 'M') + x(t[i]).toFixed(1) + ' ' + y(v).toFixed(1);
			n++;
		});
		if (d)
			el('path', {d: d, fill: 'none', stroke: s.color, 'stroke-width': 1.5}, svg);
	}
	el('text', {x: W - PAD_R, y: H - PAD_B + 12, 'text-anchor': 'end'}, svg, 'now');
	el('text', {x: PAD_L, y: H - PAD_B + 12}, svg, '-' + Math.round(span) + ' s');
	axisTitle(svg, opt.ytitle);
	legend(svg, opt.series);
	return n;
}

/* ---- rates: a history of per-second rates for named counters -------- */

const hist = {times: [], series: {}};

/* Record rate(name) = (cur - prev) / dt for this update. */
function recordRates(cur, prev, dt, t) {
	hist.times.push(t);
	const names = new Set(Object.keys(cur).concat(Object.keys(hist.series)));
	for (const k of names) {
		const arr = hist.series[k] || (hist.series[k] = new Array(hist.times.length - 1).fill(null));
		const ok = prev && k in prev && k in cur && dt > 0 && cur[k] >= prev[k];
		arr.push(ok ? (cur[k] - prev[k]) / dt : null);
	}
	if (hist.times.length > HISTORY) {
		hist.times.shift();
		for (const k in hist.series)
			hist.series[k].shift();
	}
}

function rate(k) {
	const a = hist.series[k];
	return a && a.length ? a[a.length - 1] : null;
}

/* The NIC counters the NIC card lists, and the lwIP ones per protocol. */
const NIC_KEYS = ['rx_packets', 'tx_packets', 'rx_bytes', 'tx_bytes', 'rx_dropped',
	'rx_errors', 'rx_missed', 'rx_refill_fail', 'rx_bad_len', 'tx_busy'];
const LWIP_KEYS = ['recv', 'xmit', 'drop', 'err', 'memerr'];

/* The counters whose rates the cards plot, flattened to "a.b.c" names
 * (a gauge has no rate: the schema says which is which). */
function counters(st) {
	const c = {};
	const add = (key, path, v) => {
		if (v !== undefined && isCounter(path))
			c[key] = v;
	};
	for (const nic of numKeys(st.nic)) {
		const d = st.nic[nic];
		for (const k of NIC_KEYS)
			add(nic + '.' + k, 'nic.' + nic + '.' + k, d[k]);
		for (const q of d.queues || [])
			for (const k of ['rx_packets', 'tx_packets'])
				add(nic + '.q' + q.queue + '.' + k, 'nic.' + nic + '.queues[].' + k, q[k]);
	}
	if (st.lwip)
		for (const p of ['link', 'ip', 'tcp', 'udp', 'icmp'])
			for (const k of LWIP_KEYS)
				if (st.lwip[p])
					add('lwip.' + p + '.' + k, 'lwip.' + p + '.' + k, st.lwip[p][k]);
	if (st.page_frag)
		for (const k of ['fragments', 'frees'])
			add('frag.' + k, 'page_frag.' + k, st.page_frag[k]);
	return c;
}

/* ---- the cards --------------------------------------------------------- */

const CARDS = [
	{id: 'buddy', title: 'Buddy allocator: free blocks per order',
		what: 'Per node, free blocks of 2^order pages (log scale). Blocks that pile up at low orders while high orders empty is fragmentation.',
		draw: drawBuddy},
	{id: 'pcp', title: 'Per-CPU page lists: occupancy against high and batch',
		what: 'Pages on each CPU\'s list per order, as % of its high mark (solid line: high, dashed: one batch, what a refill or drain moves).',
		draw: drawPcp},
	{id: 'numa', title: 'numastat: where pages came from',
		what: 'Pages per node (log): hit = wanted here and got here, miss = got here but wanted elsewhere, foreign = wanted here but got elsewhere.',
		draw: drawNuma},
	{id: 'slab', title: 'Slab caches: objects in use, magazine hits',
		what: 'Every cache: bar = objects in its slabs (log), dark = in use; then active/total, slabs and the per-CPU magazine hit rate.',
		draw: drawSlab},
	{id: 'qmempool', title: 'qmempool: where allocations were served',
		what: 'Per pool (log): localq hits (no atomic), refills from the node\'s sharedq or the slab, frees of another node\'s objects.',
		draw: drawQmempool},
	{id: 'frag', title: 'page_frag: refills, recycles, remote frees per CPU',
		what: 'Per CPU (log): blocks taken (order 3 = 32 KiB, order 0 = fallback), blocks recycled in place, fragments freed on another node.',
		draw: drawFrag},
	{id: 'nic', title: 'NIC: packets per second',
		what: 'Receive and transmit rates per interface; drops and errors below, as rates and totals.',
		draw: drawNic},
	{id: 'queues', title: 'NIC queues: packets per CPU, and the lwIP core lock',
		what: 'Every RX/TX queue pair with the CPU that polls it (log): packets received and sent; below, rates, refills, drops, and how often each CPU took the lwIP lock or found it busy.',
		draw: drawQueues},
	{id: 'lwip', title: 'lwIP: segments and datagrams per second',
		what: 'lwIP\'s own counters per protocol as rates; drops, memory errors and heap use below.',
		draw: drawLwip},
];

function drawBuddy(st) {
	const b = st.buddyinfo;
	if (!b)
		return {n: 0, text: 'buddyinfo: not in /stats.json'};
	const nodes = numKeys(b);
	const orders = Math.max(...nodes.map((n) => b[n].free_blocks.length));
	const groups = [...Array(orders).keys()].map(String);
	const series = nodes.map((n, i) => ({name: n, color: COLORS[i], values: b[n].free_blocks,
		tip: 'buddyinfo.' + n + '.free_blocks'}));
	const out = new Lines();
	for (const n of nodes) {
		out.add('Node ' + n.replace(/\D/g, '') + ', zone   Normal' +
			b[n].free_blocks.map((v) => ' ' + pad(v, 6)).join(''), 'buddyinfo.' + n + '.free_blocks');
		out.add('  free pages ' + b[n].free_pages, 'buddyinfo.' + n + '.free_pages');
	}
	return {n: bars(this.svg, {groups, series, log: true, xlabel: 'order (2^order pages)',
		ytitle: unit('buddyinfo.node0.free_blocks')}), text: out};
}

function drawPcp(st) {
	const z = st.zoneinfo;
	if (!z)
		return {n: 0, text: 'zoneinfo: not in /stats.json'};
	const groups = [], per = [[], [], [], []], marks = [[], [], [], []];
	const out = new Lines();
	for (const node of numKeys(z)) {
		const zn = z[node];
		out.add(node + ': batch ' + zn.pcp_batch.join('/') + '  high ' + zn.pcp_high.join('/'),
			'zoneinfo.' + node + '.pcp_high');
		for (const cpu of numKeys(zn.pcp)) {
			const p = zn.pcp[cpu];
			groups.push(node.replace('node', 'n') + '/' + cpu.replace('cpu', 'c'));
			p.count.forEach((c, o) => {
				const high = zn.pcp_high[o] || 1;
				per[o].push(100 * c / high);
				marks[o].push([[100, 'limit'], [100 * zn.pcp_batch[o] / high, 'batch']]);
			});
			out.add('  ' + cpu + ' count ' + p.count.map((c, o) => c + '/' + zn.pcp_high[o]).join(' ') +
				'  pages ' + p.pages + ' hit ' + p.alloc_hit + ' miss ' + p.alloc_miss +
				' refill ' + p.refill + ' drain ' + p.drain, 'zoneinfo.' + node + '.pcp.' + cpu + '.count');
		}
	}
	const series = per.map((v, o) => ({name: 'order ' + o, color: COLORS[o], values: v, marks: marks[o]}));
	return {n: bars(this.svg, {groups, series, max: 100, unit: '%', xlabel: 'node/cpu',
		ytitle: '% of high'}), text: out};
}

/* numastat's rows: the schema's values of a node, in its order. */
function numaKeys(m, node) {
	const keys = schema ? schema.filter(([p]) => p.length === 3 && p[0] === 'numastat')
		.map(([p]) => p[2]) : [];
	return keys.length ? keys : Object.keys(m[node] || {});
}

function drawNuma(st) {
	const m = st.numastat;
	if (!m)
		return {n: 0, text: 'numastat: not in /stats.json'};
	const nodes = numKeys(m);
	const keys = numaKeys(m, nodes[0]);
	const series = nodes.map((n, i) => ({name: n, color: COLORS[i], values: keys.map((k) => m[n][k])}));
	const out = new Lines();
	out.add(padR('', 16) + nodes.map((n) => pad(n, 16)).join(''));
	for (const k of keys)
		out.add(padR(k, 16) + nodes.map((n) => pad(m[n][k], 16)).join(''), 'numastat.node0.' + k);
	return {n: bars(this.svg, {groups: keys.map((k) => k.replace('numa_', '')), series, log: true,
		ytitle: unit('numastat.node0.' + keys[0])}), text: out};
}

function magazineHit(c) {
	const tries = (c.magazine_hits || 0) + (c.magazine_misses || 0);
	return tries ? 100 * c.magazine_hits / tries : null;
}

function drawSlab(st) {
	const s = st.slabinfo;
	if (!s)
		return {n: 0, text: 'slabinfo: not in /stats.json'};
	const names = Object.keys(s);
	const rows = names.map((k) => {
		const c = s[k], hit = magazineHit(c);
		return {name: k, total: c.num_objs, used: c.active_objs,
			note: c.active_objs + '/' + c.num_objs + (hit === null ? '' : '  ' + hit.toFixed(1) + '% hit')};
	});
	const objs = names.length ? unit('slabinfo.' + names[0] + '.active_objs') : '';
	const out = new Lines();
	out.add('# ' + padR('name', 20) + pad('active', 7) + pad('total', 7) + pad('slabs', 6) +
		pad('cpu', 6) + pad('allocs', 9) + pad('hit%', 6) + pad('remote', 7) + (objs ? '  (' + objs + ')' : ''));
	for (const k of names) {
		const c = s[k], hit = magazineHit(c);
		out.add(padR(k, 22) + pad(c.active_objs, 7) + pad(c.num_objs, 7) + pad(c.slabs, 6) +
			pad(c.cpu_cached, 6) + pad(c.allocs, 9) + pad(hit === null ? '-' : hit.toFixed(1), 6) +
			pad(c.remote_frees, 7), 'slabinfo.' + k + '.active_objs');
	}
	return {n: gauges(this.svg, {rows}), text: out};
}

function drawQmempool(st) {
	const q = st.qmempool;
	if (!q)
		return {n: 0, text: 'qmempool: not in /stats.json'};
	const pools = numKeys(q);
	if (!pools.length)
		return {n: noData(this.svg, 'no pool (net_alloc=stock)'), text: 'no qmempool in use'};
	const keys = ['localq_hit', 'sharedq_refill', 'slab_refill', 'remote_free'];
	const series = keys.map((k, i) => ({name: k, color: COLORS[i], values: pools.map((p) => q[p][k]),
		tip: 'qmempool.' + pools[0] + '.' + k}));
	const label = (p) => q[p].cache.replace(/^lwip_/, '').slice(0, 9);
	const out = new Lines();
	out.add('# ' + padR('pool', 30) + keys.map((k) => pad(k, 15)).join('') + pad('localq', 8));
	for (const p of pools)
		out.add(padR(p + ' ' + q[p].cache, 32) + keys.map((k) => pad(q[p][k], 15)).join('') +
			pad((q[p].in_localq_cpu || [q[p].in_localq]).join('/'), 8), 'qmempool.' + p + '.in_localq_cpu');
	return {n: bars(this.svg, {groups: pools.map(label), series, log: true,
		ytitle: unit('qmempool.' + pools[0] + '.' + keys[0])}), text: out};
}

function drawFrag(st) {
	const f = st.page_frag;
	if (!f)
		return {n: 0, text: 'page_frag: not in /stats.json'};
	const keys = ['refills_order3', 'refills_order0', 'recycles', 'remote_frees'];
	const cpus = numKeys(f.cpu || {});
	const src = cpus.length ? cpus.map((c) => f.cpu[c]) : [f];
	const groups = cpus.length ? cpus : ['all'];
	const series = keys.map((k, i) => ({name: k, color: COLORS[i], values: src.map((s) => s[k]),
		tip: 'page_frag.' + k}));
	const out = new Lines();
	out.add('fragments ' + f.fragments + ' (' + rateText('page_frag.fragments', 'frag.fragments') + ')',
		'page_frag.fragments');
	out.add('frees ' + f.frees + ' (' + rateText('page_frag.frees', 'frag.frees') + ')', 'page_frag.frees');
	out.add('# ' + padR('cpu', 6) + keys.map((k) => pad(k, 15)).join(''));
	groups.forEach((g, i) => {
		out.add(padR(g, 8) + keys.map((k) => pad(src[i][k], 15)).join(''));
	});
	out.add('order-3 fallbacks ' + f.order3_fallbacks, 'page_frag.order3_fallbacks');
	out.add('alloc_failed ' + f.alloc_failed, 'page_frag.alloc_failed');
	return {n: bars(this.svg, {groups, series, log: true}), text: out};
}

function drawNic(st) {
	const nics = numKeys(st.nic);
	const series = [];
	const out = new Lines();
	nics.forEach((nic, i) => {
		series.push({name: nic + ' rx', color: COLORS[2 * i], points: hist.series[nic + '.rx_packets'] || [],
			tip: 'nic.' + nic + '.rx_packets'});
		series.push({name: nic + ' tx', color: COLORS[2 * i + 1], points: hist.series[nic + '.tx_packets'] || [],
			tip: 'nic.' + nic + '.tx_packets'});
		const d = st.nic[nic];
		out.add(nic + ' (' + d.kind + ')', 'nic.' + nic + '.kind');
		for (const k of NIC_KEYS)
			if (k in d)
				out.add('  ' + padR(k, 15) + pad(d[k], 12) + '  ' + rateText('nic.' + nic + '.' + k, nic + '.' + k),
					'nic.' + nic + '.' + k);
	});
	if (!nics.length)
		return {n: noData(this.svg, 'no NIC'), text: 'no NIC'};
	return {n: lines(this.svg, {times: hist.times, series, unit: '',
		ytitle: unit('nic.' + nics[0] + '.rx_packets') + '/s'}), text: out};
}

function drawQueues(st) {
	const groups = [], rx = [], tx = [];
	const out = new Lines();
	out.add('# ' + padR('queue', 10) + padR('cpu/node', 9) + ['rx_packets', 'tx_packets', 'rx/s', 'tx/s',
		'refills', 'dropped'].map((k) => pad(k, 11)).join(''));
	for (const nic of numKeys(st.nic))
		for (const q of st.nic[nic].queues || []) {
			const name = nic + ' q' + q.queue;
			groups.push(name.replace('eth', 'e') + '/c' + q.cpu);
			rx.push(q.rx_packets);
			tx.push(q.tx_packets);
			out.add(padR(name, 12) + padR(q.cpu + '/' + q.node, 9) + [q.rx_packets, q.tx_packets,
				fmt(rate(nic + '.q' + q.queue + '.rx_packets')), fmt(rate(nic + '.q' + q.queue + '.tx_packets')),
				q.rx_refills, q.rx_dropped].map((v) => pad(v, 11)).join(''), 'nic.' + nic + '.queues[].rx_packets');
		}
	const l = st.core_lock;
	if (l) {
		out.add('');
		out.add('core lock  ' + ['acquired', 'busy', 'waits', 'hold_us'].map((k) => pad(k, 11)).join(''));
		for (const c of numKeys(l.cpu)) {
			const v = l.cpu[c];
			if (v.acquired || v.busy)
				out.add(padR(c, 11) + [v.acquired, v.busy, v.waits,
					(v.hold_ns / Math.max(1, v.acquired) / 1000).toFixed(1)].map((x) => pad(x, 11)).join(''),
				'core_lock.cpu.' + c + '.acquired');
		}
		out.add('calls into lwIP without the lock: ' + l.unlocked_calls, 'core_lock.unlocked_calls');
	}
	const sk = st.stacks;
	if (sk) {
		out.add('');
		out.add('stacks: ' + sk.mode + ', ' + sk.count + ' (lock shared between CPUs taken ' +
			(l ? l.total.shared : 0) + ' times)', 'stacks.mode');
		if (sk.mode === 'percpu') {
			out.add('stack      ' + ['tcp_recv', 'tcp_xmit', 'udp_recv', 'handed', 'taken', 'copies']
				.map((k) => pad(k, 11)).join(''));
			for (const v of sk.instances)
				out.add(padR('cpu' + v.cpu, 11) + [v.tcp_recv, v.tcp_xmit, v.udp_recv, v.sent, v.taken,
					v.copies].map((x) => pad(x, 11)).join(''), 'stacks.instances[].tcp_recv');
		}
	}
	if (!groups.length)
		return {n: noData(this.svg, 'no NIC'), text: 'no NIC'};
	const series = [{name: 'rx_packets', color: COLORS[0], values: rx, tip: 'nic.eth0.queues[].rx_packets'},
		{name: 'tx_packets', color: COLORS[1], values: tx, tip: 'nic.eth0.queues[].tx_packets'}];
	return {n: bars(this.svg, {groups, series, log: true, ytitle: unit('nic.eth0.queues[].rx_packets')}),
		text: out};
}

function drawLwip(st) {
	const l = st.lwip;
	if (!l)
		return {n: 0, text: 'lwip: not in /stats.json'};
	const series = [['tcp', 'recv'], ['tcp', 'xmit'], ['udp', 'recv'], ['udp', 'xmit'], ['ip', 'drop']]
		.map(([p, k], i) => ({name: p + ' ' + k, color: COLORS[i], points: hist.series['lwip.' + p + '.' + k] || [],
			tip: 'lwip.' + p + '.' + k}));
	const per = unit('lwip.tcp.recv');
	const out = new Lines();
	out.add('# ' + padR('proto', 6) + LWIP_KEYS.map((k) => pad(k, 10)).join('') +
		'  (recv/s xmit/s' + (per ? ', ' + per : '') + ')');
	for (const p of ['link', 'ip', 'icmp', 'udp', 'tcp'])
		if (l[p])
			out.add(padR(p, 8) + LWIP_KEYS.map((k) => pad(l[p][k], 10)).join('') +
				'  ' + fmt(rate('lwip.' + p + '.recv')) + ' ' + fmt(rate('lwip.' + p + '.xmit')), 'lwip.' + p + '.recv');
	if (l.heap)
		out.add('heap used ' + l.heap.used + ' max ' + l.heap.max + ' err ' + l.heap.err +
			(unit('lwip.heap.used') ? ' (' + unit('lwip.heap.used') + ')' : ''), 'lwip.heap.used');
	for (const k of numKeys(l.memp))
		if (l.memp[k].max || l.memp[k].err)
			out.add('  memp ' + padR(k, 15) + ' used ' + pad(l.memp[k].used, 5) + ' max ' + pad(l.memp[k].max, 5) +
				' err ' + l.memp[k].err, 'lwip.memp.' + k + '.used');
	return {n: lines(this.svg, {times: hist.times, series, ytitle: per ? per + '/s' : ''}), text: out};
}

/* ---- the update loop ------------------------------------------------- */

function build() {
	const main = document.getElementById('cards');
	for (const c of CARDS) {
		const sec = document.createElement('section');
		sec.className = 'card';
		sec.id = c.id;
		const h = document.createElement('h2');
		h.textContent = c.title;
		const p = document.createElement('p');
		p.className = 'what';
		p.textContent = c.what;
		const body = document.createElement('div');
		body.className = 'body';
		c.svg = el('svg', {class: 'chart', 'data-points': 0, 'data-updated': 0, role: 'img', 'aria-label': c.title});
		c.pre = document.createElement('pre');
		c.pre.className = 'values';
		body.append(c.svg, c.pre);
		sec.append(h, p, body);
		main.appendChild(sec);
	}
}

/* The values text: a plain string, or Lines, each line a span whose
 * tooltip is the label of what it shows. */
function showText(pre, text) {
	if (!(text instanceof Lines)) {
		pre.textContent = text;
		return;
	}
	pre.textContent = '';
	text.lines.forEach(([t, tip], i) => {
		const span = document.createElement('span');
		span.textContent = t + (i + 1 < text.lines.length ? '\n' : '');
		if (tip)
			span.title = tip;
		pre.appendChild(span);
	});
}

let prev = null, prevT = 0, updates = 0, busy = false;

function render(st) {
	const t = (st.uptime_ms !== undefined ? st.uptime_ms : performance.now()) / 1000;
	const cur = counters(st);
	recordRates(cur, prev, t - prevT, t);
	prev = cur;
	prevT = t;
	updates++;
	for (const c of CARDS) {
		let r;
		try {
			r = c.draw(st);
		} catch (e) {
			/* One card's bad data must not stop the others. */
			r = {n: noData(c.svg, 'cannot draw: ' + e.message), text: String(e)};
		}
		c.svg.setAttribute('data-points', r.n);
		c.svg.setAttribute('data-updated', updates);
		showText(c.pre, r.text);
	}
	document.body.setAttribute('data-updates', updates);
}

function status(msg, bad) {
	const s = document.getElementById('status');
	s.textContent = msg;
	s.className = bad ? 'bad' : '';
}

async function tick() {
	if (busy)
		return; /* one request at a time: the guest is never queued up */
	busy = true;
	if (!schema)
		await loadSchema();
	const t0 = performance.now();
	try {
		const r = await fetch('/stats.json', {cache: 'no-store'});
		if (!r.ok)
			throw new Error('HTTP ' + r.status);
		const st = await r.json();
		const ms = performance.now() - t0;
		render(st);
		const up = st.uptime_ms !== undefined ? '  uptime ' + fmt(st.uptime_ms / 1000) + ' s' : '';
		status('update ' + updates + ' every ' + interval + ' ms; /stats.json took ' +
			ms.toFixed(0) + ' ms' + up, false);
	} catch (e) {
		status('no answer from /stats.json (' + e.message + '); retrying', true);
	} finally {
		busy = false;
	}
}

build();
tick();
setInterval(tick, interval);
