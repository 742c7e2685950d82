// SPDX-License-Identifier: GPL-2.0
/*
 * cases.c - the benchmark's cases: one call each, no clocks.
 *
 * Raw system calls go through syscall(2), so that what is measured is the
 * kernel's path and not glibc's choice of syscall; the glibc wrappers an
 * application calls (stat, lstat, fstat) are cases of their own, of kind
 * "wrapper".  glibc 2.36's fstat() is newfstatat(fd, "", AT_EMPTY_PATH).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "harness.h"
#include "util.h"

static long body_null(struct bench_ctx *c)
{
	(void)c;
	return 0;
}

static long body_getppid(struct bench_ctx *c)
{
	(void)c;
	return syscall(SYS_getppid);
}

/*
 * Two numbers the x86-64 table leaves to sys_ni_syscall(): uselib (134) and
 * create_module (174).  The same handler, reached through different depths
 * of x64_sys_call()'s compare tree: their difference is the dispatch's
 * alone, a measured check of bench/dispatch.py's count.
 */
static long body_nosys_134(struct bench_ctx *c)
{
	(void)c;
	return syscall(134);
}

static long body_nosys_174(struct bench_ctx *c)
{
	(void)c;
	return syscall(174);
}

static long body_newfstatat(struct bench_ctx *c)
{
	return syscall(SYS_newfstatat, c->dfd, c->path, &c->st, c->flags);
}

static long body_fstat(struct bench_ctx *c)
{
	return syscall(SYS_fstat, c->fd, &c->st);
}

static long body_statx(struct bench_ctx *c)
{
	return syscall(SYS_statx, c->dfd, c->path, c->flags, c->mask, &c->stx);
}

/* open() by name and its close(): a descriptor per call would run out. */
static long body_open_close(struct bench_ctx *c)
{
	long fd = syscall(SYS_openat, AT_FDCWD, c->path, O_RDONLY);

	if (fd >= 0)
		syscall(SYS_close, fd);
	return fd;
}

/*
 * A writer's stat: dirty one page, then ask.  On NFS, asking for MTIME or
 * CTIME of a file with dirty pages flushes them first (the server owns
 * the times); a mask without them need not.  dirty.write alone is the
 * base the others are read against.
 *
 * The writes go round DIRTY_PAGES pages that dirty_fill() wrote and synced
 * before the first call, so every measured write rewrites a page the file
 * already has.  Without that the first DIRTY_PAGES calls also grew the
 * file and allocated a page each (on tmpfs with init_on_alloc=1, 4 KiB
 * zeroed: about 4,100 more instructions), and a case's median fell on
 * one side or the other of that change depending on how many calls its
 * samples held: it moved by 10% between boots of the same kernel.
 */
#define DIRTY_PAGES 256
static char page[4096];

int dirty_fill(struct bench_ctx *c)
{
	long i;

	for (i = 0; i < DIRTY_PAGES; i++)
		if (pwrite(c->fd, page, sizeof(page), i * (long)sizeof(page)) != sizeof(page))
			return -1;
	c->off = 0;
	return fsync(c->fd);
}

static long dirty_one_page(struct bench_ctx *c)
{
	long n = pwrite(c->fd, page, sizeof(page), c->off);

	c->off = (c->off + sizeof(page)) % (DIRTY_PAGES * sizeof(page));
	return n;
}

static long body_dirty_write(struct bench_ctx *c)
{
	return dirty_one_page(c) == sizeof(page) ? 0 : -1;
}

static long body_dirty_stat(struct bench_ctx *c)
{
	dirty_one_page(c);
	return syscall(SYS_newfstatat, AT_FDCWD, c->path, &c->st, 0);
}

static long body_dirty_fstat(struct bench_ctx *c)
{
	dirty_one_page(c);
	return syscall(SYS_fstat, c->fd, &c->st);
}

static long body_dirty_statx(struct bench_ctx *c)
{
	dirty_one_page(c);
	return syscall(SYS_statx, AT_FDCWD, c->path, c->flags, c->mask, &c->stx);
}

