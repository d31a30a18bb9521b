// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target: a depmod.d configuration file (search, override, external, exclude
 * lines, continuations), parsed as depmod reads it for kernel 6.16.0-fz: the kernel
 * version pattern of override and external lines is searched by util/ere.c. Then the
 * choice between files of one name and the reasons for it are asked for a few paths.
 * Nothing may crash, abort or take more than a few megabytes per input (glibc's
 * regcomp() took 258 MB on a 23-byte pattern this fuzzer found).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "modset/modset.h"
#include "ksymcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const paths[] = {
	"kernel/drivers/a.ko", "updates/a.ko.xz", "extra/dkms/a.ko", "weak-updates/x/a.ko",
	"built-in/a.ko", "a.ko",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ksc_ctx *ctx;
	struct ksc_depmod_cfg *cfg;
	char why[256];

	if (!ctx) {
		ctx = ksc_new();
		if (!ctx)
			return 0;
		ksc_set_log_fn(ctx, NULL, NULL);
	}
	cfg = ksc_depmod_cfg_new("6.16.0-fz");
	if (!cfg)
		return 0;
	/* An exact-size heap copy, not NUL-terminated, so any overread is caught. */
	char *text = malloc(size ? size : 1);
	if (text) {
		memcpy(text, data, size);
		if (ksc_depmod_cfg_parse(ctx, cfg, "fuzz.conf", text, size) == 0 &&
		    ksc_depmod_cfg_finish(cfg) == 0) {
			size_t n = sizeof(paths) / sizeof(paths[0]);
			for (size_t i = 0; i < n; i++) {
				for (size_t j = 0; j < n; j++)
					(void)ksc_depmod_module_is_higher_priority(cfg, paths[i],
										   paths[j]);
				ksc_depmod_module_rank_reason(cfg, paths[i], why, sizeof(why));
				if (!memchr(why, '\0', sizeof(why)))
					abort();
				(void)ksc_depmod_should_exclude_dir(cfg, paths[i]);
			}
			(void)ksc_depmod_cfg_fingerprint(cfg);
		}
		free(text);
	}
	ksc_depmod_cfg_free(cfg);
	return 0;
}
