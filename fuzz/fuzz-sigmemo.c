// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target: a kept signature verdict (lib/readers/ksc-sig-memo.c, a file of the
 * CACHE.sigs folder beside the kernel's key cache). The first byte picks what the rest is:
 * - bit 0 clear: a record as it is on disk, parsed for whatever key it holds. With bit 1
 *   its checksum is recomputed, so that what the checks behind it (the key's fields, the
 *   verdict, its texts) see is the fuzzer's bytes; with bit 2 it is parsed for the key
 *   made of the bytes 16..16+N (N the record's key_len), as a lookup would.
 * - bit 0 set: the rest is a key and a verdict (err, verified, which texts, key index from
 *   its first bytes), encoded and parsed back: the same verdict, or nothing encoded.
 * Every verdict parsed is used as the loader uses it: its texts read whole.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readers/readers.h"
#include "readers/ksc-sig.h"
#include "util/hash.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The record's header as ksc-sig-memo.c lays it out (its private layout). */
struct hdr {
	char magic[8];
	uint32_t version, key_len;
	uint64_t checksum;
};

static void fix_checksum(unsigned char *buf, size_t size)
{
	struct hdr h;

	memcpy(&h, buf, sizeof(h));
	h.checksum = 0;
	uint64_t x = ksc_hash64(&h, sizeof(h), 0x6d656d6f);
	h.checksum = ksc_hash64(buf + sizeof(h), size - sizeof(h), x);
	memcpy(buf, &h, sizeof(h));
}

static size_t use(const struct ksc_sig_eval *ev)
{
	size_t n = strlen(ev->why);

	if (ev->kernel_line)
		n += strlen(ev->kernel_line);
	return n;
}

static const char *const whys[] = {
	"signed by a trusted key",
	"signed by a key that is not among the trusted keys",
	"well-formed PKCS#7 signature; not verified: no key known",
	"module: not signed with expected PKCS#7 message",
	"not a text of the evaluation",
};

static void round_trip(const uint8_t *data, size_t size)
{
	static const int errs[] = { 0, -ENOKEY, -EKEYREJECTED, -EBADMSG, -ENOPKG, -EIO };
	struct ksc_sig_eval ev = { 0 }, out;
	uint32_t ki = UINT32_MAX, got;
	size_t n;

	if (size < 4)
		return;
	ev.err = errs[data[0] % 6];
	ev.verified = data[1] & 1;
	ev.why = whys[data[1] >> 1 & 3];
	ev.kernel_line = data[1] & 0x20 ? whys[3] : NULL;
	ev.io_err = data[1] & 0x40 ? -EIO : 0;
	if (data[2] < 8)
		ki = data[2];
	struct sigmemo_key k = { (unsigned char *)data + 3, size - 3, 0 };
	unsigned char *rec = ksc_sigmemo_encode(&k, &ev, ki, &n);
	if (!rec)
		return;
	if (!ksc_sigmemo_parse(rec, n, k.blob, k.len, &out, &got)) {
		/* only a key index the key cannot hold is refused on the way back */
		if (ki == UINT32_MAX)
			abort();
		free(rec);
		return;
	}
	if (out.err != ev.err || out.verified != ev.verified || got != ki ||
	    strcmp(out.why, ev.why) != 0 || !out.kernel_line != !ev.kernel_line || out.io_err)
		abort();
	use(&out);
	free(rec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksc_sig_eval ev;
	uint32_t ki;

	if (size < 1)
		return 0;
	uint8_t mode = data[0];
	data++, size--;
	if (mode & 1) {
		round_trip(data, size);
		return 0;
	}
	unsigned char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if ((mode & 2) && size >= sizeof(struct hdr))
		fix_checksum(buf, size);
	const unsigned char *key = NULL;
	size_t key_len = 0;
	if ((mode & 4) && size >= sizeof(struct hdr)) {
		struct hdr h;
		memcpy(&h, buf, sizeof(h));
		if (h.key_len <= size - sizeof(h)) {
			key = data + sizeof(h);
			key_len = h.key_len;
		}
	}
	if (ksc_sigmemo_parse(buf, size, key, key_len, &ev, &ki))
		use(&ev);
	free(buf);
	return 0;
}
