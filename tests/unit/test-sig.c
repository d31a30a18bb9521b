// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Module signatures (lib/readers/ksc-sig.c): decoding as kmod's modinfo does, keyrings from PEM,
 * DER and kernel images, verification as the kernel does, and what the loader view makes
 * of it. The signed modules are fixture modules signed at test time, as the kernel's
 * scripts/sign-file signs, by tests/helpers/sign-module.sh (the openssl command line) with
 * keys made by `openssl req` (tests/fixtures/signed.mk); without openssl those tests
 * skip. Malformed blocks are made here from the signed files by changing bytes of the
 * trailer; nothing is signed by this code.
 */
#include "unit.h"

#include <errno.h>

#include "mkmod.h"

#define ARRAY_SIZE_T(a) (sizeof(a) / sizeof((a)[0]))

static const char *fixtures_dir(void)
{
	const char *f = getenv("FIXTURES");

	return f && *f ? f : "build/fixtures";
}

static char *fx(const char *rel)
{
	static char buf[8][1024];
	static int next;
	char *b = buf[next++ % 8];

	snprintf(b, sizeof(buf[0]), "%s/%s", fixtures_dir(), rel);
	return b;
}

/* The signed fixtures exist (openssl was found when the fixtures were made)? */
static bool have_signed(void)
{
	return access(fx("signed/fx-user-rsa.ko"), R_OK) == 0 &&
	       access(fx("signed/two.pem"), R_OK) == 0;
}

#define NEED_SIGNED()                                                                      \
	do {                                                                               \
		if (!have_signed()) {                                                      \
			fprintf(stderr, "# no signed fixtures: the openssl command is "          \
					"not installed (tests/fixtures/signed.mk)\n");          \
			skip();                                                            \
		}                                                                          \
	} while (0)

static struct ksc_module *read_mod(struct test_env *env, const char *path)
{
	struct ksc_module *m = NULL;
	int r = ksc_module_new_from_path(env->ctx, path, &m);

	if (r < 0)
		fail_msg("%s: %d\n%s", path, r, env->log);
	return m;
}

static struct ksc_keyring *keyring(struct test_env *env, const char *a, const char *b)
{
	struct ksc_keyring *kr;

	assert_int_equal(ksc_keyring_new(env->ctx, &kr), 0);
	if (a)
		assert_true(ksc_keyring_add_path(kr, a) >= 0);
	if (b)
		assert_true(ksc_keyring_add_path(kr, b) >= 0);
	return kr;
}

static int verify(struct test_env *env, const char *module, const char *cert)
{
	struct ksc_module *m = read_mod(env, module);
	struct ksc_keyring *kr = keyring(env, cert, NULL);
	int r = ksc_module_verify_signature(m, kr, NULL);

	ksc_keyring_unref(kr);
	ksc_module_unref(m);
	return r;
}

static void hex(char *out, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02X", p[i]);
	out[2 * n] = '\0';
}

/* ---- decoding (kmod's view) ---- */

static void test_info_rsa(void **state)
{
	struct test_env *env = *state;
	struct ksc_signature_info si;
	char buf[64];

	NEED_SIGNED();
	struct ksc_module *m = read_mod(env, fx("signed/fx-user-rsa.ko"));
	assert_int_equal(ksc_module_get_signature(m, &si), 0);
	assert_string_equal(si.id_type, "PKCS#7");
	assert_string_equal(si.signer, "ksymcheck test RSA key");
	hex(buf, si.key_id, si.key_id_len);
	assert_string_equal(buf, "1234ABCD");
	assert_string_equal(si.hash_algo, "sha256");
	assert_int_equal(si.sig_len, 256); /* RSA-2048 */
	assert_int_equal(si.block_size, ksc_module_get_signature_size(m));
	ksc_module_unref(m);

	m = read_mod(env, fx("signed/fx-user-rsa512.ko"));
	assert_int_equal(ksc_module_get_signature(m, &si), 0);
	assert_string_equal(si.hash_algo, "sha512");
	ksc_module_unref(m);

	/* ECDSA: the signature value is the DER SEQUENCE { r, s } */
	m = read_mod(env, fx("signed/fx-user-ec.ko"));
	assert_int_equal(ksc_module_get_signature(m, &si), 0);
	assert_string_equal(si.signer, "ksymcheck test ECDSA key");
	assert_true(si.sig_len >= 8 && si.sig_len <= 72);
	assert_int_equal(si.sig[0], 0x30);
	ksc_module_unref(m);

	/* no commonName in the issuer: kmod's loop ends on the last entry and takes it; the
	 * serial number 0 has no bytes */
	m = read_mod(env, fx("signed/fx-user-nocn.ko"));
	assert_int_equal(ksc_module_get_signature(m, &si), 0);
	assert_string_equal(si.signer, "no common name");
	assert_int_equal(si.key_id_len, 0);
	assert_string_equal(si.hash_algo, "sha384");
	ksc_module_unref(m);
	assert_int_equal(verify(env, fx("signed/fx-user-nocn.ko"), fx("signed/nocn.pem")), 0);

	/* compressed: the block is inside the decompressed image */
	m = read_mod(env, fx("signed/fx-user-rsa.ko.xz"));
	assert_int_equal(ksc_module_get_signature(m, &si), 0);
	assert_string_equal(si.signer, "ksymcheck test RSA key");
	ksc_module_unref(m);
}

