# SPDX-License-Identifier: LGPL-2.1-or-later
"""Static checks of the report files, without a browser (used by tests/cli/report.sh).

  python3 checks.py html REPORT.html DOC.json [TITLE]
      well-formed (every element closed in order, no stray end tag), nothing that can
      fetch (no http:// or https://, no src= or href= but "#..." and "data:", no
      <link rel=stylesheet>, no @import or url()), a Content-Security-Policy that
      forbids the network, exactly two scripts: the JSON block (which parses and equals
      DOC.json) and one inline script; the title as given.
  python3 checks.py dot GRAPH.dot
      parses as a Graphviz digraph (the grammar of graphviz.org/doc/info/lang.html, strings
      tokenised as Graphviz's scanner does); prints the node identifiers, one per line.
Exit status 0 when the file passes, 1 otherwise (reasons on stderr).
"""
import html.parser
import json
import re
import sys

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


class Checker(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.scripts, self.title = [], [], [], None
        self.csp = None
        self._in = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for k in ("src", "href", "action", "formaction", "poster", "background"):
            v = a.get(k)
            if v is not None and not (v.startswith("#") or v.startswith("data:")):
                self.errors.append(f"<{tag} {k}={v!r}> can fetch")
        if tag == "link" and "stylesheet" in (a.get("rel") or ""):
            self.errors.append("<link rel=stylesheet>")
        if tag == "meta" and (a.get("http-equiv") or "").lower() == "content-security-policy":
            self.csp = a.get("content")
        if tag == "script":
            self.scripts.append([a.get("type"), a.get("id"), ""])
            self._in = "script"
        if tag == "title":
            self.title = ""
            self._in = "title"
        if tag not in VOID:
            self.stack.append((tag, self.getpos()))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        self._in = None
        if tag in VOID:
            self.errors.append(f"end tag of the void element {tag} at line {self.getpos()[0]}")
        elif not self.stack or self.stack[-1][0] != tag:
            self.errors.append(f"</{tag}> at line {self.getpos()[0]} closes "
                               f"{self.stack[-1] if self.stack else 'nothing'}")
        else:
            self.stack.pop()

    def handle_data(self, data):
        if self._in == "script":
            self.scripts[-1][2] += data
        elif self._in == "title":
            self.title += data


def check_html(path, doc_path, title=None):
    text = open(path, encoding="utf-8").read()
    errors = []
    if not text.startswith("<!DOCTYPE html>"):
        errors.append("no <!DOCTYPE html>")
    for bad in ("http://", "https://", "@import", "url("):
        if bad in text.lower():
            errors.append(f"contains {bad!r}")
    if re.search(r"<script[^>]*\bsrc\s*=", text, re.I):
        errors.append("<script src=...>")
    p = Checker()
    p.feed(text)
    p.close()
    errors += p.errors
    if p.stack:
        errors.append(f"unclosed elements: {p.stack}")
    if not p.csp or "default-src 'none'" not in p.csp:
        errors.append(f"no Content-Security-Policy forbidding the network: {p.csp!r}")
    kinds = [(s[0], s[1]) for s in p.scripts]
    if kinds != [("application/json", "ksc-data"), (None, None)]:
        errors.append(f"scripts: {kinds} (want the JSON block, then one inline script)")
    else:
        try:
            embedded = json.loads(p.scripts[0][2])
            if embedded != json.load(open(doc_path)):
                errors.append("the embedded JSON differs from " + doc_path)
        except ValueError as e:
            errors.append(f"the embedded JSON does not parse: {e}")
    if title is not None and p.title != title:
        errors.append(f"title {p.title!r}, want {title!r}")
    return errors


def dot_tokens(text):
    """Graphviz's scanner: comments, IDs, numerals, "strings" (only \\" is an escape, taken
    wherever a backslash meets a quote), <HTML> strings, edge operators, punctuation."""
    i, n, out = 0, len(text), []
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise ValueError("unterminated comment")
            i = j + 2
        elif text.startswith("//", i) or (c == "#" and (i == 0 or text[i - 1] == "\n")):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c == '"':
            i += 1
            s = ""
            while True:
                if i >= n:
                    raise ValueError("unterminated string")
                if text[i] == "\\" and i + 1 < n and text[i + 1] == '"':
                    s += '"'
                    i += 2
                elif text[i] == '"':
                    i += 1
                    break
                else:
                    s += text[i]
                    i += 1
            out.append(("ID", s))
        elif c == "<":
            depth, j = 0, i
            while j < n:
                depth += {"<": 1, ">": -1}.get(text[j], 0)
                j += 1
                if depth == 0:
                    break
            if depth:
                raise ValueError("unterminated HTML string")
            out.append(("ID", text[i:j]))
            i = j
        elif text.startswith("->", i) or text.startswith("--", i):
            out.append((text[i:i + 2], None))
            i += 2
        elif c in "{}[];,=:":
            out.append((c, None))
            i += 1
        else:
            m = re.compile(r"[A-Za-z_\x80-\U0010ffff][A-Za-z0-9_\x80-\U0010ffff]*|-?(\.[0-9]+|[0-9]+(\.[0-9]*)?)").match(text, i)
            if not m:
                raise ValueError(f"unexpected {c!r} at offset {i}")
            word = m.group(0)
            kw = word.lower()
            out.append((kw, None) if kw in ("graph", "digraph", "subgraph", "node", "edge", "strict")
                       else ("ID", word))
            i = m.end()
    return out


def parse_dot(text):
    toks = dot_tokens(text) + [("EOF", None)]
    pos = [0]
    nodes = []

    def peek(k=0):
        return toks[pos[0] + k][0]

    def take(kind):
        if peek() != kind:
            raise ValueError(f"expected {kind}, got {toks[pos[0]]} (token {pos[0]})")
        pos[0] += 1
        return toks[pos[0] - 1][1]

    def attr_list():
        while peek() == "[":
            take("[")
            while peek() == "ID":
                take("ID")
                take("=")
                take("ID")
                if peek() in (";", ","):
                    pos[0] += 1
            take("]")

    def node_id():
        name = take("ID")
        if peek() == ":":
            take(":")
            take("ID")
            if peek() == ":":
                take(":")
                take("ID")
        return name

    def endpoint():
        if peek() in ("subgraph", "{"):
            subgraph()
        else:
            nodes.append(node_id())

    def subgraph():
        if peek() == "subgraph":
            take("subgraph")
            if peek() == "ID":
                take("ID")
        take("{")
        stmt_list()
        take("}")

    def stmt_list():
        while peek() not in ("}", "EOF"):
            if peek() in ("graph", "node", "edge"):
                pos[0] += 1
                attr_list()
            elif peek() == "ID" and peek(1) == "=":
                take("ID")
                take("=")
                take("ID")
            else:
                endpoint()
                if peek() == "--":
                    raise ValueError("'--' in a digraph")
                while peek() == "->":
                    take("->")
                    endpoint()
                attr_list()
            if peek() == ";":
                take(";")

    if peek() == "strict":
        take("strict")
    take("digraph")
    if peek() == "ID":
        take("ID")
    take("{")
    stmt_list()
    take("}")
    take("EOF")
    return nodes


def main():
    what, path = sys.argv[1], sys.argv[2]
    if what == "html":
        errors = check_html(path, sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
    else:
        errors = []
        try:
            for n in dict.fromkeys(parse_dot(open(path, encoding="utf-8").read())):
                print(n)
        except ValueError as e:
            errors.append(str(e))
    for e in errors:
        print(f"{path}: {e}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
