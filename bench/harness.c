// SPDX-License-Identifier: GPL-2.0
/*
 * harness.c - run the cases of cases.c: pinning, warm-up, iteration
 * sizing, repetition, clocks, loop-overhead subtraction, JSON output.
 *
 * Usage: statx-bench [options]
 *   --dir DIR          file system root to make the files in (d1/d2/d3/file
 *                      and a symlink beside it); without it only the cases
 *                      that need no file run
 *   --fs NAME          refuse unless DIR is on this file system
 *                      (ext4, tmpfs, nfs, afs)
 *   --variant NAME     refuse unless uname -r ends with -NAME
 *   --mode cost|time   cost: guest ns under QEMU -icount shift=0 are
 *                      instructions; time: wall clock.  Refuses time mode
 *                      under TCG unless --allow-tcg-time.
 *   --quick            only the cases marked quick
 *   --cases A,B,...    only these cases (shell patterns: stat.name*)
 *   --skip A,B,...     not these cases (shell patterns)
 *   --tags T,U,...     only the cases with one of these tags (cases.c)
 *   --skip-tags T,...  not the cases with one of these tags
 *   --samples N        samples per case (default 9 cost, 31 time)
 *   --ci-target F      time mode: add interleaved rounds until every case's
 *                      95% confidence interval of the median is within
 *                      +-F of it (default 0.01), or a limit is reached
 *   --max-samples N    time mode: at most N samples per case (default 20000;
 *                      --max-seconds is the limit that binds)
 *   --max-seconds S    time mode: stop adding rounds after S s (default 120)
 *   --budget NS        clock ns per sample, sizes the iterations
 *                      (default 400000)
 *   --label TEXT       names this configuration in the output
 *   --env KEY=VALUE    a fact about the setup, copied into the JSON
 *   --nfs-mount MNT    count NFS operations (GETATTR, ...) per call on
 *                      MNT from /proc/self/mountstats around each case
 *   --busy             also record, per sample, the guest's busy time per
 *                      call: the clock less the time the CPU was idle
 *                      (tick-sched's idle and iowait time, /proc/timer_list),
 *                      which in cost mode counts the instructions run by
 *                      every task, interrupt and softirq of the guest
 *                      (the caller, knfsd, rpciod, the network stack),
 *                      without the jumps of an idle guest's clock to its
 *                      next timer; needs one CPU online
 *   --afs-ops          count kafs's file-server calls (FetchStatus, ...)
 *                      and the callbacks it was sent, per call, from
 *                      hist triggers keyed on op on the afs:afs_make_fs_call*
 *                      and afs:afs_cb_call events (bench/guest-bench.sh
 *                      sets them)
 *   --stale-cmd CMD    run the cases marked stale (cases.c): before each of
 *                      their samples, sh -c CMD changes the file
 *                      ($STATX_BENCH_FILE, relative to DIR) behind
 *                      this client's back (AFS: a second client's write,
 *                      which breaks this one's callback); a sample is one
 *                      call
 *   --stale-symlink    run the cases marked stale on the symlink: before
 *                      each of their samples the harness removes the
 *                      symlink and makes it again (AFS: kafs holds no
 *                      callback promise on a symlink it has just made)
 *   --max-files N      studies: no directory of more than N files
 *                      (default 100000)
 *   --json FILE        write the results as JSON (bench/SCHEMA.md)
 *   --mix TTY          cost mode: after each case's samples, and first for
 *                      the empty body, run 5 calls each between two marker
 *                      functions, telling a host program on TTY where the
 *                      markers are and waiting for it (traces/mix.py reads
 *                      QEMU's exec log of the windows), and the clock
 *                      read around each window
 *   --list             list the cases and exit
 *   --ci-ranks N       print the ranks of the interval of the median of N
 *                      samples and its coverage ("r_lo r_hi coverage"),
 *                      and exit (a test compares them with scipy's)
 *   --list-tsv         the same for a program: one line per row of cases.c,
 *                      name, kind, call and tags separated by tabs (a
 *                      study's name is its row's pattern, "depth.%ld.stat")
 *
 * A study (cases.c's scaling study, tag scale) runs only when --tags or
 * --cases asks for it: a row once per parameter, a file's depth or a
 * directory's size.  Its cases run one after the other in either mode;
 * a cold case drops the caches (sync; drop_caches, needs root) before
 * each sample and its warm-up; a pass over N files is one call, divided
 * by N; a directory of more than 1000 files gets one sample.  Each of
 * its samples also records the CPU time of the process and of the
 * children it waited for (the waits left out: under -icount sleep=off a
 * wait shows on CLOCK_MONOTONIC as a jump to the next timer deadline) and
 * the dcache size around it (/proc/sys/fs/dentry-state); with --nfs-mount,
 * the NFS operations of its last sample (other cases: of an untimed batch).
 *
 * Prints one line per case: "case i/N name ... value", and where its
 * samples differ "+-x%": half the width of the median's 95% interval
 * (median_ci95()) over the median, the quantity --ci-target bounds.  The
 * interval's ends need not sit evenly about the median; the JSON has both.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gnu/libc-version.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "util.h"

#define MAX_ENV 64

struct options {
	const char *dir, *fs, *variant, *mode, *cases, *skip, *json, *label, *nfs_mount;
	const char *tags, *skip_tags, *mix, *stale_cmd;
	int afs_ops, busy, stale_symlink;
	int quick, allow_tcg_time, list;
	unsigned int samples, max_samples, ci_ranks;
	unsigned long max_files;
	double ci_target, max_seconds;
	uint64_t budget;
	const char *env[MAX_ENV];
	unsigned int nenv;
};

/* The measured loop: nothing but the body, through a pointer. */
static uint64_t __attribute__((noinline))
run_batch(long (*body)(struct bench_ctx *), struct bench_ctx *c, uint64_t n)
{
	uint64_t t0 = now_ns(), i;

	for (i = 0; i < n; i++)
		body(c);
	return now_ns() - t0;
}

/*
 * --mix: the instruction mix of one call, read from QEMU's exec log by a
 * host program (traces/mix.py) that switches the log on and off through
 * the monitor while the harness waits on a serial line.  The log's
 * window for a call runs from mix_begin()'s block to mix_end()'s: the
 * call through the body's pointer, as run_batch() makes it, and nothing
 * else.  The two differ in their bodies, so no pass merges them.
 */
#define MIX_WINDOWS 5

static void enter(const struct bench_ctx *c);

static void __attribute__((noinline, noipa)) mix_begin(void)
{
	__asm__ volatile("nop");
}

static void __attribute__((noinline, noipa)) mix_end(void)
{
	__asm__ volatile("nop; nop");
}

static void __attribute__((noinline, noipa))
mix_window(long (*body)(struct bench_ctx *), struct bench_ctx *c)
{
	mix_begin();
	body(c);
	mix_end();
}

static int mix_fd = -1;

static void mix_say(const char *line)
{
	size_t n = strlen(line);

	if (write(mix_fd, line, n) != (ssize_t)n)
		die("--mix: cannot write to the control line: %s", strerror(errno));
}

/* Block until the host sends a line ("go"). */
static void mix_wait(void)
{
	char ch;

	for (;;) {
		ssize_t n = read(mix_fd, &ch, 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n != 1)
			die("--mix: the control line closed");
		if (ch == '\n')
			return;
	}
}