static void test_info_unsigned_and_keyid(void **state)
{
	struct test_env *env = *state;
	struct ksc_signature_info si;

	struct ksc_module *m = read_mod(env, fx("x86_64/fx-user.ko"));
	assert_int_equal(ksc_module_get_signature(m, &si), -ENODATA);
	assert_null(si.signer);
	ksc_module_unref(m);

	/* the elfmangle fixture: a made-up blob that only starts like PKCS#7 */
	m = read_mod(env, fx("x86_64/fx-user-signed.ko"));
	assert_int_equal(ksc_module_get_signature(m, &si), -EBADMSG);
	ksc_module_unref(m);

	NEED_SIGNED();
	/* sign-file -k: a CMS SignerInfo by subjectKeyIdentifier, which kmod's PKCS#7 decoder
	 * cannot read: it shows nothing (the kernel verifies it, see test_verify_keyid) */
	m = read_mod(env, fx("signed/fx-user-keyid.ko"));
	assert_int_equal(ksc_module_get_signature(m, &si), -EBADMSG);
	ksc_module_unref(m);
}

/* ---- keyrings ---- */

static void test_keyring_files(void **state)
{
	struct test_env *env = *state;
	struct ksc_keyring *kr;

	NEED_SIGNED();
	assert_int_equal(ksc_keyring_new(env->ctx, &kr), 0);
	assert_int_equal(ksc_keyring_get_count(kr), 0);
	/* PEM with two certificates */
	assert_int_equal(ksc_keyring_add_path(kr, fx("signed/two.pem")), 2);
	/* the same again, as PEM and DER: nothing new */
	assert_int_equal(ksc_keyring_add_path(kr, fx("signed/rsa.pem")), 0);
	assert_int_equal(ksc_keyring_add_path(kr, fx("signed/ec.der")), 0);
	assert_int_equal(ksc_keyring_get_count(kr), 2);
	const struct ksc_key *k = ksc_keyring_get_key(kr, 0);
	assert_string_equal(k->subject, "ksymcheck test RSA key");
	assert_string_equal(k->issuer, "ksymcheck test RSA key");
	assert_string_equal(k->serial, "12:34:AB:CD");
	assert_string_equal(k->key_algo, "rsa");
	assert_int_equal(k->bits, 2048);
	assert_string_equal(k->source, fx("signed/two.pem"));
	k = ksc_keyring_get_key(kr, 1);
	assert_string_equal(k->subject, "ksymcheck test ECDSA key");
	assert_string_equal(k->key_algo, "ec");
	assert_int_equal(k->bits, 256);
	assert_null(ksc_keyring_get_key(kr, 2));
	/* the key file itself: a private key block, then the certificate (signing_key.pem) */
	char tmp[256], both[300];
	unit_mkdtemp(tmp, sizeof(tmp));
	snprintf(both, sizeof(both), "%s/signing_key.pem", tmp);
	size_t n1 = 0, n2 = 0;
	char *key = unit_read_file(fx("signed/twin.key"), &n1);
	char *crt = unit_read_file(fx("signed/twin.pem"), &n2);
	assert_non_null(key);
	assert_non_null(crt);
	FILE *f = fopen(both, "w");
	assert_non_null(f);
	fputs(key, f);
	fputs(crt, f);
	fclose(f);
	assert_int_equal(ksc_keyring_add_path(kr, both), 1);
	/* the same from memory */
	assert_int_equal(ksc_keyring_add_memory(kr, "crt", crt, n2), 0);
	free(key);
	free(crt);
	assert_int_equal(ksc_keyring_get_count(kr), 3);
	ksc_keyring_unref(kr);

	/* new_from_path */
	assert_int_equal(ksc_keyring_new_from_path(env->ctx, fx("signed/rsa.der"), &kr), 0);
	assert_int_equal(ksc_keyring_get_count(kr), 1);
	assert_ptr_equal(ksc_keyring_ref(kr), kr);
	assert_null(ksc_keyring_unref(kr));
	assert_null(ksc_keyring_unref(kr));
	unit_rm_rf(tmp);
}

static void test_keyring_errors(void **state)
{
	struct test_env *env = *state;
	struct ksc_keyring *kr;
	char tmp[256], p[300];

	assert_int_equal(ksc_keyring_new(env->ctx, &kr), 0);
	assert_int_equal(ksc_keyring_add_path(kr, "/nonexistent/cert.pem"), -ENOENT);
	assert_log_contains(env, "/nonexistent/cert.pem");
	unit_mkdtemp(tmp, sizeof(tmp));
	snprintf(p, sizeof(p), "%s/junk.pem", tmp);
	unit_write_file(p, "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n");
	test_log_clear(env);
	assert_int_equal(ksc_keyring_add_path(kr, p), -EINVAL);
	assert_log_contains(env, "junk.pem: no X.509 certificate in it");
	snprintf(p, sizeof(p), "%s/junk.der", tmp);
	unit_write_file(p, "0\202\001\001 not DER at all");
	assert_int_equal(ksc_keyring_add_path(kr, p), -EINVAL);
	assert_int_equal(ksc_keyring_add_path(kr, tmp), -EISDIR);
	assert_int_equal(ksc_keyring_add_memory(kr, "empty", "", 0), -EINVAL);
	struct ksc_keyring *none = NULL;
	assert_int_equal(ksc_keyring_new_from_path(env->ctx, p, &none), -EINVAL);
	assert_null(none);
	assert_int_equal(ksc_keyring_get_count(kr), 0);
	/* no image under this root */
	assert_int_equal(ksc_keyring_add_kernel(kr, tmp, "6.1.0-0-test"), -ENOENT);
	ksc_keyring_unref(kr);
	unit_rm_rf(tmp);
}

