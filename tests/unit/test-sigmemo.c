// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Kept signature verdicts (lib/readers/ksc-sig-memo.c): a verdict taken from the memo
 * folder is exactly the one computed (every field, the key included), is taken without
 * parsing the keys, and is not taken for other bytes (one changed byte of the module, a
 * record of another module put in its place) or other keys. The signed fixtures are
 * those of test-sig.c (tests/fixtures/signed.mk); without openssl these tests skip.
 */
#include "unit.h"

#include <errno.h>
#include <sys/stat.h>

#include "readers/readers.h"
#include "readers/ksc-sig.h"

static char *fx(const char *rel)
{
	static char buf[8][1024];
	static int next;
	const char *f = getenv("FIXTURES");
	char *b = buf[next++ % 8];

	snprintf(b, sizeof(buf[0]), "%s/%s", f && *f ? f : "build/fixtures", rel);
	return b;
}

#define NEED_SIGNED()                                                                      \
	do {                                                                               \
		if (access(fx("signed/fx-user-rsa.ko"), R_OK) != 0) {                      \
			fprintf(stderr, "# no signed fixtures (tests/fixtures/signed.mk)\n"); \
			skip();                                                            \
		}                                                                          \
	} while (0)

static struct ksc_module *read_mod(struct test_env *env, const char *path)
{
	struct ksc_module *m = NULL;

	if (ksc_module_new_from_path(env->ctx, path, &m) < 0)
		fail_msg("%s: cannot read\n%s", path, env->log);
	return m;
}

/* A keyring of `cert`, its verdicts kept in `memo`. */
static struct ksc_keyring *keyring(struct test_env *env, const char *cert, const char *memo)
{
	struct ksc_keyring *kr;

	assert_int_equal(ksc_keyring_new(env->ctx, &kr), 0);
	assert_true(ksc_keyring_add_path(kr, cert) >= 0);
	assert_int_equal(ksc_keyring_set_memo(kr, memo), 0);
	return kr;
}

/* A keyring of DER certificates handed over as a kernel image's (kept, parsed on use). */
static struct ksc_keyring *image_keyring(struct test_env *env, const char *a, const char *b,
					 const char *memo)
{
	struct ksc_keyring *kr;
	size_t na = 0, nb = 0;
	char *da = unit_read_file(a, &na), *db = b ? unit_read_file(b, &nb) : NULL;
	unsigned char *der = malloc(na + nb);

	assert_non_null(da);
	assert_non_null(der);
	memcpy(der, da, na);
	if (db)
		memcpy(der + na, db, nb);
	struct ksc_image_der img = { der, na + nb, b ? 2 : 1, true };
	assert_int_equal(ksc_keyring_new(env->ctx, &kr), 0);
	assert_int_equal(ksc_keyring_add_image_der(kr, "vmlinuz", &img), b ? 2 : 1);
	assert_int_equal(ksc_keyring_set_memo(kr, memo), 0);
	assert_false(atomic_load(&kr->parsed));
	free(der);
	free(da);
	free(db);
	return kr;
}

/* How many records the memo folder holds. */
static int records(const char *memo)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "exit $(find '%s' -type f 2>/dev/null | wc -l)", memo);
	return WEXITSTATUS(system(cmd));
}

static void same_eval(const struct ksc_sig_eval *a, const struct ksc_sig_eval *b)
{
	assert_int_equal(a->err, b->err);
	assert_int_equal(a->verified, b->verified);
	assert_int_equal(a->io_err, b->io_err);
	assert_string_equal(a->why, b->why);
	assert_true(!a->kernel_line == !b->kernel_line);
	if (a->kernel_line)
		assert_string_equal(a->kernel_line, b->kernel_line);
	assert_true(!a->key == !b->key);
	if (a->key) {
		assert_string_equal(a->key->subject, b->key->subject);
		assert_string_equal(a->key->serial, b->key->serial);
		assert_string_equal(a->key->source, b->key->source);
	}
}