static void mix_open(const char *dev)
{
	struct termios t;

	mix_fd = open(dev, O_RDWR | O_NOCTTY);
	if (mix_fd < 0)
		die("--mix: cannot open %s: %s", dev, strerror(errno));
	if (tcgetattr(mix_fd, &t) == 0) {
		cfmakeraw(&t);
		if (tcsetattr(mix_fd, TCSANOW, &t))
			die("--mix: cannot make %s raw: %s", dev, strerror(errno));
	}
}

/*
 * The windows of one case: the host is told where the markers are, turns
 * the log on and says go; MIX_WINDOWS calls run, each in its window; the
 * host is told each window's cost-mode count (the clock read around it,
 * which the log's count of the same window must equal once the empty
 * body's is taken off both), turns the log off and says go again.
 */
static void mix_case(const char *name, long (*body)(struct bench_ctx *),
		     struct bench_ctx *c)
{
	uint64_t clock[MIX_WINDOWS];
	char line[512];
	int w, len;

	snprintf(line, sizeof(line), "mix ready %s %#lx %#lx %d\n", name,
		 (unsigned long)mix_begin, (unsigned long)mix_end, MIX_WINDOWS);
	mix_say(line);
	mix_wait();
	enter(c);
	for (w = 0; w < MIX_WINDOWS; w++) {
		uint64_t t0 = now_ns();

		mix_window(body, c);
		clock[w] = now_ns() - t0;
	}
	len = snprintf(line, sizeof(line), "mix done %s", name);
	for (w = 0; w < MIX_WINDOWS; w++)
		len += snprintf(line + len, sizeof(line) - len, " %" PRIu64, clock[w]);
	snprintf(line + len, sizeof(line) - len, "\n");
	mix_say(line);
	mix_wait();
}

/* The last is not an operation: bytes sent with WRITEs (its 4th field). */
static const char *const nfs_ops[] = {
	"GETATTR", "LOOKUP", "ACCESS", "WRITE", "COMMIT", "READDIR", "READDIRPLUS",
	"WRITE_BYTES",
};
#define NR_NFS_OPS (sizeof(nfs_ops) / sizeof(nfs_ops[0]))
_Static_assert(NR_NFS_OPS == sizeof(((struct bench_result *)0)->nfs_ops) / sizeof(double),
	       "struct bench_result has a slot per NFS operation");

/* Operation counts of the NFS mount on @mnt, and the bytes WRITE sent. */
static void read_nfs_ops(const char *mnt, uint64_t *ops)
{
	read_mountstats(mnt, nfs_ops, NR_NFS_OPS - 1, ops, &ops[NR_NFS_OPS - 1]);
}

/*
 * kafs's calls to the file server by operation (include/trace/events/afs.h's
 * enum afs_fs_operation; 64-bit variants with their 32-bit ones), any other
 * file-server call, and the callback breaks it received (CB.CallBack, op
 * 204; the server's probes, CB.ProbeUuid and the like, are not counted).
 * The events are global: a second client's calls made while a batch runs
 * would count too (the stale cases' peer has finished before it starts).
 */
static const struct { const char *name; unsigned int op[2]; } afs_ops[] = {
	{ "FetchStatus", { 132 } }, { "InlineBulkStatus", { 65536 } },
	{ "FetchData", { 130, 65537 } }, { "StoreData", { 133, 65538 } },
	{ "StoreStatus", { 135 } }, { "Lookup", { 161 } }, { "other", { 0 } },
	{ "CallBack", { 0 } },
};
#define NR_AFS_OPS (sizeof(afs_ops) / sizeof(afs_ops[0]))
_Static_assert(NR_AFS_OPS == sizeof(((struct bench_result *)0)->afs_ops) / sizeof(double),
	       "struct bench_result has a slot per AFS operation");

/* Add the hist trigger's counts of event @ev, by op, into @ops. */
static void read_afs_hist(const char *ev, int callback, uint64_t *ops)
{
	char path[160], line[256];
	unsigned long long hits;
	unsigned int op, k, j;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/afs/%s/hist", ev);
	f = fopen(path, "r");
	if (!f)
		die("--afs-ops: cannot read %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "{ op: %u } hitcount: %llu", &op, &hits) != 2)
			continue;
		if (callback) {
			/* CB.CallBack, a break; not the server's probes */
			if (op == 204)
				ops[NR_AFS_OPS - 1] += hits;
			continue;
		}
		for (k = 0; k < NR_AFS_OPS - 2; k++)
			for (j = 0; j < 2; j++)
				if (afs_ops[k].op[j] && afs_ops[k].op[j] == op)
					goto found;
		k = NR_AFS_OPS - 2;	/* other */
found:
		ops[k] += hits;
	}
	fclose(f);
}

static void read_afs_ops(uint64_t *ops)
{
	static const char *const fs_events[] = {
		"afs_make_fs_call", "afs_make_fs_call1", "afs_make_fs_call2",
		"afs_make_fs_calli",
	};
	unsigned int i;

	memset(ops, 0, NR_AFS_OPS * sizeof(*ops));
	for (i = 0; i < sizeof(fs_events) / sizeof(fs_events[0]); i++)
		read_afs_hist(fs_events[i], 0, ops);
	read_afs_hist("afs_cb_call", 1, ops);
}

/* --stale-cmd, before a stale case's sample, changes this file (in --dir;
 * the command gets it as $STATX_BENCH_FILE). */
#define STALE_FILE "d1/d2/d3/file"
/* The symlink to the file (T_SYMLINK; --stale-symlink makes it anew). */
#define SYMLINK_PATH "d1/d2/d3/link"
/* --stale-cmd, before a stale case's sample; --stale-symlink. */
static const char *stale_cmd;
static int stale_symlink;
static int dir_fd;	/* the --dir the cases work in (below) */

static void make_stale(int kind)
{
	struct stat st;
	int rc;

	if (kind == STALE_NEWLINK) {
		if (unlinkat(dir_fd, SYMLINK_PATH, 0) || symlinkat("file", dir_fd, SYMLINK_PATH))
			die("--stale-symlink: cannot make " SYMLINK_PATH " anew: %s", strerror(errno));
		return;
	}
	/*
	 * A plain stat first: the change then meets a callback this client
	 * holds (a DONT_SYNC call before may have left none to break).
	 */
	if (fstatat(dir_fd, STALE_FILE, &st, 0))
		die("--stale-cmd: cannot stat " STALE_FILE ": %s", strerror(errno));
	/* The command learns the file from here, not from a copy of it. */
	if (setenv("STATX_BENCH_FILE", STALE_FILE, 1))
		die("setenv: %s", strerror(errno));
	rc = system(stale_cmd);

	if (rc)
		die("--stale-cmd '%s' failed (status %d)", stale_cmd, rc);
}

/* The coverage the interval of the median aims at. */
#define CI_LEVEL 0.95L

