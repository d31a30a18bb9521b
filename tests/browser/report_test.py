# SPDX-License-Identifier: LGPL-2.1-or-later
"""The HTML reports of ksymcheck in headless Chromium, checked against their JSON.

  python3 report_test.py OUTDIR NAME:KIND:REPORT.html:DOC.json ...

For each report: it loads with no console error, no exception and no request but its own
file; each table's "N of M rows" equals the JSON (and the count tables hold the JSON's
counts); a header click sorts (numeric-aware) and a second reverses, Enter on a header
sorts too; typing in a filter box leaves the rows expected from the JSON, and the graph
follows; headers and filter boxes carry scope, aria-sort and labels. Screenshots go to
OUTDIR/NAME.png (1280x1600) and OUTDIR/NAME-full.png. Prints TAP lines.
"""
import json
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

failures = 0


def ok(cond, name, *diag):
    global failures
    if cond:
        print(f"ok - {name}")
    else:
        failures += 1
        print(f"not ok - {name}")
        for d in diag:
            for line in str(d).splitlines()[:20]:
                print(f"#   {line}")
    sys.stdout.flush()
    return cond


def s(v):
    return "" if v is None else str(v)


def natural(v):
    """A sort key close to Intl.Collator('en', {numeric: true, sensitivity: 'base'})."""
    return [(0, int(p), "") if p.isdigit() else (1, 0, p.casefold())
            for p in re.findall(r"\d+|\D+", s(v))]


def lst(v):
    return " ".join(s(x) for x in (v or []))


def items_text(items):
    return " ".join(" ".join([s(i.get("item")), s(i.get("kind")), lst(i.get("loader_matches")),
                              lst(i.get("modpost_matches"))]) for i in items or [])


def verdict_rows(doc):
    rows = []
    for m in doc.get("modules") or []:
        for c in m.get("changes") or []:
            r = dict(c)
            r["module"] = m.get("module")
            r["changes"] = " ".join(c.get("export_changes") or [])
            rows.append(r)
    return rows


def model(kind, doc):
    """The tables the page must show, each: rows, the text a filter sees per row, the
    columns to sort by (index, header, key function, numeric), the graph's middle nodes."""
    counts = doc.get("counts") or {}
    count_rows = [{"k": k, "n": v} for k, v in counts.items()]
    ncol = 2 if kind == "audit" else 1  # audit: code, severity, count; diff: kind, count
    t = {"counts": {"rows": count_rows, "text": lambda r: r["k"], "count_col": ncol,
                    "sort": [(ncol, "Count", lambda r: r["n"], True)]}}
    if kind == "audit":
        t["restricted"] = {
            "rows": doc.get("restricted") or [],
            "text": lambda r: " ".join([s(r.get("symbol")), s(r.get("owner")), s(r.get("namespace")),
                                        items_text(r.get("items")), lst(r.get("users"))]),
            "sort": [(0, "Symbol", lambda r: s(r.get("symbol")), False),
                     (5, "Users", lambda r: len(r.get("users") or []), True)],
            "mid": lambda r: "sym:" + s(r.get("symbol"))}
        t["namespaces"] = {
            "rows": doc.get("namespaces") or [],
            "text": lambda r: " ".join([s(r.get("namespace")), s(r.get("exports")), lst(r.get("exporters")),
                                        lst(r.get("importers")), lst(r.get("unused_importers"))]),
            "sort": [(1, "Exports", lambda r: r.get("exports") or 0, True),
                     (0, "Namespace", lambda r: s(r.get("namespace")), False)],
            "mid": lambda r: "ns:" + s(r.get("namespace"))}
        t["findings"] = {
            "rows": doc.get("findings") or [],
            "text": lambda r: " ".join(s(r.get(k)) for k in ("verdict", "code", "module", "symbol",
                                                             "namespace", "summary")),
            "sort": [(1, "Code", lambda r: s(r.get("code")), False)]}
        if isinstance(doc.get("signatures"), dict):
            t["signers"] = {
                "rows": [r for r in doc.get("signers") or [] if isinstance(r, dict)],
                "text": lambda r: " ".join(
                    ["(not decodable)" if r.get("signer") is None else s(r.get("signer")),
                     s(r.get("key_id")), s(r.get("hash_algo")), s(r.get("key"))] +
                    [s(r.get(k)) for k in ("modules", "verified", "foreign_key", "rejected",
                                           "unsupported", "not_checked")]),
                "sort": [(4, "Modules", lambda r: r.get("modules") or 0, True),
                         (0, "Signer", lambda r: "(not decodable)" if r.get("signer") is None
                          else s(r.get("signer")), False)]}
        graph = ["restricted", "namespaces"]
    elif "modules" in doc:
        t["modules"] = {
            "rows": doc.get("modules") or [],
            "text": lambda r: " ".join([s(r.get("module")), s(r.get("path"))]),
            "sort": [(0, "Module", lambda r: s(r.get("module")), False)]}
        t["verdicts"] = {
            "rows": verdict_rows(doc),
            "text": lambda r: " ".join(s(r.get(k)) for k in ("module", "symbol", "view", "old", "new",
                                                             "code", "changes", "fix", "explanation")),
            "sort": [(1, "Symbol", lambda r: s(r.get("symbol")), False)],
            "mid": lambda r: r.get("symbol") or "[" + s(r.get("code")) + "]"}
        graph = ["verdicts"]
    else:
        t["changes"] = {
            "rows": doc.get("changes") or [],
            "text": lambda r: " ".join([s(r.get("symbol")), s(r.get("kind")), s(r.get("summary")),
                                        s((r.get("old") or {}).get("owner")),
                                        s((r.get("new") or {}).get("owner"))]),
            "sort": [(0, "Symbol", lambda r: s(r.get("symbol")), False)],
            "mid": lambda r: "sym:" + s(r.get("symbol"))}
        graph = ["changes"]
    return t, graph


