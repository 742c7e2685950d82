// SPDX-License-Identifier: GPL-2.0
/*
 * scale.c - how stat() and statx() cost grows with path depth and with
 * directory size, hot and cold, and what `ls -l` pays per entry.
 *
 * Usage: statx-scale --dir DIR --fs LABEL --json OUT [options]
 *   --dir DIR          directory to work in (made if missing); the program
 *                      makes DIR/depth/d/d/.../f and DIR/files/f0..fN-1
 *   --fs LABEL         names the file system in the output (ext4, tmpfs,
 *                      nfs3, ...); refuses unless DIR's statfs type is the
 *                      label's file system (nfs* is NFS)
 *   --json OUT         write the results as JSON (bench/SCHEMA.md, "scale")
 *   --max-files N      largest directory (default 100000)
 *   --quick            directories of 10, 100 and 1000 files only
 *   --reps R           measured hot passes per point (default 3)
 *   --nfs-mount MNT    count NFS operations per pass on MNT
 *                      (/proc/self/mountstats)
 *
 * It measures whole passes with clock_gettime(CLOCK_MONOTONIC): under QEMU
 * -icount shift=0 (cost mode) a difference is an instruction count.  A
 * pass by name costs (pass - the same loop with an empty body) / calls;
 * the empty loop is measured per pass and subtracted, and the clock pair
 * is printed.  Every hot point runs one unmeasured pass first: the first
 * pass over a code path pays TCG's translation.  Cold passes follow
 * sync and drop_caches=3 (needs root); tmpfs cannot drop its dentries,
 * so its cold pass is as hot as its hot one.  Every point also records
 * the CPU time of the process that ran it (CLOCK_THREAD_CPUTIME_ID; for
 * the real ls, the child's rusage): it leaves out the waits, which under
 * -icount sleep=off show on CLOCK_MONOTONIC as jumps to the next timer
 * deadline, not as device latency.  Hot, the two agree.
 *
 *   depth     stat(), statx(BASIC_STATS) and statx(TYPE|MODE) of a file
 *             at depth 1..16 (a relative path from DIR/depth), hot
 *   files     for N = 10 .. 100000: stat() of every file of a directory
 *             of N files, by name from inside it, hot and cold, with the
 *             dcache size (/proc/sys/fs/dentry-state) around each pass
 *   ls        on the same directory, per entry: open, getdents64 and
 *             fstatat(dfd, name, AT_SYMLINK_NOFOLLOW) or statx(dfd,
 *             name, AT_SYMLINK_NOFOLLOW, MASK) with coreutils 9.1's
 *             `ls -l` mask (also with AT_STATX_DONT_SYNC, which on NFS
 *             with actimeo=0 takes the cached attributes without a
 *             GETATTR) or BASIC_STATS; what Debian's ls -l calls
 *             per entry (statx by "files/NAME" and two xattr reads); and
 *             the real /bin/ls -l (posix_spawn, stdout to /dev/null, fork
 *             and exec included), per directory and per entry over an
 *             empty directory's run
 *
 * Prints one line per point: "scale i/N name ... value".
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "util.h"

#define MAX_DEPTH	16
#define DEPTH_CALLS	100		/* calls per depth pass */
#define MAX_REPS	16
#define MAX_POINTS	8
#define NR_NFS_OPS	5

/* What coreutils 9.1's ls -l asks for (calc_req_mask(), default sort). */
#define LS_MASK (STATX_MODE | STATX_NLINK | STATX_UID | STATX_GID | \
		 STATX_MTIME | STATX_SIZE)
#define TM_MASK (STATX_TYPE | STATX_MODE)

extern char **environ;

static const unsigned long n_values[] = { 10, 100, 1000, 10000, 100000 };
static const char *const nfs_op_names[NR_NFS_OPS] = {
	"LOOKUP", "GETATTR", "ACCESS", "READDIR", "READDIRPLUS",
};

/* One measured point: per call (or per entry, or per directory). */
struct point {
	unsigned int n;
	double v[MAX_REPS];		/* CLOCK_MONOTONIC */
	double cpu[MAX_REPS];		/* CPU time of the process that ran it */
	uint64_t nfs[NR_NFS_OPS];	/* operations in the last pass */
	long dentry_before, dentry_after;
};