/* Judged twice, each time with a new module and keyring: computed, then kept. */
static void kept_is_computed(struct test_env *env, const char *mod, const char *cert, int err)
{
	char tmp[256], memo[300];
	struct ksc_sig_eval computed, kept, judged;

	unit_mkdtemp(tmp, sizeof(tmp));
	snprintf(memo, sizeof(memo), "%s/sigs", tmp);
	struct ksc_module *m1 = read_mod(env, mod);
	struct ksc_keyring *kr1 = keyring(env, cert, memo); /* kept: computed.key is its */
	ksc_sig_evaluate(m1, kr1, &computed);
	assert_int_equal(computed.err, err);
	assert_int_equal(records(memo), 1);

	/* kept: the same verdict, its key included */
	struct ksc_module *m = read_mod(env, mod);
	struct ksc_keyring *kr = keyring(env, cert, memo);
	ksc_sig_evaluate(m, kr, &kept);
	same_eval(&computed, &kept);
	ksc_keyring_unref(kr);
	ksc_module_unref(m);
	ksc_keyring_unref(kr1);
	ksc_module_unref(m1);

	/* for the loader: no key parsed, the verdict the same but for its key */
	m = read_mod(env, mod);
	kr = keyring(env, cert, memo);
	ksc_sig_judge(m, kr, &judged);
	assert_int_equal(judged.err, computed.err);
	assert_int_equal(judged.verified, computed.verified);
	assert_string_equal(judged.why, computed.why);
	ksc_keyring_unref(kr);
	ksc_module_unref(m);
	assert_int_equal(records(memo), 1);
	unit_rm_rf(tmp);
}

static void test_kept_verdicts(void **state)
{
	struct test_env *env = *state;

	NEED_SIGNED();
	kept_is_computed(env, fx("signed/fx-user-rsa.ko"), fx("signed/rsa.pem"), 0);
	kept_is_computed(env, fx("signed/fx-user-rsa.ko"), fx("signed/two.pem"), 0);
	kept_is_computed(env, fx("signed/fx-user-ec.ko"), fx("signed/ec.der"), 0);
	kept_is_computed(env, fx("signed/fx-user-rsa512.ko"), fx("signed/rsa.pem"), 0);
	kept_is_computed(env, fx("signed/fx-user-rsa.ko.xz"), fx("signed/rsa.pem"), 0);
	kept_is_computed(env, fx("signed/fx-user-rsa.ko"), fx("signed/ec.pem"), -ENOKEY);
	kept_is_computed(env, fx("signed/fx-user-twin.ko"), fx("signed/rsa.pem"), -EKEYREJECTED);
	kept_is_computed(env, fx("signed/fx-user-edited.ko"), fx("signed/rsa.pem"),
			 -EKEYREJECTED);
}

/*
 * A kernel image's keys (kept as DER) are not parsed when the verdict is kept: the
 * loader's judgement of a module signed by the image's key.
 */
static void test_keys_not_parsed(void **state)
{
	struct test_env *env = *state;
	char tmp[256], memo[300];
	struct ksc_sig_eval ev;

	NEED_SIGNED();
	unit_mkdtemp(tmp, sizeof(tmp));
	snprintf(memo, sizeof(memo), "%s/sigs", tmp);
	for (int run = 0; run < 2; run++) {
		struct ksc_keyring *kr = image_keyring(env, fx("signed/rsa.der"), NULL, memo);
		struct ksc_module *m = read_mod(env, fx("signed/fx-user-rsa.ko"));
		ksc_sig_judge(m, kr, &ev);
		assert_int_equal(ev.err, 0);
		assert_true(ev.verified);
		assert_string_equal(ev.why, "signed by a trusted key");
		/* first computed (the keys parsed), then kept (none parsed) */
		assert_int_equal(atomic_load(&kr->parsed), run == 0);
		assert_int_equal(ksc_keyring_get_count(kr), 1); /* parses on demand */
		assert_string_equal(ksc_keyring_get_key(kr, 0)->subject, "ksymcheck test RSA key");
		ksc_module_unref(m);
		ksc_keyring_unref(kr);
	}
	unit_rm_rf(tmp);
}

