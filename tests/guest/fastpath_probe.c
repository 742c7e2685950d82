// SPDX-License-Identifier: GPL-2.0
/*
 * fastpath_probe.c - one stat-family call per line of output, for the
 * behaviour the series' lookup-free paths change (tests/guest/behaviour.sh).
 *
 * usage: fastpath_probe [-C DIR] [-m MOUNT] [-r COMMAND] PATH CALL...
 *   Opens PATH read-only, then makes each CALL once and prints
 *   "phase=before pid=P call=C ret=R errno=E ino=I size=S".  With -r, it then
 *   runs COMMAND (sh -c: the file replaced on the NFS server, say) and
 *   makes every CALL again, phase=after, on the same descriptor.
 *   -C: chdir to DIR first (PATH may then be "."); -m: each line also
 *   gives the GETATTR and LOOKUP calls the NFS mount MOUNT made during the
 *   call (/proc/self/mountstats), "getattr=G lookup=L".
 *   CALL: fstat, fstatat_empty (newfstatat(fd, "", AT_EMPTY_PATH)),
 *   fstatat_null, statx_empty, statx_null (AT_EMPTY_PATH), stat_path
 *   (newfstatat(AT_FDCWD, PATH, 0)), statx_path, and the working
 *   directory's: cwd_fstatat_empty (newfstatat(AT_FDCWD, "",
 *   AT_EMPTY_PATH)), cwd_fstatat_null, cwd_statx_empty, cwd_statx_null.
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
	else if (!strcmp(call, "cwd_fstatat_empty"))
		ret = syscall(SYS_newfstatat, AT_FDCWD, "", &st, AT_EMPTY_PATH);
	else if (!strcmp(call, "cwd_fstatat_null"))
		ret = syscall(SYS_newfstatat, AT_FDCWD, NULL, &st, AT_EMPTY_PATH);
	else if (!strcmp(call, "cwd_statx_empty"))
		x = 1, ret = syscall(SYS_statx, AT_FDCWD, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx);
	else if (!strcmp(call, "cwd_statx_null"))
		x = 1, ret = syscall(SYS_statx, AT_FDCWD, NULL, AT_EMPTY_PATH, STATX_BASIC_STATS, &stx);
	else {
		fprintf(stderr, "fastpath_probe: unknown call %s\n", call);
		exit(2);
	}
	*ino = x ? stx.stx_ino : st.st_ino;
	*size = x ? (long long)stx.stx_size : (long long)st.st_size;
	return ret;
}

/* -m: the NFS mount whose calls each line counts. */
static const char *mount_point;

/*
 * The GETATTR and LOOKUP calls mount_point has made, from
 * /proc/self/mountstats, read with read(2): stdio would fstat() it.
 */
static void nfs_calls(unsigned long long *getattr, unsigned long long *lookup)
{
	static char buf[1 << 20];
	char want[300], *sec, *p;
	ssize_t n, len = 0;
	int fd = open("/proc/self/mountstats", O_RDONLY);

	if (fd < 0)
		exit(1);
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	/* The mount's own section, up to the next device's. */
	snprintf(want, sizeof(want), " mounted on %s with fstype nfs", mount_point);
	sec = strstr(buf, want);
	if (!sec) {
		say("fastpath_probe: %s is not an NFS mount\n", mount_point);
		exit(1);
	}
	p = strstr(sec + 1, "\ndevice ");
	if (p)
		*p = '\0';
	/* Per-operation lines: "\t%12s: ops transmissions ...". */
	p = strstr(sec, " GETATTR: ");
	*getattr = p ? strtoull(p + strlen(" GETATTR: "), NULL, 10) : 0;
	p = strstr(sec, " LOOKUP: ");
	*lookup = p ? strtoull(p + strlen(" LOOKUP: "), NULL, 10) : 0;
}

static void run(const char *phase, int fd, const char *path, int n, char **calls)
{
	unsigned long long ino, g0 = 0, l0 = 0, g1 = 0, l1 = 0;
	char counts[80] = "";
	long long size;
	long ret;
	int i, e;

	for (i = 0; i < n; i++) {
		if (mount_point)
			nfs_calls(&g0, &l0);
		errno = 0;
		ret = one(calls[i], fd, path, &ino, &size);
		e = ret < 0 ? errno : 0;
		if (mount_point) {
			nfs_calls(&g1, &l1);
			snprintf(counts, sizeof(counts), " getattr=%llu lookup=%llu",
				 g1 - g0, l1 - l0);
		}
		say("phase=%s pid=%d call=%s ret=%ld errno=%s ino=%llu size=%lld%s\n",
		    phase, getpid(), calls[i], ret, e ? strerrorname_np(e) : "0",
		    ret < 0 ? 0 : ino, ret < 0 ? 0 : size, counts);
	}
}

int main(int argc, char **argv)
{
	const char *cmd = NULL;
	int fd, opt;

	while ((opt = getopt(argc, argv, "C:m:r:")) != -1) {
		switch (opt) {
		case 'C':
			if (chdir(optarg)) {
				perror(optarg);
				return 1;
			}
			break;
		case 'm':
			mount_point = optarg;
			break;
		case 'r':
			cmd = optarg;
			break;
		default:
			fprintf(stderr, "usage: fastpath_probe [-C DIR] [-m MOUNT] [-r COMMAND] PATH CALL...\n");
			return 2;
		}
	}
	if (argc - optind < 2) {
		fprintf(stderr, "usage: fastpath_probe [-C DIR] [-m MOUNT] [-r COMMAND] PATH CALL...\n");
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