/* The ways of listing a directory, in output order. */
enum ls_way {
	LS_FSTATAT, LS_STATX_LS, LS_STATX_LS_DONT_SYNC, LS_STATX_BASIC, LS_DEBIAN,
	NR_LS_WAYS
};

static const char *const ls_way_name[NR_LS_WAYS] = {
	"getdents+fstatat", "getdents+statx.ls", "getdents+statx.ls.DONT_SYNC",
	"getdents+statx.BASIC_STATS", "debian_ls_syscalls",
};

struct nstep {
	unsigned long n;
	double create_per_file;
	struct point hot, cold;
	struct point ls[NR_LS_WAYS][2];	/* [way][hot, cold] */
	struct point real_ls[2];	/* per directory */
	double real_ls_entry[2];	/* per entry, over the empty directory */
};

struct options {
	const char *dir, *fs, *json, *nfs_mount;
	unsigned long max_files;
	int quick;
	unsigned int reps;
};

static struct options opt = { .max_files = 100000, .reps = 3 };
static unsigned int step, nsteps;
static const char *unit = "ns";

/*
 * The thread's CPU time (sum_exec_runtime): it stops while the thread
 * waits.  Under -icount sleep=off an idle guest's clock jumps to the next
 * timer deadline, so a wait for the disk, the 9p root or knfsd shows on
 * CLOCK_MONOTONIC as an arbitrary jump, not as device latency.
 */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static void progress(const char *name, const struct point *p, unsigned int r,
		     const char *per)
{
	printf("scale %u/%u %s ... %.1f %s/%s (cpu %.1f)\n", ++step, nsteps, name,
	       p->v[r], unit, per, p->cpu[r]);
	fflush(stdout);
}

/* ---- the calls ------------------------------------------------------ */

enum call { C_NULL, C_STAT, C_STATX_BASIC, C_STATX_TM };

static const char *const call_name[] = {
	"null", "stat", "statx.BASIC_STATS", "statx.TYPE|MODE",
};

static struct stat st;
static struct statx stx;

static long __attribute__((noinline)) do_call(enum call c, const char *name)
{
	switch (c) {
	case C_STAT:
		return syscall(SYS_newfstatat, AT_FDCWD, name, &st, 0);
	case C_STATX_BASIC:
		return syscall(SYS_statx, AT_FDCWD, name, 0, STATX_BASIC_STATS, &stx);
	case C_STATX_TM:
		return syscall(SYS_statx, AT_FDCWD, name, 0, TM_MASK, &stx);
	default:
		return 0;
	}
}

/* One pass over @names; returns clock ns.  Fails loudly on an error. */
static uint64_t __attribute__((noinline))
pass(enum call c, char *const *names, unsigned long n)
{
	uint64_t t0, t;
	unsigned long i;
	long bad = 0;

	t0 = now_ns();
	for (i = 0; i < n; i++)
		bad |= do_call(c, names[i]);
	t = now_ns() - t0;
	if (bad)
		die("%s failed on a file of the pass: %s", call_name[c], strerror(errno));
	return t;
}

static uint64_t clock_pair;	/* ns between two CLOCK_MONOTONIC reads */
static uint64_t cpu_pair;	/* the same for the CPU clock */
static void drop_caches(void);
static long dentries(void);

/*
 * One measured pass by name into @p->v[@r] and @p->cpu[@r], per call, the
 * empty loop over the same names (measured just before) subtracted;
 * @cold drops the caches first.
 */
static void pass_per_call(struct point *p, unsigned int r, enum call c,
			  char *const *names, unsigned long n, int cold)
{
	uint64_t e = pass(C_NULL, names, n), c0, t;

	if (cold) {
		drop_caches();
		p->dentry_before = dentries();
	}
	c0 = cpu_ns();
	t = pass(c, names, n);
	c0 = cpu_ns() - c0;
	p->v[r] = ((double)t - (double)e) / n;
	p->cpu[r] = ((double)c0 - cpu_pair - clock_pair - e) / n;
}

