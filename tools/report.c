// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Report renderers: the JSON document of `audit` or `diff` as a Graphviz graph or as one
 * self-contained HTML page. The page's style sheet and script are kept below as arrays of
 * lines (edit them in place; each line ends in "\n"); the script builds the tables and the
 * SVG graph from the JSON block at load time, so the page and --json never disagree.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* asprintf, mkostemp; the Makefile defines it too */
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "tools/report.h"
#include "tools/text.h"

#ifndef KSC_VERSION
#define KSC_VERSION "unknown"
#endif

/* The page's style sheet: light and dark colour schemes, print rules. */
static const char *const page_css[] = {
	":root {\n",
	"\t--bg: #f6f7f9; --fg: #1d232b; --muted: #5b6673; --card: #ffffff; --line: #d9dee5;\n",
	"\t--head: #eef1f5; --accent: #1f5fbf; --red: #b3261e; --red-bg: #fbe9e7;\n",
	"\t--amber: #8a5300; --amber-bg: #fff3d6; --green: #1e6b34; --green-bg: #e3f4e7;\n",
	"\t--blue: #174f9c; --blue-bg: #e4eefb; --grey-bg: #eceff3;\n",
	"\t--mono: \"DejaVu Sans Mono\", \"Liberation Mono\", Menlo, Consolas, monospace;\n",
	"\tcolor-scheme: light dark;\n",
	"}\n",
	"@media (prefers-color-scheme: dark) {\n",
	"\t:root {\n",
	"\t\t--bg: #15191e; --fg: #e3e7ec; --muted: #9aa5b1; --card: #1d2228; --line: #343c46;\n",
	"\t\t--head: #252b33; --accent: #7fb0ff; --red: #ffb4ab; --red-bg: #4a1e1a;\n",
	"\t\t--amber: #ffd27a; --amber-bg: #40300c; --green: #8fd9a1; --green-bg: #173823;\n",
	"\t\t--blue: #a9c8ff; --blue-bg: #1b2f4d; --grey-bg: #2a3038;\n",
	"\t}\n",
	"}\n",
	"* { box-sizing: border-box; }\n",
	"html { background: var(--bg); color: var(--fg); }\n",
	"body {\n",
	"\tmargin: 0 auto; max-width: 1240px; padding: 0 24px 40px;\n",
	"\tfont: 14px/1.45 system-ui, \"DejaVu Sans\", \"Liberation Sans\", Arial, sans-serif;\n",
	"}\n",
	"a { color: var(--accent); }\n",
	".skip { position: absolute; left: -999px; }\n",
	".skip:focus { left: 8px; top: 8px; background: var(--card); padding: 4px 8px; z-index: 2; }\n",
	".sr-only {\n",
	"\tposition: absolute; width: 1px; height: 1px; overflow: hidden;\n",
	"\tclip: rect(0 0 0 0); white-space: nowrap;\n",
	"}\n",
	"header { padding: 22px 0 6px; border-bottom: 1px solid var(--line); margin-bottom: 16px; }\n",
	"h1 { font-size: 22px; margin: 0 0 2px; word-break: break-word; }\n",
	"h2 { font-size: 17px; margin: 0 0 4px; }\n",
	"h2 .n { color: var(--muted); font-weight: normal; }\n",
	".sub, .desc, footer, .note { color: var(--muted); }\n",
	".sub { margin: 0; }\n",
	".desc { margin: 0 0 8px; max-width: 80em; }\n",
	"nav { margin: 0 0 14px; display: flex; flex-wrap: wrap; gap: 6px 14px; }\n",
	"nav a { text-decoration: none; }\n",
	"nav a:hover, nav a:focus { text-decoration: underline; }\n",
	"section {\n",
	"\tbackground: var(--card); border: 1px solid var(--line); border-radius: 8px;\n",
	"\tpadding: 14px 16px; margin: 0 0 16px;\n",
	"}\n",
	".cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 10px; }\n",
	".card { border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; background: var(--bg); }\n",
	".card .k { color: var(--muted); font-size: 12px; }\n",
	".card .v { font-size: 20px; font-weight: 600; word-break: break-word; }\n",
	".card .v.small { font-size: 14px; font-weight: 500; font-family: var(--mono); }\n",
	".card .x { font-size: 12px; color: var(--muted); }\n",
	".tools { display: flex; align-items: center; gap: 10px; margin: 6px 0 8px; flex-wrap: wrap; }\n",
	".tools label { font-weight: 600; }\n",
	".tools input {\n",
	"\tfont: inherit; padding: 4px 8px; width: 22em; max-width: 100%;\n",
	"\tborder: 1px solid var(--line); border-radius: 5px; background: var(--card); color: var(--fg);\n",
	"}\n",
	".tools input:focus, th button:focus-visible, .graph-wrap:focus-visible {\n",
	"\toutline: 2px solid var(--accent); outline-offset: 1px;\n",
	"}\n",
	".count { color: var(--muted); font-variant-numeric: tabular-nums; }\n",
	".scroll { overflow: auto; max-height: 640px; border: 1px solid var(--line); border-radius: 6px; }\n",
	".scroll.narrow { max-width: 560px; }\n",
	"table { border-collapse: collapse; width: 100%; }\n",
	"th, td { text-align: left; vertical-align: top; padding: 5px 9px; border-bottom: 1px solid var(--line); }\n",
	"thead th { position: sticky; top: 0; background: var(--head); z-index: 1; white-space: nowrap; }\n",
	"th button {\n",
	"\tfont: inherit; font-weight: 600; color: inherit; background: none; border: 0;\n",
	"\tpadding: 0; cursor: pointer; display: inline-flex; gap: 4px; align-items: center;\n",
	"}\n",
	"th button::after { content: \"\\2195\"; color: var(--muted); font-weight: normal; font-size: 12px; }\n",
	"th[aria-sort=\"ascending\"] button::after { content: \"\\25B2\"; color: var(--accent); }\n",
	"th[aria-sort=\"descending\"] button::after { content: \"\\25BC\"; color: var(--accent); }\n",
	"tbody tr:nth-child(even) { background: color-mix(in srgb, var(--head) 45%, transparent); }\n",
	"tbody tr:hover { background: var(--blue-bg); }\n",
	"td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }\n",
	"th.num button { flex-direction: row-reverse; }\n",
	"td.mono, .mono { font-family: var(--mono); font-size: 12.5px; overflow-wrap: break-word; }\n",
	"td.nw { white-space: nowrap; overflow-wrap: normal; }\n",
	"td.wide { min-width: 18em; }\n",
	".more { margin: 8px 2px 0; color: var(--muted); }\n",
	".more button {\n",
	"\tfont: inherit; color: var(--accent); background: var(--card); cursor: pointer;\n",
	"\tborder: 1px solid var(--line); border-radius: 5px; padding: 2px 10px;\n",
	"}\n",
	".empty { color: var(--muted); font-style: italic; margin: 8px 2px 0; }\n",
	".badge {\n",
	"\tdisplay: inline-block; padding: 0 7px; border-radius: 10px; font-size: 12px;\n",
	"\twhite-space: nowrap; background: var(--grey-bg); margin: 1px 0;\n",
	"}\n",
	".badge + .badge { margin-left: 3px; }\n",
	".c-bad { background: var(--red-bg); color: var(--red); }\n",
	".c-warn { background: var(--amber-bg); color: var(--amber); }\n",
	".c-good { background: var(--green-bg); color: var(--green); }\n",
	".c-info { background: var(--blue-bg); color: var(--blue); }\n",
	".list { margin: 0; padding: 0; list-style: none; display: inline; }\n",
	".list li { display: inline; }\n",
	".list li + li::before { content: \", \"; }\n",
	".n-badge { color: var(--muted); font-size: 12px; margin-right: 4px; }\n",
	".none { color: var(--muted); }\n",
	"details summary { cursor: pointer; color: var(--accent); }\n",
	".items { margin: 0; padding: 0; list-style: none; }\n",
	".items li { margin: 0 0 3px; }\n",
	".items .m { color: var(--muted); font-size: 12px; }\n",
	".graph-wrap { overflow: auto; min-height: 60px; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); }\n",
	".legend { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 4px 0 8px; color: var(--muted); font-size: 12px; }\n",
	".legend span::before {\n",
	"\tcontent: \"\"; display: inline-block; width: 18px; height: 0; margin-right: 5px;\n",
	"\tvertical-align: middle; border-top: 2px solid var(--sw, #888);\n",
	"}\n",
	".legend span.dash::before { border-top-style: dashed; }\n",
	"svg.graph { display: block; font: 12px system-ui, \"DejaVu Sans\", sans-serif; }\n",
	"svg.graph .col-title { fill: var(--muted); font-weight: 600; }\n",
	"svg.graph .node rect { fill: var(--card); stroke: #8893a0; stroke-width: 1; }\n",
	"svg.graph .node text { fill: var(--fg); dominant-baseline: central; }\n",
	"svg.graph .node.mid rect { stroke-width: 1.5; }\n",
	"svg.graph .node.k-bad rect { fill: var(--red-bg); stroke: #d0453b; }\n",
	"svg.graph .node.k-warn rect { fill: var(--amber-bg); stroke: #c98a16; }\n",
	"svg.graph .node.k-good rect { fill: var(--green-bg); stroke: #3f9a57; }\n",
	"svg.graph .node.k-info rect { fill: var(--blue-bg); stroke: #4a7fd0; }\n",
	"svg.graph .node.k-dead rect { stroke-dasharray: 4 3; }\n",
	"svg.graph .edge { fill: none; stroke: #8a96a3; stroke-width: 1.3; opacity: 0.75; }\n",
	"svg.graph .edge.e-bad { stroke: #d0453b; }\n",
	"svg.graph .edge.e-warn { stroke: #c98a16; }\n",
	"svg.graph .edge.e-good { stroke: #3f9a57; }\n",
	"svg.graph .edge.e-info { stroke: #4a7fd0; }\n",
	"svg.graph .edge.e-dash { stroke-dasharray: 5 4; }\n",
	"svg.graph.focus .edge { opacity: 0.12; }\n",
	"svg.graph.focus .node { opacity: 0.35; }\n",
	"svg.graph.focus .edge.hl { opacity: 1; stroke-width: 2.2; }\n",
	"svg.graph.focus .node.hl { opacity: 1; }\n",
	"footer { margin-top: 10px; font-size: 12px; }\n",
	".warn { background: var(--amber-bg); color: var(--amber); padding: 8px 12px; border-radius: 6px; }\n",
	"@media print {\n",
	"\t.tools, nav, .skip { display: none; }\n",
	"\t.scroll, .graph-wrap { max-height: none; overflow: visible; }\n",
	"\tsection { break-inside: avoid-page; }\n",
	"}\n",
	NULL,
};

/*
 * The page's script (plain ES5 and DOM, no library): tables with sorting (numeric-aware
 * collation, aria-sort), filtering ("N of M rows" in .count, with data-shown and
 * data-total for tests), the summary cards, and a three-column SVG graph that follows the
 * filters and sort order of its tables.
 */