static long body_glibc_stat(struct bench_ctx *c)
{
	return stat(c->path, &c->st);
}

static long body_glibc_lstat(struct bench_ctx *c)
{
	return lstat(c->path, &c->st);
}

static long body_glibc_fstat(struct bench_ctx *c)
{
	return fstat(c->fd, &c->st);
}

/*
 * Calibration: how icount weighs string instructions.  Each REP iteration
 * counts as one instruction in cost mode, where hardware moves a cache
 * line in a few cycles.
 */
static char calib_buf[4096] __attribute__((aligned(64)));

static long body_rep_stosb(struct bench_ctx *c)
{
	void *d = calib_buf;
	unsigned long n = sizeof(calib_buf);

	(void)c;
	__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(0) : "memory");
	return 0;
}

static long body_rep_stosq(struct bench_ctx *c)
{
	void *d = calib_buf;
	unsigned long n = sizeof(calib_buf) / 8;

	(void)c;
	__asm__ volatile("rep stosq" : "+D"(d), "+c"(n) : "a"(0) : "memory");
	return 0;
}

/* 1000 iterations of a two-instruction loop: 2000 instructions. */
static long body_plain_loop(struct bench_ctx *c)
{
	unsigned long n = 1000;

	(void)c;
	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n));
	return 0;
}

/*
 * The scaling study's bodies (T_DIR): one pass over a directory of N
 * files is one call of the body, and the harness divides a sample by N.
 * The pass by name has a base, the same loop with an empty call in place
 * of stat(), which the harness measures beside it and subtracts.
 */
static long __attribute__((noinline)) no_call(const char *name)
{
	__asm__ volatile("" : : "r"(name));
	return 0;
}

static long body_dir_stat(struct bench_ctx *c)
{
	unsigned long i;
	long bad = 0;

	for (i = 0; i < c->nnames; i++)
		bad |= syscall(SYS_newfstatat, AT_FDCWD, c->names[i], &c->st, 0);
	return bad;
}

static long base_dir_names(struct bench_ctx *c)
{
	unsigned long i;
	long bad = 0;

	for (i = 0; i < c->nnames; i++)
		bad |= no_call(c->names[i]);
	return bad;
}

/* What coreutils 9.1's ls -l asks for (calc_req_mask(), default sort). */
#define LS_MASK (STATX_MODE | STATX_NLINK | STATX_UID | STATX_GID | \
		 STATX_MTIME | STATX_SIZE)

enum ls_way { LS_FSTATAT, LS_STATX, LS_STATX_DONT_SYNC, LS_STATX_BASIC, LS_DEBIAN };

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* One entry of a listing, the way @way asks for its attributes. */
static long ls_one(struct bench_ctx *c, int dfd, const char *nm, enum ls_way way)
{
	char full[300], xbuf[256];
	long ret;

	switch (way) {
	case LS_FSTATAT:
		return syscall(SYS_newfstatat, dfd, nm, &c->st, AT_SYMLINK_NOFOLLOW);
	case LS_STATX:
		return syscall(SYS_statx, dfd, nm, AT_SYMLINK_NOFOLLOW, LS_MASK, &c->stx);
	case LS_STATX_DONT_SYNC:
		/* What the attribute cache has, if it has it. */
		return syscall(SYS_statx, dfd, nm, AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC,
			       LS_MASK, &c->stx);
	case LS_STATX_BASIC:
		return syscall(SYS_statx, dfd, nm, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS,
			       &c->stx);
	default:
		/* Debian 12's ls -l, as strace shows it. */
		snprintf(full, sizeof(full), "files/%s", nm);
		ret = syscall(SYS_statx, AT_FDCWD, full, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
			      LS_MASK, &c->stx);
		lgetxattr(full, "security.selinux", xbuf, sizeof(xbuf) - 1);
		getxattr(full, "system.posix_acl_access", NULL, 0);
		return ret;
	}
}

