// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * finit: the guest side of scripts/qemu-load.sh, run as a static binary from the /init of
 * a throw-away initramfs under qemu. It is not part of `make check`: qemu-load.sh builds
 * it with `cc -static -O2` into its cache folder.
 *
 * Usage:
 *   finit FILE...      for each FILE: write "ksc-harness: load <basename>" to /dev/kmsg,
 *                      call finit_module(fd, "", 0) once (no retry, unlike busybox
 *                      insmod, which would log every loader message twice), then print
 *                      "ksc-result: <basename> rc=<0|-errno> <OK|ERRNO-NAME> taint=<n>"
 *                      on stdout, <n> being /proc/sys/kernel/tainted after the call.
 *   finit --mark TEXT  write "ksc-harness: TEXT" to /dev/kmsg.
 *   finit --dump-kmsg  print every record of the kernel log buffer, read from /dev/kmsg
 *                      without blocking, as "ksc-kmsg: <prefix>;<text>" lines; <prefix>
 *                      is the record's "priority,sequence,microseconds,flags" and <text>
 *                      is the message as /dev/kmsg escapes it (\xNN for control bytes and
 *                      backslashes). Dictionary lines (" KEY=value") are skipped.
 *
 * Exit status: 0 when every call could be made (whatever finit_module returned), 1 when a
 * file could not be opened or /dev/kmsg could not be read, 2 on bad usage.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strerrorname_np */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static void kmsg_mark(const char *what, const char *arg)
{
	char line[1024];
	int n = snprintf(line, sizeof(line), "ksc-harness: %s%s%s\n", what, arg ? " " : "",
			 arg ? arg : "");
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "finit: /dev/kmsg: %s\n", strerror(errno));
		return;
	}
	if (n > 0 && write(fd, line, (size_t)n) < 0)
		fprintf(stderr, "finit: writing /dev/kmsg: %s\n", strerror(errno));
	close(fd);
}

static long read_taint(void)
{
	char buf[64] = "";
	long taint = -1;
	FILE *f = fopen("/proc/sys/kernel/tainted", "re");
	if (f) {
		if (fgets(buf, sizeof(buf), f))
			taint = strtol(buf, NULL, 10);
		fclose(f);
	}
	return taint;
}

static const char *errno_name(int e)
{
	static char fallback[32];
	const char *name = strerrorname_np(e);
	if (name)
		return name;
	snprintf(fallback, sizeof(fallback), "E%d", e);
	return fallback;
}

static int load_one(const char *path)
{
	const char *base = base_name(path);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		printf("ksc-result: %s rc=-%d %s taint=%ld open-failed\n", base, e, errno_name(e),
		       read_taint());
		fflush(stdout);
		return 1;
	}
	kmsg_mark("load", base);
	long rc = syscall(SYS_finit_module, fd, "", 0);
	int e = rc < 0 ? errno : 0;
	close(fd);
	if (rc == 0)
		printf("ksc-result: %s rc=0 OK taint=%ld\n", base, read_taint());
	else
		printf("ksc-result: %s rc=-%d %s taint=%ld\n", base, e, errno_name(e), read_taint());
	fflush(stdout);
	return 0;
}

static int dump_kmsg(void)
{
	static char rec[16384];
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "finit: /dev/kmsg: %s\n", strerror(errno));
		return 1;
	}
	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0) {
			if (errno == EAGAIN)
				break;
			if (errno == EPIPE) { /* records overwritten meanwhile: go on */
				printf("ksc-kmsg-lost\n");
				continue;
			}
			if (errno == EINTR)
				continue;
			fprintf(stderr, "finit: reading /dev/kmsg: %s\n", strerror(errno));
			close(fd);
			return 1;
		}
		if (n == 0)
			break;
		rec[n] = '\0';
		/* "prefix;text\n" then optional " KEY=value\n" dictionary lines */
		char *nl = strchr(rec, '\n');
		if (nl)
			*nl = '\0';
		printf("ksc-kmsg: %s\n", rec);
	}
	close(fd);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: finit FILE... | --mark TEXT | --dump-kmsg\n");
		return 2;
	}
	if (strcmp(argv[1], "--dump-kmsg") == 0)
		return dump_kmsg();
	if (strcmp(argv[1], "--mark") == 0) {
		if (argc != 3)
			return 2;
		kmsg_mark(argv[2], NULL);
		return 0;
	}
	int status = 0;
	for (int i = 1; i < argc; i++)
		status |= load_one(argv[i]);
	return status;
}