static const char *const page_js[] = {
	"(function () {\n",
	"'use strict';\n",
	"var DATA = JSON.parse(document.getElementById('ksc-data').textContent);\n",
	"if (!DATA || typeof DATA !== 'object' || Array.isArray(DATA)) DATA = {};\n",
	"var KIND = document.body.getAttribute('data-kind');\n",
	"var MAIN = document.getElementById('ksc-main');\n",
	"var NAV = document.getElementById('ksc-nav');\n",
	"var collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });\n",
	"var MAX_MID = 60;\n",
	"/* Rows put in a table at a time: laying out ten thousand rows takes seconds. */\n",
	"var PAGE = 500;\n",
	"\n",
	"function h(tag, props, kids) {\n",
	"\tvar e = document.createElement(tag);\n",
	"\tvar k;\n",
	"\tfor (k in props || {}) {\n",
	"\t\tif (props[k] == null) continue;\n",
	"\t\tif (k === 'text') e.textContent = props[k];\n",
	"\t\telse if (k === 'cls') e.className = props[k];\n",
	"\t\telse e.setAttribute(k, props[k]);\n",
	"\t}\n",
	"\t(kids || []).forEach(function (c) {\n",
	"\t\tif (c != null) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);\n",
	"\t});\n",
	"\treturn e;\n",
	"}\n",
	"function arr(v) { return Array.isArray(v) ? v : []; }\n",
	"/* The objects of an array (records), anything else left out. */\n",
	"function objs(v) { return arr(v).filter(function (x) { return x && typeof x === 'object' && !Array.isArray(x); }); }\n",
	"function str(v) { return v == null ? '' : String(v); }\n",
	"function plural(n, one, many) { return n + ' ' + (n === 1 ? one : many); }\n",
	"function sumOf(o) {\n",
	"\tvar s = 0, k;\n",
	"\tfor (k in o || {}) if (typeof o[k] === 'number') s += o[k];\n",
	"\treturn s;\n",
	"}\n",
	"/* A module's name as the loader and kmod give it: basename, '-' as '_'. */\n",
	"function modName(s) {\n",
	"\ts = str(s);\n",
	"\treturn s.slice(s.lastIndexOf('/') + 1).replace(/\\.ko(\\.[a-z]+)?$/, '').replace(/-/g, '_');\n",
	"}\n",
	"\n",
	"/* Tones: bad, warn, good, info (colours of badges, graph nodes and edges). */\n",
	"var KIND_TONE = {\n",
	"\t'removed': 'bad', 'became-gpl-only': 'bad', 'became-module-restricted': 'bad',\n",
	"\t'namespace-gained': 'bad', 'namespace-changed': 'warn', 'restriction-changed': 'warn',\n",
	"\t'crc-changed': 'warn', 'owner-changed': 'info', 'added': 'good',\n",
	"\t'no-longer-gpl-only': 'good', 'namespace-lost': 'good', 'restriction-lifted': 'good'\n",
	"};\n",
	"var TONE_RANK = { bad: 0, warn: 1, info: 2, good: 3, '': 4 };\n",
	"function kindTone(k) { return KIND_TONE[k] || 'info'; }\n",
	"function sevTone(s) { return s === 'error' ? 'bad' : s === 'warning' ? 'warn' : 'info'; }\n",
	"function sevRank(s) { return s === 'error' ? 0 : s === 'warning' ? 1 : s === 'note' ? 2 : 3; }\n",
	"function verdictTone(v) {\n",
	"\tv = str(v);\n",
	"\tif (!v) return '';\n",
	"\treturn v === 'allowed' ? 'good' : v.indexOf('warning') >= 0 ? 'warn' : 'bad';\n",
	"}\n",
	"function itemTone(k) { return k === 'exact' ? 'good' : k === 'glob' ? 'info' : 'bad'; }\n",
	"function worse(a, b) { return TONE_RANK[a] <= TONE_RANK[b] ? a : b; }\n",
	"var ERRNO = {\n",
	"\t1: 'EPERM', 2: 'ENOENT', 8: 'ENOEXEC', 13: 'EACCES', 14: 'EFAULT', 17: 'EEXIST',\n",
	"\t22: 'EINVAL', 61: 'ENODATA', 95: 'EOPNOTSUPP', 126: 'ENOKEY', 127: 'EKEYEXPIRED',\n",
	"\t128: 'EKEYREVOKED', 129: 'EKEYREJECTED'\n",
	"};\n",
	"function errnoText(v) {\n",
	"\tif (!v) return 'loads';\n",
	"\treturn ERRNO[Math.abs(v)] ? '-' + ERRNO[Math.abs(v)] : 'error ' + v;\n",
	"}\n",
	"\n",
	"/* Text that may wrap after '/' and ',' (paths, pattern lists) but not inside names. */\n",
	"function breakable(v, mono) {\n",
	"\tif (!mono || !/[\\/,]/.test(v)) return document.createTextNode(v);\n",
	"\tvar span = h('span');\n",
	"\tv.split(/([\\/,])/).forEach(function (part, i) {\n",
	"\t\tif (part) span.appendChild(document.createTextNode(part));\n",
	"\t\tif (i % 2) span.appendChild(h('wbr'));\n",
	"\t});\n",
	"\treturn span;\n",
	"}\n",
	"function badge(text, tone) { return h('span', { cls: 'badge' + (tone ? ' c-' + tone : ''), text: text }); }\n",
	"function none() { return h('span', { cls: 'none', text: '\\u2014' }); }\n",
	"\n",
	"/* Cells: each returns { node, sort, text } (sort: number, string or null = last). */\n",
	"var CELL = {\n",
	"\ttext: function (v, col) {\n",
	"\t\tv = str(v);\n",
	"\t\treturn { node: v ? breakable(v, col && /mono/.test(col.cls || '')) : none(), sort: v || null, text: v };\n",
	"\t},\n",
	"\tnum: function (v) {\n",
	"\t\tvar n = typeof v === 'number' ? v : null;\n",
	"\t\treturn { node: n == null ? none() : document.createTextNode(String(n)), sort: n, text: str(n) };\n",
	"\t},\n",
	"\tlist: function (v) {\n",
	"\t\tv = arr(v).map(str);\n",
	"\t\tif (!v.length) return { node: none(), sort: 0, text: '' };\n",
	"\t\tvar ul = h('ul', { cls: 'list' }, v.map(function (x) { return h('li', { text: x }); }));\n",
	"\t\tvar node = ul;\n",
	"\t\tif (v.length > 8) {\n",
	"\t\t\tnode = h('details', null, [h('summary', { text: plural(v.length, 'module', 'modules') }), ul]);\n",
	"\t\t} else if (v.length > 1) {\n",
	"\t\t\tnode = h('span', null, [h('span', { cls: 'n-badge', text: '(' + v.length + ')' }), ul]);\n",
	"\t\t}\n",
	"\t\treturn { node: node, sort: v.length, text: v.join(' ') };\n",
	"\t},\n",
	"\tbadge: function (v, col) {\n",
	"\t\tv = str(v);\n",
	"\t\treturn { node: v ? badge(v, col.tone(v)) : none(), sort: col.rank ? col.rank(v) : v || null, text: v };\n",
	"\t},\n",
	"\tbool: function (v, col) {\n",
	"\t\tvar t = v ? col.yes : col.no;\n",
	"\t\treturn { node: t ? badge(t, v ? col.toneYes : '') : none(), sort: v ? 1 : 0, text: t || '' };\n",
	"\t}\n",
	"};\n",
	"\n",
	"var registry = [];\n",
	"\n",
	"/*\n",
	" * A section with a table: spec = { key, title, desc, cols: [{ label, type, get, cls, ... }],\n",
	" * rows: [objects] }. Sorting by a header click (numeric-aware), filtering by a text box;\n",
	" * \"N of M rows\" shows what is left. Returns the table's state; t.onchange is called after\n",
	" * each sort or filter.\n",
	" */\n",
	"function table(spec) {\n",
	"\tvar t = { spec: spec, rows: [], sortCol: -1, sortDir: 1, listeners: [], limit: PAGE };\n",
	"\tvar id = spec.key;\n",
	"\tvar tb = h('tbody');\n",
	"\tvar ths = spec.cols.map(function (c, i) {\n",
	"\t\tvar b = h('button', { type: 'button', text: c.label, title: 'Sort by ' + c.label });\n",
	"\t\tvar th = h('th', { scope: 'col', cls: c.type === 'num' ? 'num' : null }, [b]);\n",
	"\t\tb.addEventListener('click', function () { sortBy(t, i); });\n",
	"\t\treturn th;\n",
	"\t});\n",
	"\tt.ths = ths;\n",
	"\tvar tab = h('table', { id: 't-' + id, 'data-total': spec.rows.length }, [\n",
	"\t\th('caption', { cls: 'sr-only', text: spec.title + ' (select a column header to sort)' }),\n",
	"\t\th('thead', null, [h('tr', null, ths)]), tb]);\n",
	"\tt.tbody = tb;\n",
	"\tt.table = tab;\n",
	"\tspec.rows.forEach(function (r, idx) {\n",
	"\t\tvar keys = [], texts = [];\n",
	"\t\tvar tr = h('tr', null, spec.cols.map(function (c) {\n",
	"\t\t\tvar cell = (c.render || CELL[c.type || 'text'])(c.get(r), c, r);\n",
	"\t\t\tkeys.push(cell.sort);\n",
	"\t\t\ttexts.push(cell.text);\n",
	"\t\t\tvar td = h('td', { cls: (c.type === 'num' ? 'num ' : '') + (c.cls || '') || null,\n",
	"\t\t\t\ttitle: c.title ? c.title(r) || null : null }, [cell.node]);\n",
	"\t\t\treturn td;\n",
	"\t\t}));\n",
	"\t\tt.rows.push({ tr: tr, keys: keys, text: texts.join('\\u0001').toLowerCase(), src: r, idx: idx, match: true });\n",
	"\t});\n",
	"\tt.order = t.rows.slice();\n",
	"\tt.count = h('span', { cls: 'count', id: 'c-' + id, role: 'status', 'aria-live': 'polite' });\n",
	"\tt.filter = h('input', {\n",
	"\t\ttype: 'search', id: 'f-' + id, 'aria-controls': 't-' + id, autocomplete: 'off',\n",
	"\t\tspellcheck: 'false', placeholder: 'words every row must contain'\n",
	"\t});\n",
	"\tt.filter.addEventListener('input', function () { applyFilter(t); });\n",
	"\tt.empty = h('p', { cls: 'empty', text: 'No row matches the filter.', hidden: '' });\n",
	"\tt.moreText = h('span');\n",
	"\tvar more = h('button', { type: 'button', text: 'Show ' + PAGE + ' more' });\n",
	"\tvar all = h('button', { type: 'button', text: 'Show all' });\n",
	"\tmore.addEventListener('click', function () { t.limit += PAGE; render(t); });\n",
	"\tall.addEventListener('click', function () { t.limit = Infinity; render(t); });\n",
	"\tt.more = h('p', { cls: 'more', hidden: '' }, [t.moreText, ' ', more, ' ', all]);\n",
	"\tvar sec = h('section', { id: 'sec-' + id, 'aria-labelledby': 'h-' + id }, [\n",
	"\t\th('h2', { id: 'h-' + id }, [spec.title + ' ', h('span', { cls: 'n', text: '(' + spec.rows.length + ')' })]),\n",
	"\t\tspec.desc ? h('p', { cls: 'desc', text: spec.desc }) : null,\n",
	"\t\th('div', { cls: 'tools' }, [h('label', { for: 'f-' + id, text: 'Filter' }), t.filter, t.count]),\n",
	"\t\th('div', { cls: 'scroll' + (spec.narrow ? ' narrow' : '') }, [tab]), t.empty, t.more]);\n",
	"\tt.section = sec;\n",
	"\tMAIN.appendChild(sec);\n",
	"\tNAV.appendChild(h('a', { href: '#sec-' + id, text: spec.title }));\n",
	"\tregistry.push(t);\n",
	"\trender(t);\n",
	"\treturn t;\n",
	"}\n",
	"\n",
	"function applyFilter(t) {\n",
	"\tvar terms = t.filter.value.toLowerCase().split(/\\s+/).filter(Boolean);\n",
	"\tt.rows.forEach(function (r) {\n",
	"\t\tr.match = terms.every(function (w) { return r.text.indexOf(w) >= 0; });\n",
	"\t});\n",
	"\tt.limit = PAGE;\n",
	"\trender(t);\n",
	"}\n",
	"\n",
	"function cmpKeys(a, b) {\n",
	"\tif (a == null || a === '') return b == null || b === '' ? 0 : 2;\n",
	"\tif (b == null || b === '') return -2;\n",
	"\tif (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;\n",
	"\treturn collator.compare(String(a), String(b));\n",
	"}\n",
	"\n",
	"function sortBy(t, col) {\n",
	"\tt.sortDir = t.sortCol === col && t.sortDir === 1 ? -1 : 1;\n",
	"\tt.sortCol = col;\n",
	"\tt.order = t.rows.slice().sort(function (a, b) {\n",
	"\t\tvar c = cmpKeys(a.keys[col], b.keys[col]);\n",
	"\t\tif (c === 2 || c === -2) return c; /* empty cells last either way */\n",
	"\t\treturn c * t.sortDir || a.idx - b.idx;\n",
	"\t});\n",
	"\tt.ths.forEach(function (th, i) {\n",
	"\t\tif (i === col) th.setAttribute('aria-sort', t.sortDir === 1 ? 'ascending' : 'descending');\n",
	"\t\telse th.removeAttribute('aria-sort');\n",
	"\t});\n",
	"\trender(t);\n",
	"}\n",
	"\n",
	"function render(t) {\n",
	"\tvar frag = document.createDocumentFragment(), n = 0, total = t.rows.length;\n",
	"\tt.order.forEach(function (r) {\n",
	"\t\tif (!r.match) return;\n",
	"\t\tif (n < t.limit) frag.appendChild(r.tr);\n",
	"\t\tn++;\n",
	"\t});\n",
	"\tvar put = Math.min(n, t.limit);\n",
	"\tt.table.setAttribute('data-rendered', put);\n",
	"\tt.table.setAttribute('data-limit', t.limit === Infinity ? 'all' : t.limit);\n",
	"\tt.moreText.textContent = 'The first ' + put + ' of the ' + n + ' rows are listed.';\n",
	"\tif (put < n) t.more.removeAttribute('hidden');\n",
	"\telse t.more.setAttribute('hidden', '');\n",
	"\tt.tbody.textContent = '';\n",
	"\tt.tbody.appendChild(frag);\n",
	"\tt.count.textContent = n + ' of ' + total + (total === 1 ? ' row' : ' rows');\n",
	"\tt.count.setAttribute('data-shown', n);\n",
	"\tt.count.setAttribute('data-total', total);\n",
	"\tt.table.setAttribute('data-shown', n);\n",
	"\tif (n || !total) t.empty.setAttribute('hidden', '');\n",
	"\telse t.empty.removeAttribute('hidden');\n",
	"\tt.listeners.forEach(function (f) { f(); });\n",
	"}\n",
	"function visible(t) { return t.order.filter(function (r) { return r.match; }).map(function (r) { return r.src; }); }\n",
	"\n",
	"function cards(list) {\n",
	"\tvar sec = h('section', { id: 'sec-summary', 'aria-labelledby': 'h-summary' }, [\n",
	"\t\th('h2', { id: 'h-summary', text: 'Summary' }),\n",
	"\t\th('div', { cls: 'cards' }, list.map(function (c) {\n",
	"\t\t\treturn h('div', { cls: 'card' }, [h('div', { cls: 'k', text: c[0] }),\n",
	"\t\t\t\th('div', { cls: 'v' + (c[3] ? ' small' : ''), text: str(c[1]) || '\\u2014' }),\n",
	"\t\t\t\tc[2] ? h('div', { cls: 'x', text: c[2] }) : null]);\n",
	"\t\t}))]);\n",
	"\tMAIN.appendChild(sec);\n",
	"\tNAV.appendChild(h('a', { href: '#sec-summary', text: 'Summary' }));\n",
	"}\n",
	"\n",
	"/* ---- The graph: three columns, drawn as SVG from the rows the tables show. ---- */\n",
	"/* The SVG namespace, from the HTML parser (so that the page names no URL at all). */\n",
	"var SVGNS = (function () {\n",
	"\tvar d = document.createElement('div');\n",
	"\td.innerHTML = '<svg></svg>';\n",
	"\treturn d.firstChild.namespaceURI;\n",
	"})();\n",
	"function s(tag, attrs, kids) {\n",
	"\tvar e = document.createElementNS(SVGNS, tag), k;\n",
	"\tfor (k in attrs || {}) if (attrs[k] != null) e.setAttribute(k, attrs[k]);\n",
	"\t(kids || []).forEach(function (c) { if (c) e.appendChild(c); });\n",
	"\treturn e;\n",
	"}\n",
	"function Model() { this.nodes = {}; this.cols = [[], [], []]; this.edges = {}; this.elist = []; }\n",
	"Model.prototype.node = function (col, id, label, cls, title) {\n",
	"\tvar key = col + ':' + id, n = this.nodes[key];\n",
	"\tif (!n) {\n",
	"\t\tn = this.nodes[key] = { key: key, col: col, label: str(label), cls: cls || '', title: title || str(label), adj: [] };\n",
	"\t\tthis.cols[col].push(n);\n",
	"\t} else if (cls) {\n",
	"\t\tn.cls = cls;\n",
	"\t}\n",
	"\treturn key;\n",
	"};\n",
	"Model.prototype.edge = function (a, b, cls, title) {\n",
	"\tvar key = a + '\\u0001' + b, e = this.edges[key];\n",
	"\tif (e) return;\n",
	"\te = this.edges[key] = { a: this.nodes[a], b: this.nodes[b], cls: cls || '', title: title || '' };\n",
	"\tthis.elist.push(e);\n",
	"\te.a.adj.push(e);\n",
	"\te.b.adj.push(e);\n",
	"};\n",
	"\n",
	"var measureCtx = null;\n",
	"function textWidth(t) {\n",
	"\tif (!measureCtx) {\n",
	"\t\tmeasureCtx = document.createElement('canvas').getContext('2d');\n",
	"\t\tmeasureCtx.font = '12px system-ui, \"DejaVu Sans\", sans-serif';\n",
	"\t}\n",
	"\treturn measureCtx ? measureCtx.measureText(t).width : t.length * 7;\n",
	"}\n",
	"\n",
	"function graphSection(opts) {\n",
	"\t/* opts: { titles: [3], legend: [[label, colour, dashed]], sources: [tables], build(model, rowsPerSource) } */\n",
	"\tvar wrap = h('div', { cls: 'graph-wrap', tabindex: '0', role: 'region', 'aria-label': 'Usage graph' });\n",
	"\tvar note = h('p', { cls: 'note', id: 'graph-note' });\n",
	"\tvar legend = h('div', { cls: 'legend', 'aria-hidden': 'true' }, opts.legend.map(function (l) {\n",
	"\t\treturn h('span', { cls: l[2] ? 'dash' : null, style: '--sw:' + l[1], text: l[0] });\n",
	"\t}));\n",
	"\tvar sec = h('section', { id: 'sec-graph', 'aria-labelledby': 'h-graph' }, [\n",
	"\t\th('h2', { id: 'h-graph', text: 'Graph' }),\n",
	"\t\th('p', { cls: 'desc', text: opts.desc }), legend, note, wrap]);\n",
	"\tMAIN.insertBefore(sec, opts.before.section);\n",
	"\tNAV.insertBefore(h('a', { href: '#sec-graph', text: 'Graph' }), NAV.querySelector('a[href=\"#sec-' + opts.before.spec.key + '\"]'));\n",
	"\tfunction draw() {\n",
	"\t\tvar m = new Model();\n",
	"\t\tvar truncated = opts.build(m, opts.sources.map(visible));\n",
	"\t\tdrawModel(wrap, m, opts.titles);\n",
	"\t\tvar mid = m.cols[1].length;\n",
	"\t\tnote.textContent = mid ? plural(mid, opts.what[0], opts.what[1]) + ' drawn' +\n",
	"\t\t\t(truncated ? ' (the first ' + MAX_MID + ' of ' + truncated + ' in table order: filter or sort the tables to choose)' : '') +\n",
	"\t\t\t'. Point at a box to highlight its links.' : 'Nothing to draw: no row is shown in the tables below.';\n",
	"\t}\n",
	"\tvar pending = false;\n",
	"\topts.sources.forEach(function (t) {\n",
	"\t\tt.listeners.push(function () {\n",
	"\t\t\tif (pending) return;\n",
	"\t\t\tpending = true;\n",
	"\t\t\t(window.requestAnimationFrame || setTimeout)(function () { pending = false; draw(); });\n",
	"\t\t});\n",
	"\t});\n",
	"\tdraw();\n",
	"}\n",
	"\n",
	"function barycentre(nodes, col) {\n",
	"\tnodes.forEach(function (n, i) {\n",
	"\t\tvar sum = 0, k = 0;\n",
	"\t\tn.adj.forEach(function (e) {\n",
	"\t\t\tvar o = e.a === n ? e.b : e.a;\n",
	"\t\t\tif (o.col === col) { sum += o.pos; k++; }\n",
	"\t\t});\n",
	"\t\tn.bc = k ? sum / k : 1e9 + i;\n",
	"\t});\n",
	"\tnodes.sort(function (a, b) { return a.bc - b.bc || collator.compare(a.label, b.label); });\n",
	"\tnodes.forEach(function (n, i) { n.pos = i; });\n",
	"}\n",
	"\n",
	"function drawModel(wrap, m, titles) {\n",
	"\tvar ROW = 26, NH = 20, PAD = 8, TOP = 34, MAXW = 280;\n",
	"\tm.cols[1].forEach(function (n, i) { n.pos = i; });\n",
	"\tbarycentre(m.cols[0], 1);\n",
	"\tbarycentre(m.cols[2], 1);\n",
	"\tvar widths = m.cols.map(function (c, i) {\n",
	"\t\tvar w = textWidth(titles[i]) * 1.1 + 4; /* titles are bold */\n",
	"\t\tc.forEach(function (n) {\n",
	"\t\t\tn.text = n.label.length > 44 ? n.label.slice(0, 42) + '\\u2026' : n.label;\n",
	"\t\t\tn.w = Math.min(MAXW, Math.ceil(textWidth(n.text)) + 2 * PAD);\n",
	"\t\t\tw = Math.max(w, n.w);\n",
	"\t\t});\n",
	"\t\treturn Math.max(60, Math.ceil(w));\n",
	"\t});\n",
	"\t/* Spread the columns over the width at hand, within reason. */\n",
	"\tvar room = (wrap.clientWidth || 900) - widths[0] - widths[1] - widths[2] - 24;\n",
	"\tvar GAP = Math.max(120, Math.min(300, Math.floor(room / 2)));\n",
	"\tvar xs = [10, 10 + widths[0] + GAP, 10 + widths[0] + GAP + widths[1] + GAP];\n",
	"\tvar H = Math.max(1, m.cols[0].length, m.cols[1].length, m.cols[2].length) * ROW;\n",
	"\tvar W = xs[2] + widths[2] + 10;\n",
	"\t/* The middle column and the tallest one are packed and centred; a shorter side column\n",
	"\t   puts each box level with the middle of its neighbours, as far as room allows. */\n",
	"\tm.cols.forEach(function (c, ci) {\n",
	"\t\tvar off = TOP + (H - c.length * ROW) / 2;\n",
	"\t\tc.forEach(function (n, i) {\n",
	"\t\t\tn.x = ci === 0 ? xs[0] + widths[0] - n.w : ci === 1 ? xs[1] + (widths[1] - n.w) / 2 : xs[2];\n",
	"\t\t\tn.y = off + i * ROW + (ROW - NH) / 2;\n",
	"\t\t});\n",
	"\t});\n",
	"\t[0, 2].forEach(function (ci) {\n",
	"\t\tvar c = m.cols[ci];\n",
	"\t\tif (!c.length || c.length * ROW >= H) return;\n",
	"\t\tc.forEach(function (n) {\n",
	"\t\t\tvar sum = 0, k = 0;\n",
	"\t\t\tn.adj.forEach(function (e) {\n",
	"\t\t\t\tvar o = e.a === n ? e.b : e.a;\n",
	"\t\t\t\tif (o.col === 1) { sum += o.y; k++; }\n",
	"\t\t\t});\n",
	"\t\t\tif (k) n.y = sum / k;\n",
	"\t\t});\n",
	"\t\tvar lo = TOP + (ROW - NH) / 2, hi = TOP + H - ROW + (ROW - NH) / 2, i;\n",
	"\t\tfor (i = 0; i < c.length; i++) c[i].y = Math.max(c[i].y, i ? c[i - 1].y + ROW : lo);\n",
	"\t\tfor (i = c.length - 1; i >= 0; i--) c[i].y = Math.min(c[i].y, i < c.length - 1 ? c[i + 1].y - ROW : hi);\n",
	"\t});\n",
	"\tvar svg = s('svg', { 'class': 'graph', width: W, height: TOP + H + 10,\n",
	"\t\tviewBox: '0 0 ' + W + ' ' + (TOP + H + 10), role: 'img',\n",
	"\t\t'aria-label': 'Graph of ' + m.cols[1].length + ' ' + titles[1] + ' with their ' + titles[0] + ' and ' + titles[2] });\n",
	"\ttitles.forEach(function (tt, i) {\n",
	"\t\tvar anchor = i === 0 ? 'end' : i === 1 ? 'middle' : 'start';\n",
	"\t\tvar x = i === 0 ? xs[0] + widths[0] : i === 1 ? xs[1] + widths[1] / 2 : xs[2];\n",
	"\t\tvar t = s('text', { 'class': 'col-title', x: x, y: 18, 'text-anchor': anchor });\n",
	"\t\tt.textContent = tt;\n",
	"\t\tsvg.appendChild(t);\n",
	"\t});\n",
	"\tvar eg = s('g', { 'class': 'edges' });\n",
	"\tm.elist.forEach(function (e) {\n",
	"\t\tvar a = e.a, b = e.b;\n",
	"\t\tif (a.col > b.col) { var tmp = a; a = b; b = tmp; }\n",
	"\t\tvar x1 = a.x + a.w, y1 = a.y + NH / 2, x2 = b.x, y2 = b.y + NH / 2, dx = (x2 - x1) / 2;\n",
	"\t\tvar p = s('path', { 'class': 'edge' + (e.cls ? ' ' + e.cls : ''),\n",
	"\t\t\td: 'M' + x1 + ' ' + y1 + ' C' + (x1 + dx) + ' ' + y1 + ' ' + (x2 - dx) + ' ' + y2 + ' ' + x2 + ' ' + y2 });\n",
	"\t\tif (e.title) {\n",
	"\t\t\tvar tt = s('title');\n",
	"\t\t\ttt.textContent = e.title;\n",
	"\t\t\tp.appendChild(tt);\n",
	"\t\t}\n",
	"\t\te.el = p;\n",
	"\t\teg.appendChild(p);\n",
	"\t});\n",
	"\tsvg.appendChild(eg);\n",
	"\tvar ng = s('g', { 'class': 'nodes' });\n",
	"\tm.cols.forEach(function (c) {\n",
	"\t\tc.forEach(function (n) {\n",
	"\t\t\tvar title = s('title');\n",
	"\t\t\ttitle.textContent = n.title;\n",
	"\t\t\tvar label = s('text', { x: PAD, y: NH / 2 });\n",
	"\t\t\tlabel.textContent = n.text;\n",
	"\t\t\tvar g = s('g', { 'class': 'node' + (n.col === 1 ? ' mid' : '') + (n.cls ? ' ' + n.cls : ''),\n",
	"\t\t\t\ttransform: 'translate(' + n.x + ',' + n.y + ')', 'data-col': n.col },\n",
	"\t\t\t\t[title, s('rect', { width: n.w, height: NH, rx: 4 }), label]);\n",
	"\t\t\tg.addEventListener('mouseenter', function () { focus(svg, n, true); });\n",
	"\t\t\tg.addEventListener('mouseleave', function () { focus(svg, n, false); });\n",
	"\t\t\tn.el = g;\n",
	"\t\t\tng.appendChild(g);\n",
	"\t\t});\n",
	"\t});\n",
	"\tsvg.appendChild(ng);\n",
	"\twrap.textContent = '';\n",
	"\twrap.appendChild(svg);\n",
	"\t/* The box keeps the height of the first drawing, so that filtering a table below does\n",
	"\t   not move the page under the reader's cursor. */\n",
	"\tif (!wrap.style.height) wrap.style.height = Math.min(TOP + H + 12, 760) + 'px';\n",
	"}\n",
	"\n",
	"function focus(svg, n, on) {\n",
	"\tsvg.classList.toggle('focus', on);\n",
	"\tn.el.classList.toggle('hl', on);\n",
	"\tn.adj.forEach(function (e) {\n",
	"\t\te.el.classList.toggle('hl', on);\n",
	"\t\te.a.el.classList.toggle('hl', on);\n",
	"\t\te.b.el.classList.toggle('hl', on);\n",
	"\t});\n",
	"}\n",
	"\n",
	"/* ---- audit ---- */\n",
	"function auditView() {\n",
	"\tvar k = objs([DATA.kernel])[0] || {};\n",
	"\tvar restricted = objs(DATA.restricted), namespaces = objs(DATA.namespaces), findings = objs(DATA.findings);\n",
	"\tvar counts = objs([DATA.counts])[0] || {};\n",
	"\tvar sev = { error: 0, warning: 0, note: 0 }, codeSev = {}, flagged = {};\n",
	"\tfindings.forEach(function (f) {\n",
	"\t\tif (sev[f.verdict] != null) sev[f.verdict]++;\n",
	"\t\tif (!codeSev[f.code] || sevRank(f.verdict) < sevRank(codeSev[f.code])) codeSev[f.code] = f.verdict;\n",
	"\t\tif (f.module && f.verdict !== 'note') flagged[modName(f.module)] = worse(flagged[modName(f.module)] || 'info', sevTone(f.verdict));\n",
	"\t});\n",
	"\tdocument.getElementById('ksc-sub').textContent = 'Audit of ' + str(k.path || 'a kernel') + (k.release ? ', release ' + k.release : '');\n",
	"\tvar dead = restricted.filter(function (r) { return r.dead; }).length;\n",
	"\tvar sg = objs([DATA.signatures])[0], signers = objs(DATA.signers), keys = objs(DATA.keys);\n",
	"\tvar sigCards = !sg ? [] : [\n",
	"\t\t['Signed modules', sg.signed, str(sg.verified) + ' verified, ' + str(sg.foreign_key) + ' foreign key, ' + str(sg.rejected) + ' rejected, ' +\n",
	"\t\t\tstr(sg.unsupported) + ' unsupported, ' + str(sg.not_checked) + ' not checked'],\n",
	"\t\t['Unsigned modules', sg.unsigned, sg.module_sig === false ? 'the kernel does not sign its modules' : sg.module_sig ? 'the kernel signs its modules' : ''],\n",
	"\t\t['Keys', sg.keys_checked ? keys.length : 'not checked', sg.keys_checked ? keys.map(function (x) { return str(x.subject); }).join(', ') :\n",
	"\t\t\t'no certificate given (--cert) and none in the kernel image: signatures were not verified', !sg.keys_checked]\n",
	"\t];\n",
	"\tcards([\n",
	"\t\t['Release', k.release, k.path ? 'under ' + k.path : '', true],\n",
	"\t\t['Rules of', k.policy, 'kernel version applied', true],\n",
	"\t\t['Modules', k.modules],\n",
	"\t\t['Exports', k.exports, str(k.gpl_only) + ' GPL-only, ' + str(k.plain) + ' plain'],\n",
	"\t\t['Module-restricted', restricted.length, plural(dead, 'dead', 'dead')],\n",
	"\t\t['Namespaces', namespaces.length],\n",
	"\t\t['Findings', findings.length, plural(sev.error, 'error', 'errors') + ', ' + plural(sev.warning, 'warning', 'warnings') + ', ' + sev.info + ' info']\n",
	"\t].concat(sigCards));\n",
	"\tvar tCounts = table({\n",
	"\t\tkey: 'counts', title: 'Findings by code', desc: 'How many findings of each code the audit made.', narrow: true,\n",
	"\t\trows: Object.keys(counts).map(function (c) { return { code: c, n: counts[c], severity: codeSev[c] || '' }; }),\n",
	"\t\tcols: [\n",
	"\t\t\t{ label: 'Code', get: function (r) { return r.code; }, cls: 'mono nw' },\n",
	"\t\t\t{ label: 'Severity', type: 'badge', get: function (r) { return r.severity; }, tone: sevTone, rank: sevRank },\n",
	"\t\t\t{ label: 'Count', type: 'num', get: function (r) { return r.n; } }\n",
	"\t\t]\n",
	"\t});\n",
	"\tvar tRes = table({\n",
	"\t\tkey: 'restricted', title: 'Module-restricted exports',\n",
	"\t\tdesc: 'Exports limited to modules whose names match a pattern list (EXPORT_SYMBOL_FOR_MODULES, 6.16+): each item with the modules it matches by the loader\\u2019s rule and by modpost\\u2019s, and the modules that use the export. Dead: no module matches any item.',\n",
	"\t\trows: restricted,\n",
	"\t\tcols: [\n",
	"\t\t\t{ label: 'Symbol', get: function (r) { return r.symbol; }, cls: 'mono nw' },\n",
	"\t\t\t{ label: 'Owner', get: function (r) { return r.owner; }, cls: 'mono' },\n",
	"\t\t\t{ label: 'Namespace', get: function (r) { return r.namespace; }, cls: 'mono' },\n",
	"\t\t\t{ label: 'GPL-only', type: 'bool', get: function (r) { return r.gpl_only; }, yes: 'GPL-only', no: 'no', toneYes: 'info' },\n",
	"\t\t\t{ label: 'Items and matches', get: function (r) { return r.items; }, cls: 'wide', render: itemsCell },\n",
	"\t\t\t{ label: 'Users', type: 'list', get: function (r) { return r.users; }, cls: 'mono' },\n",
	"\t\t\t{ label: 'Dead', type: 'bool', get: function (r) { return r.dead; }, yes: 'dead', no: '', toneYes: 'bad' }\n",
	"\t\t]\n",
	"\t});\n",
	"\tvar tNs = table({\n",
	"\t\tkey: 'namespaces', title: 'Namespaces',\n",
	"\t\tdesc: 'Every symbol namespace: how many exports it holds, who exports into it, who imports it (MODULE_IMPORT_NS) and which importers use nothing from it.',\n",
	"\t\trows: namespaces,\n",
	"\t\tcols: [\n",
	"\t\t\t{ label: 'Namespace', get: function (r) { return r.namespace; }, cls: 'mono nw' },\n",
	"\t\t\t{ label: 'Exports', type: 'num', get: function (r) { return r.exports; } },\n",
	"\t\t\t{ label: 'Exporters', type: 'list', get: function (r) { return r.exporters; }, cls: 'mono' },\n",
	"\t\t\t{ label: 'Importers', type: 'list', get: function (r) { return r.importers; }, cls: 'mono' },\n",
	"\t\t\t{ label: 'Unused importers', type: 'list', get: function (r) { return r.unused_importers; }, cls: 'mono' }\n",
	"\t\t]\n",
	"\t});\n",
	"\tvar tFind = table({\n",
	"\t\tkey: 'findings', title: 'Findings', desc: 'Each finding of the audit, with its code and what it is about.',\n",
	"\t\trows: findings,\n",
	"\t\tcols: [\n",
	"\t\t\t{ label: 'Severity', type: 'badge', get: function (r) { return r.verdict; }, tone: sevTone, rank: sevRank },\n",
	"\t\t\t{ label: 'Code', get: function (r) { return r.code; }, cls: 'mono nw' },\n",
	"\t\t\t{ label: 'Module', get: function (r) { return r.module; }, cls: 'mono nw', title: function (r) { return r.path; } },\n",
	"\t\t\t{ label: 'Symbol', get: function (r) { return r.symbol; }, cls: 'mono nw' },\n",
	"\t\t\t{ label: 'Namespace', get: function (r) { return r.namespace; }, cls: 'mono' },\n",
	"\t\t\t{ label: 'Detail', get: function (r) { return r.summary; }, cls: 'wide' }\n",
	"\t\t]\n",
	"\t});\n",
	"\tvoid tFind;\n",
	"\tif (sg) table({\n",
	"\t\tkey: 'signers', title: 'Signers',\n",
	"\t\tdesc: 'Who signed the modules of the tree: the signer, key id (the certificate\\u2019s serial number) and hash algorithm as modinfo shows them, and what became of each module\\u2019s signature against the kernel\\u2019s keys' +\n",
	"\t\t\t(sg.keys_checked ? '.' : ' (no key known: well-formed signatures were not checked).'),\n",
	"\t\trows: signers,\n",
	"\t\tcols: [\n",
	"\t\t\t{ label: 'Signer', get: function (r) { return r.signer == null ? '(not decodable)' : r.signer; } },\n",
	"\t\t\t{ label: 'Key id', get: function (r) { return r.key_id; }, cls: 'mono' },\n",
	"\t\t\t{ label: 'Hash', get: function (r) { return r.hash_algo; }, cls: 'mono nw' },\n",
	"\t\t\t{ label: 'Verified by', get: function (r) { return r.key; } },\n",
	"\t\t\t{ label: 'Modules', type: 'num', get: function (r) { return r.modules; } },\n",
	"\t\t\t{ label: 'Verified', type: 'num', get: function (r) { return r.verified; } },\n",
	"\t\t\t{ label: 'Foreign key', type: 'num', get: function (r) { return r.foreign_key; } },\n",
	"\t\t\t{ label: 'Rejected', type: 'num', get: function (r) { return r.rejected; } },\n",
	"\t\t\t{ label: 'Unsupported', type: 'num', get: function (r) { return r.unsupported; } },\n",
	"\t\t\t{ label: 'Not checked', type: 'num', get: function (r) { return r.not_checked; } }\n",
	"\t\t]\n",
	"\t});\n",
	"\tgraphSection({\n",
	"\t\ttitles: ['exporters', 'restricted exports and namespaces', 'users and importers'],\n",
	"\t\twhat: ['restricted export or namespace', 'restricted exports and namespaces'],\n",
	"\t\tdesc: 'Who exports each module-restricted export and namespace shown in the tables, and which modules use it. Follows the filters and sort order of those two tables.',\n",
	"\t\tlegend: [['uses a restricted export', '#c98a16'], ['imports a namespace', '#4a7fd0'],\n",
	"\t\t\t['imports it but uses nothing from it', '#8a96a3', true], ['exports', '#8a96a3']],\n",
	"\t\tsources: [tRes, tNs], before: tCounts,\n",
	"\t\tbuild: function (m, rows) {\n",
	"\t\t\tvar all = rows[0].map(function (r) { return ['r', r]; }).concat(rows[1].map(function (r) { return ['n', r]; }));\n",
	"\t\t\tall.slice(0, MAX_MID).forEach(function (x) {\n",
	"\t\t\t\tvar r = x[1], mid;\n",
	"\t\t\t\tif (x[0] === 'r') {\n",
	"\t\t\t\t\tmid = m.node(1, 'sym:' + r.symbol, r.symbol, r.dead ? 'k-bad k-dead' : 'k-warn',\n",
	"\t\t\t\t\t\tr.symbol + ' (' + str(r.namespace) + ')' + (r.dead ? ', dead' : ''));\n",
	"\t\t\t\t\tif (r.owner) m.edge(exporter(m, r.owner), mid, '', str(r.owner) + ' exports ' + r.symbol);\n",
	"\t\t\t\t\tarr(r.users).forEach(function (u) { m.edge(mid, user(m, u), 'e-warn', u + ' uses ' + r.symbol); });\n",
	"\t\t\t\t} else {\n",
	"\t\t\t\t\tmid = m.node(1, 'ns:' + r.namespace, r.namespace, 'k-info',\n",
	"\t\t\t\t\t\t'namespace ' + r.namespace + ': ' + plural(r.exports || 0, 'export', 'exports'));\n",
	"\t\t\t\t\tarr(r.exporters).forEach(function (o) { m.edge(exporter(m, o), mid, '', o + ' exports into ' + r.namespace); });\n",
	"\t\t\t\t\tarr(r.importers).forEach(function (u) {\n",
	"\t\t\t\t\t\tvar unused = arr(r.unused_importers).indexOf(u) >= 0;\n",
	"\t\t\t\t\t\tm.edge(mid, user(m, u), unused ? 'e-dash' : 'e-info', u + (unused ? ' imports ' + r.namespace + ' but uses nothing from it' : ' imports ' + r.namespace));\n",
	"\t\t\t\t\t});\n",
	"\t\t\t\t\tarr(r.unused_importers).forEach(function (u) {\n",
	"\t\t\t\t\t\tm.edge(mid, user(m, u), 'e-dash', u + ' imports ' + r.namespace + ' but uses nothing from it');\n",
	"\t\t\t\t\t});\n",
	"\t\t\t\t}\n",
	"\t\t\t});\n",
	"\t\t\treturn all.length > MAX_MID ? all.length : 0;\n",
	"\t\t}\n",
	"\t});\n",
	"\tfunction exporter(m, o) { return m.node(0, modName(o), modName(o), '', o); }\n",
	"\tfunction user(m, u) {\n",
	"\t\tvar t = flagged[modName(u)];\n",
	"\t\treturn m.node(2, modName(u), u, t ? 'k-' + t : '', u + (t ? ' (has findings)' : ''));\n",
	"\t}\n",
	"}\n",
	"\n",
	"function itemsCell(items) {\n",
	"\titems = objs(items);\n",
	"\tif (!items.length) return { node: none(), sort: null, text: '' };\n",
	"\tvar texts = [];\n",
	"\tvar ul = h('ul', { cls: 'items' }, items.map(function (it) {\n",
	"\t\tvar lm = arr(it.loader_matches), mm = arr(it.modpost_matches);\n",
	"\t\tvar same = lm.join(' ') === mm.join(' ');\n",
	"\t\tvar m = !lm.length && !mm.length ? 'matches no module' :\n",
	"\t\t\tsame ? 'matches ' + lm.join(', ') :\n",
	"\t\t\t'loader: ' + (lm.join(', ') || 'none') + '; modpost: ' + (mm.join(', ') || 'none');\n",
	"\t\ttexts.push(str(it.item), str(it.kind), lm.join(' '), mm.join(' '));\n",
	"\t\t/* Spaces shown, since an item with one can never match. */\n",
	"\t\treturn h('li', null, [h('code', { cls: 'mono', text: str(it.item).replace(/ /g, '\\u2423') || '(empty)' }), ' ',\n",
	"\t\t\tbadge(str(it.kind), itemTone(it.kind)), ' ', h('span', { cls: 'm', text: m })]);\n",
	"\t}));\n",
	"\treturn { node: ul, sort: items.map(function (it) { return str(it.item); }).join(','), text: texts.join(' ') };\n",
	"}\n",
	"\n",
	"/* ---- diff ---- */\n",
	"function diffView() {\n",
	"\tvar counts = objs([DATA.counts])[0] || {}, total = sumOf(counts);\n",
	"\tvar mods = Array.isArray(DATA.modules) ? objs(DATA.modules) : null;\n",
	"\tvar kinds = Object.keys(counts);\n",
	"\tvar nonzero = kinds.filter(function (k) { return counts[k]; }).length;\n",
	"\tvar tKinds;\n",
	"\tif (!mods) {\n",
	"\t\tvar changes = objs(DATA.changes);\n",
	"\t\tdocument.getElementById('ksc-sub').textContent = 'Export changes between two kernels';\n",
	"\t\tvar bad = changes.filter(function (c) { return kindTone(c.kind) === 'bad'; }).length;\n",
	"\t\tcards([\n",
	"\t\t\t['Changes', changes.length, plural(nonzero, 'kind', 'kinds') + ' of change'],\n",
	"\t\t\t['Can break modules', bad, 'removed, GPL-only, namespace, restricted'],\n",
	"\t\t\t['Symbols', distinct(changes.map(function (c) { return c.symbol; })).length, 'changed']\n",
	"\t\t]);\n",
	"\t\ttKinds = kindsTable(counts);\n",
	"\t\tvar tCh = table({\n",
	"\t\t\tkey: 'changes', title: 'Changes', desc: 'One row per change of an exported symbol between OLD and NEW.',\n",
	"\t\t\trows: changes,\n",
	"\t\t\tcols: [\n",
	"\t\t\t\t{ label: 'Symbol', get: function (r) { return r.symbol; }, cls: 'mono nw' },\n",
	"\t\t\t\t{ label: 'Kind', type: 'badge', get: function (r) { return r.kind; }, tone: kindTone },\n",
	"\t\t\t\t{ label: 'Detail', get: function (r) { return r.summary; }, cls: 'mono' },\n",
	"\t\t\t\t{ label: 'Old owner', get: function (r) { return owner(r.old); }, cls: 'mono' },\n",
	"\t\t\t\t{ label: 'New owner', get: function (r) { return owner(r['new']); }, cls: 'mono' }\n",
	"\t\t\t]\n",
	"\t\t});\n",
	"\t\tgraphSection({\n",
	"\t\t\ttitles: ['old exporter', 'changed symbols', 'new exporter'], what: ['changed symbol', 'changed symbols'],\n",
	"\t\t\tdesc: 'Each changed symbol shown in the Changes table, between the module that exported it in OLD and the one that exports it in NEW; colours as the kinds of change.',\n",
	"\t\t\tlegend: [['can break users', '#d0453b'], ['needs a rebuild or a new import', '#c98a16'],\n",
	"\t\t\t\t['loosened or added', '#3f9a57'], ['moved', '#4a7fd0']],\n",
	"\t\t\tsources: [tCh], before: tKinds,\n",
	"\t\t\tbuild: function (m, rows) {\n",
	"\t\t\t\tvar syms = distinct(rows[0].map(function (c) { return c.symbol; }));\n",
	"\t\t\t\tvar keep = {};\n",
	"\t\t\t\tsyms.slice(0, MAX_MID).forEach(function (x) { keep[x] = true; });\n",
	"\t\t\t\trows[0].forEach(function (c) {\n",
	"\t\t\t\t\tif (!keep[c.symbol]) return;\n",
	"\t\t\t\t\tvar tone = kindTone(c.kind);\n",
	"\t\t\t\t\tvar id = 'sym:' + c.symbol, prev = m.nodes['1:' + id];\n",
	"\t\t\t\t\tvar t = prev ? worse(prev.tone, tone) : tone;\n",
	"\t\t\t\t\tvar mid = m.node(1, id, c.symbol, 'k-' + t);\n",
	"\t\t\t\t\tm.nodes[mid].tone = t;\n",
	"\t\t\t\t\tm.nodes[mid].title = (prev ? prev.title + '\\n' : c.symbol + ': ') + c.kind + ' (' + str(c.summary) + ')';\n",
	"\t\t\t\t\tvar oo = owner(c.old), no = owner(c['new']);\n",
	"\t\t\t\t\tif (oo) m.edge(m.node(0, modName(oo), modName(oo), '', oo), mid, 'e-' + tone + (no ? '' : ' e-dash'), c.kind);\n",
	"\t\t\t\t\tif (no) m.edge(mid, m.node(2, modName(no), modName(no), '', no), 'e-' + tone, c.kind);\n",
	"\t\t\t\t});\n",
	"\t\t\t\treturn syms.length > MAX_MID ? syms.length : 0;\n",
	"\t\t\t}\n",
	"\t\t});\n",
	"\t\treturn;\n",
	"\t}\n",
	"\tvar rows = [];\n",
	"\tmods.forEach(function (md) {\n",
	"\t\tobjs(md.changes).forEach(function (c) {\n",
	"\t\t\trows.push({ module: md.module, path: md.path, breaks: md.breaks, symbol: c.symbol, view: c.view,\n",
	"\t\t\t\told: c.old, new: c['new'], code: c.code, rule: c.rule, changes: c.export_changes,\n",
	"\t\t\t\texplanation: c.explanation, fix: c.fix, fixed: !c.symbol && c['new'] === 'allowed' });\n",
	"\t\t});\n",
	"\t});\n",
	"\tvar breaking = mods.filter(function (md) { return md.breaks; }).length;\n",
	"\tdocument.getElementById('ksc-sub').textContent = 'What the changes between two kernels do to ' + plural(mods.length, 'module', 'modules');\n",
	"\tcards([\n",
	"\t\t['Rules', str(DATA.policy_old) + ' \\u2192 ' + str(DATA.policy_new), 'OLD \\u2192 NEW kernel version', true],\n",
	"\t\t['Modules', mods.length, 'checked against both'],\n",
	"\t\t['Would break', breaking, 'load or build on OLD, not on NEW'],\n",
	"\t\t['Verdict changes', rows.length, 'per symbol and view'],\n",
	"\t\t['Export changes', total, plural(nonzero, 'kind', 'kinds') + ' of change']\n",
	"\t]);\n",
	"\ttKinds = kindsTable(counts);\n",
	"\ttable({\n",
	"\t\tkey: 'modules', title: 'Modules', desc: 'Each module\\u2019s fate with the loader (errno of finit_module) and modpost, on OLD and NEW.',\n",
	"\t\trows: mods,\n",
	"\t\tcols: [\n",
	"\t\t\t{ label: 'Module', get: function (r) { return r.module; }, cls: 'mono nw', title: function (r) { return r.path; } },\n",
	"\t\t\t{ label: 'Breaks', type: 'bool', get: function (r) { return r.breaks; }, yes: 'breaks', no: 'no', toneYes: 'bad' },\n",
	"\t\t\t{ label: 'Loader, OLD', get: function (r) { return r.loader_errno_old; }, render: errnoCell },\n",
	"\t\t\t{ label: 'Loader, NEW', get: function (r) { return r.loader_errno_new; }, render: errnoCell },\n",
	"\t\t\t{ label: 'modpost, OLD', get: function (r) { return r.modpost_ok_old; }, render: passCell },\n",
	"\t\t\t{ label: 'modpost, NEW', get: function (r) { return r.modpost_ok_new; }, render: passCell },\n",
	"\t\t\t{ label: 'Path', get: function (r) { return r.path; }, cls: 'mono' }\n",
	"\t\t]\n",
	"\t});\n",
	"\tvar tV = table({\n",
	"\t\tkey: 'verdicts', title: 'Verdict changes', desc: 'Every import whose verdict differs between OLD and NEW, in each view, with the export change behind it and the fix.',\n",
	"\t\trows: rows,\n",
	"\t\tcols: [\n",
	"\t\t\t{ label: 'Module', get: function (r) { return r.module; }, cls: 'mono nw', title: function (r) { return r.path; } },\n",
	"\t\t\t{ label: 'Symbol', get: function (r) { return r.symbol; }, cls: 'mono nw' },\n",
	"\t\t\t{ label: 'View', type: 'badge', get: function (r) { return r.view; }, tone: function () { return ''; } },\n",
	"\t\t\t{ label: 'OLD', type: 'badge', get: function (r) { return r.old; }, tone: verdictTone },\n",
	"\t\t\t{ label: 'NEW', type: 'badge', get: function (r) { return r['new']; }, tone: verdictTone },\n",
	"\t\t\t{ label: 'Code', get: function (r) { return r.code; }, cls: 'mono nw', title: function (r) { return r.rule ? 'rule ' + r.rule : null; } },\n",
	"\t\t\t{ label: 'Export change', get: function (r) { return r.changes; }, render: changesCell },\n",
	"\t\t\t{ label: 'Fix', get: function (r) { return r; }, cls: 'wide', render: fixCell }\n",
	"\t\t]\n",
	"\t});\n",
	"\tgraphSection({\n",
	"\t\ttitles: ['export change', 'symbols', 'modules'], what: ['symbol', 'symbols'],\n",
	"\t\tdesc: 'The symbols of the Verdict changes table: the change of each export, and the modules whose verdict it changes (red: refused on NEW). Modules that would break are red.',\n",
	"\t\tlegend: [['refused on NEW', '#d0453b'], ['allowed with a warning', '#c98a16'], ['allowed on NEW', '#3f9a57']],\n",
	"\t\tsources: [tV], before: tKinds,\n",
	"\t\tbuild: function (m, rs) {\n",
	"\t\t\tvar syms = distinct(rs[0].map(function (r) { return r.symbol || '[' + str(r.code) + ']'; }));\n",
	"\t\t\tvar keep = {};\n",
	"\t\t\tsyms.slice(0, MAX_MID).forEach(function (x) { keep[x] = true; });\n",
	"\t\t\trs[0].forEach(function (r) {\n",
	"\t\t\t\tvar label = r.symbol || '[' + str(r.code) + ']';\n",
	"\t\t\t\tif (!keep[label]) return;\n",
	"\t\t\t\tvar tone = verdictTone(r['new']) || 'good';\n",
	"\t\t\t\tvar mid = m.node(1, label, label, r.symbol ? 'k-info' : '', r.symbol ? r.symbol : 'module-level finding ' + str(r.code));\n",
	"\t\t\t\tkindList(r.changes).forEach(function (k) {\n",
	"\t\t\t\t\tm.edge(m.node(0, k, k, 'k-' + kindTone(k)), mid, 'e-' + kindTone(k), k);\n",
	"\t\t\t\t});\n",
	"\t\t\t\tvar mod = m.node(2, r.module, r.module, r.breaks ? 'k-bad' : '', r.module + (r.breaks ? ': would break on NEW' : ''));\n",
	"\t\t\t\tm.edge(mid, mod, 'e-' + tone, r.view + ': ' + str(r.old || '\\u2014') + ' \\u2192 ' + str(r['new'] || '\\u2014'));\n",
	"\t\t\t});\n",
	"\t\t\treturn syms.length > MAX_MID ? syms.length : 0;\n",
	"\t\t}\n",
	"\t});\n",
	"}\n",
	"\n",
	"function kindsTable(counts) {\n",
	"\treturn table({\n",
	"\t\tkey: 'counts', title: 'Changes by kind', desc: 'How many exports changed in each way between OLD and NEW.', narrow: true,\n",
	"\t\trows: Object.keys(counts).map(function (k) { return { kind: k, n: counts[k] }; }),\n",
	"\t\tcols: [\n",
	"\t\t\t{ label: 'Kind', type: 'badge', get: function (r) { return r.kind; }, tone: kindTone },\n",
	"\t\t\t{ label: 'Count', type: 'num', get: function (r) { return r.n; } }\n",
	"\t\t]\n",
	"\t});\n",
	"}\n",
	"function errnoCell(v) {\n",
	"\tvar t = errnoText(v);\n",
	"\treturn { node: badge(t, v ? 'bad' : 'good'), sort: typeof v === 'number' ? v : null, text: t };\n",
	"}\n",
	"function passCell(v) {\n",
	"\tvar t = v == null ? '' : v ? 'pass' : 'fail';\n",
	"\treturn { node: t ? badge(t, v ? 'good' : 'bad') : none(), sort: v == null ? null : v ? 1 : 0, text: t };\n",
	"}\n",
	"function fixCell(r) {\n",
	"\tvar fix = str(r.fix), ex = str(r.explanation);\n",
	"\tif (r.fixed === true) fix = fix || 'gone on NEW';\n",
	"\tif (!fix && !ex) return { node: none(), sort: null, text: '' };\n",
	"\tvar node = h('div', null, [fix ? h('div', { text: fix }) : null,\n",
	"\t\tex ? h('div', { cls: 'note', text: ex + (r.rule ? ' (rule ' + r.rule + ')' : '') }) : null]);\n",
	"\treturn { node: node, sort: fix || ex, text: fix + ' ' + ex };\n",
	"}\n",
	"function kindList(v) { return Array.isArray(v) ? v.map(str).filter(Boolean) : []; }\n",
	"function owner(side) { return side && typeof side === 'object' ? side.owner : null; }\n",
	"function changesCell(v) {\n",
	"\tvar kinds = kindList(v);\n",
	"\tif (!kinds.length) return { node: h('span', { cls: 'none', text: 'none (another symbol or rule)' }), sort: null, text: '' };\n",
	"\treturn { node: h('span', null, kinds.map(function (k) { return badge(k, kindTone(k)); })), sort: kinds.join(', '), text: kinds.join(' ') };\n",
	"}\n",
	"function distinct(list) {\n",
	"\tvar seen = {}, out = [];\n",
	"\tlist.forEach(function (x) { if (!seen[x]) { seen[x] = true; out.push(x); } });\n",
	"\treturn out;\n",
	"}\n",
	"\n",
	"try {\n",
	"\tif (KIND === 'audit') auditView();\n",
	"\telse diffView();\n",
	"\tdocument.body.setAttribute('data-ready', '1');\n",
	"} catch (e) {\n",
	"\tMAIN.appendChild(h('p', { cls: 'warn', text: 'The report could not be drawn: ' + e }));\n",
	"\tthrow e;\n",
	"}\n",
	"})();\n",
	NULL,
};

