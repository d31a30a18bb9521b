// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * depmod.d as depmod reads it, and what it says of two files of one module name: the
 * configuration the search (ksc-modset-search.c) ranks files by. The rules are depmod's
 * (kmod tools/depmod.c, read for kmod 30 as in Debian 12 and kmod 34):
 *
 *  - configuration: every *.conf in {etc,run,usr/local/lib,usr/lib,lib}/depmod.d, all
 *    files sorted by name, a name in an earlier folder hiding the same name later on
 *    (cfg_load(), cfg_files_list(), cfg_files_insert_sorted());
 *  - `search DIR... | built-in | external`: earlier entries win; a file no entry names
 *    ranks as "built-in"; with no search line at all, "updates" is searched first;
 *  - `override MODNAME KVER SUBDIR`: the file SUBDIR/MODNAME.ko* wins whatever the search
 *    order says (KVER: "*" or an extended regex found in the release); among several
 *    overrides the last one read counts first;
 *  - `exclude NAME...`: folders (and files) of that name are not walked, at any depth,
 *    like "build" and "source";
 *  - `external KVER DIR`: parsed and ranked, but its folders are outside the module folder
 *    and are not searched here.
 *
 * Between two files below one search folder, depmod's comparison keeps the one met
 * later (see ksc_depmod_module_is_higher_priority()). The search reads the configuration
 * only through the functions here (modset.h): its fields are this file's.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "modset/modset.h"
#include "util/array.h"
#include "util/ere.h"


enum search_type { SEARCH_PATH, SEARCH_BUILTIN, SEARCH_EXTERNAL };

struct cfg_search {
	enum search_type type;
	char *path; /* SEARCH_PATH: relative to the module folder */
};

struct cfg_override {
	char *path;	/* SUBDIR/MODNAME, no extension */
	char *line;	/* as written, for messages */
};

/* Entries are kept in the order read; depmod prepends, so its lists are these reversed. */
struct ksc_depmod_cfg {
	char *kversion;
	struct cfg_search *searches;
	size_t n_searches;
	struct cfg_override *overrides;
	size_t n_overrides;
	char **externals, **excludes;
	size_t n_externals, n_excludes;
	uint64_t fp;
	bool default_search; /* no search line: "updates" added by cfg_finish */
};

struct ksc_depmod_cfg *ksc_depmod_cfg_new(const char *kversion)
{
	struct ksc_depmod_cfg *cfg = calloc(1, sizeof(*cfg));

	if (!cfg)
		return NULL;
	cfg->kversion = strdup(kversion ? kversion : "");
	if (!cfg->kversion) {
		free(cfg);
		return NULL;
	}
	cfg->fp = 0x6465706d6f642e64ULL; /* "depmod.d" */
	return cfg;
}

void ksc_depmod_cfg_free(struct ksc_depmod_cfg *cfg)
{
	if (!cfg)
		return;
	for (size_t i = 0; i < cfg->n_searches; i++)
		free(cfg->searches[i].path);
	for (size_t i = 0; i < cfg->n_overrides; i++) {
		free(cfg->overrides[i].path);
		free(cfg->overrides[i].line);
	}
	for (size_t i = 0; i < cfg->n_externals; i++)
		free(cfg->externals[i]);
	for (size_t i = 0; i < cfg->n_excludes; i++)
		free(cfg->excludes[i]);
	free(cfg->searches);
	free(cfg->overrides);
	free(cfg->externals);
	free(cfg->excludes);
	free(cfg->kversion);
	free(cfg);
}

/* Every entry goes into the fingerprint, tagged by kind, in the order read. */
static void cfg_note(struct ksc_depmod_cfg *cfg, char kind, const char *a, const char *b)
{
	cfg->fp = ksc_hash64(&kind, 1, cfg->fp);
	cfg->fp = ksc_hash64(a, strlen(a) + 1, cfg->fp);
	if (b)
		cfg->fp = ksc_hash64(b, strlen(b) + 1, cfg->fp);
}