/*
 * The distribution-free interval of the median of @n samples: the 1-based
 * ranks *@lo and *@hi = n + 1 - *@lo of the two order statistics that
 * bound it; returns the probability that they cover the median.  With
 * B ~ Binomial(n, 1/2) the pair (r, n + 1 - r) covers it with probability
 * P(r <= B <= n - r) = 1 - 2 P(B <= r - 1), which falls as r grows: the
 * pair is the narrowest whose coverage is at least CI_LEVEL, or, when
 * none is (n <= 5), the minimum and the maximum with the coverage they
 * have.  statx_results.median_ci_ranks() is the same rule from scipy;
 * tests/analysis/test_interval.py compares the two through --ci-ranks.
 *
 * P(B = k) is built up from k = 0 in logarithms (2^-n is below a long
 * double's range past n = 16445): log P(B = k + 1) = log P(B = k) +
 * log((n - k) / (k + 1)).  The first terms of a large n underflow to 0;
 * they are far too small to move the sum.  Time mode asks again every
 * tenth round with every case at the same n: the last answer is kept.
 */
static long double median_ci_ranks(unsigned int n, unsigned int *lo, unsigned int *hi)
{
	static unsigned int last_n, last_r;
	static long double last_cover;
	long double lp, cdf, cover, p;
	unsigned int r = 1;

	if (!n)
		die("no interval of the median of no samples");
	if (n == last_n)
		goto out;
	lp = -(long double)n * logl(2.0L);	/* log P(B = 0) */
	cdf = expl(lp);				/* P(B <= r - 1) */
	cover = 1 - 2 * cdf;
	/* The pair r + 1 while it does not cross the middle. */
	while (2 * (r + 1) <= n + 1) {
		lp += logl((long double)(n - r + 1) / r);	/* log P(B = r) */
		p = expl(lp);
		if (1 - 2 * (cdf + p) < CI_LEVEL)
			break;
		cdf += p;
		cover = 1 - 2 * cdf;
		r++;
	}
	last_n = n;
	last_r = r;
	last_cover = cover;
out:
	*lo = last_r;
	*hi = n + 1 - last_r;
	return last_cover;
}

/*
 * The interval of the median of @n samples (median_ci_ranks()): its ends
 * into *@lo and *@hi, their ranks into @ranks; returns its coverage.
 */
static long double median_ci95(const double *v, unsigned int n, double *lo, double *hi,
			       unsigned int ranks[2])
{
	double *s = malloc(n * sizeof(*s));
	long double cover = median_ci_ranks(n, &ranks[0], &ranks[1]);

	if (!s)
		die("out of memory");
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	*lo = s[ranks[0] - 1];
	*hi = s[ranks[1] - 1];
	free(s);
	return cover;
}

/*
 * Is @r's interval within +-@target of its median?  Its half-width is
 * what the target bounds; an interval that covers less than CI_LEVEL
 * (too few samples for any pair to reach it) is not met.
 */
static int ci_met(const struct bench_result *r, double target)
{
	double m = median_of(r->samples, r->nsamples), lo, hi;
	unsigned int ranks[2];

	if (median_ci95(r->samples, r->nsamples, &lo, &hi, ranks) < CI_LEVEL)
		return 0;
	return fabs(m) > 0 && (hi - lo) / 2 <= target * fabs(m);
}

/* What the harness itself costs, subtracted from every sample. */
struct overhead {
	double fixed;		/* a batch's two clock reads */
	double iter;		/* a trip round the loop, empty body */
	double cpu_fixed;	/* the same batch's CPU clock reads (studies) */
};

/*
 * CPU time of this thread and of the children it waited for: it stops
 * while the thread waits.  Children's times come from rusage, in
 * microseconds.
 */
static double cpu_ns(void)
{
	struct timespec ts;
	struct rusage ru;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	getrusage(RUSAGE_CHILDREN, &ru);
	return ts.tv_sec * 1e9 + ts.tv_nsec +
	       (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
}

static long dentries(void)
{
	long nr = -1;
	FILE *f = fopen("/proc/sys/fs/dentry-state", "r");

	if (f) {
		if (fscanf(f, "%ld", &nr) != 1)
			nr = -1;
		fclose(f);
	}
	return nr;
}

static void drop_caches(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd < 0 || write(fd, "3\n", 2) != 2)
		refuse(EXIT_REFUSE_NO_ROOT, "cannot drop caches (root needed): %s",
		       strerror(errno));
	close(fd);
}

static void check_setup(const struct options *o)
{
	static const struct { const char *name; long magic; } fss[] = {
		{ "ext4", 0xEF53 }, { "tmpfs", 0x01021994 }, { "nfs", 0x6969 },
		{ "afs", 0x6B414653 },
	};
	struct utsname u;
	char accel[32];
	size_t rl, vl;
	unsigned int i;

	if (o->fs) {
		struct statfs sf;
		long want = 0;

		if (!o->dir)
			die("--fs needs --dir");
		for (i = 0; i < sizeof(fss) / sizeof(fss[0]); i++)
			if (!strcmp(o->fs, fss[i].name))
				want = fss[i].magic;
		if (!want)
			die("unknown --fs %s (ext4, tmpfs, nfs, afs)", o->fs);
		if (statfs(o->dir, &sf))
			refuse(EXIT_REFUSE_FS, "cannot statfs %s: %s", o->dir, strerror(errno));
		if (sf.f_type != want)
			refuse(EXIT_REFUSE_FS, "%s is not on %s (f_type 0x%lx): is it mounted?",
			    o->dir, o->fs, (long)sf.f_type);
	}
	if (o->variant) {
		uname(&u);
		rl = strlen(u.release);
		vl = strlen(o->variant);
		if (rl <= vl || strcmp(u.release + rl - vl, o->variant) ||
		    u.release[rl - vl - 1] != '-')
			refuse(EXIT_REFUSE_KERNEL, "kernel %s is not variant %s", u.release, o->variant);
	}
	if (!strcmp(o->mode, "time") && cmdline_arg("sxs.accel", accel, sizeof(accel)) &&
	    !strcmp(accel, "tcg") && !o->allow_tcg_time)
		refuse(EXIT_REFUSE_TCG_TIME,
		       "time mode under TCG measures the emulator (pass --allow-tcg-time to record it, flagged)");
	if (!strcmp(o->mode, "cost") &&
	    (!cmdline_arg("sxs.mode", accel, sizeof(accel)) || strcmp(accel, "cost")))
		refuse(EXIT_REFUSE_NO_ICOUNT,
		       "cost mode needs a guest booted with -icount (sxs.mode=cost)");
}

/* Does @name match one of the comma-separated glob patterns in @list? */
static int in_list(const char *list, const char *name)
{
	char buf[4096], *w, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save))
		if (!fnmatch(w, name, 0))
			return 1;
	return 0;
}

/* Does @bc carry one of the comma-separated tags in @list? */
static int tag_in_list(const char *list, const struct bench_case *bc)
{
	char buf[1024], *w, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save))
		if (case_has_tag(bc, w))
			return 1;
	return 0;
}

static int selected(const struct options *o, const struct bench_case *bc,
		    const char *name)
{
	if (bc->target != T_NONE && !o->dir)
		return 0;
	if (o->quick && !bc->quick)
		return 0;
	if (o->skip && in_list(o->skip, name))
		return 0;
	if (o->tags && !tag_in_list(o->tags, bc))
		return 0;
	if (o->skip_tags && tag_in_list(o->skip_tags, bc))
		return 0;
	if (bc->stale == STALE_PEER && !o->stale_cmd)
		return 0;
	if (bc->stale == STALE_NEWLINK && !o->stale_symlink)
		return 0;
	if (o->cases)
		return in_list(o->cases, name);
	/* A study runs when asked for. */
	return !bc->params || o->tags;
}