static bool valid_kind(const char *kind)
{
	return kind && (strcmp(kind, "audit") == 0 || strcmp(kind, "diff") == 0);
}

static void put_lines(FILE *f, const char *const *lines)
{
	for (; *lines; lines++)
		fputs(*lines, f);
}

/* Text for HTML element content and attribute values; invalid UTF-8 as U+FFFD. */
static void html_text(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = text_utf8_len(p);
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if (!n) {
				fputs("\xef\xbf\xbd", f);
				n = 1;
			} else if (*p < 0x20 && *p != '\t' && *p != '\n') {
				fputc(' ', f);
			} else {
				fwrite(p, 1, n, f);
			}
			p += n;
			continue;
		}
		p++;
	}
}

/*
 * The document as JSON that cannot end or confuse the script element: '<', '>' and '&'
 * only occur inside JSON strings, where \u003c, \u003e and \u0026 mean the same, so
 * neither "</script" nor "<!--" can appear.
 */
static void put_json(FILE *f, json_object *doc)
{
	const char *s = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
							     JSON_C_TO_STRING_NOSLASHESCAPE);

	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("\\u003c", f); break;
		case '>': fputs("\\u003e", f); break;
		case '&': fputs("\\u0026", f); break;
		default: fputc(*s, f);
		}
	}
}