/* Room for one more of the n elements of `size` at *v: capacities are 4, 8, 16, ... */
static int grow(void **v, size_t n, size_t size)
{
	size_t cap = n; /* full when n is 0 or a power of two from 4 */

	if (n && (n < 4 || (n & (n - 1))))
		return 0; /* room left */
	return array_reserve_(v, &cap, n + 1, size, 4);
}

static int push_str(char ***v, size_t *n, const char *s)
{
	char *c = strdup(s);

	if (!c || grow((void **)v, *n, sizeof(**v)) < 0) {
		free(c);
		return -ENOMEM;
	}
	(*v)[(*n)++] = c;
	return 0;
}

/* cfg_search_add() */
static int cfg_search_add(struct ksc_depmod_cfg *cfg, const char *path)
{
	struct cfg_search s = { SEARCH_PATH, NULL };

	if (streq(path, "built-in"))
		s.type = SEARCH_BUILTIN;
	else if (streq(path, "external"))
		s.type = SEARCH_EXTERNAL;
	else if (!(s.path = strdup(path)))
		return -ENOMEM;
	if (grow((void **)&cfg->searches, cfg->n_searches, sizeof(s)) < 0) {
		free(s.path);
		return -ENOMEM;
	}
	cfg->searches[cfg->n_searches++] = s;
	cfg_note(cfg, 'S', path, NULL);
	return 0;
}

/* cfg_override_add(): SUBDIR/MODNAME, compared with a file's path without extension. */
static int cfg_override_add(struct ksc_depmod_cfg *cfg, const char *modname, const char *kver,
			    const char *subdir)
{
	struct cfg_override o = { NULL, NULL };

	if (asprintf(&o.path, "%s/%s", subdir, modname) < 0)
		return -ENOMEM;
	if (asprintf(&o.line, "override %s %s %s", modname, kver, subdir) < 0 ||
	    grow((void **)&cfg->overrides, cfg->n_overrides, sizeof(o)) < 0) {
		free(o.path);
		free(o.line);
		return -ENOMEM;
	}
	cfg->overrides[cfg->n_overrides++] = o;
	cfg_note(cfg, 'O', o.path, NULL);
	return 0;
}

/*
 * cfg_kernel_matches(): "*", or an extended regex found anywhere in the release. kmod's
 * depmod hands the pattern of `override` and `external` to glibc's regcomp(REG_EXTENDED)
 * as it is (tools/depmod.c); glibc copies a repeated part once per repetition at about
 * 1.2 KB a copy and has worse cases still: "(((a{1,100}){1,100}){1,100})" took 1.2 GB and
 * 9 s, "((a{1,255}){1,255}){1,255}" 4 GB, the 23 bytes "(((((((a)*+))$)++))*+))" 258 MB
 * and 3 s. The pattern is searched with util/ere.c instead: the same language (glibc's
 * answer on 240,000 generated pattern and release pairs), compiled to at most 4,096
 * instructions and run as an automaton, so a line costs at most ~100 KB and a
 * millisecond. A pattern past that limit or nesting more than 32 groups is ignored with
 * a warning; one it cannot read (a back-reference, glibc's \b and \< anchors) does not
 * match, as depmod treats a pattern regcomp() rejects.
 */
static bool cfg_kernel_matches(struct ksc_ctx *ctx, const struct ksc_depmod_cfg *cfg,
			       const char *name, unsigned int lineno, const char *pattern)
{
	if (streq(pattern, "*"))
		return true;
	int r = ere_search(pattern, cfg->kversion);
	if (r == -E2BIG || r == -ELOOP)
		ksc_warn(ctx, "%s:%u: kernel version pattern '%s' %s: line ignored", name, lineno,
			 pattern, r == -ELOOP ? "nests more than 32 groups"
					      : "compiles to more than 4096 instructions");
	return r == 1;
}