static unsigned int add_instance(const struct options *o, struct bench_result *res,
				 unsigned int n, const struct bench_case *bc, long param)
{
	struct bench_result *r = &res[n];

	if (bc->params)
		snprintf(r->name, sizeof(r->name), bc->name, param);
	else
		snprintf(r->name, sizeof(r->name), "%s", bc->name);
	if (bc->target == T_DIR || bc->target == T_FILES) {
		if ((unsigned long)param > o->max_files || (bc->per_entry && !param))
			return n;
	}
	if (!selected(o, bc, r->name))
		return n;
	r->bc = bc;
	r->param = param;
	return n + 1;
}

/*
 * The cases to run, into @res: a row, or a study's row once per
 * parameter; consecutive rows with the same parameters run parameter by
 * parameter (all of a directory size's rows, then the next size's).
 */
static unsigned int instances(const struct options *o, struct bench_result *res)
{
	unsigned int i, j, k, p, n = 0;

	for (i = 0; i < bench_ncases; i = j) {
		const long *params = bench_cases[i].params;

		for (j = i + 1; params && j < bench_ncases && bench_cases[j].params == params; j++)
			;
		if (!params) {
			n = add_instance(o, res, n, &bench_cases[i], 0);
			continue;
		}
		for (p = 0; p < bench_cases[i].nparams; p++)
			for (k = i; k < j; k++)
				n = add_instance(o, res, n, &bench_cases[k], params[p]);
	}
	return n;
}

static unsigned int max_instances(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < bench_ncases; i++)
		n += bench_cases[i].params ? bench_cases[i].nparams : 1;
	return n;
}

/* The --dir the cases work in, and the studies' directories in it. */
static int dir_fd = -1;

/*
 * Into --dir, and the files the cases look at, made once when a case
 * needs them (@need; a study makes its own): d1/d2/d3/file and a symlink.
 */
static void make_files(const char *dir, int need)
{
	int fd;

	if (chdir(dir))
		die("cannot chdir to %s: %s", dir, strerror(errno));
	dir_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		die("cannot open %s: %s", dir, strerror(errno));
	if (!need)
		return;
	if ((mkdir("d1", 0755) && errno != EEXIST) ||
	    (mkdir("d1/d2", 0755) && errno != EEXIST) ||
	    (mkdir("d1/d2/d3", 0755) && errno != EEXIST))
		die("cannot make directories in %s: %s", dir, strerror(errno));
	fd = open("d1/d2/d3/file", O_WRONLY | O_CREAT, 0644);
	if (fd < 0 || write(fd, "statx\n", 6) != 6)
		die("cannot make d1/d2/d3/file in %s: %s", dir, strerror(errno));
	close(fd);
	if (symlink("file", SYMLINK_PATH) && errno != EEXIST)
		die("cannot make d1/d2/d3/link: %s", strerror(errno));
}

/*
 * The file's name, "d1/d2/d3/file", made @len bytes long (the NUL not
 * counted) with slashes after "d1": the same file, the same components to
 * look up, and a name of the length under test (getname() copies it and,
 * on Debian's config, zeroes the buffer it allocates for it).
 */
static char *padded_name(int len)
{
	const char *tail = "d2/d3/file";
	int pad = len - 2 - (int)strlen(tail);
	char *name;

	if (pad < 1 || len > PATH_MAX)
		die("cannot pad d1/d2/d3/file to %d bytes", len);
	name = malloc(len + 1);
	if (!name)
		die("out of memory");
	memcpy(name, "d1", 2);
	memset(name + 2, '/', pad);
	strcpy(name + 2 + pad, tail);
	return name;
}

#define MAX_DEPTH 16

static void xmkdir(const char *d)
{
	if (mkdir(d, 0755) && errno != EEXIST)
		die("cannot make %s: %s", d, strerror(errno));
}