static void write_page(FILE *f, const char *title, json_object *doc, const char *kind)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; "
	      "base-uri 'none'; form-action 'none'\">\n"
	      "<meta name=\"generator\" content=\"ksymcheck " KSC_VERSION "\">\n"
	      "<link rel=\"icon\" href=\"data:,\">\n<title>", f);
	html_text(f, title);
	fputs("</title>\n<style>\n", f);
	put_lines(f, page_css);
	fprintf(f, "</style>\n</head>\n<body data-kind=\"%s\">\n"
		   "<a class=\"skip\" href=\"#ksc-main\">Skip to the report</a>\n"
		   "<header>\n<h1>", kind);
	html_text(f, title);
	fputs("</h1>\n<p class=\"sub\" id=\"ksc-sub\"></p>\n</header>\n"
	      "<nav id=\"ksc-nav\" aria-label=\"Sections\"></nav>\n"
	      "<noscript><p class=\"warn\">The tables and the graph of this report are drawn by "
	      "its script, which is off: the data is in the JSON block at the end of this "
	      "file (ksc-data).</p></noscript>\n"
	      "<main id=\"ksc-main\"></main>\n"
	      "<footer>Written by ksymcheck " KSC_VERSION ". This page is self-contained: it loads "
	      "nothing from the network. Select a column header to sort, type in a filter box to "
	      "narrow a table.</footer>\n"
	      "<script type=\"application/json\" id=\"ksc-data\">", f);
	put_json(f, doc);
	fputs("</script>\n<script>\n", f);
	put_lines(f, page_js);
	fputs("</script>\n</body>\n</html>\n", f);
}