/* One logical line (continuations joined), split at blanks: depmod's strtok_r(" \t"). */
static int cfg_line_parse(struct ksc_ctx *ctx, struct ksc_depmod_cfg *cfg, const char *name,
			  unsigned int lineno, char *line)
{
	char *save, *cmd;

	if (line[0] == '\0' || line[0] == '#')
		return 0;
	cmd = strtok_r(line, "\t ", &save);
	if (!cmd)
		return 0;
	if (streq(cmd, "search") || streq(cmd, "exclude")) {
		bool search = cmd[0] == 's';
		for (char *w; (w = strtok_r(NULL, "\t ", &save));) {
			int r = search ? cfg_search_add(cfg, w)
				       : push_str(&cfg->excludes, &cfg->n_excludes, w);
			if (r < 0)
				return r;
			if (!search)
				cfg_note(cfg, 'X', w, NULL);
		}
		return 0;
	}
	if (streq(cmd, "override") || streq(cmd, "external")) {
		bool ov = cmd[0] == 'o';
		char *a = strtok_r(NULL, "\t ", &save);
		char *b = strtok_r(NULL, "\t ", &save);
		char *c = ov ? strtok_r(NULL, "\t ", &save) : b;
		const char *kver = ov ? b : a;
		if (!a || !b || !c)
			goto bad;
		if (!cfg_kernel_matches(ctx, cfg, name, lineno, kver)) {
			ksc_dbg(ctx, "%s:%u: %s kernel did not match %s", name, lineno,
				ov ? "override" : "external directory", kver);
			return 0;
		}
		if (ov)
			return cfg_override_add(cfg, a, kver, c);
		cfg_note(cfg, 'E', c, NULL);
		return push_str(&cfg->externals, &cfg->n_externals, c);
	}
	if (streq(cmd, "include") || streq(cmd, "make_map_files")) {
		ksc_dbg(ctx, "%s:%u: command %s not implemented yet (as in depmod)", name, lineno,
			cmd);
		return 0;
	}
bad:
	ksc_warn(ctx, "%s:%u: ignoring bad line starting with '%s' (as depmod)", name, lineno,
		 cmd);
	return 0;
}

int ksc_depmod_cfg_parse(struct ksc_ctx *ctx, struct ksc_depmod_cfg *cfg, const char *name,
			 const char *text, size_t len)
{
	char *line = malloc(len + 1);
	unsigned int lineno = 0;
	size_t i = 0;
	int r = 0;

	if (!line)
		return -ENOMEM;
	while (i < len && r >= 0) {
		/* freadline_wrapped(): backslash-newline joins, a backslash before any other
		 * byte is dropped */
		size_t n = 0;
		unsigned int lines = 1;
		for (; i < len && text[i] != '\n'; i++) {
			if (text[i] == '\\' && i + 1 < len) {
				i++;
				if (text[i] == '\n') {
					lines++;
					continue;
				}
			} else if (text[i] == '\\') {
				continue;
			}
			line[n++] = text[i];
		}
		i++; /* the newline */
		line[n] = '\0';
		lineno += lines;
		r = cfg_line_parse(ctx, cfg, name, lineno, line);
	}
	free(line);
	return r;
}

int ksc_depmod_cfg_finish(struct ksc_depmod_cfg *cfg)
{
	if (cfg->n_searches)
		return 0;
	cfg->default_search = true;
	return cfg_search_add(cfg, "updates");
}

uint64_t ksc_depmod_cfg_fingerprint(const struct ksc_depmod_cfg *cfg)
{
	return cfg->fp;
}

size_t ksc_depmod_cfg_external_count(const struct ksc_depmod_cfg *cfg)
{
	return cfg->n_externals;
}

bool ksc_depmod_should_exclude_dir(const struct ksc_depmod_cfg *cfg, const char *name)
{
	if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
		return true;
	if (streq(name, "build") || streq(name, "source"))
		return true;
	for (size_t i = 0; cfg && i < cfg->n_excludes; i++)
		if (streq(name, cfg->excludes[i]))
			return true;
	return false;
}

/* The part of a relative path depmod compares: up to the end of the kmod name. */
static size_t stem_len(const char *rel)
{
	const char *base = ksc_basename(rel);
	const char *dot = strchr(base, '.');

	return (size_t)(base - rel) + (dot ? (size_t)(dot - base) : strlen(base));
}

static bool below(const char *rel, size_t len, const char *dir)
{
	size_t dl = strlen(dir);

	return len > dl && rel[dl] == '/' && memcmp(rel, dir, dl) == 0;
}

