// SPDX-License-Identifier: GPL-2.0
/*
 * name_storm.c - stat(), statx() and open() by names of every length class
 * patch 4 distinguishes (short, at the 160-byte edge, long, PATH_MAX - 1,
 * too long, running into an unmapped page), while a second process renames,
 * unlinks, recreates and chmods the files and a third switches the stat:*
 * events on and off.  For the debug variant (KASAN, KFENCE, lockdep): the
 * kernel's own checkers are the oracle; this program only checks that every
 * call returns success or an errno the race explains.
 *
 * Usage: name_storm DIR CALLS SEED
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define EVENTS "/sys/kernel/tracing/events/stat/enable"

static char names[2][PATH_MAX + 64];	/* DIR/a and DIR/b */

static void die(const char *what)
{
	perror(what);
	exit(2);
}

/* A name for @target of @len bytes: DIR, slashes, "/a". */
static const char *padded(char *buf, const char *target, size_t len)
{
	const char *slash = strrchr(target, '/');
	size_t head = slash - target, tail = strlen(slash);

	if (len < head + tail)
		len = head + tail;
	memcpy(buf, target, head);
	memset(buf + head, '/', len - head - tail);
	memcpy(buf + len - tail, slash, tail + 1);
	return buf;
}

static void mutator(void)
{
	unsigned int i;

	for (i = 0;; i++) {
		int fd;

		if (rename(names[i & 1], names[!(i & 1)]) && errno != ENOENT)
			die("rename");
		if (i % 7 == 0) {
			unlink(names[0]);
			unlink(names[1]);
			fd = open(names[i & 1], O_WRONLY | O_CREAT, 0644);
			if (fd >= 0)
				close(fd);
		}
		if (i % 5 == 0)
			chmod(names[!(i & 1)], 0600 | (i & 0044));
	}
}

static void event_switch(void)
{
	unsigned int i;

	for (i = 0;; i++) {
		int fd = open(EVENTS, O_WRONLY);

		if (fd < 0)
			return;	/* no stat:* events (stock): nothing to switch */
		if (write(fd, i & 1 ? "1" : "0", 1) != 1)
			die("write " EVENTS);
		close(fd);
		usleep(1000);
	}
}

static pid_t spawn(void (*fn)(void))
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		fn();
		_exit(0);
	}
	return pid;
}

int main(int argc, char **argv)
{
	static const size_t lens[] = { 0, 100, 158, 159, 160, 161, 192, 1024,
				       4063, 4064, PATH_MAX - 1, PATH_MAX,
				       PATH_MAX + 10 };
	static char buf[PATH_MAX + 64];
	unsigned long calls, i, counts[4] = { 0 };
	long page = sysconf(_SC_PAGESIZE);
	pid_t kids[2];
	char *edge;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: name_storm DIR CALLS SEED\n");
		return 2;
	}
	calls = strtoul(argv[2], NULL, 0);
	srandom(strtoul(argv[3], NULL, 0));
	printf("name_storm: %lu calls in %s, seed %s\n", calls, argv[1], argv[3]);
	snprintf(names[0], sizeof(names[0]), "%s/a", argv[1]);
	snprintf(names[1], sizeof(names[1]), "%s/b", argv[1]);
	fd = open(names[0], O_WRONLY | O_CREAT, 0644);
	if (fd < 0)
		die(names[0]);
	close(fd);
	/* A page whose successor is unmapped, for names that run into it. */
	edge = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (edge == MAP_FAILED || mprotect(edge + page, page, PROT_NONE))
		die("mmap");
	memset(edge, '/', page);

	kids[0] = spawn(mutator);
	kids[1] = spawn(event_switch);
	for (i = 0; i < calls; i++) {
		long r = random();
		size_t len = lens[r % (sizeof(lens) / sizeof(lens[0]))];
		const char *name = padded(buf, names[(r >> 8) & 1], len);
		struct statx stx;
		struct stat st;
		long ret;
		int ok_errno;

		if (((r >> 12) & 15) == 0) {
			/* No NUL before the unmapped page. */
			name = edge + page - 1 - (len % page);
		}
		switch ((r >> 9) & 3) {
		case 0:
			ret = syscall(SYS_newfstatat, AT_FDCWD, name, &st, 0);
			break;
		case 1:
			ret = syscall(SYS_statx, AT_FDCWD, name, 0,
				      STATX_BASIC_STATS, &stx);
			break;
		default:
			ret = open(name, O_RDONLY);
			if (ret >= 0)
				close(ret);
			break;
		}
		if (ret >= 0) {
			counts[0]++;
			continue;
		}
		ok_errno = errno == ENOENT || errno == ENAMETOOLONG ||
			   errno == EFAULT;
		counts[errno == ENOENT ? 1 : errno == ENAMETOOLONG ? 2 : 3]++;
		if (!ok_errno) {
			fprintf(stderr, "call %lu: name of %zu bytes: %s\n",
				i, strlen(buf), strerror(errno));
			kill(kids[0], SIGKILL);
			kill(kids[1], SIGKILL);
			return 1;
		}
	}
	kill(kids[0], SIGKILL);
	kill(kids[1], SIGKILL);
	waitpid(kids[0], NULL, 0);
	waitpid(kids[1], NULL, 0);
	printf("name_storm: %lu ok, %lu ENOENT, %lu ENAMETOOLONG, %lu EFAULT\n",
	       counts[0], counts[1], counts[2], counts[3]);
	return 0;
}