/* ---- the system around -------------------------------------------- */

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
		refuse(EXIT_REFUSE_NO_ROOT, "cannot drop caches (root needed): %s", strerror(errno));
	close(fd);
}

static void read_nfs_ops(uint64_t *ops)
{
	memset(ops, 0, NR_NFS_OPS * sizeof(*ops));
	if (opt.nfs_mount)
		read_mountstats(opt.nfs_mount, nfs_op_names, NR_NFS_OPS, ops, NULL);
}

/* Around a measured pass: dcache size and NFS operations. */
static void around(struct point *p, int before)
{
	static uint64_t ops0[NR_NFS_OPS];
	uint64_t ops[NR_NFS_OPS];
	unsigned int i;

	if (before) {
		p->dentry_before = dentries();
		read_nfs_ops(ops0);
		return;
	}
	p->dentry_after = dentries();
	read_nfs_ops(ops);
	for (i = 0; i < NR_NFS_OPS; i++)
		p->nfs[i] = ops[i] - ops0[i];
}

static void xchdir(const char *d)
{
	if (chdir(d))
		die("cannot chdir to %s: %s", d, strerror(errno));
}

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

static void check_fs(void)
{
	struct statfs sf;
	long want;

	if (!strncmp(opt.fs, "ext4", 4))
		want = 0xEF53;
	else if (!strncmp(opt.fs, "tmpfs", 5))
		want = 0x01021994;
	else if (!strncmp(opt.fs, "nfs", 3))
		want = 0x6969;
	else
		die("unknown --fs %s (ext4, tmpfs, nfs...)", opt.fs);
	if (statfs(opt.dir, &sf))
		refuse(EXIT_REFUSE_FS, "cannot statfs %s: %s", opt.dir, strerror(errno));
	if (sf.f_type != want)
		refuse(EXIT_REFUSE_FS, "%s is not on %s (f_type 0x%lx): is it mounted?",
		    opt.dir, opt.fs, (long)sf.f_type);
	if (opt.nfs_mount && strncmp(opt.fs, "nfs", 3))
		die("--nfs-mount with a --fs that is not NFS");
}

/* The options of the mount holding @path (longest matching mount point). */
static void mount_of(const char *path, char *out, size_t len)
{
	char dev[256], mnt[PATH_MAX], type[64], opts[1024];
	size_t best = 0, l;
	FILE *f = fopen("/proc/self/mounts", "r");

	snprintf(out, len, "unknown");
	if (!f)
		return;
	while (fscanf(f, "%255s %4095s %63s %1023s %*d %*d", dev, mnt, type, opts) == 4) {
		l = strlen(mnt);
		if (strncmp(path, mnt, l) || (path[l] && path[l] != '/' && l > 1))
			continue;
		if (l >= best) {
			best = l;
			snprintf(out, len, "%s %s on %s (%s)", type, dev, mnt, opts);
		}
	}
	fclose(f);
}

/* sxs.mode= on the kernel command line: cost means instructions. */
static void read_mode(char *buf, size_t len)
{
	if (!cmdline_arg("sxs.mode", buf, len))
		snprintf(buf, len, "unknown");
}

/* ---- depth ---------------------------------------------------------- */

static struct point depth_pts[3][MAX_DEPTH];

static void run_depth(void)
{
	static const enum call calls[3] = { C_STAT, C_STATX_BASIC, C_STATX_TM };
	char path[2 * MAX_DEPTH + 2], label[64], *names[DEPTH_CALLS];
	unsigned int d, c, r, i;

	xchdir(opt.dir);
	xmkdir("depth");
	xchdir("depth");
	/* d/d/.../f: a file at every level. */
	for (d = 1; d <= MAX_DEPTH; d++) {
		path[0] = '\0';
		for (i = 1; i < d; i++)
			strcat(path, "d/");
		if (d < MAX_DEPTH) {
			strcat(path, "d");
			xmkdir(path);
			path[strlen(path) - 1] = '\0';
		}
		strcat(path, "f");
		touch(path);
	}
	for (c = 0; c < 3; c++) {
		for (d = 1; d <= MAX_DEPTH; d++) {
			struct point *p = &depth_pts[c][d - 1];

			path[0] = '\0';
			for (i = 1; i < d; i++)
				strcat(path, "d/");
			strcat(path, "f");
			for (i = 0; i < DEPTH_CALLS; i++)
				names[i] = path;
			pass(calls[c], names, DEPTH_CALLS);	/* warm */
			p->n = opt.reps;
			for (r = 0; r < opt.reps; r++)
				pass_per_call(p, r, calls[c], names, DEPTH_CALLS, 0);
			snprintf(label, sizeof(label), "depth.%s.%u", call_name[calls[c]], d);
			progress(label, p, opt.reps / 2, "call");
		}
	}
	xchdir(opt.dir);
}