/*
 * Rank of `rel` in the search order, in depmod's numbering (higher wins). depmod walks
 * its prepended list, so index i counts from the last search entry read; an "external"
 * entry takes one number per external folder besides its own.
 */
static int search_rank(const struct ksc_depmod_cfg *cfg, const char *rel, size_t len,
		       int *builtin)
{
	int i = 0, rank = -1;

	*builtin = -1;
	for (size_t k = cfg->n_searches; k-- > 0; i++) {
		const struct cfg_search *se = &cfg->searches[k];
		if (se->type == SEARCH_BUILTIN)
			*builtin = i;
		else if (se->type == SEARCH_EXTERNAL)
			i += (int)cfg->n_externals; /* absolute folders: never below moddir */
		else if (below(rel, len, se->path))
			rank = i;
	}
	return rank;
}

/* The override that names rel, latest read first (depmod's list order), or NULL. */
static const struct cfg_override *find_override(const struct ksc_depmod_cfg *cfg,
						const char *rel, size_t len)
{
	for (size_t k = cfg->n_overrides; k-- > 0;) {
		const struct cfg_override *o = &cfg->overrides[k];
		if (strlen(o->path) == len && memcmp(o->path, rel, len) == 0)
			return o;
	}
	return NULL;
}

bool ksc_depmod_module_is_higher_priority(const struct ksc_depmod_cfg *cfg,
					  const char *oldrel, const char *newrel)
{
	size_t ol = stem_len(oldrel), nl = stem_len(newrel);

	/* overrides: the one read last decides, the new file checked before the old */
	for (size_t k = cfg->n_overrides; k-- > 0;) {
		const char *p = cfg->overrides[k].path;
		if (strlen(p) == nl && memcmp(p, newrel, nl) == 0)
			return false;
		if (strlen(p) == ol && memcmp(p, oldrel, ol) == 0)
			return true;
	}
	/*
	 * The search order. As in depmod, an entry that names the new file is not tried on
	 * the old one: of two files below one search folder, the old one ranks as built-in
	 * (unless a later entry names it), so the file met later wins.
	 */
	int i = 0, bprio = -1, oldprio = -1, newprio = -1;
	for (size_t k = cfg->n_searches; k-- > 0; i++) {
		const struct cfg_search *se = &cfg->searches[k];
		if (se->type == SEARCH_BUILTIN)
			bprio = i;
		else if (se->type == SEARCH_EXTERNAL)
			i += (int)cfg->n_externals;
		else if (below(newrel, nl, se->path))
			newprio = i;
		else if (below(oldrel, ol, se->path))
			oldprio = i;
	}
	if (newprio < 0)
		newprio = bprio;
	if (oldprio < 0)
		oldprio = bprio;
	return newprio <= oldprio;
}

const char *ksc_depmod_module_rank_reason(const struct ksc_depmod_cfg *cfg, const char *rel,
					  char *buf, size_t size)
{
	size_t len = stem_len(rel);
	const struct cfg_override *o = find_override(cfg, rel, len);
	int builtin, rank = search_rank(cfg, rel, len, &builtin);

	if (o) {
		snprintf(buf, size, "depmod.d: %s", o->line);
		return buf;
	}
	for (size_t k = cfg->n_searches, i = 0; k-- > 0; i++) {
		const struct cfg_search *se = &cfg->searches[k];
		if (se->type == SEARCH_EXTERNAL)
			i += cfg->n_externals;
		else if (se->type == SEARCH_PATH && (int)i == rank) {
			if (cfg->default_search)
				snprintf(buf, size, "depmod searches %s/ first", se->path);
			else
				snprintf(buf, size, "depmod.d: search %s", se->path);
			return buf;
		}
	}
	snprintf(buf, size, "depmod's order: the first file met");
	return buf;
}

/* ---- cfg_load(): the files ---------------------------------------------------------- */

/* depmod's default folders (kmod 31+ adds usr/lib; on a merged /usr, lib is usr/lib). */
static const char *const cfg_dirs[] = { "etc/depmod.d", "run/depmod.d",
					"usr/local/lib/depmod.d", "usr/lib/depmod.d",
					"lib/depmod.d" };