static void touch(const char *name)
{
	int fd = open(name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		die("cannot make %s: %s", name, strerror(errno));
	close(fd);
}

static int open_dir(const char *d)
{
	int fd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		die("cannot open %s: %s", d, strerror(errno));
	return fd;
}

/* "d/d/.../f": a file @depth components deep. */
static void depth_name(char *buf, long depth)
{
	long i;

	buf[0] = '\0';
	for (i = 1; i < depth; i++)
		strcat(buf, "d/");
	strcat(buf, "f");
}

/* depth/d/d/.../f, a file at every level, made once. */
static void make_depth(void)
{
	static int made;
	char path[2 * MAX_DEPTH + 16];
	long d;

	if (made++)
		return;
	strcpy(path, "depth");
	xmkdir(path);
	for (d = 1; d < MAX_DEPTH; d++) {
		strcat(path, "/d");
		xmkdir(path);
	}
	for (d = 1; d <= MAX_DEPTH; d++) {
		strcpy(path, "depth/");
		depth_name(path + strlen(path), d);
		touch(path);
	}
}

/* The entries of directory @d, "." and ".." not counted. */
static long entries(const char *d)
{
	DIR *dir = opendir(d);
	struct dirent *e;
	long n = 0;

	if (!dir)
		die("cannot open %s: %s", d, strerror(errno));
	while ((e = readdir(dir)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(dir);
	return n;
}

/*
 * files/f0 .. f<N-1> (fio's names), grown in place: the studies' sizes
 * ascend, each size's cases run before the next size is made (run_case).
 * The names are made once, for the largest directory (@max).
 */
static char **file_names(long n, unsigned long max)
{
	static char **names;
	static long have;
	long k;

	if (!names) {
		names = calloc(max + 1, sizeof(*names));
		if (!names)
			die("out of memory");
		for (k = 0; k <= (long)max; k++)
			if (asprintf(&names[k], "f%ld", k) < 0)
				die("out of memory");
		xmkdir("files");
		have = entries("files");
	}
	if (n < have || (unsigned long)n > max)
		die("files/ holds %ld files, not %ld: the study's sizes ascend from an empty "
		    "files/ (--max-files %lu)", have, n, max);
	for (k = have; k < n; k++) {
		char path[32];

		snprintf(path, sizeof(path), "files/%s", names[k]);
		touch(path);
	}
	have = n;
	return names;
}

static void prepare(const struct options *o, const struct bench_result *r,
		    struct bench_ctx *c)
{
	const struct bench_case *bc = r->bc;

	memset(c, 0, sizeof(*c));
	c->dfd = AT_FDCWD;
	c->flags = bc->flags;
	c->mask = bc->mask;
	c->fd = -1;
	c->opath_fd = -1;
	c->cwd = -1;
	c->param = r->param;
	switch (bc->target) {
	case T_NONE:
		break;
	case T_PATH:
		c->path = "d1/d2/d3/file";
		if (bc->namelen)
			c->path = c->namebuf = padded_name(bc->namelen);
		break;
	case T_SYMLINK:
		c->path = SYMLINK_PATH;
		break;
	case T_FD:
	case T_FD_NULL:
		c->fd = open("d1/d2/d3/file", O_RDONLY);
		if (c->fd < 0)
			die("%s: open: %s", bc->name, strerror(errno));
		c->dfd = c->fd;
		c->path = bc->target == T_FD ? "" : NULL;
		break;
	case T_DIRTY:
		/* A file per case: one case's dirty pages are not another's. */
		c->namebuf = malloc(PATH_MAX);
		if (!c->namebuf)
			die("out of memory");
		snprintf(c->namebuf, PATH_MAX, "d1/d2/d3/dirty.%s", bc->name);
		c->path = c->namebuf;
		c->fd = open(c->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (c->fd < 0)
			die("%s: open for writing: %s", bc->name, strerror(errno));
		if (dirty_fill(c))
			die("%s: writing its pages: %s", bc->name, strerror(errno));
		break;
	case T_OPATH:
		c->opath_fd = open("d1/d2/d3/file", O_PATH);
		if (c->opath_fd < 0)
			die("%s: open O_PATH: %s", bc->name, strerror(errno));
		c->dfd = c->opath_fd;
		c->path = "";
		break;
	case T_DEPTH:
		if (r->param < 1 || r->param > MAX_DEPTH)
			die("%s: depth 1 to %d", r->name, MAX_DEPTH);
		make_depth();
		c->cwd = open_dir("depth");
		c->path = c->namebuf = malloc(2 * MAX_DEPTH + 1);
		if (!c->namebuf)
			die("out of memory");
		depth_name(c->namebuf, r->param);
		break;
	case T_DIR:
	case T_FILES:
		c->names = file_names(r->param, o->max_files);
		c->nnames = r->param;
		c->cwd = open_dir(bc->target == T_DIR ? "." : "files");
		break;
	}
}

/* Into the case's directory: a study's own, else --dir. */
static void enter(const struct bench_ctx *c)
{
	int fd = c->cwd >= 0 ? c->cwd : dir_fd;

	if (fd >= 0 && fchdir(fd))
		die("fchdir: %s", strerror(errno));
}

static void cleanup(struct bench_ctx *c)
{
	free(c->namebuf);
	if (c->fd >= 0)
		close(c->fd);
	if (c->opath_fd >= 0)
		close(c->opath_fd);
	if (c->cwd >= 0)
		close(c->cwd);
}

static void write_json(const struct options *o, const struct bench_result *r,
		       unsigned int n, double ovh_fixed, double ovh_iter)
{
	FILE *f = fopen(o->json, "w");
	struct utsname u;
	char buf[256], mask[128];
	unsigned int i, j, ranks[2];
	long double cover;
	double lo, hi;

	if (!f)
		die("cannot write %s: %s", o->json, strerror(errno));
	uname(&u);
	fprintf(f, "{\n  \"schema\": 1,\n  \"label\": ");
	json_str(f, o->label ? o->label : o->fs ? o->fs : "nofile");
	fprintf(f, ",\n  \"fs\": ");
	json_str(f, o->fs ? o->fs : "");
	fprintf(f, ",\n  \"mode\": ");
	json_str(f, o->mode);
	fprintf(f, ",\n  \"unit\": ");
	json_str(f, !strcmp(o->mode, "cost") ? "instructions" : "ns");
	fprintf(f, ",\n  \"env\": {\n    \"release\": ");
	json_str(f, u.release);
	fprintf(f, ",\n    \"glibc\": ");
	json_str(f, gnu_get_libc_version());
	fprintf(f, ",\n    \"dir\": ");
	json_str(f, o->dir ? o->dir : "");
	fprintf(f, ",\n    \"accel\": ");
	json_str(f, cmdline_arg("sxs.accel", buf, sizeof(buf)) ? buf : "unknown");
	for (i = 0; i < o->nenv; i++) {
		const char *eq = strchr(o->env[i], '=');

		snprintf(buf, sizeof(buf), "%.*s", (int)(eq - o->env[i]), o->env[i]);
		fprintf(f, ",\n    ");
		json_str(f, buf);
		fprintf(f, ": ");
		json_str(f, eq + 1);
	}
	fprintf(f, "\n  },\n  \"overhead\": {\"fixed\": %.3f, \"per_iter\": %.3f},\n",
		ovh_fixed, ovh_iter);
	if (!strcmp(o->mode, "time")) {
		fprintf(f, "  \"ci_target\": %.4f,\n", o->ci_target);
		if (cmdline_arg("sxs.accel", buf, sizeof(buf)) && !strcmp(buf, "tcg"))
			fprintf(f, "  \"warning\": \"time mode under TCG: the wall clock of an "
				"emulator, not of the hardware\",\n");
	}
	fprintf(f, "  \"cases\": [\n");
	for (i = 0; i < n; i++) {
		const struct bench_case *bc = r[i].bc;

		statx_mask_name(bc->mask, mask, sizeof(mask));
		fprintf(f, "    {\"name\": ");
		json_str(f, r[i].name);
		fprintf(f, ", \"call\": ");
		json_str(f, bc->call);
		fprintf(f, ", \"kind\": ");
		json_str(f, bc->kind);
		fprintf(f, ", \"mask\": %u, \"mask_name\": ", bc->mask);
		json_str(f, mask);
		fprintf(f, ", \"flags\": %d, \"name_len\": %zu,\n     \"tags\": [",
			bc->flags, r[i].name_len);
		json_words(f, bc->tags);
		fprintf(f, "], \"ret\": %ld, \"errno\": ", r[i].ret);
		json_str(f, r[i].ret < 0 ? strerrorname_np(r[i].err) : "");
		fprintf(f, ",\n     \"iters\": %llu, \"median\": %.3f, \"samples\": [",
			(unsigned long long)r[i].iters, median_of(r[i].samples, r[i].nsamples));
		for (j = 0; j < r[i].nsamples; j++)
			fprintf(f, "%s%.3f", j ? ", " : "", r[i].samples[j]);
		cover = median_ci95(r[i].samples, r[i].nsamples, &lo, &hi, ranks);
		fprintf(f, "],\n     \"ci95\": [%.3f, %.3f], \"ci_ranks\": [%u, %u], "
			"\"ci_level\": %.17Lg", lo, hi, ranks[0], ranks[1], cover);
		if (!strcmp(o->mode, "time") && !bc->params)
			fprintf(f, ", \"ci_met\": %s", r[i].ci_met ? "true" : "false");
		if (o->busy) {
			fprintf(f, ",\n     \"busy_median\": %.3f, \"busy_samples\": [",
				median_of(r[i].busy, r[i].nsamples));
			for (j = 0; j < r[i].nsamples; j++)
				fprintf(f, "%s%.3f", j ? ", " : "", r[i].busy[j]);
			median_ci95(r[i].busy, r[i].nsamples, &lo, &hi, ranks);
			fprintf(f, "], \"busy_ci95\": [%.3f, %.3f]", lo, hi);
		}
		if (bc->params) {
			fprintf(f, ",\n     \"param\": %ld, \"per\": \"%s\", \"cold\": %s, "
				"\"dentries_before\": %ld, \"dentries_after\": %ld,\n     "
				"\"cpu_median\": %.3f, \"cpu_samples\": [",
				r[i].param, bc->per_entry ? "file" : "call",
				bc->cold ? "true" : "false", r[i].dentries_before,
				r[i].dentries_after, median_of(r[i].cpu, r[i].nsamples));
			for (j = 0; j < r[i].nsamples; j++)
				fprintf(f, "%s%.3f", j ? ", " : "", r[i].cpu[j]);
			fprintf(f, "]");
		}
		if (o->afs_ops) {
			fprintf(f, ",\n     \"afs_ops_per_call\": {");
			for (j = 0; j < NR_AFS_OPS; j++)
				fprintf(f, "%s\"%s\": %.4f", j ? ", " : "", afs_ops[j].name,
					r[i].afs_ops[j]);
			fprintf(f, "}");
		}
		if (o->nfs_mount) {
			fprintf(f, ",\n     \"nfs_ops_per_call\": {");
			for (j = 0; j < NR_NFS_OPS; j++)
				fprintf(f, "%s\"%s\": %.4f", j ? ", " : "", nfs_ops[j],
					r[i].nfs_ops[j]);
			fprintf(f, "}");
		}
		fprintf(f, "}%s\n", i + 1 < n ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	if (fclose(f))
		die("cannot write %s", o->json);
}

/* Time mode: a case whose interval missed --ci-target is marked wide. */
static int time_mode;

static void report_line(const struct bench_result *r, unsigned int i,
			unsigned int n)
{
	double m = median_of(r->samples, r->nsamples), lo, hi;
	unsigned int ranks[2];
	long double cover;
	char ci[96] = "";
	size_t len;

	if (r->nsamples > 1) {
		cover = median_ci95(r->samples, r->nsamples, &lo, &hi, ranks);
		if (hi > lo && m)
			snprintf(ci, sizeof(ci), " +-%.2f%%%s", (hi - lo) / 2 / fabs(m) * 100,
				 r->ci_met || !time_mode || r->bc->params ? "" : " (wide)");
		/* Too few samples for 95%: the range, and what it covers. */
		len = strlen(ci);
		if (cover < CI_LEVEL)
			snprintf(ci + len, sizeof(ci) - len, " (interval covers %.2Lf%%)",
				 cover * 100);
	}
	printf("case %u/%u %-30s %12.1f%s%s%s%s\n", i + 1, n, r->name, m, ci,
	       r->ret < 0 ? " (fails: " : "", r->ret < 0 ? strerrorname_np(r->err) : "",
	       r->ret < 0 ? ")" : "");
	fflush(stdout);
}

/* --nfs-mount, for the studies' counts around their last sample. */
static const char *study_nfs_mount;
/* --busy: each sample's idle time taken off its clock (busy_ns). */
static int busy_mode;

/*
 * The time the CPU has spent idle, in ns: tick-sched's idle_sleeptime and
 * iowait_sleeptime, as /proc/timer_list prints them.  They stop counting
 * on any interrupt (tick_nohz_irq_enter()), so a softirq handled while
 * the CPU idles is busy time.  Read while this task runs, so the CPU's
 * idle periods are all closed.  One CPU only (checked at the start).
 */
static uint64_t idle_ns(void)
{
	char line[256], key[32];
	unsigned long long v, sum = 0;
	int seen = 0;
	FILE *f = fopen("/proc/timer_list", "r");

	if (!f)
		die("--busy: cannot read /proc/timer_list: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " .%31[a-z_] : %llu nsecs", key, &v) == 2 &&
		    (!strcmp(key, "idle_sleeptime") || !strcmp(key, "iowait_sleeptime"))) {
			sum += v;
			seen++;
		}
	fclose(f);
	if (seen != 2)
		die("--busy: /proc/timer_list gave %d of the 2 idle times of one CPU", seen);
	return sum;
}

/* A batch's clock and the idle time within it. */
struct batch_time {
	double clock, idle;
};

static struct batch_time timed_batch(long (*body)(struct bench_ctx *),
				     struct bench_ctx *c, uint64_t n)
{
	struct batch_time b = { 0, 0 };
	uint64_t i0 = busy_mode ? idle_ns() : 0;

	b.clock = run_batch(body, c, n);
	if (busy_mode)
		b.idle = idle_ns() - i0;
	return b;
}

/*
 * Sample @s of case @r: clock ns per call, the harness's cost taken off
 * (or the case's base, measured just before); a study's per file, with
 * its CPU time and the dcache around it, and around its last sample the
 * NFS operations that sample made (a cold one's drop included).
 */
static void sample(struct bench_result *r, struct bench_ctx *c, unsigned int s,
		   const struct overhead *ov)
{
	const struct bench_case *bc = r->bc;
	double per = bc->per_entry ? r->param : 1, cpu = 0;
	struct batch_time base = { 0, 0 }, t;
	int count = bc->params && study_nfs_mount && s + 1 == r->nsamples;
	uint64_t ops0[NR_NFS_OPS], ops1[NR_NFS_OPS];
	unsigned int k;

	enter(c);
	if (bc->stale)
		make_stale(bc->stale);
	if (count)
		read_nfs_ops(study_nfs_mount, ops0);
	if (bc->base)
		base = timed_batch(bc->base, c, r->iters);
	if (bc->cold)
		drop_caches();
	if (bc->params) {
		r->dentries_before = dentries();
		cpu = cpu_ns();
	}
	t = timed_batch(bc->body, c, r->iters);
	if (bc->params) {
		cpu = cpu_ns() - cpu;
		r->dentries_after = dentries();
		cpu -= ov->cpu_fixed + (bc->base ? base.clock - ov->fixed : r->iters * ov->iter);
		r->cpu[s] = cpu / r->iters / per;
	}
	/* The harness's own cost off both: the loop never idles. */
	if (bc->base) {
		r->samples[s] = (t.clock - base.clock) / r->iters / per;
		r->busy[s] = (t.clock - t.idle - base.clock + base.idle) / r->iters / per;
	} else {
		r->samples[s] = ((t.clock - ov->fixed) / r->iters - ov->iter) / per;
		r->busy[s] = ((t.clock - t.idle - ov->fixed) / r->iters - ov->iter) / per;
	}
	if (count) {
		read_nfs_ops(study_nfs_mount, ops1);
		for (k = 0; k < NR_NFS_OPS; k++)
			r->nfs_ops[k] = (ops1[k] - ops0[k]) / (r->iters * per);
	}
}

/*
 * Before a case's samples: its first call checked, then unmeasured
 * passes (under TCG a path's first pass pays for translation; a cold
 * case's after dropping the caches), then, for a case of one call, the
 * calls per sample that fill --budget.
 */
static void warm_up(const struct options *o, struct bench_result *r, struct bench_ctx *c)
{
	const struct bench_case *bc = r->bc;
	int pass = bc->target == T_DIR || bc->target == T_FILES;
	uint64_t pilot, t;

	enter(c);
	if (bc->cold)
		drop_caches();
	if (bc->stale)
		make_stale(bc->stale);
	errno = 0;
	r->ret = bc->body(c);
	r->err = errno;
	if (bc->stale) {
		/* Only the first call after the change meets it. */
		r->iters = 1;
		r->nsamples = o->samples;
		return;
	}
	if (pass) {
		/* A pass is the call; more than 1000 files, one sample. */
		r->iters = 1;
		r->nsamples = r->param > 1000 ? 1 : o->samples;
		return;
	}
	run_batch(bc->body, c, 64);
	t = run_batch(bc->body, c, 16);
	pilot = t / 16 ? t / 16 : 1;
	r->iters = o->budget / pilot ? o->budget / pilot : 1;
	if (r->iters < bc->min_iters)
		r->iters = bc->min_iters;
	run_batch(bc->body, c, r->iters);
	r->nsamples = o->samples;
}

/*
 * An untimed batch of case @r counts the NFS operations (--nfs-mount) or
 * kafs's calls (--afs-ops) it makes; a stale case's, after a change.
 */
static void count_ops(const struct options *o, struct bench_result *r,
		      struct bench_ctx *c)
{
	uint64_t before[NR_NFS_OPS], after[NR_NFS_OPS];
	uint64_t abefore[NR_AFS_OPS], aafter[NR_AFS_OPS];
	unsigned int k;

	enter(c);
	if (r->bc->stale) {
		/*
		 * The break the change sends counts (CallBack); the calls
		 * of the client that made it (another network namespace's
		 * kafs, on the same events) do not.
		 */
		uint64_t cb = 0;

		if (o->afs_ops)
			read_afs_ops(abefore);
		cb = abefore[NR_AFS_OPS - 1];
		make_stale(r->bc->stale);
		if (o->afs_ops) {
			read_afs_ops(abefore);
			abefore[NR_AFS_OPS - 1] = cb;
		}
	} else if (o->afs_ops) {
		read_afs_ops(abefore);
	}
	if (o->nfs_mount)
		read_nfs_ops(o->nfs_mount, before);
	run_batch(r->bc->body, c, r->iters);
	if (o->nfs_mount) {
		read_nfs_ops(o->nfs_mount, after);
		for (k = 0; k < NR_NFS_OPS; k++)
			r->nfs_ops[k] = (double)(after[k] - before[k]) / r->iters;
	}
	if (o->afs_ops) {
		read_afs_ops(aafter);
		for (k = 0; k < NR_AFS_OPS; k++)
			r->afs_ops[k] = (double)(aafter[k] - abefore[k]) / r->iters;
	}
}

/*
 * A case's samples, one after another.  A study's case is set up here,
 * from --dir, just before it runs (its directory grows with the sizes),
 * and closed after: an open directory would keep its dentry from a
 * later cold case's drop.
 */
static void run_case(const struct options *o, struct bench_result *r, struct bench_ctx *c,
		     const struct overhead *ov)
{
	unsigned int s;

	if (r->bc->params) {
		if (fchdir(dir_fd))
			die("fchdir: %s", strerror(errno));
		prepare(o, r, c);
		r->name_len = c->path ? strlen(c->path) : 0;
		warm_up(o, r, c);
	}
	for (s = 0; s < r->nsamples; s++)
		sample(r, c, s, ov);
	/* Its descriptors pin nothing the next one drops. */
	if (r->bc->params) {
		cleanup(c);
		c->namebuf = NULL;
		c->cwd = c->fd = c->opath_fd = -1;
	}
}

/*
 * Time mode: rounds of one sample per case, the cases in a different
 * order each round (a rotation), so that drift and neighbours spread over
 * every case alike.  After the first --samples rounds, more rounds until
 * every case's 95% interval is within --ci-target of its median, or
 * --max-samples or --max-seconds is reached; each case records whether
 * its interval met the target.
 */
/*
 * Does case @r count for time mode's stopping rule?  Not the empty body:
 * the harness's cost is subtracted from it, its median is about zero, and
 * no interval is within a percentage of zero.
 */
static int ci_counts(const struct bench_result *r)
{
	return strcmp(r->bc->call, "none") != 0 && !r->bc->params;
}

/* Studies run one after another (run_case), not in the rounds. */
static void time_rounds(const struct options *o, struct bench_result *res,
			struct bench_ctx *ctx, unsigned int n, const struct overhead *ov)
{
	uint64_t t0 = now_ns();
	unsigned int s, i, k, missed, counted, rounds = 0;

	for (i = 0; i < n && res[i].bc->params; i++)
		;
	if (i == n)
		return;
	for (s = 0; s < o->max_samples; s++) {
		for (k = 0; k < n; k++) {
			i = (k + s) % n;
			if (res[i].bc->params)
				continue;
			sample(&res[i], &ctx[i], s, ov);
			res[i].nsamples = s + 1;
		}
		rounds = s + 1;
		/* Checked after the first rounds, then every tenth round. */
		if (s + 1 < o->samples || (s + 1 > o->samples && (s + 1) % 10))
			continue;
		for (missed = 0, i = 0; i < n; i++)
			missed += ci_counts(&res[i]) && !ci_met(&res[i], o->ci_target);
		if (!missed || (now_ns() - t0) / 1e9 > o->max_seconds)
			break;
	}
	for (missed = 0, counted = 0, i = 0; i < n; i++) {
		if (res[i].bc->params)
			continue;
		res[i].ci_met = ci_met(&res[i], o->ci_target);
		counted += ci_counts(&res[i]);
		missed += ci_counts(&res[i]) && !res[i].ci_met;
	}
	printf("time mode: %u rounds in %.1f s, %u of %u cases within +-%.3g%% (95%% CI of the median)\n",
	       rounds, (now_ns() - t0) / 1e9, counted - missed, counted,
	       o->ci_target * 100);
}

static void usage(void)
{
	fprintf(stderr, "usage: statx-bench [--dir DIR] [--fs NAME] [--variant NAME] [--mode cost|time]\n"
		"  [--quick] [--cases A,B*] [--skip A,B*] [--tags T,U] [--skip-tags T,U]\n"
		"  [--samples N] [--budget NS] [--label TEXT] [--max-files N]\n"
		"  [--ci-target F] [--max-samples N] [--max-seconds S]\n"
		"  [--env K=V]... [--json FILE] [--allow-tcg-time] [--list] [--list-tsv]\n"
		"  [--mix TTY] [--nfs-mount MNT] [--afs-ops] [--busy] [--stale-cmd CMD]\n"
		"  [--stale-symlink]\n");
	exit(2);
}

static void parse(int argc, char **argv, struct options *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->mode = "cost";
	o->budget = 400000;
	o->ci_target = 0.01;
	o->max_seconds = 120;
	o->max_files = 100000;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--quick")) { o->quick = 1; continue; }
		if (!strcmp(a, "--list")) { o->list = 1; continue; }
		if (!strcmp(a, "--list-tsv")) { o->list = 2; continue; }
		if (!strcmp(a, "--allow-tcg-time")) { o->allow_tcg_time = 1; continue; }
		if (!strcmp(a, "--afs-ops")) { o->afs_ops = 1; continue; }
		if (!strcmp(a, "--stale-symlink")) { o->stale_symlink = 1; continue; }
		if (!strcmp(a, "--busy")) { o->busy = 1; continue; }
		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--dir"))
			o->dir = v;
		else if (!strcmp(a, "--fs"))
			o->fs = v;
		else if (!strcmp(a, "--variant"))
			o->variant = v;
		else if (!strcmp(a, "--mode"))
			o->mode = v;
		else if (!strcmp(a, "--cases"))
			o->cases = v;
		else if (!strcmp(a, "--skip"))
			o->skip = v;
		else if (!strcmp(a, "--tags"))
			o->tags = v;
		else if (!strcmp(a, "--skip-tags"))
			o->skip_tags = v;
		else if (!strcmp(a, "--json"))
			o->json = v;
		else if (!strcmp(a, "--nfs-mount"))
			o->nfs_mount = v;
		else if (!strcmp(a, "--stale-cmd"))
			o->stale_cmd = v;
		else if (!strcmp(a, "--label"))
			o->label = v;
		else if (!strcmp(a, "--samples"))
			o->samples = strtoul(v, NULL, 0);
		else if (!strcmp(a, "--ci-target"))
			o->ci_target = strtod(v, NULL);
		else if (!strcmp(a, "--max-samples"))
			o->max_samples = strtoul(v, NULL, 0);
		else if (!strcmp(a, "--max-seconds"))
			o->max_seconds = strtod(v, NULL);
		else if (!strcmp(a, "--mix"))
			o->mix = v;
		else if (!strcmp(a, "--max-files"))
			o->max_files = strtoul(v, NULL, 0);
		else if (!strcmp(a, "--ci-ranks")) {
			o->ci_ranks = strtoul(v, NULL, 0);
			if (!o->ci_ranks)
				usage();
		}
		else if (!strcmp(a, "--budget"))
			o->budget = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--env") && strchr(v, '=') && o->nenv < MAX_ENV)
			o->env[o->nenv++] = v;
		else
			usage();
	}
	if (strcmp(o->mode, "cost") && strcmp(o->mode, "time"))
		die("--mode is cost or time, not %s", o->mode);
	if (o->mix && strcmp(o->mode, "cost"))
		die("--mix wants cost mode: its windows are read beside cost mode's counts");
	if (!o->samples)
		o->samples = !strcmp(o->mode, "cost") ? 9 : 31;
	/* Cost mode is exact: its samples agree, and more would add nothing. */
	if (!strcmp(o->mode, "cost"))
		o->max_samples = o->samples;
	else if (!o->max_samples)
		o->max_samples = 20000;
	if (o->max_samples < o->samples)
		o->max_samples = o->samples;
	if (o->ci_target <= 0 || o->max_seconds <= 0)
		die("--ci-target and --max-seconds want positive numbers");
}

int main(int argc, char **argv)
{
	struct options o;
	struct overhead ov;
	struct bench_result *res, nullr = { 0 };
	struct bench_ctx *ctx;
	double *ovs, c0;
	unsigned int i, s, n;
	cpu_set_t cpus;

	parse(argc, argv, &o);
	if (o.ci_ranks) {
		unsigned int lo, hi;
		long double cover = median_ci_ranks(o.ci_ranks, &lo, &hi);

		printf("%u %u %.17Lg\n", lo, hi, cover);
		return 0;
	}
	time_mode = !strcmp(o.mode, "time");
	study_nfs_mount = o.nfs_mount;
	busy_mode = o.busy;
	if (o.busy && sysconf(_SC_NPROCESSORS_ONLN) != 1)
		die("--busy needs one CPU online (the idle time of the others would not be "
		    "closed while this task reads it): %ld are", sysconf(_SC_NPROCESSORS_ONLN));
	if (o.busy)
		idle_ns();
	stale_cmd = o.stale_cmd;
	stale_symlink = o.stale_symlink;
	if (o.list) {
		for (i = 0; i < bench_ncases; i++) {
			const struct bench_case *bc = &bench_cases[i];

			if (o.list == 2)
				printf("%s\t%s\t%s\t%s\n", bc->name, bc->kind, bc->call, bc->tags);
			else
				printf("%-34s %-11s %-34s %s%s\n", bc->name, bc->kind, bc->call,
				       bc->tags, bc->quick ? " (quick)" : "");
		}
		return 0;
	}
	check_setup(&o);
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		die("cannot pin to CPU 0: %s", strerror(errno));
	res = calloc(max_instances(), sizeof(*res));
	ctx = calloc(max_instances(), sizeof(*ctx));
	ovs = calloc(o.samples, sizeof(*ovs));
	if (!res || !ctx || !ovs)
		die("out of memory");
	for (i = 0; i < bench_ncases; i++)
		if (!strcmp(bench_cases[i].name, "null"))
			nullr.bc = &bench_cases[i];
	n = instances(&o, res);
	/*
	 * d1/d2/d3 only for the cases that look at it: a study alone leaves
	 * --dir as statx-scale did (on ext4 a cold pass over a few files
	 * reads however many inode-table blocks their inode numbers span).
	 */
	if (o.dir) {
		int need = 0;

		for (i = 0; i < n; i++)
			need |= res[i].bc->target != T_NONE && !res[i].bc->params;
		make_files(o.dir, need);
	}

	/*
	 * The harness's own cost: two clock reads per batch (fixed) and one
	 * trip round the loop with an empty body (per iteration); for the
	 * studies, the CPU clock around an empty batch.
	 */
	prepare(&o, &nullr, &ctx[0]);
	run_batch(nullr.bc->body, &ctx[0], 20000);
	for (s = 0; s < o.samples; s++)
		ovs[s] = run_batch(nullr.bc->body, &ctx[0], 0);
	ov.fixed = median_of(ovs, o.samples);
	for (s = 0; s < o.samples; s++)
		ovs[s] = (run_batch(nullr.bc->body, &ctx[0], 10000) - ov.fixed) / 10000.0;
	ov.iter = median_of(ovs, o.samples);
	for (s = 0; s < o.samples; s++) {
		c0 = cpu_ns();
		run_batch(nullr.bc->body, &ctx[0], 0);
		ovs[s] = cpu_ns() - c0;
	}
	ov.cpu_fixed = median_of(ovs, o.samples);
	printf("harness overhead: %.1f per batch (clock reads), %.2f per iteration (loop)%s\n",
	       ov.fixed, ov.iter, !strcmp(o.mode, "cost") ? " [instructions]" : " [ns]");

	for (i = 0; i < n; i++) {
		res[i].samples = calloc(o.max_samples, sizeof(double));
		res[i].cpu = calloc(o.samples, sizeof(double));
		res[i].busy = calloc(o.max_samples, sizeof(double));
		if (!res[i].samples || !res[i].cpu || !res[i].busy)
			die("out of memory");
		ctx[i].cwd = ctx[i].fd = ctx[i].opath_fd = -1;
		/* A study is set up just before its samples (run_case). */
		if (res[i].bc->params)
			continue;
		prepare(&o, &res[i], &ctx[i]);
		res[i].name_len = ctx[i].path ? strlen(ctx[i].path) : 0;
		warm_up(&o, &res[i], &ctx[i]);
	}

	/*
	 * --mix: the empty body's windows first (the harness's share, which
	 * the analysis takes off every case's as the samples do), then each
	 * case's after its samples, warm.
	 */
	if (o.mix) {
		for (i = 0; i < n; i++)
			if (res[i].bc->params)
				die("--mix: %s is a study; a window holds one call",
				    res[i].bc->name);
		mix_open(o.mix);
		mix_case("null", nullr.bc->body, &ctx[0]);
	}

	/* Cost mode is exact, case by case; time mode interleaves cases. */
	if (!strcmp(o.mode, "cost")) {
		for (i = 0; i < n; i++) {
			run_case(&o, &res[i], &ctx[i], &ov);
			report_line(&res[i], i, n);
			if (o.mix)
				mix_case(res[i].name, res[i].bc->body, &ctx[i]);
		}
	} else {
		time_rounds(&o, res, ctx, n, &ov);
		for (i = 0; i < n; i++) {
			if (res[i].bc->params)
				run_case(&o, &res[i], &ctx[i], &ov);
			report_line(&res[i], i, n);
		}
	}
	/* An untimed pass of each case counts its RPCs. */
	for (i = 0; (o.nfs_mount || o.afs_ops) && i < n; i++)
		if (!res[i].bc->params)
			count_ops(&o, &res[i], &ctx[i]);
	for (i = 0; i < n; i++)
		cleanup(&ctx[i]);
	if (o.json)
		write_json(&o, res, n, ov.fixed, ov.iter);
	return 0;
}