/*
 * A kernel image in memory: ELF64 ET_EXEC with .rodata, .init.data and .shstrtab; `init`
 * and `ro` are put into those sections (either may be NULL).
 */
static unsigned char *mkimage(const unsigned char *init, size_t ni, const unsigned char *ro,
			      size_t nr, size_t *size)
{
	static const char shstr[] = "\0.rodata\0.init.data\0.shstrtab";
	struct mkbuf b = { 0 };
	Elf64_Ehdr eh = { 0 };
	Elf64_Shdr sh[4] = { { 0 } };

	mk_put(&b, NULL, sizeof(eh));
	mk_put(&b, "pad", 3);
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC,
			      .sh_addr = 0xffffffff82000000, .sh_offset = b.n, .sh_size = nr + 16,
			      .sh_addralign = 1 };
	mk_put(&b, "rodata:", 7);
	if (ro)
		mk_put(&b, ro, nr);
	mk_put(&b, "end of rodata", 9);
	sh[2] = (Elf64_Shdr){ .sh_name = 9, .sh_type = SHT_PROGBITS,
			      .sh_flags = SHF_ALLOC | SHF_WRITE, .sh_addr = 0xffffffff83000000,
			      .sh_offset = b.n, .sh_size = ni + 8, .sh_addralign = 1 };
	mk_put(&b, "\0\0\0\0", 4);
	if (init)
		mk_put(&b, init, ni);
	mk_put(&b, "\0\0\0\0", 4);
	sh[3] = (Elf64_Shdr){ .sh_name = 20, .sh_type = SHT_STRTAB, .sh_offset = b.n,
			      .sh_size = sizeof(shstr), .sh_addralign = 1 };
	mk_put(&b, shstr, sizeof(shstr));
	mk_align(&b, 8);
	size_t shoff = mk_put(&b, sh, sizeof(sh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	eh.e_shoff = shoff;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 4;
	eh.e_shstrndx = 3;
	memcpy(b.p, &eh, sizeof(eh));
	*size = b.n;
	return b.p;
}

/*
 * A fixture vmlinux with one more section, .init.data, holding `data` (appended to the
 * file with a new section-name table and section header table).
 */
static unsigned char *add_init_data(const char *path, const unsigned char *data, size_t n,
				    size_t *size)
{
	size_t len = 0;
	unsigned char *orig = (unsigned char *)unit_read_file(path, &len);
	Elf64_Ehdr eh;
	struct mkbuf b = { 0 };

	assert_non_null(orig);
	memcpy(&eh, orig, sizeof(eh));
	assert_int_equal(eh.e_ident[EI_CLASS], ELFCLASS64);
	Elf64_Shdr *sh = calloc(eh.e_shnum + 1u, sizeof(*sh));
	assert_non_null(sh);
	memcpy(sh, orig + eh.e_shoff, eh.e_shnum * sizeof(*sh));
	mk_put(&b, orig, len);
	mk_align(&b, 8);
	Elf64_Shdr *n_sh = &sh[eh.e_shnum];
	*n_sh = (Elf64_Shdr){ .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC | SHF_WRITE,
			      .sh_addr = 0xffffffff83000000, .sh_offset = b.n, .sh_size = n,
			      .sh_addralign = 1 };
	mk_put(&b, data, n);
	Elf64_Shdr *strs = &sh[eh.e_shstrndx];
	size_t str_off = mk_put(&b, orig + strs->sh_offset, strs->sh_size);
	n_sh->sh_name = (uint32_t)strs->sh_size;
	mk_str(&b, ".init.data");
	strs->sh_offset = str_off;
	strs->sh_size = b.n - str_off;
	mk_align(&b, 8);
	eh.e_shoff = mk_put(&b, sh, (eh.e_shnum + 1u) * sizeof(*sh));
	eh.e_shnum++;
	memcpy(b.p, &eh, sizeof(eh));
	free(sh);
	free(orig);
	*size = b.n;
	return b.p;
}

static void test_keyring_image(void **state)
{
	struct test_env *env = *state;
	size_t nr = 0, ne = 0, n = 0;

	NEED_SIGNED();
	unsigned char *rsa = (unsigned char *)unit_read_file(fx("signed/rsa.der"), &nr);
	unsigned char *ec = (unsigned char *)unit_read_file(fx("signed/ec.der"), &ne);
	assert_non_null(rsa);
	assert_non_null(ec);
	unsigned char two[4096];
	memcpy(two, rsa, nr);
	memcpy(two + nr, ec, ne);

	/* both certificates one after the other in .init.data (system_certificate_list), a
	 * third in .rodata: only the init data counts */
	unsigned char *img = mkimage(two, nr + ne, ec, ne, &n);
	struct ksc_keyring *kr = keyring(env, NULL, NULL);
	assert_int_equal(ksc_keyring_add_memory(kr, "vmlinux", img, n), 2);
	assert_string_equal(ksc_keyring_get_key(kr, 0)->source, "vmlinux");
	ksc_keyring_unref(kr);
	free(img);
	/* through the module reader: a kernel image keeps the certificates it holds */
	img = add_init_data(fx("x86_64/fx-vmlinux-prel32"), two, nr + ne, &n);
	struct ksc_module *vm = NULL;
	if (ksc_module_new_from_memory(env->ctx, "vmlinux", img, n, &vm) < 0)
		fail_msg("%s", env->log);
	assert_int_equal(ksc_module_get_kind(vm), KSC_KIND_VMLINUX);
	assert_true(ksc_module_get_export_count(vm) > 0);
	assert_int_equal(ksc_module_get_certificate_count(vm), 2);
	kr = keyring(env, NULL, NULL);
	assert_int_equal(ksc_keyring_add_vmlinux(kr, vm), 2);
	assert_string_equal(ksc_keyring_get_key(kr, 1)->subject, "ksymcheck test ECDSA key");
	ksc_keyring_unref(kr);
	ksc_module_unref(vm);
	free(img);

	/* none in the init data: every other data section is looked at */
	img = mkimage(NULL, 0, rsa, nr, &n);
	kr = keyring(env, NULL, NULL);
	assert_int_equal(ksc_keyring_add_memory(kr, "vmlinux", img, n), 1);
	ksc_keyring_unref(kr);
	free(img);

	/* an image without certificates, a module given as a kernel */
	img = mkimage(NULL, 0, NULL, 0, &n);
	kr = keyring(env, NULL, NULL);
	assert_int_equal(ksc_keyring_add_memory(kr, "vmlinux", img, n), 0);
	struct ksc_module *m = read_mod(env, fx("x86_64/fx-user.ko"));
	assert_int_equal(ksc_keyring_add_vmlinux(kr, m), -EINVAL);
	assert_int_equal(ksc_module_get_certificate_count(m), 0);
	ksc_module_unref(m);
	vm = read_mod(env, fx("x86_64/fx-vmlinux-prel32"));
	assert_int_equal(ksc_keyring_add_vmlinux(kr, vm), 0);
	ksc_module_unref(vm);
	ksc_keyring_unref(kr);
	free(img);
	free(rsa);
	free(ec);
}

/* ---- verification ---- */

static void test_verify(void **state)
{
	struct test_env *env = *state;

	NEED_SIGNED();
	/* valid: PEM and DER certificates, RSA and ECDSA, sha256 and sha512, compressed */
	assert_int_equal(verify(env, fx("signed/fx-user-rsa.ko"), fx("signed/rsa.pem")), 0);
	assert_int_equal(verify(env, fx("signed/fx-user-rsa.ko"), fx("signed/rsa.der")), 0);
	assert_int_equal(verify(env, fx("signed/fx-user-rsa512.ko"), fx("signed/rsa.pem")), 0);
	assert_int_equal(verify(env, fx("signed/fx-user-ec.ko"), fx("signed/ec.der")), 0);
	assert_int_equal(verify(env, fx("signed/fx-user-rsa.ko.xz"), fx("signed/rsa.pem")), 0);
	assert_int_equal(verify(env, fx("signed/fx-user-ec.ko"), fx("signed/two.pem")), 0);
	assert_int_equal(verify(env, fx("signed/fx-user-rsa.ko"), fx("signed/two.pem")), 0);
	/* signed by another key: no key matches the SignerInfo */
	assert_int_equal(verify(env, fx("signed/fx-user-rsa.ko"), fx("signed/ec.pem")), -ENOKEY);
	assert_int_equal(verify(env, fx("signed/fx-user-ec.ko"), fx("signed/rsa.der")), -ENOKEY);
	/* another key with the same issuer and serial: it matches, and does not verify */
	assert_int_equal(verify(env, fx("signed/fx-user-twin.ko"), fx("signed/rsa.pem")),
			 -EKEYREJECTED);
	assert_int_equal(verify(env, fx("signed/fx-user-twin.ko"), fx("signed/twin.pem")), 0);
	/* edited after signing */
	assert_int_equal(verify(env, fx("signed/fx-user-edited.ko"), fx("signed/rsa.pem")),
			 -EKEYREJECTED);
	/* unsigned */
	assert_int_equal(verify(env, fx("x86_64/fx-user.ko"), fx("signed/rsa.pem")), -ENODATA);
	/* PKCS#7 garbage */
	assert_int_equal(verify(env, fx("x86_64/fx-user-signed.ko"), fx("signed/rsa.pem")),
			 -EBADMSG);

	/* no keys: a well-formed signature cannot be verified */
	struct ksc_module *m = read_mod(env, fx("signed/fx-user-rsa.ko"));
	struct ksc_keyring *kr = keyring(env, NULL, NULL);
	const struct ksc_key *key = (const struct ksc_key *)1;
	assert_int_equal(ksc_module_verify_signature(m, NULL, &key), -ENOKEY);
	assert_null(key);
	assert_int_equal(ksc_module_verify_signature(m, kr, NULL), -ENOKEY);
	assert_true(ksc_keyring_add_path(kr, fx("signed/two.pem")) == 2);
	assert_int_equal(ksc_module_verify_signature(m, kr, &key), 0);
	assert_non_null(key);
	assert_string_equal(key->subject, "ksymcheck test RSA key");
	/* again: the digest is kept */
	assert_int_equal(ksc_module_verify_signature(m, kr, &key), 0);
	ksc_keyring_unref(kr);
	ksc_module_unref(m);
}

static void test_verify_keyid(void **state)
{
	struct test_env *env = *state;

	NEED_SIGNED();
	assert_int_equal(verify(env, fx("signed/fx-user-keyid.ko"), fx("signed/rsa.pem")), 0);
	assert_int_equal(verify(env, fx("signed/fx-user-keyid.ko"), fx("signed/twin.pem")),
			 -ENOKEY); /* same name and serial, but another subject key identifier */
}

/* The signed module's bytes, changed by `edit` at offset `off` from the end (0: none). */
struct variant {
	const char *what;
	size_t from_end;         /* offset from the end of the file of the first byte edited */
	const char *bytes;
	size_t n;
	int info_err;            /* ksc_module_get_signature() */
	int verify_err;          /* ksc_module_verify_signature() with rsa */
};

static void test_malformed(void **state)
{
	struct test_env *env = *state;
	/* struct module_signature is the 12 bytes before the 28-byte marker */
	const size_t info = 28 + 12;
	const struct variant v[] = {
		{ "none", 0, NULL, 0, 0, 0 },
		{ "bad magic", 28, "~Module signature appendeX", 26, -ENODATA, -ENODATA },
		{ "sig_len larger than the file", info - 8, "\x7f\xff\xff\xff", 4, -EBADMSG, -EBADMSG },
		{ "sig_len 0", info - 8, "\0\0\0\0", 4, -EBADMSG, -EBADMSG },
		{ "sig_len too short", info - 8, "\0\0\0\x40", 4, -EBADMSG, -EBADMSG },
		{ "id_type 1 (X509)", info - 2, "\1", 1, 0, -ENOPKG },
		{ "id_type 3", info - 2, "\3", 1, -EBADMSG, -ENOPKG },
		{ "hash set", info - 1, "\4", 1, 0, -EBADMSG },
		{ "pad set", info - 5, "\1", 1, 0, -EBADMSG },
		{ "algo 2", info, "\2", 1, -EBADMSG, -EBADMSG },
	};
	size_t size = 0;

	NEED_SIGNED();
	unsigned char *orig = (unsigned char *)unit_read_file(fx("signed/fx-user-rsa.ko"), &size);
	assert_non_null(orig);
	struct ksc_keyring *kr = keyring(env, fx("signed/rsa.pem"), NULL);
	char tmp[256], path[300];
	unit_mkdtemp(tmp, sizeof(tmp));
	for (size_t i = 0; i < ARRAY_SIZE_T(v); i++) {
		unsigned char *img = malloc(size);
		memcpy(img, orig, size);
		if (v[i].bytes)
			memcpy(img + size - v[i].from_end, v[i].bytes, v[i].n);
		/* from memory (digest computed when read) and from a file (read again) */
		for (int file = 0; file < 2; file++) {
			struct ksc_module *m = NULL;
			struct ksc_signature_info si;
			int r;
			if (file) {
				snprintf(path, sizeof(path), "%s/v%zu.ko", tmp, i);
				FILE *f = fopen(path, "w");
				assert_non_null(f);
				assert_int_equal(fwrite(img, 1, size, f), size);
				fclose(f);
				r = ksc_module_new_from_path(env->ctx, path, &m);
			} else {
				r = ksc_module_new_from_memory(env->ctx, "v.ko", img, size, &m);
			}
			if (r < 0)
				fail_msg("%s: read: %d\n%s", v[i].what, r, env->log);
			r = ksc_module_get_signature(m, &si);
			if (r != v[i].info_err)
				fail_msg("%s (%s): info %d, expected %d", v[i].what,
					 file ? "file" : "memory", r, v[i].info_err);
			r = ksc_module_verify_signature(m, kr, NULL);
			if (r != v[i].verify_err)
				fail_msg("%s (%s): verify %d, expected %d", v[i].what,
					 file ? "file" : "memory", r, v[i].verify_err);
			if (strcmp(v[i].what, "id_type 1 (X509)") == 0) {
				/* kmod's pre-4.3 view: signer and key id are raw bytes (none here) */
				assert_string_equal(si.id_type, "X509");
				assert_string_equal(si.signer, "");
				assert_int_equal(si.key_id_len, 0);
				assert_string_equal(si.hash_algo, "md4");
				assert_int_equal(si.sig_len, ksc_module_get_signature_size(m) - 40);
			}
			ksc_module_unref(m);
		}
		free(img);
	}

	/* PKCS#7 garbage of the right length */
	unsigned char *img = malloc(size);
	memcpy(img, orig, size);
	uint32_t sig_len = (uint32_t)img[size - 32] << 24 | (uint32_t)img[size - 31] << 16 |
			   (uint32_t)img[size - 30] << 8 | img[size - 29];
	memset(img + size - info - sig_len, 0x5a, sig_len);
	struct ksc_module *m;
	struct ksc_signature_info si;
	assert_int_equal(ksc_module_new_from_memory(env->ctx, "g.ko", img, size, &m), 0);
	assert_int_equal(ksc_module_get_signature(m, &si), -EBADMSG);
	assert_int_equal(ksc_module_verify_signature(m, kr, NULL), -EBADMSG);
	ksc_module_unref(m);
	/* the module's own bytes changed: from memory too */
	memcpy(img, orig, size);
	img[12] ^= 1;
	assert_int_equal(ksc_module_new_from_memory(env->ctx, "e.ko", img, size, &m), 0);
	assert_int_equal(ksc_module_verify_signature(m, kr, NULL), -EKEYREJECTED);
	ksc_module_unref(m);
	free(img);
	free(orig);
	ksc_keyring_unref(kr);
	unit_rm_rf(tmp);
}

/*
 * The file is replaced, or removed, after it was read: verification judges the bytes read
 * (their digest made while they were in memory) and reads nothing again.
 */
static void test_stale(void **state)
{
	struct test_env *env = *state;
	char tmp[256], path[300], cmd[1024];

	NEED_SIGNED();
	unit_mkdtemp(tmp, sizeof(tmp));
	snprintf(path, sizeof(path), "%s/m.ko", tmp);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", fx("signed/fx-user-rsa.ko"), path);
	assert_int_equal(system(cmd), 0);
	struct ksc_module *m = read_mod(env, path);
	struct ksc_keyring *kr = keyring(env, fx("signed/two.pem"), NULL);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", fx("signed/fx-user-ec.ko"), path);
	assert_int_equal(system(cmd), 0);
	test_log_clear(env);
	const struct ksc_key *key = NULL;
	assert_int_equal(ksc_module_verify_signature(m, kr, &key), 0);
	assert_non_null(key);
	assert_false(test_log_has(env, "changed since it was read"));
	ksc_module_unref(m);
	/* gone: the same */
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", fx("signed/fx-user-rsa.ko"), path);
	assert_int_equal(system(cmd), 0);
	m = read_mod(env, path);
	unlink(path);
	assert_int_equal(ksc_module_verify_signature(m, kr, NULL), 0);
	ksc_module_unref(m);
	/* the bytes read were changed after signing: rejected, though the file is whole now */
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && printf 'x' | dd of='%s' bs=1 seek=100 conv=notrunc 2>/dev/null",
		 fx("signed/fx-user-rsa.ko"), path, path);
	assert_int_equal(system(cmd), 0);
	m = read_mod(env, path);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", fx("signed/fx-user-rsa.ko"), path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(ksc_module_verify_signature(m, kr, NULL), -EKEYREJECTED);
	ksc_module_unref(m);
	ksc_keyring_unref(kr);
	unit_rm_rf(tmp);
}

