// SPDX-License-Identifier: GPL-2.0
/*
 * stat_n.c - make exactly N calls of one stat-family system call: the
 * known workload the traces/ scripts are checked against.
 *
 * usage: stat_n CALL N PATH [MASK] [FLAGS]
 *   CALL: statx (by path), statx_fd (fd, ""), stat (newfstatat by path),
 *         fstatat_fd (newfstatat(fd, "", AT_EMPTY_PATH)), fstat (raw fstat)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned int mask, i, n;
	struct statx stx;
	struct stat st;
	int flags, fd = -1;
	long ret = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: stat_n CALL N PATH [MASK] [FLAGS]\n");
		return 2;
	}
	n = strtoul(argv[2], NULL, 0);
	mask = argc > 4 ? strtoul(argv[4], NULL, 0) : STATX_BASIC_STATS;
	flags = argc > 5 ? strtol(argv[5], NULL, 0) : 0;
	if (!strcmp(argv[1], "statx_fd") || !strcmp(argv[1], "fstat") ||
	    !strcmp(argv[1], "fstatat_fd")) {
		fd = open(argv[3], O_RDONLY);
		if (fd < 0) {
			perror(argv[3]);
			return 1;
		}
	}
	for (i = 0; i < n; i++) {
		if (!strcmp(argv[1], "statx"))
			ret = syscall(SYS_statx, AT_FDCWD, argv[3], flags, mask, &stx);
		else if (!strcmp(argv[1], "statx_fd"))
			ret = syscall(SYS_statx, fd, "", flags | AT_EMPTY_PATH, mask, &stx);
		else if (!strcmp(argv[1], "stat"))
			ret = syscall(SYS_newfstatat, AT_FDCWD, argv[3], &st, flags);
		else if (!strcmp(argv[1], "fstatat_fd"))
			ret = syscall(SYS_newfstatat, fd, "", &st, flags | AT_EMPTY_PATH);
		else if (!strcmp(argv[1], "fstat"))
			ret = syscall(SYS_fstat, fd, &st);
		else
			return 2;
		if (ret) {
			perror(argv[1]);
			return 1;
		}
	}
	return 0;
}
