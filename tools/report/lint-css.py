#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Lint the report's style sheet with tinycss2 (python3-tinycss2): every rule, at-rule and
declaration must parse, declarations only inside blocks, no property twice in one block,
every var(--name) without a fallback defined in the sheet. Prints FILE:LINE:COL: message; exits 1 on a problem."""
import sys

import tinycss2

problems = []


def report(node, msg):
    problems.append("%s:%d:%d: %s" % (PATH, node.source_line, node.source_column, msg))


def walk_tokens(tokens, used):
    for t in tokens:
        if t.type == "function":
            fallback = any(a.type == "literal" and a.value == "," for a in t.arguments)
            if t.lower_name == "var" and not fallback:
                for a in t.arguments:
                    if a.type == "ident" and a.value.startswith("--"):
                        used.append((t, a.value))
            walk_tokens(t.arguments, used)
        elif t.type in ("() block", "[] block", "{} block"):
            walk_tokens(t.content, used)
        elif t.type == "error":
            report(t, "parse error: %s" % t.message)


def declarations(block, defined, used):
    seen = {}
    for d in tinycss2.parse_declaration_list(block, skip_comments=True, skip_whitespace=True):
        if d.type == "error":
            report(d, "parse error: %s" % d.message)
        elif d.type == "declaration":
            if d.name.startswith("--"):
                defined.add(d.name)
            elif d.lower_name in seen:
                report(d, "property %s set twice in one block" % d.name)
            seen[d.lower_name] = True
            walk_tokens(d.value, used)
        elif d.type == "at-rule":
            report(d, "at-rule @%s inside declarations" % d.at_keyword)


def rules(nodes, defined, used):
    for r in nodes:
        if r.type == "error":
            report(r, "parse error: %s" % r.message)
        elif r.type == "qualified-rule":
            walk_tokens(r.prelude, used)
            declarations(r.content, defined, used)
        elif r.type == "at-rule":
            if r.content is None:
                continue
            if r.lower_at_keyword in ("media", "supports"):
                rules(tinycss2.parse_rule_list(r.content, skip_comments=True,
                                               skip_whitespace=True), defined, used)
            else:
                declarations(r.content, defined, used)


PATH = sys.argv[1]
with open(PATH, encoding="utf-8") as f:
    sheet = tinycss2.parse_stylesheet(f.read(), skip_comments=True, skip_whitespace=True)
defined, used = set(), []
rules(sheet, defined, used)
for node, name in used:
    if name not in defined:
        report(node, "var(%s) is not defined" % name)
print("\n".join(problems), end="\n" if problems else "")
sys.exit(1 if problems else 0)