/* ---- the loader view ---- */

/* Debian 6.1's exports fx-user.ko uses, with its CRCs; dma_buf_get in namespace `ns`. */
static struct ksc_kernel *kernel(struct test_env *env, bool sig, bool force, const char *ns)
{
	struct ksc_kernel *k;
	struct ksc_symvers *sv;
	char text[512];

	snprintf(text, sizeof(text),
		 "0x1ea9b2c1\t_printk\tvmlinux\tEXPORT_SYMBOL\t\n"
		 "0x037a0cba\tkfree\tvmlinux\tEXPORT_SYMBOL\t\n"
		 "0xdeb0f5d1\tdebugfs_create_dir\tvmlinux\tEXPORT_SYMBOL_GPL\t\n"
		 "0xd3ab0f00\tdma_buf_get\tvmlinux\tEXPORT_SYMBOL_GPL\t%s\n", ns ? ns : "DMA_BUF");
	assert_int_equal(ksc_kernel_new(env->ctx, &k), 0);
	assert_int_equal(ksc_symvers_new_from_memory(env->ctx, "S", text, strlen(text), &sv), 0);
	assert_int_equal(ksc_kernel_add_symvers(k, sv), 0);
	ksc_symvers_unref(sv);
	for (int i = 0; i < KSC_CONFIG_COUNT; i++)
		ksc_kernel_set_config(k, (enum ksc_kconfig)i, false);
	ksc_kernel_set_config(k, KSC_CONFIG_MODVERSIONS, true);
	ksc_kernel_set_config(k, KSC_CONFIG_MODULE_SIG, sig);
	ksc_kernel_set_config(k, KSC_CONFIG_MODULE_SIG_FORCE, force);
	assert_int_equal(ksc_kernel_set_release(k, "6.1.0-57-amd64"), 0);
	return k;
}