/* One changed byte of the module, a record moved to its place, other keys: computed again. */
static void test_misses(void **state)
{
	struct test_env *env = *state;
	char tmp[256], memo[300], path[300], cmd[1200];
	struct ksc_sig_eval ev;

	NEED_SIGNED();
	unit_mkdtemp(tmp, sizeof(tmp));
	snprintf(memo, sizeof(memo), "%s/sigs", tmp);
	snprintf(path, sizeof(path), "%s/m.ko", tmp);
	struct ksc_module *m = read_mod(env, fx("signed/fx-user-rsa.ko"));
	struct ksc_keyring *kr = image_keyring(env, fx("signed/rsa.der"), NULL, memo);
	ksc_sig_evaluate(m, kr, &ev);
	assert_int_equal(ev.err, 0);
	ksc_module_unref(m);
	ksc_keyring_unref(kr);

	/* one byte changed in the signed bytes: its own record, rejected */
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && printf 'x' | dd of='%s' bs=1 seek=100 conv=notrunc 2>/dev/null",
		 fx("signed/fx-user-rsa.ko"), path, path);
	assert_int_equal(system(cmd), 0);
	for (int run = 0; run < 2; run++) {
		m = read_mod(env, path);
		kr = image_keyring(env, fx("signed/rsa.der"), NULL, memo);
		ksc_sig_judge(m, kr, &ev);
		assert_int_equal(ev.err, -EKEYREJECTED);
		assert_int_equal(atomic_load(&kr->parsed), run == 0); /* then kept */
		ksc_module_unref(m);
		ksc_keyring_unref(kr);
	}
	assert_int_equal(records(memo), 2);

	/* the good module's record put in the edited module's place: still rejected */
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && good=$(ls -t */* | tail -n 1) && bad=$(ls -t */* | head -n 1) && cp \"$good\" \"$bad\"",
		 memo);
	assert_int_equal(system(cmd), 0);
	m = read_mod(env, path);
	kr = image_keyring(env, fx("signed/rsa.der"), NULL, memo);
	ksc_sig_judge(m, kr, &ev);
	assert_int_equal(ev.err, -EKEYREJECTED);
	assert_true(atomic_load(&kr->parsed)); /* computed */
	ksc_module_unref(m);
	ksc_keyring_unref(kr);

	/* another certificate beside the same key: another key set, computed again */
	m = read_mod(env, fx("signed/fx-user-rsa.ko"));
	kr = image_keyring(env, fx("signed/rsa.der"), fx("signed/ec.der"), memo);
	ksc_sig_judge(m, kr, &ev);
	assert_int_equal(ev.err, 0);
	assert_true(atomic_load(&kr->parsed));
	ksc_module_unref(m);
	ksc_keyring_unref(kr);
	/* the module's record is now the new key set's: the first set's is computed again */
	m = read_mod(env, fx("signed/fx-user-rsa.ko"));
	kr = image_keyring(env, fx("signed/rsa.der"), NULL, memo);
	ksc_sig_judge(m, kr, &ev);
	assert_int_equal(ev.err, 0);
	assert_true(atomic_load(&kr->parsed));
	ksc_module_unref(m);
	ksc_keyring_unref(kr);
	unit_rm_rf(tmp);
}

/* A record: every shorter prefix and every flipped byte refused; the whole one taken. */
static void test_record(void **state)
{
	struct test_env *env = *state;
	unsigned char blob[64] = "the inputs";
	struct sigmemo_key k = { blob, sizeof(blob), 1 };
	struct ksc_sig_eval ev = { .err = -ENOKEY, .verified = true,
				   .why = "signed by a key that is not among the trusted keys" }, out;
	uint32_t ki;
	size_t n;

	(void)env;
	unsigned char *rec = ksc_sigmemo_encode(&k, &ev, UINT32_MAX, &n);
	assert_non_null(rec);
	assert_true(ksc_sigmemo_parse(rec, n, blob, sizeof(blob), &out, &ki));
	assert_int_equal(out.err, -ENOKEY);
	assert_string_equal(out.why, ev.why);
	assert_int_equal(ki, UINT32_MAX);
	blob[0] ^= 1; /* another key */
	assert_false(ksc_sigmemo_parse(rec, n, blob, sizeof(blob), &out, &ki));
	blob[0] ^= 1;
	for (size_t i = 0; i < n; i++) {
		assert_false(ksc_sigmemo_parse(rec, i, blob, sizeof(blob), &out, &ki));
		rec[i] ^= 0x20;
		assert_false(ksc_sigmemo_parse(rec, n, blob, sizeof(blob), &out, &ki));
		rec[i] ^= 0x20;
	}
	free(rec);
	/* a text the evaluation never gives, an I/O error: not kept */
	ev.why = "forged";
	assert_null(ksc_sigmemo_encode(&k, &ev, UINT32_MAX, &n));
	ev.why = "signed by a trusted key";
	ev.err = 0;
	ev.io_err = -EIO;
	assert_null(ksc_sigmemo_encode(&k, &ev, UINT32_MAX, &n));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kept_verdicts, test_env_setup, test_env_teardown),
		cmocka_unit_test_setup_teardown(test_keys_not_parsed, test_env_setup, test_env_teardown),
		cmocka_unit_test_setup_teardown(test_misses, test_env_setup, test_env_teardown),
		cmocka_unit_test_setup_teardown(test_record, test_env_setup, test_env_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