/* One listing of "files": open, getdents64, a call per entry, close. */
static long list_files(struct bench_ctx *c, enum ls_way way)
{
	char buf[32768];
	unsigned long entries = 0;
	long n, off, ret = 0;
	int dfd = open("files", O_RDONLY | O_NONBLOCK | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0)
		return -1;
	while ((n = syscall(SYS_getdents64, dfd, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n; ) {
			struct linux_dirent64 *e = (void *)(buf + off);
			const char *nm = e->d_name;

			off += e->d_reclen;
			if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
				continue;
			entries++;
			ret |= ls_one(c, dfd, nm, way);
		}
	}
	close(dfd);
	if (n < 0 || ret)
		return -1;
	if (entries != c->nnames)
		die("listed %lu entries of files, expected %lu", entries, c->nnames);
	return 0;
}

static long body_ls_fstatat(struct bench_ctx *c)
{
	return list_files(c, LS_FSTATAT);
}

static long body_ls_statx(struct bench_ctx *c)
{
	return list_files(c, LS_STATX);
}

static long body_ls_statx_dont_sync(struct bench_ctx *c)
{
	return list_files(c, LS_STATX_DONT_SYNC);
}

static long body_ls_statx_basic(struct bench_ctx *c)
{
	return list_files(c, LS_STATX_BASIC);
}

static long body_ls_debian(struct bench_ctx *c)
{
	return list_files(c, LS_DEBIAN);
}

/*
 * The real /bin/ls -l of "files", stdout to /dev/null: posix_spawn, so
 * fork and exec are in it.  Its CPU time is the child's (harness.c).
 */
static long body_real_ls(struct bench_ctx *c)
{
	char *argv[] = { "ls", "-l", "files", NULL };
	posix_spawn_file_actions_t fa;
	int status, err;
	pid_t pid;

	(void)c;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	err = posix_spawn(&pid, "/bin/ls", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err) {
		errno = err;
		return -1;
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		errno = EIO;
		return -1;
	}
	return 0;
}

#define BASIC STATX_BASIC_STATS
#define SYNC_FORCE AT_STATX_FORCE_SYNC
#define SYNC_DONT AT_STATX_DONT_SYNC
#define NOFOLLOW AT_SYMLINK_NOFOLLOW
#define EMPTY AT_EMPTY_PATH

/*
 * A case is a row.  Its tags say which tables and figures show it: the
 * analysis selects by tag and keeps no list of names, so a row tagged
 * here reaches every table and figure of its tags, results.json and the
 * regression gate (analysis/compare.py takes every case but the floor
 * and calibration kinds).  bench/SCHEMA.md lists the tags:
 *   main     the report's per-file-system table
 *   mask     stat() against statx() masks, per file system (figure)
 *   sync     the mask and sync flags on NFS (table and figure)
 *   fd       by descriptor (the series' figure)
 *   fdpath   a descriptor path read against raw fstat() in its own
 *            kernel (the 6.1 and 6.12 tables, patch 3's byte read)
 *   anchor   by path, drawn beside the fd cases
 *   namelen  the name-length study; local: run on local file systems
 *            only (the cost is getname()'s, the same on every one)
 *   bases    by path and the names either side of struct filename's
 *            160 bytes, each kernel base's series against its base
 *   afs      the AFS table with a valid callback; the stale cases
 *            follow in their rows' order
 *   mixfig   the instruction-mix figure
 *   dirty    a writer's stat; base: the write alone, the others' base;
 *            filled: every write rewrites a page the file has (dirty_fill)
 *   calib    the calibration table
 *   p1 .. p5 where each patch's claim is read (the patches' tables)
 */
#define ROW(n, c, k, b, t, fl, m, q, len, tg)				\
	{ .name = n, .call = c, .kind = k, .body = b, .target = t,	\
	  .flags = fl, .mask = m, .quick = q, .namelen = len, .tags = tg }
/* No file: the floor and the calibration. */
#define NOFILE(n, c, k, b, q, tg) ROW(n, c, k, b, T_NONE, 0, 0, q, 0, tg)
/* The file by path (or symlink), newfstatat. */
#define STAT(n, c, t, fl, q, tg) ROW(n, c, "raw", body_newfstatat, t, fl, 0, q, 0, tg)
/* statx of the file by path with a mask and flags. */
#define STATX(n, fl, m, q, tg) ROW(n, "statx(path)", "raw", body_statx, T_PATH, fl, m, q, 0, tg)
/* A padded name of @len bytes: the name-length study. */
#define LONGNAME(n, c, b, m, len, tg) ROW(n, c, "raw", b, T_PATH, 0, m, 0, len, "namelen local" tg)
/* A dirty page, then the call. */
#define DIRTY(n, c, b, fl, m, tg) ROW(n, c, "raw", b, T_DIRTY, fl, m, 0, 0, "dirty filled " tg)
/* The one call after a change behind the client's back (--stale-cmd). */
#define STALE(n, c, b, t, fl, m)					\
	{ .name = n, .call = c, .kind = "raw", .body = b, .target = t,	\
	  .flags = fl, .mask = m, .quick = 1, .tags = "stale", .stale = STALE_PEER }
/* The one call on a symlink made anew (--stale-symlink). */
#define STALE_LINK(n, c, b, fl, m)					\
	{ .name = n, .call = c, .kind = "raw", .body = b, .target = T_SYMLINK,	\
	  .flags = fl, .mask = m, .quick = 1, .tags = "stale", .stale = STALE_NEWLINK }

/*
 * The scaling study (tag scale), run only when asked (--tags scale).
 * Path depth: a file d/d/.../f of 1 to 16 components, hot, per call (at
 * least 100 calls a sample, as on NFS without a cache a call waits).
 * Directory size: a pass over a directory of N files, hot or after the
 * caches are dropped (cold), per file; the real ls per directory, N = 0
 * being the empty directory whose run the per-entry figure is read
 * against.  Consecutive rows with the same parameters run parameter by
 * parameter (every N's rows before the next N), as the rows are listed.
 */
static const long depths[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static const long dir_sizes[] = { 0, 10, 100, 1000, 10000, 100000 };
#define NPARAMS(a) (sizeof(a) / sizeof((a)[0]))
#define DEPTH(n, c, b, m)						\
	{ .name = "depth.%ld." n, .call = c, .kind = "raw", .body = b,	\
	  .target = T_DEPTH, .mask = m, .tags = "scale depth",		\
	  .params = depths, .nparams = NPARAMS(depths), .min_iters = 100 }
#define DIRPASS(n, c, t, b, bs, cld, per, m, tg)			\
	{ .name = n, .call = c, .kind = "raw", .body = b, .base = bs,	\
	  .target = t, .cold = cld, .per_entry = per, .mask = m,	\
	  .tags = "scale " tg, .params = dir_sizes,			\
	  .nparams = NPARAMS(dir_sizes) }
/* A way of listing, hot and cold. */
#define LSWAY(w, c, b, m)						\
	DIRPASS("ls.%ld." w ".hot", c, T_DIR, b, NULL, 0, 1, m, "ls"),	\
	DIRPASS("ls.%ld." w ".cold", c, T_DIR, b, NULL, 1, 1, m, "ls")

const struct bench_case bench_cases[] = {
	NOFILE("null", "none", "floor", body_null, 1, "calib"),
	NOFILE("getppid", "getppid", "floor", body_getppid, 1, "calib"),
	NOFILE("nosys.134", "syscall(134): ENOSYS", "floor", body_nosys_134, 0, "dispatch"),
	NOFILE("nosys.174", "syscall(174): ENOSYS", "floor", body_nosys_174, 0, "dispatch"),
	NOFILE("calib.rep_stosb_4096", "rep stosb x4096", "calibration", body_rep_stosb, 1, "calib"),
	NOFILE("calib.rep_stosq_512", "rep stosq x512", "calibration", body_rep_stosq, 1, "calib"),
	NOFILE("calib.loop_2000", "dec/jnz x1000", "calibration", body_plain_loop, 1, "calib"),

	STAT("stat", "newfstatat(path)", T_PATH, 0, 1,
	     "main mask sync anchor namelen bases afs mixfig p1 p4 p5"),
	STAT("lstat", "newfstatat(symlink, NOFOLLOW)", T_SYMLINK, NOFOLLOW, 0, "main"),
	STAT("stat.symlink", "newfstatat(symlink)", T_SYMLINK, 0, 0, ""),
	ROW("fstat", "fstat(fd)", "raw", body_fstat, T_FD, 0, 0, 1, 0,
	    "main mask sync fd namelen afs mixfig p1 p2 p3 p4 p5"),
	STAT("fstatat.empty", "newfstatat(fd, \"\", EMPTY_PATH)", T_FD, EMPTY, 1,
	     "main mask fd fdpath namelen p2 p5"),
	STAT("fstatat.null", "newfstatat(fd, NULL, EMPTY_PATH)", T_FD_NULL, EMPTY, 0, "main fd p2"),

	STATX("statx.BASIC_STATS", 0, BASIC, 1, "main mask sync anchor namelen bases afs p1 p4 p5"),
	STATX("statx.ALL", 0, 0xfff, 0, "main"),
	STATX("statx.TYPE", 0, STATX_TYPE, 1, "main mask sync afs"),
	STATX("statx.MODE", 0, STATX_MODE, 0, "main"),
	STATX("statx.SIZE", 0, STATX_SIZE, 1, "main mask sync anchor"),
	STATX("statx.MTIME", 0, STATX_MTIME, 0, "main"),
	STATX("statx.INO", 0, STATX_INO, 0, "main"),
	STATX("statx.BTIME", 0, STATX_BTIME, 0, "main"),
	STATX("statx.TYPE|INO", 0, STATX_TYPE | STATX_INO, 0, "main"),
	STATX("statx.SIZE|MTIME", 0, STATX_SIZE | STATX_MTIME, 0, "main"),
	STATX("statx.BASIC_STATS.FORCE_SYNC", SYNC_FORCE, BASIC, 1, "main sync afs"),
	STATX("statx.BASIC_STATS.DONT_SYNC", SYNC_DONT, BASIC, 1, "main mask sync afs"),
	STATX("statx.SIZE.DONT_SYNC", SYNC_DONT, STATX_SIZE, 0, "main sync"),
	ROW("statx.symlink", "statx(symlink)", "raw", body_statx, T_SYMLINK, 0, BASIC, 0, 0,
	    "main"),
	ROW("statx.symlink.NOFOLLOW", "statx(symlink, NOFOLLOW)", "raw", body_statx, T_SYMLINK,
	    NOFOLLOW, BASIC, 0, 0, "main"),
	ROW("statx.fd.empty", "statx(fd, \"\", EMPTY_PATH)", "raw", body_statx, T_FD, EMPTY,
	    BASIC, 1, 0, "main fd fdpath afs mixfig p1 p2 p3"),
	ROW("statx.fd.null", "statx(fd, NULL, EMPTY_PATH)", "raw", body_statx, T_FD_NULL, EMPTY,
	    BASIC, 1, 0, "main mask sync fd fdpath p1 p3"),
	ROW("statx.opath.empty", "statx(O_PATH fd, \"\", EMPTY_PATH)", "raw", body_statx,
	    T_OPATH, EMPTY, BASIC, 0, 0, "main fd"),

	/*
	 * Name lengths (the NUL not counted): patch 4 keeps names of up to
	 * 159 bytes in struct filename's own 192-byte object; 160 and more
	 * go to a PATH_MAX buffer; 4095 is the longest name there is and
	 * 4096 fails with ENAMETOOLONG.  "stat" itself is a 13-byte name;
	 * 64, 161 and 255 bytes fill in the curve either side of the edge.
	 */
	ROW("open", "openat(path)+close", "raw", body_open_close, T_PATH, 0, 0, 0, 0,
	    "namelen bases p4"),
	LONGNAME("stat.name64", "newfstatat(path)", body_newfstatat, 0, 64, " bases"),
	LONGNAME("stat.name159", "newfstatat(path)", body_newfstatat, 0, 159, " bases p4"),
	LONGNAME("stat.name160", "newfstatat(path)", body_newfstatat, 0, 160, " bases mixfig p4"),
	LONGNAME("stat.name161", "newfstatat(path)", body_newfstatat, 0, 161, " bases"),
	LONGNAME("stat.name255", "newfstatat(path)", body_newfstatat, 0, 255, " bases"),
	LONGNAME("stat.name1024", "newfstatat(path)", body_newfstatat, 0, 1024, " bases mixfig p4"),
	LONGNAME("stat.name4095", "newfstatat(path)", body_newfstatat, 0, 4095, " bases p4"),
	LONGNAME("stat.name4096", "newfstatat(path)", body_newfstatat, 0, 4096, ""),
	LONGNAME("statx.name159", "statx(path)", body_statx, BASIC, 159, ""),
	LONGNAME("statx.name160", "statx(path)", body_statx, BASIC, 160, ""),
	LONGNAME("statx.name4095", "statx(path)", body_statx, BASIC, 4095, ""),
	LONGNAME("open.name159", "openat(path)+close", body_open_close, 0, 159, ""),
	LONGNAME("open.name160", "openat(path)+close", body_open_close, 0, 160, ""),
	LONGNAME("open.name4095", "openat(path)+close", body_open_close, 0, 4095, ""),

	/* A file being written: one dirty page, then the call (above). */
	DIRTY("dirty.write", "pwrite(4 KiB)", body_dirty_write, 0, 0, "base"),
	DIRTY("dirty.stat", "pwrite+newfstatat(path)", body_dirty_stat, 0, 0, ""),
	DIRTY("dirty.fstat", "pwrite+fstat(fd)", body_dirty_fstat, 0, 0, ""),
	DIRTY("dirty.statx.BASIC_STATS", "pwrite+statx(path)", body_dirty_statx, 0, BASIC, ""),
	DIRTY("dirty.statx.MTIME", "pwrite+statx(path)", body_dirty_statx, 0, STATX_MTIME, ""),
	DIRTY("dirty.statx.SIZE", "pwrite+statx(path)", body_dirty_statx, 0, STATX_SIZE, ""),
	DIRTY("dirty.statx.TYPE|MODE", "pwrite+statx(path)", body_dirty_statx, 0,
	      STATX_TYPE | STATX_MODE, ""),

	/*
	 * Stale: another client has changed the file (AFS: its write broke
	 * this client's callback), and this is the first call to meet it;
	 * run only with --stale-cmd, which makes the change.
	 */
	STALE("stale.stat", "newfstatat(path)", body_newfstatat, T_PATH, 0, 0),
	STALE("stale.fstat", "fstat(fd)", body_fstat, T_FD, 0, 0),
	STALE("stale.statx.BASIC_STATS", "statx(path)", body_statx, T_PATH, 0, BASIC),
	STALE("stale.statx.TYPE", "statx(path)", body_statx, T_PATH, 0, STATX_TYPE),
	STALE("stale.statx.BASIC_STATS.FORCE_SYNC", "statx(path)", body_statx, T_PATH,
	      SYNC_FORCE, BASIC),
	STALE("stale.statx.BASIC_STATS.DONT_SYNC", "statx(path)", body_statx, T_PATH,
	      SYNC_DONT, BASIC),
	/*
	 * A symlink this client holds no callback promise on: no other
	 * client can change a symlink on kafs, so the harness makes it anew
	 * (--stale-symlink), and kafs holds no promise on one it has just
	 * made; lstat() is the first call to meet it.
	 */
	STALE_LINK("stale.lstat", "newfstatat(symlink, NOFOLLOW)", body_newfstatat, NOFOLLOW, 0),
	DIRTY("dirty.statx.BASIC_STATS.DONT_SYNC", "pwrite+statx(path)", body_dirty_statx,
	      SYNC_DONT, BASIC, ""),

	ROW("glibc.stat", "stat()", "wrapper", body_glibc_stat, T_PATH, 0, 0, 1, 0, "main"),
	ROW("glibc.lstat", "lstat()", "wrapper", body_glibc_lstat, T_SYMLINK, 0, 0, 0, 0, "main"),
	ROW("glibc.fstat", "fstat()", "wrapper", body_glibc_fstat, T_FD, 0, 0, 1, 0,
	    "main fd fdpath mixfig p2"),

	DEPTH("stat", "newfstatat(path)", body_newfstatat, 0),
	DEPTH("statx.BASIC_STATS", "statx(path)", body_statx, BASIC),
	DEPTH("statx.TYPE|MODE", "statx(path)", body_statx, STATX_TYPE | STATX_MODE),
	DIRPASS("files.%ld.stat.hot", "newfstatat(name), each file", T_FILES, body_dir_stat,
		base_dir_names, 0, 1, 0, "files"),
	DIRPASS("files.%ld.stat.cold", "newfstatat(name), each file", T_FILES, body_dir_stat,
		base_dir_names, 1, 1, 0, "files"),
	LSWAY("getdents+fstatat", "newfstatat(dfd, name, NOFOLLOW)", body_ls_fstatat, 0),
	LSWAY("getdents+statx.ls", "statx(dfd, name, NOFOLLOW)", body_ls_statx, LS_MASK),
	LSWAY("getdents+statx.ls.DONT_SYNC", "statx(dfd, name, NOFOLLOW|DONT_SYNC)",
	      body_ls_statx_dont_sync, LS_MASK),
	LSWAY("getdents+statx.BASIC_STATS", "statx(dfd, name, NOFOLLOW)", body_ls_statx_basic,
	      BASIC),
	LSWAY("debian_ls_syscalls",
	      "statx(\"files/name\", NOFOLLOW|NO_AUTOMOUNT), lgetxattr, getxattr",
	      body_ls_debian, LS_MASK),
	DIRPASS("ls.%ld.real_ls.hot", "/bin/ls -l files (posix_spawn)", T_DIR, body_real_ls,
		NULL, 0, 0, 0, "real-ls"),
	DIRPASS("ls.%ld.real_ls.cold", "/bin/ls -l files (posix_spawn)", T_DIR, body_real_ls,
		NULL, 1, 0, 0, "real-ls"),
};

const unsigned int bench_ncases = sizeof(bench_cases) / sizeof(bench_cases[0]);

int case_has_tag(const struct bench_case *bc, const char *tag)
{
	size_t n = strlen(tag);
	const char *p;

	for (p = bc->tags; (p = strstr(p, tag)); p += n)
		if ((p == bc->tags || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

void statx_mask_name(unsigned int mask, char *buf, unsigned long len)
{
	static const struct { unsigned int bit; const char *name; } names[] = {
		{ 0x7ff, "BASIC_STATS" }, { 0x1, "TYPE" }, { 0x2, "MODE" },
		{ 0x4, "NLINK" }, { 0x8, "UID" }, { 0x10, "GID" },
		{ 0x20, "ATIME" }, { 0x40, "MTIME" }, { 0x80, "CTIME" },
		{ 0x100, "INO" }, { 0x200, "SIZE" }, { 0x400, "BLOCKS" },
		{ 0x800, "BTIME" }, { 0x1000, "MNT_ID" }, { 0x2000, "DIOALIGN" },
	};
	unsigned int i, left = mask;
	size_t used = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if ((left & names[i].bit) != names[i].bit)
			continue;
		left &= ~names[i].bit;
		used += snprintf(buf + used, len - used, "%s%s",
				 used ? "|" : "", names[i].name);
		if (used >= len)
			return;
	}
	if (left && used < len)
		snprintf(buf + used, len - used, "%s0x%x", used ? "|" : "", left);
}