struct outcome {
	int err;
	char codes[512];  /* "code code ..." of the loader's findings */
	char lines[1024]; /* the kernel's lines */
};

static void check(struct test_env *env, struct ksc_kernel *k, const char *path,
		  const char *policy, struct outcome *o)
{
	struct ksc_module *m = read_mod(env, path);
	struct ksc_report *rep;
	struct ksc_check_opts opts = { .sz = sizeof(opts), .policy = policy,
				       .allow_missing_ns = -1, .views = KSC_VIEW_LOADER };

	assert_int_equal(ksc_check_modules(k, &m, 1, &opts, &rep), 0);
	memset(o, 0, sizeof(*o));
	o->err = ksc_report_get_verdict(rep, 0)->loader_err;
	for (size_t i = 0; i < ksc_report_get_diag_count(rep); i++) {
		const struct ksc_diag *d = ksc_report_get_diag(rep, i);
		if (strcmp(d->code, "weak-unresolved") == 0)
			continue; /* fx_optional_hook, in every case */
		size_t n = strlen(o->codes);
		snprintf(o->codes + n, sizeof(o->codes) - n, "%s%s", n ? " " : "", d->code);
		if (d->kernel_lines) {
			n = strlen(o->lines);
			snprintf(o->lines + n, sizeof(o->lines) - n, "%s\n", d->kernel_lines);
		}
	}
	ksc_report_unref(rep);
	ksc_module_unref(m);
}