const char *report_strerror(int err)
{
	return err == REPORT_ENOTREG ? "not a regular file; not replaced" : strerror(err);
}

int report_write_html(const char *path, const char *title, json_object *doc, const char *kind)
{
	if (!path || !doc || !valid_kind(kind))
		return -EINVAL;
	if (!title)
		title = strcmp(kind, "audit") == 0 ? "ksymcheck audit" : "ksymcheck diff";
	if (strcmp(path, "-") == 0) {
		write_page(stdout, title, doc, kind);
		return fflush(stdout) != 0 || ferror(stdout) ? -EIO : 0;
	}

	/*
	 * A temporary file beside path, renamed over it once complete: only over a regular
	 * file (whose permission bits it takes) or a symbolic link, never over a device, a
	 * FIFO, a socket or a folder.
	 */
	struct stat st;
	mode_t keep = (mode_t)-1;
	if (lstat(path, &st) == 0 && !S_ISLNK(st.st_mode)) {
		if (!S_ISREG(st.st_mode))
			return -REPORT_ENOTREG;
		keep = st.st_mode & 07777;
	}
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	char *tmp;
	if (asprintf(&tmp, "%.*s.%s.XXXXXX", dirlen, path, path + dirlen) < 0)
		return -ENOMEM;
	int fd = mkostemp(tmp, O_CLOEXEC), r = 0;
	if (fd < 0) {
		r = -errno;
		free(tmp);
		return r;
	}
	mode_t mask = umask(0);
	umask(mask);
	FILE *f = NULL;
	if (fchmod(fd, keep != (mode_t)-1 ? keep : 0666 & ~mask) < 0 || !(f = fdopen(fd, "w"))) {
		r = -errno;
		close(fd);
		goto err_unlink;
	}
	write_page(f, title, doc, kind);
	if (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) < 0)
		r = errno ? -errno : -EIO;
	if (fclose(f) != 0 && !r)
		r = -errno;
	if (!r && rename(tmp, path) < 0)
		r = -errno;
	if (!r) {
		free(tmp);
		return 0;
	}
