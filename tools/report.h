/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Report renderers of the ksymcheck tool: the JSON document a command prints with
 * --format json, turned into a Graphviz graph (--format dot) or one self-contained HTML
 * page (--html FILE). Presentation only: the library never sees these.
 *
 * kind is "audit" (the document of `ksymcheck audit --json`), "diff" (that of
 * `ksymcheck diff --json`, with or without modules) or "compat" (HTML only). Fields the renderers do not know
 * are ignored, missing ones shown empty.
 */
#pragma once

#include <stdio.h>

#include <json-c/json.h>

/*
 * Write one HTML page to path: inline CSS and script, no network access (a
 * Content-Security-Policy forbids it), the document embedded as a
 * <script type="application/json" id="ksc-data"> block, sortable and filterable tables
 * built from it and an SVG graph. title is shown as the page title (HTML-escaped here).
 * The file is written to a temporary file in the same directory and renamed over path,
 * so path is either the old file or the whole new one (with the old one's permission
 * bits); "-" writes to standard output. doc is only read. Returns 0, or -errno (-EINVAL
 * for an unknown kind, -KSC_ENOTREG when path is a device, a FIFO, a socket or a
 * folder: nothing is replaced); nothing is printed: ksc_write_strerror() (util/fileio.h)
 * words the error, as for the library's own writes.
 */
int report_write_html(const char *path, const char *title, json_object *doc, const char *kind);

/*
 * Write the usage graph as Graphviz dot to f. audit: exporter -> restricted export or
 * namespace -> user (importers that use nothing from a namespace dashed); diff: old and
 * new exporter -> changed symbol, or with modules changed symbol -> module whose verdict
 * changes. Every identifier is quoted and escaped. Returns 0, -EINVAL for an unknown
 * kind, -EIO if writing to f failed.
 */
int report_write_dot(FILE *f, json_object *doc, const char *kind);

/*
 * The page's style sheet (light and dark colour schemes, print rules) and its script (plain
 * ES5 and DOM: sortable, filterable tables, summary cards and an SVG graph that follows
 * them): tools/report/report.css and report.js, embedded by tools/report/embed.sh.
 */
extern const char report_css[];
extern const char report_js[];
