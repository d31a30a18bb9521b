(function () {
'use strict';
var DATA = JSON.parse(document.getElementById('ksc-data').textContent);
if (!DATA || typeof DATA !== 'object' || Array.isArray(DATA)) DATA = {};
var KIND = document.body.getAttribute('data-kind');
var MAIN = document.getElementById('ksc-main');
var NAV = document.getElementById('ksc-nav');
var collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
var MAX_MID = 60;
/* Rows put in a table at a time: laying out ten thousand rows takes seconds. */
var PAGE = 500;

function h(tag, props, kids) {
	var e = document.createElement(tag);
	var k;
	for (k in props || {}) {
		if (props[k] == null) continue;
		if (k === 'text') e.textContent = props[k];
		else if (k === 'cls') e.className = props[k];
		else e.setAttribute(k, props[k]);
	}
	(kids || []).forEach(function (c) {
		if (c != null) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
	});
	return e;
}
function arr(v) { return Array.isArray(v) ? v : []; }
/* The objects of an array (records), anything else left out. */
function objs(v) { return arr(v).filter(function (x) { return x && typeof x === 'object' && !Array.isArray(x); }); }
function str(v) { return v == null ? '' : String(v); }
function plural(n, one, many) { return n + ' ' + (n === 1 ? one : many); }
function sumOf(o) {
	var s = 0, k;
	for (k in o || {}) if (typeof o[k] === 'number') s += o[k];
	return s;
}
/* A module's name as the loader and kmod give it: basename, '-' as '_'. */
function modName(s) {
	s = str(s);
	return s.slice(s.lastIndexOf('/') + 1).replace(/\.ko(\.[a-z]+)?$/, '').replace(/-/g, '_');
}

/* Tones: bad, warn, good, info (colours of badges, graph nodes and edges). */
var KIND_TONE = {
	'removed': 'bad', 'became-gpl-only': 'bad', 'became-module-restricted': 'bad',
	'namespace-gained': 'bad', 'namespace-changed': 'warn', 'restriction-changed': 'warn',
	'crc-changed': 'warn', 'owner-changed': 'info', 'added': 'good',
	'no-longer-gpl-only': 'good', 'namespace-lost': 'good', 'restriction-lifted': 'good'
};
var TONE_RANK = { bad: 0, warn: 1, info: 2, good: 3, '': 4 };
function kindTone(k) { return KIND_TONE[k] || 'info'; }
function sevTone(s) { return s === 'error' ? 'bad' : s === 'warning' ? 'warn' : 'info'; }
function sevRank(s) { return s === 'error' ? 0 : s === 'warning' ? 1 : s === 'note' ? 2 : 3; }
function verdictTone(v) {
	v = str(v);
	if (!v) return '';
	return v === 'allowed' ? 'good' : v.indexOf('warning') >= 0 ? 'warn' : 'bad';
}
function itemTone(k) { return k === 'exact' ? 'good' : k === 'glob' ? 'info' : 'bad'; }
function worse(a, b) { return TONE_RANK[a] <= TONE_RANK[b] ? a : b; }
var ERRNO = {
	1: 'EPERM', 2: 'ENOENT', 8: 'ENOEXEC', 13: 'EACCES', 14: 'EFAULT', 17: 'EEXIST',
	22: 'EINVAL', 61: 'ENODATA', 95: 'EOPNOTSUPP', 126: 'ENOKEY', 127: 'EKEYEXPIRED',
	128: 'EKEYREVOKED', 129: 'EKEYREJECTED'
};
function errnoText(v) {
	if (!v) return 'loads';
	return ERRNO[Math.abs(v)] ? '-' + ERRNO[Math.abs(v)] : 'error ' + v;
}

/* Text that may wrap after '/' and ',' (paths, pattern lists) but not inside names. */
function breakable(v, mono) {
	if (!mono || !/[/,]/.test(v)) return document.createTextNode(v);
	var span = h('span');
	v.split(/([/,])/).forEach(function (part, i) {
		if (part) span.appendChild(document.createTextNode(part));
		if (i % 2) span.appendChild(h('wbr'));
	});
	return span;
}
function badge(text, tone) { return h('span', { cls: 'badge' + (tone ? ' c-' + tone : ''), text: text }); }
function none() { return h('span', { cls: 'none', text: '\u2014' }); }

/* Cells: each returns { node, sort, text } (sort: number, string or null = last). */
var CELL = {
	text: function (v, col) {
		v = str(v);
		return { node: v ? breakable(v, col && /mono/.test(col.cls || '')) : none(), sort: v || null, text: v };
	},
	num: function (v) {
		var n = typeof v === 'number' ? v : null;
		return { node: n == null ? none() : document.createTextNode(String(n)), sort: n, text: str(n) };
	},
	list: function (v) {
		v = arr(v).map(str);
		if (!v.length) return { node: none(), sort: 0, text: '' };
		var ul = h('ul', { cls: 'list' }, v.map(function (x) { return h('li', { text: x }); }));
		var node = ul;
		if (v.length > 8) {
			node = h('details', null, [h('summary', { text: plural(v.length, 'module', 'modules') }), ul]);
		} else if (v.length > 1) {
			node = h('span', null, [h('span', { cls: 'n-badge', text: '(' + v.length + ')' }), ul]);
		}
		return { node: node, sort: v.length, text: v.join(' ') };
	},
	badge: function (v, col) {
		v = str(v);
		return { node: v ? badge(v, col.tone(v)) : none(), sort: col.rank ? col.rank(v) : v || null, text: v };
	},
	bool: function (v, col) {
		var t = v ? col.yes : col.no;
		return { node: t ? badge(t, v ? col.toneYes : '') : none(), sort: v ? 1 : 0, text: t || '' };
	}
};

var registry = [];

/*
 * A section with a table: spec = { key, title, desc, cols: [{ label, type, get, cls, ... }],
 * rows: [objects] }. Sorting by a header click (numeric-aware), filtering by a text box;
 * "N of M rows" shows what is left. Returns the table's state; t.onchange is called after
 * each sort or filter.
 */
function table(spec) {
	var t = { spec: spec, rows: [], sortCol: -1, sortDir: 1, listeners: [], limit: PAGE };
	var id = spec.key;
	var tb = h('tbody');
	var ths = spec.cols.map(function (c, i) {
		var b = h('button', { type: 'button', text: c.label, title: 'Sort by ' + c.label });
		var th = h('th', { scope: 'col', cls: c.type === 'num' ? 'num' : null }, [b]);
		b.addEventListener('click', function () { sortBy(t, i); });
		return th;
	});
	t.ths = ths;
	var tab = h('table', { id: 't-' + id, 'data-total': spec.rows.length }, [
		h('caption', { cls: 'sr-only', text: spec.title + ' (select a column header to sort)' }),
		h('thead', null, [h('tr', null, ths)]), tb]);
	t.tbody = tb;
	t.table = tab;
	spec.rows.forEach(function (r, idx) {
		var keys = [], texts = [];
		var tr = h('tr', null, spec.cols.map(function (c) {
			var cell = (c.render || CELL[c.type || 'text'])(c.get(r), c, r);
			keys.push(cell.sort);
			texts.push(cell.text);
			var td = h('td', { cls: (c.type === 'num' ? 'num ' : '') + (c.cls || '') || null,
				title: c.title ? c.title(r) || null : null }, [cell.node]);
			return td;
		}));
		t.rows.push({ tr: tr, keys: keys, text: texts.join('\u0001').toLowerCase(), src: r, idx: idx, match: true });
	});
	t.order = t.rows.slice();
	t.count = h('span', { cls: 'count', id: 'c-' + id, role: 'status', 'aria-live': 'polite' });
	t.filter = h('input', {
		type: 'search', id: 'f-' + id, 'aria-controls': 't-' + id, autocomplete: 'off',
		spellcheck: 'false', placeholder: 'words every row must contain'
	});
	t.filter.addEventListener('input', function () { applyFilter(t); });
	t.empty = h('p', { cls: 'empty', text: 'No row matches the filter.', hidden: '' });
	t.moreText = h('span');
	var more = h('button', { type: 'button', text: 'Show ' + PAGE + ' more' });
	var all = h('button', { type: 'button', text: 'Show all' });
	more.addEventListener('click', function () { t.limit += PAGE; render(t); });
	all.addEventListener('click', function () { t.limit = Infinity; render(t); });
	t.more = h('p', { cls: 'more', hidden: '' }, [t.moreText, ' ', more, ' ', all]);
	var sec = h('section', { id: 'sec-' + id, 'aria-labelledby': 'h-' + id }, [
		h('h2', { id: 'h-' + id }, [spec.title + ' ', h('span', { cls: 'n', text: '(' + spec.rows.length + ')' })]),
		spec.desc ? h('p', { cls: 'desc', text: spec.desc }) : null,
		h('div', { cls: 'tools' }, [h('label', { for: 'f-' + id, text: 'Filter' }), t.filter, t.count]),
		h('div', { cls: 'scroll' + (spec.narrow ? ' narrow' : '') }, [tab]), t.empty, t.more]);
	t.section = sec;
	MAIN.appendChild(sec);
	NAV.appendChild(h('a', { href: '#sec-' + id, text: spec.title }));
	registry.push(t);
	render(t);
	return t;
}

function applyFilter(t) {
	var terms = t.filter.value.toLowerCase().split(/\s+/).filter(Boolean);
	t.rows.forEach(function (r) {
		r.match = terms.every(function (w) { return r.text.indexOf(w) >= 0; });
	});
	t.limit = PAGE;
	render(t);
}

function cmpKeys(a, b) {
	if (a == null || a === '') return b == null || b === '' ? 0 : 2;
	if (b == null || b === '') return -2;
	if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
	return collator.compare(String(a), String(b));
}

function sortBy(t, col) {
	t.sortDir = t.sortCol === col && t.sortDir === 1 ? -1 : 1;
	t.sortCol = col;
	t.order = t.rows.slice().sort(function (a, b) {
		var c = cmpKeys(a.keys[col], b.keys[col]);
		if (c === 2 || c === -2) return c; /* empty cells last either way */
		return c * t.sortDir || a.idx - b.idx;
	});
	t.ths.forEach(function (th, i) {
		if (i === col) th.setAttribute('aria-sort', t.sortDir === 1 ? 'ascending' : 'descending');
		else th.removeAttribute('aria-sort');
	});
	render(t);
}

function render(t) {
	var frag = document.createDocumentFragment(), n = 0, total = t.rows.length;
	t.order.forEach(function (r) {
		if (!r.match) return;
		if (n < t.limit) frag.appendChild(r.tr);
		n++;
	});
	var put = Math.min(n, t.limit);
	t.table.setAttribute('data-rendered', put);
	t.table.setAttribute('data-limit', t.limit === Infinity ? 'all' : t.limit);
	t.moreText.textContent = 'The first ' + put + ' of the ' + n + ' rows are listed.';
	if (put < n) t.more.removeAttribute('hidden');
	else t.more.setAttribute('hidden', '');
	t.tbody.textContent = '';
	t.tbody.appendChild(frag);
	t.count.textContent = n + ' of ' + total + (total === 1 ? ' row' : ' rows');
	t.count.setAttribute('data-shown', n);
	t.count.setAttribute('data-total', total);
	t.table.setAttribute('data-shown', n);
	if (n || !total) t.empty.setAttribute('hidden', '');
	else t.empty.removeAttribute('hidden');
	t.listeners.forEach(function (f) { f(); });
}
function visible(t) { return t.order.filter(function (r) { return r.match; }).map(function (r) { return r.src; }); }

function cards(list) {
	var sec = h('section', { id: 'sec-summary', 'aria-labelledby': 'h-summary' }, [
		h('h2', { id: 'h-summary', text: 'Summary' }),
		h('div', { cls: 'cards' }, list.map(function (c) {
			return h('div', { cls: 'card' }, [h('div', { cls: 'k', text: c[0] }),
				h('div', { cls: 'v' + (c[3] ? ' small' : ''), text: str(c[1]) || '\u2014' }),
				c[2] ? h('div', { cls: 'x', text: c[2] }) : null]);
		}))]);
	MAIN.appendChild(sec);
	NAV.appendChild(h('a', { href: '#sec-summary', text: 'Summary' }));
}

/* ---- The graph: three columns, drawn as SVG from the rows the tables show. ---- */
/* The SVG namespace, from the HTML parser (so that the page names no URL at all). */
var SVGNS = (function () {
	var d = document.createElement('div');
	d.innerHTML = '<svg></svg>';
	return d.firstChild.namespaceURI;
})();
function s(tag, attrs, kids) {
	var e = document.createElementNS(SVGNS, tag), k;
	for (k in attrs || {}) if (attrs[k] != null) e.setAttribute(k, attrs[k]);
	(kids || []).forEach(function (c) { if (c) e.appendChild(c); });
	return e;
}
function Model() { this.nodes = {}; this.cols = [[], [], []]; this.edges = {}; this.elist = []; }
Model.prototype.node = function (col, id, label, cls, title) {
	var key = col + ':' + id, n = this.nodes[key];
	if (!n) {
		n = this.nodes[key] = { key: key, col: col, label: str(label), cls: cls || '', title: title || str(label), adj: [] };
		this.cols[col].push(n);
	} else if (cls) {
		n.cls = cls;
	}
	return key;
};
Model.prototype.edge = function (a, b, cls, title) {
	var key = a + '\u0001' + b, e = this.edges[key];
	if (e) return;
	e = this.edges[key] = { a: this.nodes[a], b: this.nodes[b], cls: cls || '', title: title || '' };
	this.elist.push(e);
	e.a.adj.push(e);
	e.b.adj.push(e);
};

var measureCtx = null;
function textWidth(t) {
	if (!measureCtx) {
		measureCtx = document.createElement('canvas').getContext('2d');
		measureCtx.font = '12px system-ui, "DejaVu Sans", sans-serif';
	}
	return measureCtx ? measureCtx.measureText(t).width : t.length * 7;
}

function graphSection(opts) {
	/* opts: { titles: [3], legend: [[label, colour, dashed]], sources: [tables], build(model, rowsPerSource) } */
	var wrap = h('div', { cls: 'graph-wrap', tabindex: '0', role: 'region', 'aria-label': 'Usage graph' });
	var note = h('p', { cls: 'note', id: 'graph-note' });
	var legend = h('div', { cls: 'legend', 'aria-hidden': 'true' }, opts.legend.map(function (l) {
		return h('span', { cls: l[2] ? 'dash' : null, style: '--sw:' + l[1], text: l[0] });
	}));
	var sec = h('section', { id: 'sec-graph', 'aria-labelledby': 'h-graph' }, [
		h('h2', { id: 'h-graph', text: 'Graph' }),
		h('p', { cls: 'desc', text: opts.desc }), legend, note, wrap]);
	MAIN.insertBefore(sec, opts.before.section);
	NAV.insertBefore(h('a', { href: '#sec-graph', text: 'Graph' }), NAV.querySelector('a[href="#sec-' + opts.before.spec.key + '"]'));
	function draw() {
		var m = new Model();
		var truncated = opts.build(m, opts.sources.map(visible));
		drawModel(wrap, m, opts.titles);
		var mid = m.cols[1].length;
		note.textContent = mid ? plural(mid, opts.what[0], opts.what[1]) + ' drawn' +
			(truncated ? ' (the first ' + MAX_MID + ' of ' + truncated + ' in table order: filter or sort the tables to choose)' : '') +
			'. Point at a box to highlight its links.' : 'Nothing to draw: no row is shown in the tables below.';
	}
	var pending = false;
	opts.sources.forEach(function (t) {
		t.listeners.push(function () {
			if (pending) return;
			pending = true;
			(window.requestAnimationFrame || setTimeout)(function () { pending = false; draw(); });
		});
	});
	draw();
}

function barycentre(nodes, col) {
	nodes.forEach(function (n, i) {
		var sum = 0, k = 0;
		n.adj.forEach(function (e) {
			var o = e.a === n ? e.b : e.a;
			if (o.col === col) { sum += o.pos; k++; }
		});
		n.bc = k ? sum / k : 1e9 + i;
	});
	nodes.sort(function (a, b) { return a.bc - b.bc || collator.compare(a.label, b.label); });
	nodes.forEach(function (n, i) { n.pos = i; });
}

function drawModel(wrap, m, titles) {
	var ROW = 26, NH = 20, PAD = 8, TOP = 34, MAXW = 280;
	m.cols[1].forEach(function (n, i) { n.pos = i; });
	barycentre(m.cols[0], 1);
	barycentre(m.cols[2], 1);
	var widths = m.cols.map(function (c, i) {
		var w = textWidth(titles[i]) * 1.1 + 4; /* titles are bold */
		c.forEach(function (n) {
			n.text = n.label.length > 44 ? n.label.slice(0, 42) + '\u2026' : n.label;
			n.w = Math.min(MAXW, Math.ceil(textWidth(n.text)) + 2 * PAD);
			w = Math.max(w, n.w);
		});
		return Math.max(60, Math.ceil(w));
	});
	/* Spread the columns over the width at hand, within reason. */
	var room = (wrap.clientWidth || 900) - widths[0] - widths[1] - widths[2] - 24;
	var GAP = Math.max(120, Math.min(300, Math.floor(room / 2)));
	var xs = [10, 10 + widths[0] + GAP, 10 + widths[0] + GAP + widths[1] + GAP];
	var H = Math.max(1, m.cols[0].length, m.cols[1].length, m.cols[2].length) * ROW;
	var W = xs[2] + widths[2] + 10;
	/* The middle column and the tallest one are packed and centred; a shorter side column
	   puts each box level with the middle of its neighbours, as far as room allows. */
	m.cols.forEach(function (c, ci) {
		var off = TOP + (H - c.length * ROW) / 2;
		c.forEach(function (n, i) {
			n.x = ci === 0 ? xs[0] + widths[0] - n.w : ci === 1 ? xs[1] + (widths[1] - n.w) / 2 : xs[2];
			n.y = off + i * ROW + (ROW - NH) / 2;
		});
	});
	[0, 2].forEach(function (ci) {
		var c = m.cols[ci];
		if (!c.length || c.length * ROW >= H) return;
		c.forEach(function (n) {
			var sum = 0, k = 0;
			n.adj.forEach(function (e) {
				var o = e.a === n ? e.b : e.a;
				if (o.col === 1) { sum += o.y; k++; }
			});
			if (k) n.y = sum / k;
		});
		var lo = TOP + (ROW - NH) / 2, hi = TOP + H - ROW + (ROW - NH) / 2, i;
		for (i = 0; i < c.length; i++) c[i].y = Math.max(c[i].y, i ? c[i - 1].y + ROW : lo);
		for (i = c.length - 1; i >= 0; i--) c[i].y = Math.min(c[i].y, i < c.length - 1 ? c[i + 1].y - ROW : hi);
	});
	var svg = s('svg', { 'class': 'graph', width: W, height: TOP + H + 10,
		viewBox: '0 0 ' + W + ' ' + (TOP + H + 10), role: 'img',
		'aria-label': 'Graph of ' + m.cols[1].length + ' ' + titles[1] + ' with their ' + titles[0] + ' and ' + titles[2] });
	titles.forEach(function (tt, i) {
		var anchor = i === 0 ? 'end' : i === 1 ? 'middle' : 'start';
		var x = i === 0 ? xs[0] + widths[0] : i === 1 ? xs[1] + widths[1] / 2 : xs[2];
		var t = s('text', { 'class': 'col-title', x: x, y: 18, 'text-anchor': anchor });
		t.textContent = tt;
		svg.appendChild(t);
	});
	var eg = s('g', { 'class': 'edges' });
	m.elist.forEach(function (e) {
		var a = e.a, b = e.b;
		if (a.col > b.col) { var tmp = a; a = b; b = tmp; }
		var x1 = a.x + a.w, y1 = a.y + NH / 2, x2 = b.x, y2 = b.y + NH / 2, dx = (x2 - x1) / 2;
		var p = s('path', { 'class': 'edge' + (e.cls ? ' ' + e.cls : ''),
			d: 'M' + x1 + ' ' + y1 + ' C' + (x1 + dx) + ' ' + y1 + ' ' + (x2 - dx) + ' ' + y2 + ' ' + x2 + ' ' + y2 });
		if (e.title) {
			var tt = s('title');
			tt.textContent = e.title;
			p.appendChild(tt);
		}
		e.el = p;
		eg.appendChild(p);
	});
	svg.appendChild(eg);
	var ng = s('g', { 'class': 'nodes' });
	m.cols.forEach(function (c) {
		c.forEach(function (n) {
			var title = s('title');
			title.textContent = n.title;
			var label = s('text', { x: PAD, y: NH / 2 });
			label.textContent = n.text;
			var g = s('g', { 'class': 'node' + (n.col === 1 ? ' mid' : '') + (n.cls ? ' ' + n.cls : ''),
				transform: 'translate(' + n.x + ',' + n.y + ')', 'data-col': n.col },
				[title, s('rect', { width: n.w, height: NH, rx: 4 }), label]);
			g.addEventListener('mouseenter', function () { focus(svg, n, true); });
			g.addEventListener('mouseleave', function () { focus(svg, n, false); });
			n.el = g;
			ng.appendChild(g);
		});
	});
	svg.appendChild(ng);
	wrap.textContent = '';
	wrap.appendChild(svg);
	/* The box keeps the height of the first drawing, so that filtering a table below does
	   not move the page under the reader's cursor. */
	if (!wrap.style.height) wrap.style.height = Math.min(TOP + H + 12, 760) + 'px';
}

function focus(svg, n, on) {
	svg.classList.toggle('focus', on);
	n.el.classList.toggle('hl', on);
	n.adj.forEach(function (e) {
		e.el.classList.toggle('hl', on);
		e.a.el.classList.toggle('hl', on);
		e.b.el.classList.toggle('hl', on);
	});
}

/* ---- audit ---- */
function auditView() {
	var k = objs([DATA.kernel])[0] || {};
	var restricted = objs(DATA.restricted), namespaces = objs(DATA.namespaces), findings = objs(DATA.findings);
	var counts = objs([DATA.counts])[0] || {};
	var sev = { error: 0, warning: 0, note: 0 }, codeSev = {}, flagged = {};
	findings.forEach(function (f) {
		if (sev[f.verdict] != null) sev[f.verdict]++;
		if (!codeSev[f.code] || sevRank(f.verdict) < sevRank(codeSev[f.code])) codeSev[f.code] = f.verdict;
		if (f.module && f.verdict !== 'note') flagged[modName(f.module)] = worse(flagged[modName(f.module)] || 'info', sevTone(f.verdict));
	});
	document.getElementById('ksc-sub').textContent = 'Audit of ' + str(k.path || 'a kernel') + (k.release ? ', release ' + k.release : '');
	var dead = restricted.filter(function (r) { return r.dead; }).length;
	var sg = objs([DATA.signatures])[0], signers = objs(DATA.signers), keys = objs(DATA.keys);
	var sigCards = !sg ? [] : [
		['Signed modules', sg.signed, str(sg.verified) + ' verified, ' + str(sg.foreign_key) + ' foreign key, ' + str(sg.rejected) + ' rejected, ' +
			str(sg.unsupported) + ' unsupported, ' + str(sg.not_checked) + ' not checked'],
		['Unsigned modules', sg.unsigned, sg.module_sig === false ? 'the kernel does not sign its modules' : sg.module_sig ? 'the kernel signs its modules' : ''],
		['Keys', sg.keys_checked ? keys.length : 'not checked', sg.keys_checked ? keys.map(function (x) { return str(x.subject); }).join(', ') :
			'no certificate given (--cert) and none in the kernel image: signatures were not verified', !sg.keys_checked]
	];
	cards([
		['Release', k.release, k.path ? 'under ' + k.path : '', true],
		['Rules of', k.policy, 'kernel version applied', true],
		['Modules', k.modules],
		['Exports', k.exports, str(k.gpl_only) + ' GPL-only, ' + str(k.plain) + ' plain'],
		['Module-restricted', restricted.length, plural(dead, 'dead', 'dead')],
		['Namespaces', namespaces.length],
		['Findings', findings.length, plural(sev.error, 'error', 'errors') + ', ' + plural(sev.warning, 'warning', 'warnings') + ', ' + sev.info + ' info']
	].concat(sigCards));
	var tCounts = table({
		key: 'counts', title: 'Findings by code', desc: 'How many findings of each code the audit made.', narrow: true,
		rows: Object.keys(counts).map(function (c) { return { code: c, n: counts[c], severity: codeSev[c] || '' }; }),
		cols: [
			{ label: 'Code', get: function (r) { return r.code; }, cls: 'mono nw' },
			{ label: 'Severity', type: 'badge', get: function (r) { return r.severity; }, tone: sevTone, rank: sevRank },
			{ label: 'Count', type: 'num', get: function (r) { return r.n; } }
		]
	});
	var tRes = table({
		key: 'restricted', title: 'Module-restricted exports',
		desc: 'Exports limited to modules whose names match a pattern list (EXPORT_SYMBOL_FOR_MODULES, 6.16+): each item with the modules it matches by the loader\u2019s rule and by modpost\u2019s, and the modules that use the export. Dead: no module matches any item.',
		rows: restricted,
		cols: [
			{ label: 'Symbol', get: function (r) { return r.symbol; }, cls: 'mono nw' },
			{ label: 'Owner', get: function (r) { return r.owner; }, cls: 'mono' },
			{ label: 'Namespace', get: function (r) { return r.namespace; }, cls: 'mono' },
			{ label: 'GPL-only', type: 'bool', get: function (r) { return r.gpl_only; }, yes: 'GPL-only', no: 'no', toneYes: 'info' },
			{ label: 'Items and matches', get: function (r) { return r.items; }, cls: 'wide', render: itemsCell },
			{ label: 'Users', type: 'list', get: function (r) { return r.users; }, cls: 'mono' },
			{ label: 'Dead', type: 'bool', get: function (r) { return r.dead; }, yes: 'dead', no: '', toneYes: 'bad' }
		]
	});
	var tNs = table({
		key: 'namespaces', title: 'Namespaces',
		desc: 'Every symbol namespace: how many exports it holds, who exports into it, who imports it (MODULE_IMPORT_NS) and which importers use nothing from it.',
		rows: namespaces,
		cols: [
			{ label: 'Namespace', get: function (r) { return r.namespace; }, cls: 'mono nw' },
			{ label: 'Exports', type: 'num', get: function (r) { return r.exports; } },
			{ label: 'Exporters', type: 'list', get: function (r) { return r.exporters; }, cls: 'mono' },
			{ label: 'Importers', type: 'list', get: function (r) { return r.importers; }, cls: 'mono' },
			{ label: 'Unused importers', type: 'list', get: function (r) { return r.unused_importers; }, cls: 'mono' }
		]
	});
	var tFind = table({
		key: 'findings', title: 'Findings', desc: 'Each finding of the audit, with its code and what it is about.',
		rows: findings,
		cols: [
			{ label: 'Severity', type: 'badge', get: function (r) { return r.verdict; }, tone: sevTone, rank: sevRank },
			{ label: 'Code', get: function (r) { return r.code; }, cls: 'mono nw' },
			{ label: 'Module', get: function (r) { return r.module; }, cls: 'mono nw', title: function (r) { return r.path; } },
			{ label: 'Symbol', get: function (r) { return r.symbol; }, cls: 'mono nw' },
			{ label: 'Namespace', get: function (r) { return r.namespace; }, cls: 'mono' },
			{ label: 'Detail', get: function (r) { return r.summary; }, cls: 'wide' }
		]
	});
	void tFind;
	if (sg) table({
		key: 'signers', title: 'Signers',
		desc: 'Who signed the modules of the tree: the signer, key id (the certificate\u2019s serial number) and hash algorithm as modinfo shows them, and what became of each module\u2019s signature against the kernel\u2019s keys' +
			(sg.keys_checked ? '.' : ' (no key known: well-formed signatures were not checked).'),
		rows: signers,
		cols: [
			{ label: 'Signer', get: function (r) { return r.signer == null ? '(not decodable)' : r.signer; } },
			{ label: 'Key id', get: function (r) { return r.key_id; }, cls: 'mono' },
			{ label: 'Hash', get: function (r) { return r.hash_algo; }, cls: 'mono nw' },
			{ label: 'Verified by', get: function (r) { return r.key; } },
			{ label: 'Modules', type: 'num', get: function (r) { return r.modules; } },
			{ label: 'Verified', type: 'num', get: function (r) { return r.verified; } },
			{ label: 'Foreign key', type: 'num', get: function (r) { return r.foreign_key; } },
			{ label: 'Rejected', type: 'num', get: function (r) { return r.rejected; } },
			{ label: 'Unsupported', type: 'num', get: function (r) { return r.unsupported; } },
			{ label: 'Not checked', type: 'num', get: function (r) { return r.not_checked; } }
		]
	});
	graphSection({
		titles: ['exporters', 'restricted exports and namespaces', 'users and importers'],
		what: ['restricted export or namespace', 'restricted exports and namespaces'],
		desc: 'Who exports each module-restricted export and namespace shown in the tables, and which modules use it. Follows the filters and sort order of those two tables.',
		legend: [['uses a restricted export', '#c98a16'], ['imports a namespace', '#4a7fd0'],
			['imports it but uses nothing from it', '#8a96a3', true], ['exports', '#8a96a3']],
		sources: [tRes, tNs], before: tCounts,
		build: function (m, rows) {
			var all = rows[0].map(function (r) { return ['r', r]; }).concat(rows[1].map(function (r) { return ['n', r]; }));
			all.slice(0, MAX_MID).forEach(function (x) {
				var r = x[1], mid;
				if (x[0] === 'r') {
					mid = m.node(1, 'sym:' + r.symbol, r.symbol, r.dead ? 'k-bad k-dead' : 'k-warn',
						r.symbol + ' (' + str(r.namespace) + ')' + (r.dead ? ', dead' : ''));
					if (r.owner) m.edge(exporter(m, r.owner), mid, '', str(r.owner) + ' exports ' + r.symbol);
					arr(r.users).forEach(function (u) { m.edge(mid, user(m, u), 'e-warn', u + ' uses ' + r.symbol); });
				} else {
					mid = m.node(1, 'ns:' + r.namespace, r.namespace, 'k-info',
						'namespace ' + r.namespace + ': ' + plural(r.exports || 0, 'export', 'exports'));
					arr(r.exporters).forEach(function (o) { m.edge(exporter(m, o), mid, '', o + ' exports into ' + r.namespace); });
					arr(r.importers).forEach(function (u) {
						var unused = arr(r.unused_importers).indexOf(u) >= 0;
						m.edge(mid, user(m, u), unused ? 'e-dash' : 'e-info', u + (unused ? ' imports ' + r.namespace + ' but uses nothing from it' : ' imports ' + r.namespace));
					});
					arr(r.unused_importers).forEach(function (u) {
						m.edge(mid, user(m, u), 'e-dash', u + ' imports ' + r.namespace + ' but uses nothing from it');
					});
				}
			});
			return all.length > MAX_MID ? all.length : 0;
		}
	});
	function exporter(m, o) { return m.node(0, modName(o), modName(o), '', o); }
	function user(m, u) {
		var t = flagged[modName(u)];
		return m.node(2, modName(u), u, t ? 'k-' + t : '', u + (t ? ' (has findings)' : ''));
	}
}

function itemsCell(items) {
	items = objs(items);
	if (!items.length) return { node: none(), sort: null, text: '' };
	var texts = [];
	var ul = h('ul', { cls: 'items' }, items.map(function (it) {
		var lm = arr(it.loader_matches), mm = arr(it.modpost_matches);
		var same = lm.join(' ') === mm.join(' ');
		var m = !lm.length && !mm.length ? 'matches no module' :
			same ? 'matches ' + lm.join(', ') :
			'loader: ' + (lm.join(', ') || 'none') + '; modpost: ' + (mm.join(', ') || 'none');
		texts.push(str(it.item), str(it.kind), lm.join(' '), mm.join(' '));
		/* Spaces shown, since an item with one can never match. */
		return h('li', null, [h('code', { cls: 'mono', text: str(it.item).replace(/ /g, '\u2423') || '(empty)' }), ' ',
			badge(str(it.kind), itemTone(it.kind)), ' ', h('span', { cls: 'm', text: m })]);
	}));
	return { node: ul, sort: items.map(function (it) { return str(it.item); }).join(','), text: texts.join(' ') };
}

/* ---- diff ---- */
function diffView() {
	var counts = objs([DATA.counts])[0] || {}, total = sumOf(counts);
	var mods = Array.isArray(DATA.modules) ? objs(DATA.modules) : null;
	var kinds = Object.keys(counts);
	var nonzero = kinds.filter(function (k) { return counts[k]; }).length;
	var tKinds;
	if (!mods) {
		var changes = objs(DATA.changes);
		document.getElementById('ksc-sub').textContent = 'Export changes between two kernels';
		var bad = changes.filter(function (c) { return kindTone(c.kind) === 'bad'; }).length;
		cards([
			['Changes', changes.length, plural(nonzero, 'kind', 'kinds') + ' of change'],
			['Can break modules', bad, 'removed, GPL-only, namespace, restricted'],
			['Symbols', distinct(changes.map(function (c) { return c.symbol; })).length, 'changed']
		]);
		tKinds = kindsTable(counts);
		var tCh = table({
			key: 'changes', title: 'Changes', desc: 'One row per change of an exported symbol between OLD and NEW.',
			rows: changes,
			cols: [
				{ label: 'Symbol', get: function (r) { return r.symbol; }, cls: 'mono nw' },
				{ label: 'Kind', type: 'badge', get: function (r) { return r.kind; }, tone: kindTone },
				{ label: 'Detail', get: function (r) { return r.summary; }, cls: 'mono' },
				{ label: 'Old owner', get: function (r) { return owner(r.old); }, cls: 'mono' },
				{ label: 'New owner', get: function (r) { return owner(r['new']); }, cls: 'mono' }
			]
		});
		graphSection({
			titles: ['old exporter', 'changed symbols', 'new exporter'], what: ['changed symbol', 'changed symbols'],
			desc: 'Each changed symbol shown in the Changes table, between the module that exported it in OLD and the one that exports it in NEW; colours as the kinds of change.',
			legend: [['can break users', '#d0453b'], ['needs a rebuild or a new import', '#c98a16'],
				['loosened or added', '#3f9a57'], ['moved', '#4a7fd0']],
			sources: [tCh], before: tKinds,
			build: function (m, rows) {
				var syms = distinct(rows[0].map(function (c) { return c.symbol; }));
				var keep = {};
				syms.slice(0, MAX_MID).forEach(function (x) { keep[x] = true; });
				rows[0].forEach(function (c) {
					if (!keep[c.symbol]) return;
					var tone = kindTone(c.kind);
					var id = 'sym:' + c.symbol, prev = m.nodes['1:' + id];
					var t = prev ? worse(prev.tone, tone) : tone;
					var mid = m.node(1, id, c.symbol, 'k-' + t);
					m.nodes[mid].tone = t;
					m.nodes[mid].title = (prev ? prev.title + '\n' : c.symbol + ': ') + c.kind + ' (' + str(c.summary) + ')';
					var oo = owner(c.old), no = owner(c['new']);
					if (oo) m.edge(m.node(0, modName(oo), modName(oo), '', oo), mid, 'e-' + tone + (no ? '' : ' e-dash'), c.kind);
					if (no) m.edge(mid, m.node(2, modName(no), modName(no), '', no), 'e-' + tone, c.kind);
				});
				return syms.length > MAX_MID ? syms.length : 0;
			}
		});
		return;
	}
	var rows = [];
	mods.forEach(function (md) {
		objs(md.changes).forEach(function (c) {
			rows.push({ module: md.module, path: md.path, breaks: md.breaks, symbol: c.symbol, view: c.view,
				old: c.old, new: c['new'], code: c.code, rule: c.rule, changes: c.export_changes,
				explanation: c.explanation, fix: c.fix, fixed: !c.symbol && c['new'] === 'allowed' });
		});
	});
	var breaking = mods.filter(function (md) { return md.breaks; }).length;
	document.getElementById('ksc-sub').textContent = 'What the changes between two kernels do to ' + plural(mods.length, 'module', 'modules');
	cards([
		['Rules', str(DATA.policy_old) + ' \u2192 ' + str(DATA.policy_new), 'OLD \u2192 NEW kernel version', true],
		['Modules', mods.length, 'checked against both'],
		['Would break', breaking, 'load or build on OLD, not on NEW'],
		['Verdict changes', rows.length, 'per symbol and view'],
		['Export changes', total, plural(nonzero, 'kind', 'kinds') + ' of change']
	]);
	tKinds = kindsTable(counts);
	table({
		key: 'modules', title: 'Modules', desc: 'Each module\u2019s fate with the loader (errno of finit_module) and modpost, on OLD and NEW.',
		rows: mods,
		cols: [
			{ label: 'Module', get: function (r) { return r.module; }, cls: 'mono nw', title: function (r) { return r.path; } },
			{ label: 'Breaks', type: 'bool', get: function (r) { return r.breaks; }, yes: 'breaks', no: 'no', toneYes: 'bad' },
			{ label: 'Loader, OLD', get: function (r) { return r.loader_errno_old; }, render: errnoCell },
			{ label: 'Loader, NEW', get: function (r) { return r.loader_errno_new; }, render: errnoCell },
			{ label: 'modpost, OLD', get: function (r) { return r.modpost_ok_old; }, render: passCell },
			{ label: 'modpost, NEW', get: function (r) { return r.modpost_ok_new; }, render: passCell },
			{ label: 'Path', get: function (r) { return r.path; }, cls: 'mono' }
		]
	});
	var tV = table({
		key: 'verdicts', title: 'Verdict changes', desc: 'Every import whose verdict differs between OLD and NEW, in each view, with the export change behind it and the fix.',
		rows: rows,
		cols: [
			{ label: 'Module', get: function (r) { return r.module; }, cls: 'mono nw', title: function (r) { return r.path; } },
			{ label: 'Symbol', get: function (r) { return r.symbol; }, cls: 'mono nw' },
			{ label: 'View', type: 'badge', get: function (r) { return r.view; }, tone: function () { return ''; } },
			{ label: 'OLD', type: 'badge', get: function (r) { return r.old; }, tone: verdictTone },
			{ label: 'NEW', type: 'badge', get: function (r) { return r['new']; }, tone: verdictTone },
			{ label: 'Code', get: function (r) { return r.code; }, cls: 'mono nw', title: function (r) { return r.rule ? 'rule ' + r.rule : null; } },
			{ label: 'Export change', get: function (r) { return r.changes; }, render: changesCell },
			{ label: 'Fix', get: function (r) { return r; }, cls: 'wide', render: fixCell }
		]
	});
	graphSection({
		titles: ['export change', 'symbols', 'modules'], what: ['symbol', 'symbols'],
		desc: 'The symbols of the Verdict changes table: the change of each export, and the modules whose verdict it changes (red: refused on NEW). Modules that would break are red.',
		legend: [['refused on NEW', '#d0453b'], ['allowed with a warning', '#c98a16'], ['allowed on NEW', '#3f9a57']],
		sources: [tV], before: tKinds,
		build: function (m, rs) {
			var syms = distinct(rs[0].map(function (r) { return r.symbol || '[' + str(r.code) + ']'; }));
			var keep = {};
			syms.slice(0, MAX_MID).forEach(function (x) { keep[x] = true; });
			rs[0].forEach(function (r) {
				var label = r.symbol || '[' + str(r.code) + ']';
				if (!keep[label]) return;
				var tone = verdictTone(r['new']) || 'good';
				var mid = m.node(1, label, label, r.symbol ? 'k-info' : '', r.symbol ? r.symbol : 'module-level finding ' + str(r.code));
				kindList(r.changes).forEach(function (k) {
					m.edge(m.node(0, k, k, 'k-' + kindTone(k)), mid, 'e-' + kindTone(k), k);
				});
				var mod = m.node(2, r.module, r.module, r.breaks ? 'k-bad' : '', r.module + (r.breaks ? ': would break on NEW' : ''));
				m.edge(mid, mod, 'e-' + tone, r.view + ': ' + str(r.old || '\u2014') + ' \u2192 ' + str(r['new'] || '\u2014'));
			});
			return syms.length > MAX_MID ? syms.length : 0;
		}
	});
}

/* ---- compat ---- */
function buildTone(c) {
	if (c.built_for) return c.load === 'ok' ? 'good' : 'bad';
	return c.build === 'fails' ? 'bad' : c.build === 'may-fail' ? 'warn' : 'good';
}
function buildWord(c) { return c.built_for ? 'built-for: ' + (c.load === 'ok' ? 'loads' : 'refused') : str(c.build); }
function compatView() {
	var kernels = arr(DATA.kernels).map(str), mods = objs(DATA.modules), rows = [], failing = 0;
	mods.forEach(function (md) {
		objs(md.cells).forEach(function (c) {
			if (c.failed) failing++;
			objs(c.findings).forEach(function (f) {
				rows.push({ module: md.module, path: md.path, release: c.release, symbol: f.symbol, code: f.code,
					verdict: f.verdict, summary: f.summary, fix: f.fix, hint: f.hint, intree: f.intree,
					from_type: f.from_type, to_type: f.to_type, named: f.named_in_source });
			});
		});
	});
	/* errors first: what stops a build is what the reader came for */
	rows = rows.map(function (r, i) { r.i = i; return r; }).sort(function (a, b) {
		return sevRank(a.verdict) - sevRank(b.verdict) || a.i - b.i;
	});
	document.getElementById('ksc-sub').textContent = 'One module, several kernels: ' + plural(mods.length, 'module', 'modules') +
		' against ' + plural(kernels.length, 'kernel', 'kernels');
	cards([
		['Modules', mods.length, 'rows of the matrix'],
		['Kernels', kernels.length, kernels.join(', '), true],
		['Failing cells', failing, 'the build fails, or the load on the kernel it was built for'],
		['Findings', rows.length, 'per symbol and kernel']
	]);
	table({
		key: 'matrix', title: 'Matrix', desc: 'Would each module build from its source for each kernel; the column of the kernel it was built for says whether it loads.',
		rows: mods,
		cols: [{ label: 'Module', get: function (r) { return r.module; }, cls: 'mono nw', title: function (r) { return r.path; } }].concat(
			kernels.map(function (k, i) {
				return { label: k, get: function (r) { return objs(r.cells)[i] || null; }, render: function (c) {
					if (!c) return { node: none(), sort: null, text: '' };
					var w = buildWord(c);
					return { node: badge(w, buildTone(c)), sort: w, text: w };
				} };
			}))
	});
	table({
		key: 'findings', title: 'Findings', desc: 'What changed for each symbol the module imports (or struct it was built with) between the kernel it was built for and each other kernel.',
		rows: rows,
		cols: [
			{ label: 'Module', get: function (r) { return r.module; }, cls: 'mono nw', title: function (r) { return r.path; } },
			{ label: 'Kernel', get: function (r) { return r.release; }, cls: 'mono nw' },
			{ label: 'Symbol', get: function (r) { return r.symbol; }, cls: 'mono nw' },
			{ label: 'Code', type: 'badge', get: function (r) { return r.code; }, tone: function () { return ''; } },
			{ label: 'Verdict', type: 'badge', get: function (r) { return r.verdict; }, tone: sevTone, rank: sevRank },
			{ label: 'In the source', type: 'bool', get: function (r) { return r.named; }, yes: 'named', no: '', toneYes: 'warn' },
			{ label: 'Detail', get: function (r) { return r; }, cls: 'wide', render: compatDetail }
		]
	});
}
function compatDetail(r) {
	var parts = [str(r.summary)], node = h('div', null, [
		h('div', { text: str(r.summary) }),
		r.from_type ? h('div', { cls: 'mono note', text: 'was: ' + r.from_type }) : null,
		r.to_type ? h('div', { cls: 'mono note', text: 'now: ' + r.to_type }) : null,
		r.fix ? h('div', { text: 'fix: ' + r.fix }) : null,
		r.hint ? h('div', { text: 'hint: maybe ' + r.hint }) : null,
		r.intree ? h('div', { text: 'in-tree: ' + r.intree }) : null]);
	[r.from_type, r.to_type, r.fix, r.hint, r.intree].forEach(function (x) { if (x) parts.push(str(x)); });
	return { node: node, sort: str(r.summary), text: parts.join(' ') };
}

function kindsTable(counts) {
	return table({
		key: 'counts', title: 'Changes by kind', desc: 'How many exports changed in each way between OLD and NEW.', narrow: true,
		rows: Object.keys(counts).map(function (k) { return { kind: k, n: counts[k] }; }),
		cols: [
			{ label: 'Kind', type: 'badge', get: function (r) { return r.kind; }, tone: kindTone },
			{ label: 'Count', type: 'num', get: function (r) { return r.n; } }
		]
	});
}
function errnoCell(v) {
	var t = errnoText(v);
	return { node: badge(t, v ? 'bad' : 'good'), sort: typeof v === 'number' ? v : null, text: t };
}
function passCell(v) {
	var t = v == null ? '' : v ? 'pass' : 'fail';
	return { node: t ? badge(t, v ? 'good' : 'bad') : none(), sort: v == null ? null : v ? 1 : 0, text: t };
}
function fixCell(r) {
	var fix = str(r.fix), ex = str(r.explanation);
	if (r.fixed === true) fix = fix || 'gone on NEW';
	if (!fix && !ex) return { node: none(), sort: null, text: '' };
	var node = h('div', null, [fix ? h('div', { text: fix }) : null,
		ex ? h('div', { cls: 'note', text: ex + (r.rule ? ' (rule ' + r.rule + ')' : '') }) : null]);
	return { node: node, sort: fix || ex, text: fix + ' ' + ex };
}
function kindList(v) { return Array.isArray(v) ? v.map(str).filter(Boolean) : []; }
function owner(side) { return side && typeof side === 'object' ? side.owner : null; }
function changesCell(v) {
	var kinds = kindList(v);
	if (!kinds.length) return { node: h('span', { cls: 'none', text: 'none (another symbol or rule)' }), sort: null, text: '' };
	return { node: h('span', null, kinds.map(function (k) { return badge(k, kindTone(k)); })), sort: kinds.join(', '), text: kinds.join(' ') };
}
function distinct(list) {
	var seen = {}, out = [];
	list.forEach(function (x) { if (!seen[x]) { seen[x] = true; out.push(x); } });
	return out;
}

try {
	if (KIND === 'audit') auditView();
	else if (KIND === 'compat') compatView();
	else diffView();
	document.body.setAttribute('data-ready', '1');
} catch (e) {
	MAIN.appendChild(h('p', { cls: 'warn', text: 'The report could not be drawn: ' + e }));
	throw e;
}
})();