static void test_loader(void **state)
{
	struct test_env *env = *state;
	struct outcome o;

	NEED_SIGNED();
	struct ksc_keyring *kr = keyring(env, fx("signed/rsa.pem"), NULL);
	struct ksc_kernel *k = kernel(env, true, false, NULL);

	/* no key known: a well-formed signature is assumed valid, and -v says so */
	check(env, k, fx("signed/fx-user-edited.ko"), NULL, &o);
	assert_int_equal(o.err, 0);
	assert_string_equal(o.codes, "sig-unverified");
	assert_string_equal(o.lines, "");
	/* a broken PKCS#7 needs no key to be refused */
	check(env, k, fx("x86_64/fx-user-signed.ko"), NULL, &o);
	assert_int_equal(o.err, -EBADMSG);
	assert_string_equal(o.codes, "sig-malformed");
	assert_string_equal(o.lines, "");

	ksc_kernel_set_keyring(k, kr);
	assert_ptr_equal(ksc_kernel_get_keyring(k), kr);
	/* valid: nothing to say */
	check(env, k, fx("signed/fx-user-rsa.ko"), NULL, &o);
	assert_int_equal(o.err, 0);
	assert_string_equal(o.codes, "");
	/* edited after signing: -EKEYREJECTED, the kernel prints nothing (LOADER.md) */
	check(env, k, fx("signed/fx-user-edited.ko"), NULL, &o);
	assert_int_equal(o.err, -EKEYREJECTED);
	assert_string_equal(o.codes, "sig-rejected");
	assert_string_equal(o.lines, "");
	/* another key: treated as unsigned (taint E), and an intree claim without proof */
	check(env, k, fx("signed/fx-user-ec.ko"), NULL, &o);
	assert_int_equal(o.err, 0);
	assert_string_equal(o.codes, "intree-foreign-key taint-unsigned");
	assert_string_equal(o.lines, "fx_user: module verification failed: signature and/or required key missing - tainting kernel\n");
	/* unsigned */
	check(env, k, fx("x86_64/fx-user.ko"), NULL, &o);
	assert_int_equal(o.err, 0);
	assert_string_equal(o.codes, "intree-unsigned taint-unsigned");
	ksc_kernel_unref(k);

	/* enforced: every signature that is not valid is refused */
	k = kernel(env, true, true, NULL);
	ksc_kernel_set_keyring(k, kr);
	check(env, k, fx("signed/fx-user-ec.ko"), NULL, &o);
	assert_int_equal(o.err, -EKEYREJECTED);
	assert_string_equal(o.codes, "sig-unknown-key");
	assert_string_equal(o.lines, "Loading of module with unavailable key is rejected\n");
	check(env, k, fx("x86_64/fx-user.ko"), NULL, &o);
	assert_int_equal(o.err, -EKEYREJECTED);
	assert_string_equal(o.lines, "Loading of unsigned module is rejected\n");
	check(env, k, fx("signed/fx-user-rsa.ko"), NULL, &o);
	assert_int_equal(o.err, 0);
	check(env, k, fx("signed/fx-user-edited.ko"), NULL, &o);
	assert_int_equal(o.err, -EKEYREJECTED);
	assert_string_equal(o.codes, "sig-rejected");
	ksc_kernel_unref(k);

	/* CONFIG_MODULE_SIG off: the loader ignores signatures; provenance is still told */
	k = kernel(env, false, false, NULL);
	ksc_kernel_set_keyring(k, kr);
	check(env, k, fx("signed/fx-user-edited.ko"), NULL, &o);
	assert_int_equal(o.err, 0);
	assert_string_equal(o.codes, "intree-bad-signature");
	check(env, k, fx("signed/fx-user-ec.ko"), NULL, &o);
	assert_string_equal(o.codes, "intree-foreign-key");
	ksc_kernel_set_keyring(k, NULL);
	check(env, k, fx("x86_64/fx-user.ko"), NULL, &o);
	assert_string_equal(o.codes, ""); /* unsigned is the norm there */
	ksc_kernel_unref(k);

	/* 6.16+: a module granted a module-restricted export by its name */
	k = kernel(env, true, false, "module:fx_user");
	ksc_kernel_set_keyring(k, kr);
	check(env, k, fx("signed/fx-user-rsa.ko"), "6.16", &o);
	assert_int_equal(o.err, 0);
	assert_string_equal(o.codes, "");
	check(env, k, fx("signed/fx-user-ec.ko"), "6.16", &o);
	assert_string_equal(o.codes, "intree-foreign-key taint-unsigned modns-foreign-key");
	check(env, k, fx("x86_64/fx-user.ko"), "6.16", &o);
	assert_string_equal(o.codes, "intree-unsigned taint-unsigned modns-unsigned");
	ksc_kernel_unref(k);
	ksc_keyring_unref(kr);
}