def table_state(page, key):
    return page.eval(f"""(() => {{
        const c = document.getElementById('c-{key}'), t = document.getElementById('t-{key}');
        if (!c || !t) return null;
        return {{ text: c.textContent, shown: +c.dataset.shown, total: +c.dataset.total,
                  trs: t.tBodies[0].rows.length, rendered: +t.dataset.rendered, limit: t.dataset.limit,
                  sort: [...t.tHead.rows[0].cells].map(th => th.getAttribute('aria-sort')),
                  heads: [...t.tHead.rows[0].cells].map(th => th.textContent) }}; }})()""")


def cells(page, key, col, numeric):
    """A column's cells: text, or numbers (a list cell counts its items, an empty one 0)."""
    if not numeric:
        return column(page, key, col)
    return page.eval(f"""[...document.getElementById('t-{key}').tBodies[0].rows].map(tr => {{
        const td = tr.cells[{col}], ul = td.querySelector('ul.list');
        if (ul) return ul.children.length;
        return td.querySelector('.none') ? 0 : Number(td.textContent); }})""")


def column(page, key, col):
    return page.eval(f"""[...document.getElementById('t-{key}').tBodies[0].rows]
        .map(tr => tr.cells[{col}].textContent)""")


def settle(page):
    """Two animation frames: the graph is redrawn in the frame after a change."""
    page.eval("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def mid_nodes(page):
    settle(page)
    return page.eval("document.querySelectorAll('svg.graph .node.mid').length")


def set_filter(page, key, text):
    page.eval(f"""(() => {{ const f = document.getElementById('f-{key}'); f.value = '';
        f.dispatchEvent(new Event('input')); f.focus(); }})()""")
    if text:
        page.type_text(text)  # real input events, into the focused box


def expected_mid(tables, graph, terms):
    mids = []
    for key in graph:
        for r in tables[key]["rows"]:
            text = tables[key]["text"](r).lower()
            if all(w in text for w in terms.get(key, [])):
                m = tables[key]["mid"](r)
                if m not in mids:
                    mids.append(m)
    return min(len(mids), 60)


def check_report(browser, outdir, name, kind, html, doc_path):
    doc = json.load(open(doc_path))
    url = "file://" + os.path.abspath(html)
    page = cdp.Page(browser)
    page.navigate(url)
    ready = page.wait_for("document.body && document.body.dataset.ready === '1'")
    ok(ready, f"{name}: the page draws its tables and graph (data-ready)")
    page.screenshot(os.path.join(outdir, name + ".png"))
    page.screenshot(os.path.join(outdir, name + "-full.png"), full=True)

    tables, graph = model(kind, doc)
    embedded = page.eval("JSON.parse(document.getElementById('ksc-data').textContent)")
    ok(embedded == doc, f"{name}: the embedded JSON equals the --json output")

    for key, t in tables.items():
        st = table_state(page, key)
        n = len(t["rows"])
        want = f"{n} of {n} row" + ("" if n == 1 else "s")
        ok(st is not None and st["text"] == want and st["shown"] == n == st["total"] and
           st["trs"] == st["rendered"] == min(n, int(st["limit"])),
           f"{name}: table {key} shows '{want}' (as in the JSON)", f"page: {st}")
        if st and n > int(st["limit"]):
            # A long table lists its rows a page at a time.
            page_rows = int(st["limit"])
            page.click(f"#sec-{key} .more button")
            st = table_state(page, key)
            ok(st["trs"] == min(n, 2 * page_rows) and st["shown"] == n,
               f"{name}: 'Show {page_rows} more' lists {min(n, 2 * page_rows)} rows of {key}", f"page: {st}")
            page.click(f"#sec-{key} .more button:last-child")
            st = table_state(page, key)
            more = page.eval(f"document.querySelector('#sec-{key} .more').hidden")
            ok(st["trs"] == n and st["limit"] == "all" and more,
               f"{name}: 'Show all' lists all {n} rows of {key}", f"page: {st}")
    counts = doc.get("counts") or {}
    dom = dict(zip(column(page, "counts", 0),
                   (int(x) for x in column(page, "counts", tables["counts"]["count_col"]))))
    ok(dom == counts, f"{name}: the count table holds the JSON's counts", f"page: {dom}", f"json: {counts}")

    # Sorting: a click sorts ascending, a second descending; numbers as numbers.
    for key, t in tables.items():
        for col, head, fn, numeric in t["sort"]:
            if len(t["rows"]) < 2:
                continue
            vals = sorted((fn(r) for r in t["rows"]), key=(lambda v: v) if numeric else natural)
            for click, order in ((1, "ascending"), (2, "descending")):
                page.click(f"#t-{key} thead th:nth-child({col + 1}) button")
                got = cells(page, key, col, numeric)
                st = table_state(page, key)
                want = vals if order == "ascending" else vals[::-1]
                if numeric:
                    good = got == want
                else:
                    good = natural(got[0]) == natural(want[0]) and sorted(got, key=natural) == \
                        sorted(vals, key=natural)
                ok(good and st["sort"][col] == order,
                   f"{name}: click {click} on '{head}' sorts {key} {order}"
                   f" ({'numerically, ' if numeric else ''}first {want[0]!r})",
                   f"column now: {got[:10]}", f"aria-sort: {st['sort']}")

    # The keyboard: Enter on a header's button sorts.
    page.eval("document.querySelector('#t-counts thead th:nth-child(1) button').focus()")
    page.key("Enter", "Enter", 13, "\r")
    st = table_state(page, "counts")
    ok(st["sort"][0] == "ascending" and all(x is None for x in st["sort"][1:]),
       f"{name}: Enter on a focused header sorts by it (one aria-sort at a time)", f"aria-sort: {st['sort']}")

    # Filtering: type a word taken from the data, then two words, then one that matches nothing.
    terms = {}
    mid_before = mid_nodes(page)
    ok(mid_before == expected_mid(tables, graph, terms) and mid_before > 0,
       f"{name}: the graph draws one box per row of its tables ({mid_before})",
       f"expected {expected_mid(tables, graph, terms)}")
    for key in graph + [k for k in tables if k not in graph]:
        t = tables[key]
        if not t["rows"]:
            continue
        texts = [t["text"](r).lower() for r in t["rows"]]
        word = re.findall(r"[a-z0-9_]{3,}", texts[len(texts) // 2])
        if not word:
            continue
        term = word[0][:max(3, len(word[0]) - 1)]
        other = re.findall(r"[a-z0-9_]{3,}", texts[-1])
        for words in ([term], [term, other[-1][:4]] if other else [term]):
            set_filter(page, key, " ".join(words).upper())
            want = sum(1 for x in texts if all(w in x for w in words))
            st = table_state(page, key)
            ok(st["shown"] == want and st["trs"] == min(want, int(st["limit"])) and
               st["text"].startswith(f"{want} of {len(texts)} row"),
               f"{name}: filtering {key} by '{' '.join(words).upper()}' leaves {want} of {len(texts)} rows",
               f"page: {st}")
            if key in graph:
                terms[key] = words
                got, exp = mid_nodes(page), expected_mid(tables, graph, terms)
                ok(got == exp, f"{name}: ... and the graph follows ({exp} boxes)", f"page: {got}")
        set_filter(page, key, "no-such-row-zz")
        st = table_state(page, key)
        empty = page.eval(f"!document.querySelector('#sec-{key} .empty').hidden")
        ok(st["shown"] == 0 and st["trs"] == 0 and empty and st["limit"] != "all",
           f"{name}: a filter matching nothing empties {key} and says so", f"page: {st}")
        set_filter(page, key, "")
        terms.pop(key, None)
        st = table_state(page, key)
        ok(st["shown"] == len(texts), f"{name}: clearing the filter of {key} shows all rows again")

    # Accessibility basics.
    a11y = page.eval("""(() => ({
        noscope: document.querySelectorAll('th:not([scope="col"])').length,
        unlabelled: [...document.querySelectorAll('input')].filter(i =>
            !document.querySelector('label[for="' + i.id + '"]')).length,
        buttons: [...document.querySelectorAll('thead th')].filter(th => !th.querySelector('button')).length,
        svg: document.querySelectorAll('svg.graph[role="img"][aria-label]').length,
        lang: document.documentElement.lang }))()""")
    ok(a11y == {"noscope": 0, "unlabelled": 0, "buttons": 0, "svg": 1, "lang": "en"},
       f"{name}: headers have scope and a button, filter boxes a label, the graph a role and name",
       f"page: {a11y}")

    # Nothing but the file itself was requested; nothing went to the console as an error.
    reqs = [e["request"]["url"] for e in page.events("Network.requestWillBeSent")]
    bad = [u for u in reqs if u != url and not u.startswith("data:")]
    ok(not bad, f"{name}: no request but the page's own file", *bad)
    errors = [" ".join(s(a.get("value", a.get("description"))) for a in e.get("args", []))
              for e in page.events("Runtime.consoleAPICalled") if e.get("type") in ("error", "assert")]
    errors += [e["exceptionDetails"].get("exception", {}).get("description") or e["exceptionDetails"]["text"]
               for e in page.events("Runtime.exceptionThrown")]
    errors += [e["entry"]["text"] for e in page.events("Log.entryAdded") if e["entry"]["level"] == "error"]
    warnings = [e["entry"]["text"] for e in page.events("Log.entryAdded") if e["entry"]["level"] == "warning"]
    for w in warnings:
        print(f"# {name}: console warning: {w}")
    ok(not errors, f"{name}: no console error and no exception", *errors)
    page.call("Page.close")


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    browser = cdp.Browser(log=os.path.join(outdir, "chromium.log"))
    print(f"# {browser.version}")
    try:
        for spec in sys.argv[2:]:
            name, kind, html, doc = spec.split(":", 3)
            try:
                check_report(browser, outdir, name, kind, html, doc)
            except Exception as e:  # one report failing must not hide the others
                ok(False, f"{name}: the browser checks ran", repr(e))
    finally:
        browser.close()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
