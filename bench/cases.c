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
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "harness.h"

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
 */
static char page[4096];

static long dirty_one_page(struct bench_ctx *c)
{
	long n = pwrite(c->fd, page, sizeof(page), c->off);

	c->off = (c->off + sizeof(page)) % (256 * sizeof(page));
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

#define BASIC STATX_BASIC_STATS
#define SYNC_FORCE AT_STATX_FORCE_SYNC
#define SYNC_DONT AT_STATX_DONT_SYNC

/* name, call, kind, body, target, flags, mask, quick, needs_file, namelen */
const struct bench_case bench_cases[] = {
	{ "null", "none", "floor", body_null, T_NONE, 0, 0, 1, 0, 0 },
	{ "getppid", "getppid", "floor", body_getppid, T_NONE, 0, 0, 1, 0, 0 },
	{ "nosys.134", "syscall(134): ENOSYS", "floor", body_nosys_134, T_NONE,
	  0, 0, 0, 0, 0 },
	{ "nosys.174", "syscall(174): ENOSYS", "floor", body_nosys_174, T_NONE,
	  0, 0, 0, 0, 0 },
	{ "calib.rep_stosb_4096", "rep stosb x4096", "calibration",
	  body_rep_stosb, T_NONE, 0, 0, 1, 0, 0 },
	{ "calib.rep_stosq_512", "rep stosq x512", "calibration",
	  body_rep_stosq, T_NONE, 0, 0, 1, 0, 0 },
	{ "calib.loop_2000", "dec/jnz x1000", "calibration",
	  body_plain_loop, T_NONE, 0, 0, 1, 0, 0 },

	{ "stat", "newfstatat(path)", "raw", body_newfstatat, T_PATH,
	  0, 0, 1, 1, 0 },
	{ "lstat", "newfstatat(symlink, NOFOLLOW)", "raw", body_newfstatat,
	  T_SYMLINK, AT_SYMLINK_NOFOLLOW, 0, 0, 1, 0 },
	{ "stat.symlink", "newfstatat(symlink)", "raw", body_newfstatat,
	  T_SYMLINK, 0, 0, 0, 1, 0 },
	{ "fstat", "fstat(fd)", "raw", body_fstat, T_FD, 0, 0, 1, 1, 0 },
	{ "fstatat.empty", "newfstatat(fd, \"\", EMPTY_PATH)", "raw",
	  body_newfstatat, T_FD, AT_EMPTY_PATH, 0, 1, 1, 0 },
	{ "fstatat.null", "newfstatat(fd, NULL, EMPTY_PATH)", "raw",
	  body_newfstatat, T_FD_NULL, AT_EMPTY_PATH, 0, 0, 1, 0 },

	{ "statx.BASIC_STATS", "statx(path)", "raw", body_statx, T_PATH,
	  0, BASIC, 1, 1, 0 },
	{ "statx.ALL", "statx(path)", "raw", body_statx, T_PATH,
	  0, 0xfff, 0, 1, 0 },
	{ "statx.TYPE", "statx(path)", "raw", body_statx, T_PATH,
	  0, STATX_TYPE, 1, 1, 0 },
	{ "statx.MODE", "statx(path)", "raw", body_statx, T_PATH,
	  0, STATX_MODE, 0, 1, 0 },
	{ "statx.SIZE", "statx(path)", "raw", body_statx, T_PATH,
	  0, STATX_SIZE, 1, 1, 0 },
	{ "statx.MTIME", "statx(path)", "raw", body_statx, T_PATH,
	  0, STATX_MTIME, 0, 1, 0 },
	{ "statx.INO", "statx(path)", "raw", body_statx, T_PATH,
	  0, STATX_INO, 0, 1, 0 },
	{ "statx.BTIME", "statx(path)", "raw", body_statx, T_PATH,
	  0, STATX_BTIME, 0, 1, 0 },
	{ "statx.TYPE|INO", "statx(path)", "raw", body_statx, T_PATH,
	  0, STATX_TYPE | STATX_INO, 0, 1, 0 },
	{ "statx.SIZE|MTIME", "statx(path)", "raw", body_statx, T_PATH,
	  0, STATX_SIZE | STATX_MTIME, 0, 1, 0 },
	{ "statx.BASIC_STATS.FORCE_SYNC", "statx(path)", "raw", body_statx,
	  T_PATH, SYNC_FORCE, BASIC, 1, 1, 0 },
	{ "statx.BASIC_STATS.DONT_SYNC", "statx(path)", "raw", body_statx,
	  T_PATH, SYNC_DONT, BASIC, 1, 1, 0 },
	{ "statx.SIZE.DONT_SYNC", "statx(path)", "raw", body_statx,
	  T_PATH, SYNC_DONT, STATX_SIZE, 0, 1, 0 },
	{ "statx.symlink", "statx(symlink)", "raw", body_statx, T_SYMLINK,
	  0, BASIC, 0, 1, 0 },
	{ "statx.symlink.NOFOLLOW", "statx(symlink, NOFOLLOW)", "raw",
	  body_statx, T_SYMLINK, AT_SYMLINK_NOFOLLOW, BASIC, 0, 1, 0 },
	{ "statx.fd.empty", "statx(fd, \"\", EMPTY_PATH)", "raw", body_statx,
	  T_FD, AT_EMPTY_PATH, BASIC, 1, 1, 0 },
	{ "statx.fd.null", "statx(fd, NULL, EMPTY_PATH)", "raw", body_statx,
	  T_FD_NULL, AT_EMPTY_PATH, BASIC, 1, 1, 0 },
	{ "statx.opath.empty", "statx(O_PATH fd, \"\", EMPTY_PATH)", "raw",
	  body_statx, T_OPATH, AT_EMPTY_PATH, BASIC, 0, 1, 0 },

	/*
	 * Name lengths (the NUL not counted): patch 4 keeps names of up to
	 * 159 bytes in struct filename's own 192-byte object; 160 and more
	 * go to a PATH_MAX buffer; 4095 is the longest name there is and
	 * 4096 fails with ENAMETOOLONG.
	 */
	{ "open", "openat(path)+close", "raw", body_open_close, T_PATH,
	  0, 0, 0, 1, 0 },
	{ "stat.name159", "newfstatat(path)", "raw", body_newfstatat, T_PATH,
	  0, 0, 0, 1, 159 },
	{ "stat.name160", "newfstatat(path)", "raw", body_newfstatat, T_PATH,
	  0, 0, 0, 1, 160 },
	{ "stat.name1024", "newfstatat(path)", "raw", body_newfstatat, T_PATH,
	  0, 0, 0, 1, 1024 },
	{ "stat.name4095", "newfstatat(path)", "raw", body_newfstatat, T_PATH,
	  0, 0, 0, 1, 4095 },
	{ "stat.name4096", "newfstatat(path)", "raw", body_newfstatat, T_PATH,
	  0, 0, 0, 1, 4096 },
	{ "statx.name159", "statx(path)", "raw", body_statx, T_PATH,
	  0, BASIC, 0, 1, 159 },
	{ "statx.name160", "statx(path)", "raw", body_statx, T_PATH,
	  0, BASIC, 0, 1, 160 },
	{ "statx.name4095", "statx(path)", "raw", body_statx, T_PATH,
	  0, BASIC, 0, 1, 4095 },
	{ "open.name159", "openat(path)+close", "raw", body_open_close, T_PATH,
	  0, 0, 0, 1, 159 },
	{ "open.name160", "openat(path)+close", "raw", body_open_close, T_PATH,
	  0, 0, 0, 1, 160 },
	{ "open.name4095", "openat(path)+close", "raw", body_open_close, T_PATH,
	  0, 0, 0, 1, 4095 },

	/* A file being written: one dirty page, then the call (above). */
	{ "dirty.write", "pwrite(4 KiB)", "raw", body_dirty_write, T_DIRTY,
	  0, 0, 0, 1, 0 },
	{ "dirty.stat", "pwrite+newfstatat(path)", "raw", body_dirty_stat,
	  T_DIRTY, 0, 0, 0, 1, 0 },
	{ "dirty.fstat", "pwrite+fstat(fd)", "raw", body_dirty_fstat,
	  T_DIRTY, 0, 0, 0, 1, 0 },
	{ "dirty.statx.BASIC_STATS", "pwrite+statx(path)", "raw",
	  body_dirty_statx, T_DIRTY, 0, BASIC, 0, 1, 0 },
	{ "dirty.statx.MTIME", "pwrite+statx(path)", "raw", body_dirty_statx,
	  T_DIRTY, 0, STATX_MTIME, 0, 1, 0 },
	{ "dirty.statx.SIZE", "pwrite+statx(path)", "raw", body_dirty_statx,
	  T_DIRTY, 0, STATX_SIZE, 0, 1, 0 },
	{ "dirty.statx.TYPE|MODE", "pwrite+statx(path)", "raw",
	  body_dirty_statx, T_DIRTY, 0, STATX_TYPE | STATX_MODE, 0, 1, 0 },
	{ "dirty.statx.BASIC_STATS.DONT_SYNC", "pwrite+statx(path)", "raw",
	  body_dirty_statx, T_DIRTY, SYNC_DONT, BASIC, 0, 1, 0 },

	{ "glibc.stat", "stat()", "wrapper", body_glibc_stat, T_PATH,
	  0, 0, 1, 1, 0 },
	{ "glibc.lstat", "lstat()", "wrapper", body_glibc_lstat, T_SYMLINK,
	  0, 0, 0, 1, 0 },
	{ "glibc.fstat", "fstat()", "wrapper", body_glibc_fstat, T_FD,
	  0, 0, 1, 1, 0 },
};

const unsigned int bench_ncases = sizeof(bench_cases) / sizeof(bench_cases[0]);

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