/* id_type 1 (pre-4.3 format): the kernel says so, then treats it as unsigned. */
static void test_loader_nopkg(void **state)
{
	struct test_env *env = *state;
	char tmp[256], path[300];
	size_t size = 0;
	struct outcome o;

	NEED_SIGNED();
	unsigned char *img = (unsigned char *)unit_read_file(fx("signed/fx-user-rsa.ko"), &size);
	assert_non_null(img);
	img[size - 28 - 12 + 2] = 1;
	unit_mkdtemp(tmp, sizeof(tmp));
	snprintf(path, sizeof(path), "%s/fx-user.ko", tmp);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(img, 1, size, f), size);
	fclose(f);
	free(img);

	struct ksc_kernel *k = kernel(env, true, false, NULL);
	check(env, k, path, NULL, &o);
	assert_int_equal(o.err, 0);
	assert_string_equal(o.codes, "sig-unsupported intree-bad-signature taint-unsigned");
	assert_string_equal(o.lines, "module: not signed with expected PKCS#7 message\n"
				     "fx_user: module verification failed: signature and/or required key missing - tainting kernel\n");
	ksc_kernel_unref(k);
	k = kernel(env, true, true, NULL);
	check(env, k, path, NULL, &o);
	assert_int_equal(o.err, -EKEYREJECTED);
	assert_string_equal(o.lines, "module: not signed with expected PKCS#7 message\n"
				     "Loading of module with unsupported crypto is rejected\n");
	ksc_kernel_unref(k);
	unit_rm_rf(tmp);
}