struct cfg_file {
	char *name, *path;
};

static int cmp_cfg_file(const void *a, const void *b)
{
	return strcmp(((const struct cfg_file *)a)->name, ((const struct cfg_file *)b)->name);
}

/* A path below root, absolute links kept inside it; NULL when missing. */
static char *in_root(const char *root, const char *rel)
{
	char p[PATH_MAX];

	if (!root[0]) {
		if (snprintf(p, sizeof(p), "/%s", rel) >= (int)sizeof(p))
			return NULL;
		return strdup(p);
	}
	return ksc_resolve_in_root(root, rel, p, sizeof(p)) == 0 ? strdup(p) : NULL;
}

/* cfg_files_list(): the *.conf files of one folder not already listed by name. */
static int cfg_files_list(struct ksc_ctx *ctx, const char *root, const char *dir,
			  struct cfg_file **files, size_t *n)
{
	char *path = in_root(root, dir);
	DIR *d = path ? opendir(path) : NULL;
	struct dirent *de;
	int r = 0;

	free(path);
	if (!d)
		return 0;
	while (r >= 0 && (de = readdir(d)) != NULL) {
		const char *name = de->d_name;
		size_t len = strlen(name);
		bool dup = false;
		if (name[0] == '.')
			continue;
		if (len < 6 || !streq(name + len - 5, ".conf")) {
			ksc_dbg(ctx, "%s/%s: not read: configuration files end in .conf", dir,
				name);
			continue;
		}
		for (size_t i = 0; i < *n && !dup; i++)
			dup = streq((*files)[i].name, name);
		if (dup)
			continue; /* an earlier folder's file of this name wins */
		char rel[PATH_MAX];
		struct stat st;
		snprintf(rel, sizeof(rel), "%s/%s", dir, name);
		char *p = in_root(root, rel);
		if (!p || stat(p, &st) < 0 || S_ISDIR(st.st_mode)) {
			if (p)
				ksc_dbg(ctx, "%s: not read: not a file", p);
			free(p);
			continue;
		}
		char *nm = strdup(name);
		if (!nm || grow((void **)files, *n, sizeof(**files)) < 0) {
			free(nm);
			free(p);
			r = -ENOMEM;
			break;
		}
		(*files)[(*n)++] = (struct cfg_file){ nm, p };
	}
	closedir(d);
	return r;
}

int ksc_depmod_cfg_load(struct ksc_ctx *ctx, const char *root, const char *kversion,
			struct ksc_depmod_cfg **out)
{
	struct ksc_depmod_cfg *cfg = ksc_depmod_cfg_new(kversion);
	struct cfg_file *files = NULL;
	size_t n = 0;
	int r = cfg ? 0 : -ENOMEM;

	*out = NULL;
	if (!root || streq(root, "/"))
		root = "";
	for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(cfg_dirs); i++)
		r = cfg_files_list(ctx, root, cfg_dirs[i], &files, &n);
	if (n > 1)
		qsort(files, n, sizeof(*files), cmp_cfg_file);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		char *text;
		size_t size;
		int e = ksc_read_text_file(ctx, files[i].path, &text, &size);
		if (e == -ENOMEM)
			r = e;
		if (e < 0)
			continue; /* logged; depmod goes on too */
		ksc_dbg(ctx, "%s: depmod configuration read", files[i].path);
		r = ksc_depmod_cfg_parse(ctx, cfg, files[i].path, text, size);
		free(text);
	}
	for (size_t i = 0; i < n; i++) {
		free(files[i].name);
		free(files[i].path);
	}
	free(files);
	if (r >= 0)
		r = ksc_depmod_cfg_finish(cfg);
	if (r >= 0 && cfg->n_externals)
		ksc_info(ctx, "depmod.d: %zu external folder(s) not searched: only the "
			 "module folder is", cfg->n_externals);
	if (r < 0) {
		ksc_depmod_cfg_free(cfg);
		return r;
	}
	*out = cfg;
	return 0;
}