err_unlink:
	unlink(tmp);
	free(tmp);
	return r;
}

/* ---- Graphviz ---- */

/*
 * A dot string: '"' and '\' escaped, line breaks as \n, other control characters and
 * invalid UTF-8 as ' ' and '?'. dot reads a backslash before a quote as an escaped quote
 * whatever comes before it, so a string ending in a backslash gets a space after it.
 */
static void dot_str(FILE *f, const char *prefix, const char *s)
{
	const char *parts[2] = { prefix, s };
	bool backslash = false;

	fputc('"', f);
	for (int i = 0; i < 2; i++) {
		const unsigned char *p = (const unsigned char *)(parts[i] ? parts[i] : "");
		while (*p) {
			size_t n = text_utf8_len(p);
			if (!n) {
				fputc('?', f);
				p++;
				backslash = false;
				continue;
			}
			if (*p == '"' || *p == '\\')
				fputc('\\', f);
			if (*p == '\n')
				fputs("\\n", f);
			else if (*p < 0x20 || *p == 0x7f)
				fputc(' ', f);
			else
				fwrite(p, 1, n, f);
			backslash = *p == '\\';
			p += n;
		}
	}
	if (backslash)
		fputc(' ', f);
	fputc('"', f);
}

/* Members of the document: NULL, 0 or false when missing or of another type. */
static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static json_object *jarr(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_array))
		return NULL;
	return v;
}

