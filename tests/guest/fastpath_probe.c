// SPDX-License-Identifier: GPL-2.0
/*
 * fastpath_probe.c - one stat-family call per line of output, for the
 * behaviour the series' lookup-free paths change (tests/guest/behaviour.sh).
 *
 * usage: fastpath_probe [-r COMMAND] PATH CALL...
 *   Opens PATH read-only, then makes each CALL once and prints
 *   "phase=before pid=P call=C ret=R errno=E ino=I size=S".  With -r, it then
 *   runs COMMAND (sh -c: the file replaced on the NFS server, say) and
 *   makes every CALL again, phase=after, on the same descriptor.
 *   CALL: fstat, fstatat_empty (newfstatat(fd, "", AT_EMPTY_PATH)),
 *   fstatat_null, statx_empty, statx_null (AT_EMPTY_PATH), stat_path
 *   (newfstatat(AT_FDCWD, PATH, 0)), statx_path.
 *
 * Linked statically: the dynamic loader's own fstat() calls would land in
 * an audit log filtered by the probe's uid.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * A line to stdout with write(2): stdio would fstat() the descriptor first,
 * a newfstatat() the audit rule would see as one of the probe's calls.
 */
static void __attribute__((format(printf, 1, 2))) say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0 && write(1, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1) < 0)
		exit(1);
}

static long one(const char *call, int fd, const char *path,
		unsigned long long *ino, long long *size)
{
	struct statx stx;
	struct stat st;
	long ret;
	int x = 0;

	memset(&stx, 0, sizeof(stx));
	memset(&st, 0, sizeof(st));
	if (!strcmp(call, "fstat"))
		ret = syscall(SYS_fstat, fd, &st);
	else if (!strcmp(call, "fstatat_empty"))
		ret = syscall(SYS_newfstatat, fd, "", &st, AT_EMPTY_PATH);
	else if (!strcmp(call, "fstatat_null"))
		ret = syscall(SYS_newfstatat, fd, NULL, &st, AT_EMPTY_PATH);
	else if (!strcmp(call, "stat_path"))
		ret = syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0);
	else if (!strcmp(call, "statx_empty"))
		x = 1, ret = syscall(SYS_statx, fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx);
	else if (!strcmp(call, "statx_null"))
		x = 1, ret = syscall(SYS_statx, fd, NULL, AT_EMPTY_PATH, STATX_BASIC_STATS, &stx);
	else if (!strcmp(call, "statx_path"))
		x = 1, ret = syscall(SYS_statx, AT_FDCWD, path, 0, STATX_BASIC_STATS, &stx);
	else {
		fprintf(stderr, "fastpath_probe: unknown call %s\n", call);
		exit(2);
	}
	*ino = x ? stx.stx_ino : st.st_ino;
	*size = x ? (long long)stx.stx_size : (long long)st.st_size;
	return ret;
}

static void run(const char *phase, int fd, const char *path, int n, char **calls)
{
	unsigned long long ino;
	long long size;
	long ret;
	int i, e;

	for (i = 0; i < n; i++) {
		errno = 0;
		ret = one(calls[i], fd, path, &ino, &size);
		e = ret < 0 ? errno : 0;
		say("phase=%s pid=%d call=%s ret=%ld errno=%s ino=%llu size=%lld\n",
		    phase, getpid(), calls[i], ret, e ? strerrorname_np(e) : "0",
		    ret < 0 ? 0 : ino, ret < 0 ? 0 : size);
	}
}

int main(int argc, char **argv)
{
	const char *cmd = NULL;
	int fd, opt;

	while ((opt = getopt(argc, argv, "r:")) != -1) {
		if (opt != 'r') {
			fprintf(stderr, "usage: fastpath_probe [-r COMMAND] PATH CALL...\n");
			return 2;
		}
		cmd = optarg;
	}
	if (argc - optind < 2) {
		fprintf(stderr, "usage: fastpath_probe [-r COMMAND] PATH CALL...\n");
		return 2;
	}
	fd = open(argv[optind], O_RDONLY);
	if (fd < 0) {
		perror(argv[optind]);
		return 1;
	}
	run("before", fd, argv[optind], argc - optind - 1, argv + optind + 1);
	if (cmd) {
		if (system(cmd) != 0) {
			fprintf(stderr, "fastpath_probe: '%s' failed\n", cmd);
			return 1;
		}
		run("after", fd, argv[optind], argc - optind - 1, argv + optind + 1);
	}
	return 0;
}
