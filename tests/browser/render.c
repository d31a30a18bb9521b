// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Test helper: render a JSON document with tools/html.c, as the commands do.
 *   render html KIND DOC.json OUT.html [TITLE]
 *   render dot KIND DOC.json
 * Built by the report tests themselves (cc tests/browser/render.c tools/html.c
 * tools/text.c util/esc.c -ljson-c).
 */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "tools/report.h"

int main(int argc, char *argv[])
{
	if (argc < 4 || (strcmp(argv[1], "html") == 0 && argc < 5)) {
		fprintf(stderr, "usage: render html|dot KIND DOC.json [OUT.html [TITLE]]\n");
		return 2;
	}
	json_object *doc = json_object_from_file(argv[3]);
	if (!doc) {
		fprintf(stderr, "%s: %s\n", argv[3], json_util_get_last_err());
		return 2;
	}
	int r = strcmp(argv[1], "html") == 0
		? report_write_html(argv[4], argc > 5 ? argv[5] : NULL, doc, argv[2])
		: report_write_dot(stdout, doc, argv[2]);
	json_object_put(doc);
	if (r < 0) {
		fprintf(stderr, "render: %s\n", strerror(-r));
		return 1;
	}
	return 0;
}