static bool jbool(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_get_boolean(v);
}

static size_t jlen(json_object *a)
{
	return a ? json_object_array_length(a) : 0;
}

static json_object *jidx(json_object *a, size_t i)
{
	return json_object_array_get_idx(a, i);
}

static const char *jat(json_object *a, size_t i)
{
	json_object *v = jidx(a, i);

	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* Colours of the page: fill and line of each tone. */
enum tone { TONE_NONE, TONE_BAD, TONE_WARN, TONE_GOOD, TONE_INFO };
static const char *const tone_fill[] = { "#ffffff", "#fbe9e7", "#fff3d6", "#e3f4e7",
					 "#e4eefb" };
static const char *const tone_line[] = { "#8a96a3", "#d0453b", "#c98a16", "#3f9a57",
					 "#4a7fd0" };

/* The more alarming of two tones: bad, warn, info, good, none. */
static enum tone worse(enum tone a, enum tone b)
{
	static const int rank[] = { [TONE_BAD] = 0, [TONE_WARN] = 1, [TONE_INFO] = 2,
				    [TONE_GOOD] = 3, [TONE_NONE] = 4 };

	return rank[a] <= rank[b] ? a : b;
}

/* As the page colours the kinds of change of `diff`. */
static enum tone kind_tone(const char *kind)
{
	static const struct { const char *kind; enum tone tone; } tones[] = {
		{ "removed", TONE_BAD }, { "became-gpl-only", TONE_BAD },
		{ "became-module-restricted", TONE_BAD }, { "namespace-gained", TONE_BAD },
		{ "namespace-changed", TONE_WARN }, { "restriction-changed", TONE_WARN },
		{ "crc-changed", TONE_WARN }, { "added", TONE_GOOD },
		{ "no-longer-gpl-only", TONE_GOOD }, { "namespace-lost", TONE_GOOD },
		{ "restriction-lifted", TONE_GOOD },
	};

	for (size_t i = 0; i < sizeof(tones) / sizeof(tones[0]); i++)
		if (strcmp(kind, tones[i].kind) == 0)
			return tones[i].tone;
	return TONE_INFO;
}

static enum tone verdict_tone(const char *v)
{
	if (!v || !*v)
		return TONE_GOOD;
	if (strcmp(v, "allowed") == 0)
		return TONE_GOOD;
	return strstr(v, "warning") ? TONE_WARN : TONE_BAD;
}

/* A graph being written: the nodes and edges already written, as keys of a JSON object. */
struct dot {
	FILE *f;
	json_object *seen;
};

/* True the first time (a, b, c) is asked about. */
static bool first_time(struct dot *d, const char *a, const char *b, const char *c)
{
	char *key;

	if (asprintf(&key, "%s\x01%s\x01%s", a, b ? b : "", c ? c : "") < 0)
		return true;
	bool first = !json_object_object_get_ex(d->seen, key, NULL);
	if (first)
		json_object_object_add(d->seen, key, NULL);
	free(key);
	return first;
}

struct node {
	const char *prefix, *id; /* the node's identifier is prefix id */
	const char *label, *suffix; /* label suffix, the label id suffix by default */
	const char *shape, *tooltip;
	enum tone tone;
	bool dashed;
};

/* Write a node statement, the first time only. */
static void dot_node(struct dot *d, const struct node *n)
{
	if (!first_time(d, "node", n->prefix, n->id))
		return;
	fputc('\t', d->f);
	dot_str(d->f, n->prefix, n->id);
	fputs(" [label=", d->f);
	dot_str(d->f, n->label ? n->label : n->id, n->suffix);
	if (n->shape)
		fprintf(d->f, ", shape=%s", n->shape);
	if (n->tooltip) {
		fputs(", tooltip=", d->f);
		dot_str(d->f, n->tooltip, NULL);
	}
	if (n->tone != TONE_NONE)
		fprintf(d->f, ", fillcolor=\"%s\", color=\"%s\"", tone_fill[n->tone],
			tone_line[n->tone]);
	if (n->dashed)
		fputs(", style=\"rounded,filled,dashed\"", d->f);
	fputs("];\n", d->f);
}

/*
 * The node of a module (or vmlinux), named as the loader and kmod name it: basename
 * without .ko[.ext], '-' as '_'; the name is left in name.
 */
static void dot_module(struct dot *d, const char *prefix, const char *s, const char *suffix,
		       enum tone tone, char *name, size_t size)
{
	const char *base = strrchr(s, '/');

	snprintf(name, size, "%s", base ? base + 1 : s);
	char *ko = strstr(name, ".ko");
	if (ko && (ko[3] == '\0' || ko[3] == '.'))
		*ko = '\0';
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	dot_node(d, &(struct node){ .prefix = prefix, .id = name, .suffix = suffix,
				     .tooltip = s, .tone = tone });
}

/* An edge from prefix a to prefix b, the first time only (per label). */
static void dot_edge(struct dot *d, const char *pa, const char *a, const char *pb,
		     const char *b, enum tone tone, bool dashed, const char *label)
{
	char *from, *to;

	if (asprintf(&from, "%s%s", pa, a) < 0)
		return;
	if (asprintf(&to, "%s%s", pb, b) < 0) {
		free(from);
		return;
	}
	if (first_time(d, from, to, label ? label : "")) {
		fputc('\t', d->f);
		dot_str(d->f, from, NULL);
		fputs(" -> ", d->f);
		dot_str(d->f, to, NULL);
		fprintf(d->f, " [color=\"%s\"%s", tone_line[tone], dashed ? ", style=dashed" : "");
		if (label) {
			fputs(", label=", d->f);
			dot_str(d->f, label, NULL);
		}
		fputs("];\n", d->f);
	}
	free(from);
	free(to);
}

static void dot_head(struct dot *d, const char *name, const char *label)
{
	fputs("digraph ", d->f);
	dot_str(d->f, name, NULL);
	fputs(" {\n\tgraph [rankdir=LR, ranksep=1.4, nodesep=0.12, fontname=\"Helvetica\", "
	      "fontsize=11, labelloc=t, label=", d->f);
	dot_str(d->f, label, NULL);
	fputs("];\n\tnode [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", "
	      "color=\"#8a96a3\", fontname=\"Helvetica\", fontsize=10, height=0.25];\n"
	      "\tedge [arrowsize=0.6, fontname=\"Helvetica\", fontsize=8, "
	      "fontcolor=\"#5b6673\"];\n", d->f);
}

/* A module-restricted export: exporter -> symbol -> each user. */
static void dot_restricted(struct dot *d, json_object *r)
{
	const char *sym = jstr(r, "symbol"), *owner = jstr(r, "owner");
	json_object *users = jarr(r, "users");
	bool dead = jbool(r, "dead");
	char name[256];

	if (!sym)
		return;
	dot_node(d, &(struct node){ .prefix = "symbol:", .id = sym, .shape = "ellipse",
				     .suffix = dead ? "\n(dead)" : NULL, .dashed = dead,
				     .tooltip = jstr(r, "namespace"),
				     .tone = dead ? TONE_BAD : TONE_WARN });
	if (owner) {
		dot_module(d, "module:", owner, NULL, TONE_NONE, name, sizeof(name));
		dot_edge(d, "module:", name, "symbol:", sym, TONE_NONE, false, NULL);
	}
	for (size_t j = 0; j < jlen(users); j++) {
		if (!jat(users, j))
			continue;
		dot_module(d, "module:", jat(users, j), NULL, TONE_NONE, name, sizeof(name));
		dot_edge(d, "symbol:", sym, "module:", name, TONE_WARN, false, NULL);
	}
}

static bool in_list(json_object *a, const char *s)
{
	for (size_t i = 0; i < jlen(a); i++)
		if (jat(a, i) && strcmp(jat(a, i), s) == 0)
			return true;
	return false;
}

/* A namespace: exporters -> namespace -> importers, dashed to those that use nothing. */
static void dot_namespace(struct dot *d, json_object *n)
{
	const char *ns = jstr(n, "namespace");
	json_object *exp = jarr(n, "exporters"), *unused = jarr(n, "unused_importers");
	json_object *v;
	char count[64] = "", name[256];

	if (!ns)
		return;
	if (json_object_object_get_ex(n, "exports", &v) && json_object_is_type(v, json_type_int))
		snprintf(count, sizeof(count), "\n%" PRId64 " export%s", json_object_get_int64(v),
			 json_object_get_int64(v) == 1 ? "" : "s");
	dot_node(d, &(struct node){ .prefix = "namespace:", .id = ns, .suffix = count,
				     .shape = "box", .tone = TONE_INFO });
	for (size_t j = 0; j < jlen(exp); j++) {
		if (!jat(exp, j))
			continue;
		dot_module(d, "module:", jat(exp, j), NULL, TONE_NONE, name, sizeof(name));
		dot_edge(d, "module:", name, "namespace:", ns, TONE_NONE, false, NULL);
	}
	for (int pass = 0; pass < 2; pass++) {
		json_object *list = pass ? unused : jarr(n, "importers");
		for (size_t j = 0; j < jlen(list); j++) {
			const char *u = jat(list, j);
			if (!u)
				continue;
			bool is_unused = pass || in_list(unused, u);
			dot_module(d, "module:", u, NULL, TONE_NONE, name, sizeof(name));
			dot_edge(d, "namespace:", ns, "module:", name,
				 is_unused ? TONE_NONE : TONE_INFO, is_unused,
				 is_unused ? "unused" : NULL);
		}
	}
}

static void dot_audit(struct dot *d, json_object *doc)
{
	json_object *k = NULL, *res = jarr(doc, "restricted"), *nss = jarr(doc, "namespaces");
	char label[512];

	json_object_object_get_ex(doc, "kernel", &k);
	const char *path = jstr(k, "path"), *rel = jstr(k, "release"), *pol = jstr(k, "policy");
	snprintf(label, sizeof(label), "ksymcheck audit: %s%s%s (rules of %s)",
		 path ? path : "kernel", rel ? " " : "", rel ? rel : "", pol ? pol : "its release");
	dot_head(d, "ksymcheck audit", label);
	fputs("\t/* exporter -> module-restricted export -> user */\n", d->f);
	for (size_t i = 0; i < jlen(res); i++)
		dot_restricted(d, jidx(res, i));
	fputs("\t/* exporter -> namespace -> importer (dashed: imports, uses nothing) */\n",
	      d->f);
	for (size_t i = 0; i < jlen(nss); i++)
		dot_namespace(d, jidx(nss, i));
	fputs("}\n", d->f);
}

/* The exporter of one side of an export change ("old" or "new"), or NULL when absent. */
static const char *side_owner(json_object *c, const char *side)
{
	json_object *o;

	if (!json_object_object_get_ex(c, side, &o) || !json_object_is_type(o, json_type_object))
		return NULL;
	return jstr(o, "owner");
}

/* diff without modules: OLD exporter -> changed symbol -> NEW exporter. */
static void dot_diff_changes(struct dot *d, json_object *doc)
{
	json_object *ch = jarr(doc, "changes"), *ks, *ts;
	json_object *kinds = json_object_new_object(), *tones = json_object_new_object();
	char label[128], name[256];

	snprintf(label, sizeof(label), "ksymcheck diff: %zu change%s (OLD exporter -> symbol "
		 "-> NEW exporter)", jlen(ch), jlen(ch) == 1 ? "" : "s");
	dot_head(d, "ksymcheck diff", label);
	/* The kinds of change of each symbol and the worst of their tones, for its node. */
	for (size_t i = 0; kinds && tones && i < jlen(ch); i++) {
		const char *sym = jstr(jidx(ch, i), "symbol"), *kind = jstr(jidx(ch, i), "kind");
		enum tone t;
		char *s;
		if (!sym || !kind)
			continue;
		t = kind_tone(kind);
		if (json_object_object_get_ex(tones, sym, &ts))
			t = worse(t, (enum tone)json_object_get_int(ts));
		json_object_object_add(tones, sym, json_object_new_int((int)t));
		if (json_object_object_get_ex(kinds, sym, &ks)) {
			if (asprintf(&s, "%s, %s", json_object_get_string(ks), kind) < 0)
				continue;
		} else if (!(s = strdup(kind))) {
			continue;
		}
		json_object_object_add(kinds, sym, json_object_new_string(s));
		free(s);
	}
	for (size_t i = 0; i < jlen(ch); i++) {
		json_object *c = jidx(ch, i);
		const char *sym = jstr(c, "symbol"), *kind = jstr(c, "kind");
		const char *oo = side_owner(c, "old"), *no = side_owner(c, "new");
		if (!sym || !kind)
			continue;
		enum tone t = kind_tone(kind);
		bool known = kinds && tones && json_object_object_get_ex(kinds, sym, &ks) &&
			     json_object_object_get_ex(tones, sym, &ts);
		char *l;
		if (asprintf(&l, "%s\n%s", sym, known ? json_object_get_string(ks) : kind) < 0)
			l = NULL;
		enum tone worst = known ? (enum tone)json_object_get_int(ts) : t;
		dot_node(d, &(struct node){ .prefix = "symbol:", .id = sym, .label = l,
					     .shape = "ellipse", .tone = worst });
		free(l);
		if (oo) {
			dot_module(d, "old:", oo, " (OLD)", TONE_NONE, name, sizeof(name));
			dot_edge(d, "old:", name, "symbol:", sym, t, !no, NULL);
		}
		if (no) {
			dot_module(d, "new:", no, " (NEW)", TONE_NONE, name, sizeof(name));
			dot_edge(d, "symbol:", sym, "new:", name, t, false, NULL);
		}
	}
	json_object_put(kinds);
	json_object_put(tones);
	fputs("}\n", d->f);
}

/*
 * One verdict change of a module (and the next one when it is the other view of the same
 * import with the same verdicts: one edge); returns how many it took.
 */
static size_t dot_verdict(struct dot *d, json_object *chs, size_t j, const char *module)
{
	json_object *c = jidx(chs, j);
	const char *sym = jstr(c, "symbol"), *code = jstr(c, "code");
	const char *old = jstr(c, "old"), *new = jstr(c, "new"), *view = jstr(c, "view");
	char views[64], id[256], *label;
	size_t taken = 1;

	snprintf(views, sizeof(views), "%s", view ? view : "");
	json_object *e = jidx(chs, j + 1);
	const char *es = jstr(e, "symbol"), *eold = jstr(e, "old"), *enew = jstr(e, "new");
	if (sym && es && old && new && eold && enew && strcmp(es, sym) == 0 &&
	    strcmp(old, eold) == 0 && strcmp(new, enew) == 0) {
		size_t l = strlen(views);
		const char *ev = jstr(e, "view");
		snprintf(views + l, sizeof(views) - l, ", %s", ev ? ev : "");
		taken = 2;
	}
	/* A module-level finding (no symbol) is a note named after its code. */
	const char *prefix = sym ? "symbol:" : "finding:";
	snprintf(id, sizeof(id), sym ? "%s" : "[%s]", sym ? sym : code ? code : "?");
	dot_node(d, &(struct node){ .prefix = prefix, .id = id, .tone = TONE_INFO,
				     .shape = sym ? "ellipse" : "note" });
	/* export change -> symbol, for each kind of change behind it */
	json_object *kinds = sym ? jarr(c, "export_changes") : NULL;
	for (size_t k = 0; k < jlen(kinds); k++) {
		const char *kind = json_object_get_string(jidx(kinds, k));
		if (!kind || !*kind)
			continue;
		dot_node(d, &(struct node){ .prefix = "change:", .id = kind, .shape = "box",
					     .tone = kind_tone(kind) });
		dot_edge(d, "change:", kind, "symbol:", sym, kind_tone(kind), false, NULL);
	}
	if (asprintf(&label, "%s: %s -> %s", views, old ? old : "-", new ? new : "-") < 0)
		label = NULL;
	dot_edge(d, prefix, id, "module:", module, verdict_tone(new), !new, label ? label : views);
	free(label);
	return taken;
}

/* diff with modules: export change -> symbol -> module whose verdict changes. */
static void dot_diff_modules(struct dot *d, json_object *doc)
{
	json_object *mods = jarr(doc, "modules");
	const char *po = jstr(doc, "policy_old"), *pn = jstr(doc, "policy_new");
	char label[256], name[256];

	snprintf(label, sizeof(label), "ksymcheck diff: rules of %s -> %s (export change -> "
		 "symbol -> module whose verdict changes)", po ? po : "?", pn ? pn : "?");
	dot_head(d, "ksymcheck diff", label);
	for (size_t i = 0; i < jlen(mods); i++) {
		json_object *md = jidx(mods, i), *chs = jarr(md, "changes");
		const char *mod = jstr(md, "module") ? jstr(md, "module") : jstr(md, "path");
		bool breaks = jbool(md, "breaks");
		if (!mod)
			continue;
		const char *note = breaks ? "\n(breaks)" : jlen(chs) ? NULL : "\n(no change)";
		dot_module(d, "module:", mod, note, breaks ? TONE_BAD : TONE_NONE, name,
			   sizeof(name));
		for (size_t j = 0; j < jlen(chs);)
			j += dot_verdict(d, chs, j, name);
	}
	fputs("}\n", d->f);
}

int report_write_dot(FILE *f, json_object *doc, const char *kind)
{
	struct dot d = { .f = f, .seen = json_object_new_object() };

	if (!f || !doc || !valid_kind(kind)) {
		json_object_put(d.seen);
		return -EINVAL;
	}
	if (!d.seen)
		return -ENOMEM;
	if (strcmp(kind, "audit") == 0)
		dot_audit(&d, doc);
	else if (jarr(doc, "modules"))
		dot_diff_modules(&d, doc);
	else
		dot_diff_changes(&d, doc);
	json_object_put(d.seen);
	return fflush(f) != 0 || ferror(f) ? -EIO : 0;
}