/* ---- Debian's real 6.1 kernel (cache of scripts/fetch-debian-kernel.sh) ---- */

static void test_debian(void **state)
{
	struct test_env *env = *state;
	char root[1024], dir[1100], image[1100];

	if (!unit_debian_file(image, sizeof(image), "boot/vmlinuz-%s")) {
		fprintf(stderr, "# needs the network: no Debian 6.1 kernel in the cache "
				"(make check-real fetches it)\n");
		skip();
	}
	snprintf(root, sizeof(root), "%.*s", (int)(strstr(image, "/boot/vmlinuz-") - image), image);
	const char *kver = strstr(image, "/boot/vmlinuz-") + strlen("/boot/vmlinuz-");

	/* the built-in key, straight from the bzImage */
	struct ksc_keyring *kr = keyring(env, NULL, NULL);
	assert_int_equal(ksc_keyring_add_kernel(kr, root, kver), 1);
	const struct ksc_key *k = ksc_keyring_get_key(kr, 0);
	assert_string_equal(k->subject, "Build time autogenerated kernel key");
	assert_string_equal(k->key_algo, "rsa");
	assert_int_equal(k->bits, 4096);

	/* every module below kernel/lib verifies; an edited copy does not */
	snprintf(dir, sizeof(dir), "%s/lib/modules/%s/kernel/lib", root, kver);
	DIR *d = opendir(dir);
	struct dirent *de;
	unsigned n = 0;
	assert_non_null(d);
	while ((de = readdir(d))) {
		char p[1400];
		size_t l = strlen(de->d_name);
		if (l < 4 || strcmp(de->d_name + l - 3, ".ko") != 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		struct ksc_module *m = read_mod(env, p);
		const struct ksc_key *by = NULL;
		int r = ksc_module_verify_signature(m, kr, &by);
		if (r != 0)
			fail_msg("%s: %d", p, r);
		assert_ptr_equal(by, k);
		ksc_module_unref(m);
		n++;
	}
	closedir(d);
	assert_true(n > 10);

	char p[1400];
	size_t size;
	snprintf(p, sizeof(p), "%s/crc7.ko", dir);
	unsigned char *img = (unsigned char *)unit_read_file(p, &size);
	assert_non_null(img);
	img[0x100] ^= 0x80;
	struct ksc_module *m;
	assert_int_equal(ksc_module_new_from_memory(env->ctx, "crc7.ko", img, size, &m), 0);
	assert_int_equal(ksc_module_verify_signature(m, kr, NULL), -EKEYREJECTED);
	ksc_module_unref(m);
	free(img);
	ksc_keyring_unref(kr);

	/* the extracted ELF vmlinux, when there: the same certificate */
	if (unit_debian_file(image, sizeof(image), "vmlinux")) {
		struct ksc_module *vm = read_mod(env, image);
		assert_int_equal(ksc_module_get_certificate_count(vm), 1);
		ksc_module_unref(vm);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_info_rsa, test_env_setup, test_env_teardown),
		cmocka_unit_test_setup_teardown(test_info_unsigned_and_keyid, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_keyring_files, test_env_setup, test_env_teardown),
		cmocka_unit_test_setup_teardown(test_keyring_errors, test_env_setup, test_env_teardown),
		cmocka_unit_test_setup_teardown(test_keyring_image, test_env_setup, test_env_teardown),
		cmocka_unit_test_setup_teardown(test_verify, test_env_setup, test_env_teardown),
		cmocka_unit_test_setup_teardown(test_verify_keyid, test_env_setup, test_env_teardown),
		cmocka_unit_test_setup_teardown(test_malformed, test_env_setup, test_env_teardown),
		cmocka_unit_test_setup_teardown(test_stale, test_env_setup, test_env_teardown),
		cmocka_unit_test_setup_teardown(test_loader, test_env_setup, test_env_teardown),
		cmocka_unit_test_setup_teardown(test_loader_nopkg, test_env_setup, test_env_teardown),
		cmocka_unit_test_setup_teardown(test_debian, test_env_setup, test_env_teardown),
	};

	return cmocka_run_group_tests_name("signatures", tests, NULL, NULL);
}
