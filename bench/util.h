/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util.h - what the benchmark programs (harness.c, hostcal.c) share: dying
 * with a message, the clock, medians, JSON strings, NFS operation counts.
 */
#ifndef STATX_BENCH_UTIL_H
#define STATX_BENCH_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

/*
 * Exit statuses of the benchmark programs, written down here only
 * (bench/SCHEMA.md quotes them).  A refusal names the setup that would
 * have made the numbers lie; bench/run.sh and the tests read the status,
 * never the message.
 */
enum bench_exit {
	EXIT_ERROR = 2,			/* bad usage, or an operation failed */
	EXIT_REFUSE_FS = 3,		/* DIR missing, or not on the --fs asked */
	EXIT_REFUSE_KERNEL = 4,		/* the kernel is not the --variant asked */
	EXIT_REFUSE_TCG_TIME = 5,	/* time mode under TCG, not allowed */
	EXIT_REFUSE_NO_ICOUNT = 6,	/* cost mode outside an -icount guest */
	EXIT_REFUSE_NO_ROOT = 7,	/* cold caches need root (drop_caches) */
};

/* "PROGRAM: message" on stderr, exit status EXIT_ERROR. */
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* "PROGRAM: refusing: message" on stderr, exit status @status. */
void refuse(enum bench_exit status, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

/*
 * CLOCK_MONOTONIC in ns: instructions in a cost-mode guest.  Inline: the
 * measured loops read it, and their overhead is measured with it.
 */
static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* qsort() order for doubles, and the median of @n values (unchanged). */
int cmp_double(const void *a, const void *b);
double median_of(const double *v, unsigned int n);

/* @s as a JSON string, quotes and control characters escaped. */
void json_str(FILE *f, const char *s);
void json_words(FILE *f, const char *s);

/*
 * Operation counts of the NFS mount on @mnt from /proc/self/mountstats:
 * @ops[i] for the operation named @names[i] (0 when absent); with
 * @write_bytes, also the bytes WRITE sent (its fourth field).
 */
void read_mountstats(const char *mnt, const char *const *names, unsigned int n,
		     uint64_t *ops, uint64_t *write_bytes);

/*
 * The value of KEY=VALUE on the kernel command line (sxs.mode=cost,
 * init_on_alloc=0) into @buf, or NULL when the word is not there.
 */
const char *cmdline_arg(const char *key, char *buf, size_t len);

#endif
