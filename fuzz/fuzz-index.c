// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target: the tree index parser (lib/modset/ksc-modset-index.c,
 * ksc-modset-lookup.c, ksc-modset-record.c, ksc-modset-valid.c) on arbitrary bytes: opened (the raw view of every folder and module read), then checked. With the
 * first byte odd, every checksum is recomputed first, so that the structural validation
 * behind them (ranges, enums, string offsets of each record) gets the fuzzer's bytes;
 * then every record is used the way ksc_tree_open() uses it: strings, kmod's dependency
 * symbols and modinfo, and the struct ksc_module rebuilt from it. The same bytes are also
 * read in place (ksc-modset-lookup.c): every name of the lookup table looked up by name
 * and by path, and a few names that are not there.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tree/tree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t touch(const char *s)
{
	return s ? strlen(s) : 0;
}

/* A dependency symbol's name read (ksc_krec_each_kdep()), added to *data. */
static int touch_kdep(void *data, const char *name, uint64_t crc, bool weak)
{
	*(size_t *)data += touch(name) + (size_t)crc + weak;
	return 0;
}

/* The index read in place: each name of its table looked up, by name and by path. */
static size_t lookups(const unsigned char *buf, size_t size)
{
	static const char *const absent[] = { "", "zzzz", "fx-user", "a-b-c-d-e-f" };
	struct kidx_map *m;
	struct kidx_hit hit, again;
	size_t sink = 0;

	if (ksc_kidx_map_mem(buf, size, &m) < 0)
		return 0;
	sink += touch(ksc_kidx_map_moddir(m)) + touch(ksc_kidx_map_release(m));
	for (size_t i = 0; i < ksc_kidx_map_count(m) && i < 512; i++) {
		const char *name = ksc_kidx_map_name(m, i);
		if (!name || ksc_kidx_find(m, name, &hit) < 0)
			continue;
		sink += touch(hit.name) + touch(krec_str(hit.rec, hit.rec->relpath));
		if (ksc_kidx_find_path(m, hit.relpath, &again) == 0)
			sink += touch(again.relpath) + again.key.file_size;
	}
	for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
		if (ksc_kidx_find(m, absent[i], &hit) == 0 ||
		    ksc_kidx_find_path(m, absent[i], &hit) == 0)
			sink += touch(hit.relpath);
	ksc_kidx_unmap(m);
	return sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ksc_ctx *ctx;
	struct kidx idx;

	if (!ctx) {
		ctx = ksc_new();
		ksc_set_log_fn(ctx, NULL, NULL);
	}
	if (size < 1)
		return 0;
	unsigned char *buf = malloc(size);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	if (data[0] & 1)
		ksc_kidx_fix_checksums(buf, size - 1);
	volatile size_t sink = lookups(buf, size - 1);
	/* opened: what a re-check's workers read before the index is checked */
	int r = ksc_kidx_parse_open(buf, size - 1, &idx);
	free(buf);
	if (r < 0)
		return 0;
	sink += touch(idx.moddir) + touch(idx.release);
	size_t nd, nm = ksc_kidx_raw_count(&idx, &nd);
	for (size_t i = 0; i < nd; i++) {
		uint64_t ino;
		int64_t mtime;
		sink += touch(ksc_kidx_raw_dir(&idx, i, &ino, &mtime));
	}
	for (size_t i = 0; i < nm; i++) {
		struct krec_sum sum;
		uint32_t dir;
		sink += touch(ksc_kidx_raw_module(&idx, i, &sum, &dir));
	}
	if (ksc_kidx_finish(&idx) < 0 || ksc_kder_validate_index(&idx) < 0) {
		ksc_kidx_free(&idx);
		return 0;
	}
	sink += touch(idx.out_dir);
	for (size_t i = 0; i < idx.n_outs; i++)
		sink += touch(idx.outs[i].name);
	for (size_t i = 0; i < idx.n_mods; i++) {
		const struct krec *rec;
		const struct kder *d = idx.mods[i].der;
		sink += touch(idx.mods[i].relpath);
		if (d)
			sink += touch(kder_str(d, d->loader_name)) +
				touch(kder_str(d, d->modpost_name));
		if (ksc_kidx_fetch(&idx, i, &rec) < 0)
			continue;
		const struct krec_msg *m = krec_arr(rec, rec->msgs);
		sink += touch(krec_str(rec, rec->relpath));
		for (size_t j = 0; j < rec->msgs.n; j++)
			sink += touch(krec_str(rec, m[j].text));
		size_t kd = 0;
		if (ksc_krec_each_kdep(rec, touch_kdep, &kd) < 0)
			kd++; /* out of memory: nothing to check */
		sink += kd;
		for (size_t j = 0; j < ksc_krec_kinfo_count(rec); j++) {
			const char *v, *k = ksc_krec_kinfo(rec, j, &v);
			sink += touch(k) + touch(v);
		}
		struct ksc_module *mod;
		for (int provider = 0; provider < 2; provider++) {
			if (ksc_krec_to_module(ctx, rec, "fuzz.ko", provider, provider,
					       NULL, &mod) < 0)
				continue;
			sink += touch(ksc_module_get_name(mod)) +
				touch(ksc_module_get_modpost_name(mod));
			for (size_t j = 0; j < ksc_module_get_import_count(mod); j++)
				sink += touch(ksc_module_get_import(mod, j)->name);
			for (size_t j = 0; j < ksc_module_get_export_count(mod); j++)
				sink += touch(ksc_module_get_export(mod, j)->ns);
			for (size_t j = 0; j < ksc_module_get_modinfo_count(mod); j++)
				sink += touch(ksc_module_get_modinfo(mod, j)->value);
			ksc_module_unref(mod);
		}
		if (!d)
			continue;
		const struct kder_diag *g = kder_arr(d, d->diags);
		for (size_t j = 0; j < d->diags.n; j++)
			sink += touch(kder_str(d, g[j].code)) +
				touch(kder_str(d, g[j].fix)) +
				touch(kder_str(d, g[j].kernel_lines)) +
				touch(kder_str(d, g[j].module));
		const struct kder_unres *u = kder_arr(d, d->unres);
		for (size_t j = 0; j < d->unres.n; j++)
			sink += touch(kder_str(d, u[j].name));
	}
	(void)sink;
	ksc_kidx_free(&idx);
	return 0;
}