/* ---- the ls -l workload --------------------------------------------- */

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* List "files" (from DIR) the way @way says; returns the entries seen. */
static unsigned long list_dir(enum ls_way way)
{
	char buf[32768], full[300], xbuf[256];
	unsigned long entries = 0;
	long n, off, ret = 0;
	int dfd;

	dfd = open("files", O_RDONLY | O_NONBLOCK | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		die("cannot open %s/files: %s", opt.dir, strerror(errno));
	while ((n = syscall(SYS_getdents64, dfd, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n; ) {
			struct linux_dirent64 *e = (void *)(buf + off);
			const char *nm = e->d_name;

			off += e->d_reclen;
			if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
				continue;
			entries++;
			switch (way) {
			case LS_FSTATAT:
				ret |= syscall(SYS_newfstatat, dfd, nm, &st,
					       AT_SYMLINK_NOFOLLOW);
				break;
			case LS_STATX_LS:
				ret |= syscall(SYS_statx, dfd, nm, AT_SYMLINK_NOFOLLOW,
					       LS_MASK, &stx);
				break;
			case LS_STATX_LS_DONT_SYNC:
				/* What the attribute cache has, if it has it. */
				ret |= syscall(SYS_statx, dfd, nm,
					       AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC,
					       LS_MASK, &stx);
				break;
			case LS_STATX_BASIC:
				ret |= syscall(SYS_statx, dfd, nm, AT_SYMLINK_NOFOLLOW,
					       STATX_BASIC_STATS, &stx);
				break;
			default:
				/* Debian 12's ls -l, as strace shows it. */
				snprintf(full, sizeof(full), "files/%s", nm);
				ret |= syscall(SYS_statx, AT_FDCWD, full,
					       AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
					       LS_MASK, &stx);
				lgetxattr(full, "security.selinux", xbuf, sizeof(xbuf) - 1);
				getxattr(full, "system.posix_acl_access", NULL, 0);
				break;
			}
		}
	}
	if (n < 0 || ret)
		die("listing %s/files (%s) failed: %s", opt.dir, ls_way_name[way],
		    strerror(errno));
	close(dfd);
	return entries;
}

/*
 * The real ls -l on @dir, stdout to /dev/null: clock ns for the run into
 * @p->v[@r], the child's CPU time (wait4's rusage, microseconds) into
 * @p->cpu[@r]; @p may be NULL.
 */
static void real_ls(const char *dir, struct point *p, unsigned int r)
{
	char *argv[] = { "ls", "-l", (char *)dir, NULL };
	posix_spawn_file_actions_t fa;
	struct rusage ru;
	uint64_t t0, t;
	int status;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	t0 = now_ns();
	if (posix_spawn(&pid, "/bin/ls", &fa, NULL, argv, environ))
		die("cannot run /bin/ls");
	if (wait4(pid, &status, 0, &ru) != pid)
		die("wait4: %s", strerror(errno));
	t = now_ns() - t0;
	posix_spawn_file_actions_destroy(&fa);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		die("/bin/ls -l %s failed (status 0x%x)", dir, status);
	if (p) {
		p->v[r] = (double)t - clock_pair;
		p->cpu[r] = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
			    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
	}
}

/* One listing pass, per entry, into @p->v[@r] and @p->cpu[@r]. */
static void ls_entry(struct point *p, unsigned int r, enum ls_way way,
		     unsigned long n, int cold)
{
	uint64_t c0, t0, t;
	unsigned long e;

	if (cold) {
		drop_caches();
		p->dentry_before = dentries();
	}
	c0 = cpu_ns();
	t0 = now_ns();
	e = list_dir(way);
	t = now_ns() - t0;
	c0 = cpu_ns() - c0;
	if (e != n)
		die("listed %lu entries, expected %lu", e, n);
	p->v[r] = ((double)t - clock_pair) / n;
	p->cpu[r] = ((double)c0 - cpu_pair - clock_pair) / n;
}

static struct point ls_empty[2];
static double median(const struct point *p, int cpu);

/* ---- the file counts ------------------------------------------------ */

static struct nstep steps[MAX_POINTS];
static unsigned int nn;

/* Passes per point: --reps up to 1000 files, one above (cost mode needs
 * no more, and 100000 files take minutes under TCG). */
static unsigned int reps_for(unsigned long n)
{
	return n <= 1000 ? opt.reps : 1;
}

static void run_files(void)
{
	char **names = malloc(opt.max_files * sizeof(*names));
	char label[96];
	unsigned long have = 0, i;
	unsigned int k, r, w, h;
	uint64_t t0;

	if (!names)
		die("out of memory");
	xchdir(opt.dir);
	xmkdir("files");
	xmkdir("empty");
	/* The real ls's fixed cost: fork, exec, libraries, an empty listing. */
	real_ls("empty", NULL, 0);
	for (h = 0; h < 2; h++) {
		struct point *p = &ls_empty[h];

		p->n = opt.reps;
		for (r = 0; r < p->n; r++) {
			if (h)
				drop_caches();
			around(p, 1);
			real_ls("empty", p, r);
			around(p, 0);
		}
		progress(h ? "ls.real.empty.cold" : "ls.real.empty.hot", p, 0, "dir");
	}

	for (k = 0; k < nn; k++) {
		struct nstep *s = &steps[k];
		unsigned int cr = reps_for(s->n);

		/* Grow the directory to N files: f0 .. fN-1 (fio's names). */
		xchdir("files");
		t0 = now_ns();
		for (i = have; i < s->n; i++) {
			if (asprintf(&names[i], "f%lu", i) < 0)
				die("out of memory");
			touch(names[i]);
		}
		s->create_per_file = (double)(now_ns() - t0) / (s->n - have);
		have = s->n;

		/* Hot: a warm pass, then the measured ones. */
		pass(C_STAT, names, s->n);
		s->hot.n = cr;
		around(&s->hot, 1);
		for (r = 0; r < cr; r++)
			pass_per_call(&s->hot, r, C_STAT, names, s->n, 0);
		around(&s->hot, 0);
		snprintf(label, sizeof(label), "files.%lu.stat.hot", s->n);
		progress(label, &s->hot, 0, "file");

		/* Cold: caches dropped before each pass; the first N's cold
		 * path is run once unmeasured, for TCG's translation. */
		if (k == 0) {
			drop_caches();
			pass(C_STAT, names, s->n);
		}
		s->cold.n = cr;
		for (r = 0; r < cr; r++) {
			around(&s->cold, 1);
			pass_per_call(&s->cold, r, C_STAT, names, s->n, 1);
			around(&s->cold, 0);
		}
		snprintf(label, sizeof(label), "files.%lu.stat.cold", s->n);
		progress(label, &s->cold, 0, "file");
		xchdir(opt.dir);

		for (w = 0; w < NR_LS_WAYS; w++) {
			struct point *hp = &s->ls[w][0], *cp = &s->ls[w][1];

			list_dir(w);	/* warm */
			hp->n = cr;
			around(hp, 1);
			for (r = 0; r < cr; r++)
				ls_entry(hp, r, w, s->n, 0);
			around(hp, 0);
			snprintf(label, sizeof(label), "ls.%lu.%s.hot", s->n, ls_way_name[w]);
			progress(label, hp, 0, "entry");
			if (k == 0) {
				drop_caches();
				list_dir(w);
			}
			cp->n = cr;
			for (r = 0; r < cr; r++) {
				around(cp, 1);
				ls_entry(cp, r, w, s->n, 1);
				around(cp, 0);
			}
			snprintf(label, sizeof(label), "ls.%lu.%s.cold", s->n, ls_way_name[w]);
			progress(label, cp, 0, "entry");
		}

		for (h = 0; h < 2; h++) {
			struct point *p = &s->real_ls[h];

			if (!h)
				real_ls("files", NULL, 0);	/* warm */
			p->n = cr;
			for (r = 0; r < p->n; r++) {
				if (h)
					drop_caches();
				around(p, 1);
				real_ls("files", p, r);
				around(p, 0);
			}
			/* Per entry: CPU time over the empty directory's. */
			s->real_ls_entry[h] = (median(p, 1) - median(&ls_empty[h], 1)) / s->n;
			snprintf(label, sizeof(label), "ls.%lu.real_ls.%s", s->n,
				 h ? "cold" : "hot");
			printf("scale %u/%u %s ... %.1f %s/dir (cpu %.1f/dir, %.1f/entry)\n",
			       ++step, nsteps, label, median(p, 0), unit, median(p, 1),
			       s->real_ls_entry[h]);
		}
	}
	for (i = 0; i < have; i++)
		free(names[i]);
	free(names);
}

/* ---- output ----------------------------------------------------------- */

static double median(const struct point *p, int cpu)
{
	return median_of(cpu ? p->cpu : p->v, p->n);
}

static void json_point(FILE *f, const struct point *p, int full)
{
	unsigned int i;

	fprintf(f, "{\"median\": %.3f, \"samples\": [", median(p, 0));
	for (i = 0; i < p->n; i++)
		fprintf(f, "%s%.3f", i ? ", " : "", p->v[i]);
	fprintf(f, "], \"cpu_median\": %.3f, \"cpu_samples\": [", median(p, 1));
	for (i = 0; i < p->n; i++)
		fprintf(f, "%s%.3f", i ? ", " : "", p->cpu[i]);
	fprintf(f, "]");
	if (full) {
		fprintf(f, ", \"dentries_before\": %ld, \"dentries_after\": %ld",
			p->dentry_before, p->dentry_after);
		if (opt.nfs_mount) {
			fprintf(f, ", \"nfs_ops_last_pass\": {");
			for (i = 0; i < NR_NFS_OPS; i++)
				fprintf(f, "%s\"%s\": %llu", i ? ", " : "", nfs_op_names[i],
					(unsigned long long)p->nfs[i]);
			fprintf(f, "}");
		}
	}
	fprintf(f, "}");
}

static void write_json(const char *mode, double loop_per_call)
{
	static const unsigned int dcalls[3] = { C_STAT, C_STATX_BASIC, C_STATX_TM };
	static const unsigned int masks[3] = { 0, STATX_BASIC_STATS, TM_MASK };
	char buf[6144], mname[128];
	struct utsname u;
	unsigned int c, d, k, w, h;
	FILE *f = fopen(opt.json, "w");

	if (!f)
		die("cannot write %s: %s", opt.json, strerror(errno));
	uname(&u);
	fprintf(f, "{\n  \"schema\": 1,\n  \"kind\": \"scale\",\n  \"fs\": ");
	json_str(f, opt.fs);
	fprintf(f, ",\n  \"mode\": ");
	json_str(f, mode);
	fprintf(f, ", \"unit\": ");
	json_str(f, unit);
	fprintf(f, ",\n  \"env\": {\"dir\": ");
	json_str(f, opt.dir);
	mount_of(opt.dir, buf, sizeof(buf));
	fprintf(f, ", \"mount\": ");
	json_str(f, buf);
	fprintf(f, ", \"release\": ");
	json_str(f, u.release);
	fprintf(f, ", \"quick\": %d, \"max_files\": %lu, \"reps\": %u",
		opt.quick, opt.max_files, opt.reps);
	fprintf(f, ", \"reps_files\": \"%u passes per point up to 1000 files, 1 above, "
		"each hot point after an unmeasured pass\"", opt.reps);
	fprintf(f, ", \"nfs_mount\": ");
	json_str(f, opt.nfs_mount ? opt.nfs_mount : "");
	fprintf(f, ", \"cold\": \"sync; echo 3 > /proc/sys/vm/drop_caches before each cold pass\"");
	fprintf(f, ", \"n_values\": [");
	for (k = 0; k < nn; k++)
		fprintf(f, "%s%lu", k ? ", " : "", steps[k].n);
	fprintf(f, "]},\n  \"overhead\": {\"clock_pair\": %llu, \"cpu_clock_pair\": %llu, "
		"\"loop_per_call\": %.3f,", (unsigned long long)clock_pair,
		(unsigned long long)cpu_pair, loop_per_call);
	fprintf(f, " \"note\": \"by-name passes subtract the empty loop measured beside each pass; "
		"ls passes subtract the clock pair\"},\n");

	fprintf(f, "  \"depth\": {\"depths\": [");
	for (d = 1; d <= MAX_DEPTH; d++)
		fprintf(f, "%s%u", d > 1 ? ", " : "", d);
	fprintf(f, "], \"calls_per_pass\": %u, \"path\": \"d/d/.../f (depth components) "
		"relative to DIR/depth, hot\",\n   \"series\": {\n", DEPTH_CALLS);
	for (c = 0; c < 3; c++) {
		statx_mask_name(masks[c], mname, sizeof(mname));
		fprintf(f, "    \"%s\": {\"mask\": %u, \"mask_name\": \"%s\", \"points\": [\n",
			call_name[dcalls[c]], masks[c], masks[c] ? mname : "");
		for (d = 0; d < MAX_DEPTH; d++) {
			fprintf(f, "      ");
			json_point(f, &depth_pts[c][d], 0);
			fprintf(f, "%s\n", d + 1 < MAX_DEPTH ? "," : "");
		}
		fprintf(f, "    ]}%s\n", c < 2 ? "," : "");
	}
	fprintf(f, "  }},\n");

	statx_mask_name(LS_MASK, mname, sizeof(mname));
	fprintf(f, "  \"ls_mask\": %u, \"ls_mask_name\": \"%s\",\n", LS_MASK, mname);
	fprintf(f, "  \"ls_ways\": {\"getdents+fstatat\": \"newfstatat(dfd, name, "
		"AT_SYMLINK_NOFOLLOW)\", \"getdents+statx.ls\": \"statx(dfd, name, "
		"AT_SYMLINK_NOFOLLOW, %s)\", \"getdents+statx.BASIC_STATS\": \"statx(dfd, name, "
		"AT_SYMLINK_NOFOLLOW, BASIC_STATS)\", \"debian_ls_syscalls\": \"statx(AT_FDCWD, "
		"\\\"files/name\\\", AT_SYMLINK_NOFOLLOW|AT_NO_AUTOMOUNT, %s), "
		"lgetxattr(security.selinux), getxattr(system.posix_acl_access)\", "
		"\"real_ls\": \"/bin/ls -l files via posix_spawn, stdout to /dev/null, "
		"fork+exec included; per directory (median, cpu_median: the child's "
		"rusage), *_per_entry: child CPU time over the empty directory's, per entry\"},\n", mname, mname);
	fprintf(f, "  \"real_ls_empty\": {\"hot\": ");
	json_point(f, &ls_empty[0], 1);
	fprintf(f, ", \"cold\": ");
	json_point(f, &ls_empty[1], 1);
	fprintf(f, "},\n  \"files\": [\n");
	for (k = 0; k < nn; k++) {
		const struct nstep *s = &steps[k];

		fprintf(f, "   {\"n\": %lu, \"create_per_file\": %.1f,\n    \"stat\": {\"hot\": ",
			s->n, s->create_per_file);
		json_point(f, &s->hot, 1);
		fprintf(f, ",\n             \"cold\": ");
		json_point(f, &s->cold, 1);
		fprintf(f, "},\n    \"ls\": {\n");
		for (w = 0; w < NR_LS_WAYS; w++) {
			fprintf(f, "     \"%s\": {", ls_way_name[w]);
			for (h = 0; h < 2; h++) {
				fprintf(f, "%s\"%s\": ", h ? ", " : "", h ? "cold" : "hot");
				json_point(f, &s->ls[w][h], 1);
			}
			fprintf(f, "},\n");
		}
		fprintf(f, "     \"real_ls\": {");
		for (h = 0; h < 2; h++) {
			fprintf(f, "%s\"%s\": ", h ? ", " : "", h ? "cold" : "hot");
			json_point(f, &s->real_ls[h], 1);
			fprintf(f, ", \"%s_per_entry\": %.3f", h ? "cold" : "hot",
				s->real_ls_entry[h]);
		}
		fprintf(f, "}}}%s\n", k + 1 < nn ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	if (fclose(f))
		die("cannot write %s", opt.json);
}

static void usage(void)
{
	fputs("usage: statx-scale --dir DIR --fs LABEL --json OUT [--max-files N]\n"
	      "                   [--quick] [--reps R] [--nfs-mount MNT]\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	char mode[32], dir[PATH_MAX], *names[1000], label[32];
	uint64_t t0, e;
	unsigned int i;
	int a;

	for (a = 1; a < argc; a++) {
		const char *o = argv[a], *v = a + 1 < argc ? argv[a + 1] : NULL;

		if (!strcmp(o, "--quick")) {
			opt.quick = 1;
			continue;
		}
		if (!v)
			usage();
		a++;
		if (!strcmp(o, "--dir"))
			opt.dir = v;
		else if (!strcmp(o, "--fs"))
			opt.fs = v;
		else if (!strcmp(o, "--json"))
			opt.json = v;
		else if (!strcmp(o, "--max-files"))
			opt.max_files = strtoul(v, NULL, 0);
		else if (!strcmp(o, "--reps"))
			opt.reps = strtoul(v, NULL, 0);
		else if (!strcmp(o, "--nfs-mount"))
			opt.nfs_mount = v;
		else
			usage();
	}
	if (!opt.dir || !opt.fs || !opt.json)
		usage();
	if (opt.reps < 1 || opt.reps > MAX_REPS)
		die("--reps must be 1..%d", MAX_REPS);
	if (opt.quick && opt.max_files > 1000)
		opt.max_files = 1000;
	for (i = 0; i < sizeof(n_values) / sizeof(n_values[0]); i++)
		if (n_values[i] <= opt.max_files)
			steps[nn++].n = n_values[i];
	if (!nn)
		die("--max-files %lu leaves no directory size (smallest: 10)", opt.max_files);
	opt.max_files = steps[nn - 1].n;

	xmkdir(opt.dir);
	if (!realpath(opt.dir, dir))
		die("cannot resolve %s: %s", opt.dir, strerror(errno));
	opt.dir = dir;
	check_fs();
	read_mode(mode, sizeof(mode));
	if (!strcmp(mode, "cost"))
		unit = "instructions";
	if (opt.json[0] != '/')
		die("--json needs an absolute path (the program changes directory)");

	/*
	 * overhead, depth (3 x 16), the empty directory's ls (2), and per N:
	 * stat hot and cold, each way of listing hot and cold, the real ls.
	 */
	nsteps = 1 + 3 * MAX_DEPTH + 2 + (2 + 2 * NR_LS_WAYS + 2) * nn;

	/* The clock pair and the empty loop (1000 calls, after a warm-up). */
	for (i = 0; i < 1000; i++)
		names[i] = label;
	for (i = 0; i < 3; i++) {
		t0 = now_ns();
		clock_pair = now_ns() - t0;
		t0 = cpu_ns();
		cpu_pair = cpu_ns() - t0;
		e = pass(C_NULL, names, 1000);
	}
	printf("statx-scale: %s on %s, %s; clock pair %llu, cpu clock pair %llu, "
	       "empty loop %.2f %s/call (subtracted)\n", opt.fs, opt.dir, mode,
	       (unsigned long long)clock_pair, (unsigned long long)cpu_pair, e / 1000.0, unit);
	printf("scale %u/%u overhead.loop_per_call ... %.2f %s/call\n", ++step, nsteps,
	       e / 1000.0, unit);

	run_depth();
	run_files();
	write_json(mode, e / 1000.0);
	printf("statx-scale: wrote %s\n", opt.json);
	return 0;
}
