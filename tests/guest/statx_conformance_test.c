// SPDX-License-Identifier: GPL-2.0
/*
 * statx_conformance_test.c - what statx() promises, checked in the guest
 * on ext4, tmpfs, NFS v3 and NFS v4.2 (FIXTURE_VARIANT), on any kernel.
 *
 * Fields against fstatat() for every file type; stx_mask per requested
 * bit; timestamps bracketed by the clock; stx_attributes against
 * FS_IOC_SETFLAGS; STATX_ATTR_MOUNT_ROOT and stx_mnt_id against
 * /proc/self/mountinfo; DIOALIGN; the flags (AT_SYMLINK_NOFOLLOW,
 * AT_NO_AUTOMOUNT, AT_EMPTY_PATH, and on NFS FORCE_SYNC/DONT_SYNC after a
 * change made behind the client's back); every documented error with the
 * caller's buffer left alone; and a bounded fuzz run with a printed seed.
 *
 * The suite expects the same on the stock kernel and with patches/, with
 * one exception the series intends: statx(fd, NULL, AT_EMPTY_PATH) is
 * EFAULT on stock 6.1 and the descriptor's attributes with the series.
 *
 * Lines "# statx-mask FS ASKED GOT" record what each file system returns
 * for each requested mask bit; analysis/conformance.py collects them.
 *
 * Environment: STATX_FUZZ_CALLS (default 100000; NFS a tenth of it),
 * STATX_FUZZ_SEED (default 20161116).  Runs as root in the guest, where
 * tests/guest/conformance.sh has mounted everything.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "statx_expect.h"

#define NFS_EXPORT "/mnt/ext4/export"	/* what the NFS mounts serve */
#define POISON 0xa5

static long sys_statx(int dfd, const char *name, int flags, unsigned int mask,
		      void *buf)
{
	return syscall(SYS_statx, dfd, name, flags, mask, buf);
}

static long sys_newfstatat(int dfd, const char *name, void *st, int flags)
{
	return syscall(SYS_newfstatat, dfd, name, st, flags);
}

/*
 * What AFS does not keep (atime, ctime, blocks): kafs fills them for
 * stat(), and with patches/afs (the afs variant; afs0 is kafs as
 * shipped) no longer claims them in stx_mask.
 */
#define AFS_MADE_UP (STATX_ATIME | STATX_CTIME | STATX_BLOCKS)

/*
 * kafs as shipped, without patches/afs: the afs0 variant of any base
 * (release 6.1.192-afs0, 6.12.118-afs0-6.12).
 */
static int kafs_as_shipped(void)
{
	struct utsname u;
	const char *p;

	if (uname(&u))
		return 0;
	for (p = strstr(u.release, "-afs0"); p; p = strstr(p + 1, "-afs0"))
		if (p[5] == '\0' || p[5] == '-')
			return 1;
	return 0;
}

/* The fields this run's file system fills but does not claim. */
static unsigned int fs_unkept;

/* The call's errno, or 0 when it succeeded. */
static int statx_err(int dfd, const char *name, int flags, unsigned int mask,
		     void *buf)
{
	return sys_statx(dfd, name, flags, mask, buf) ? errno : 0;
}

/* A TAP comment line; flushed, as each test runs in a child that _exit()s. */
#define note(fmt, ...) do { \
	ksft_print_msg(fmt, ##__VA_ARGS__); \
	fflush(stdout); \
} while (0)

static int buf_untouched(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != POISON)
			return 0;
	return 1;
}

FIXTURE(conf) {
	char dir[256];		/* this test's directory on the fs */
	char sdir[256];		/* the same directory through the NFS server */
	int dfd;
};

FIXTURE_VARIANT(conf) {
	const char *mnt;
	long magic;
	const char *fs;
	int nfs;
	int afs;
};

FIXTURE_VARIANT_ADD(conf, ext4) { "/mnt/ext4", 0xEF53, "ext4", 0, 0 };
FIXTURE_VARIANT_ADD(conf, tmpfs) { "/mnt/tmpfs", 0x01021994, "tmpfs", 0, 0 };
FIXTURE_VARIANT_ADD(conf, nfs3) { "/mnt/nfs3", 0x6969, "nfs3", 1, 0 };
FIXTURE_VARIANT_ADD(conf, nfs4) { "/mnt/nfs4", 0x6969, "nfs4", 1, 0 };
/*
 * kafs on the guest's own OpenAFS cell (vm/afs-lib.sh: statx.bench on
 * /mnt/afs), on a kernel with kafs (VARIANT=afs); skipped elsewhere.
 */
FIXTURE_VARIANT_ADD(conf, afs) { "/mnt/afs", 0x6B414653, "afs", 0, 1 };

FIXTURE_SETUP(conf)
{
	static int seq;
	struct statfs sf;

	self->dfd = -1;
	fs_unkept = variant->afs && !kafs_as_shipped() ? AFS_MADE_UP : 0;
	/*
	 * Out of setup and past the test (6.1's kselftest_harness.h runs
	 * the test after a setup that only skipped): the kernel has no such
	 * file system (AFS without VARIANT=afs).
	 */
	if (statfs(variant->mnt, &sf) || sf.f_type != variant->magic)
		SKIP(longjmp(_metadata->env, 1), "%s is not mounted as %s", variant->mnt,
		     variant->fs);
	snprintf(self->dir, sizeof(self->dir), "%s/conf-%d-%d", variant->mnt,
		 getpid(), seq);
	snprintf(self->sdir, sizeof(self->sdir), "%s/conf-%d-%d", NFS_EXPORT,
		 getpid(), seq++);
	ASSERT_EQ(0, mkdir(self->dir, 0755));
	self->dfd = open(self->dir, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, self->dfd);
}

/* Remove DIR's tree, clearing inode flags that would forbid it. */
static void remove_tree(const char *dir)
{
	char cmd[600];
	int r;

	snprintf(cmd, sizeof(cmd),
		 "chattr -R -i -a '%s' 2>/dev/null; rm -rf '%s'", dir, dir);
	r = system(cmd);
	(void)r;
}

FIXTURE_TEARDOWN(conf)
{
	if (self->dfd >= 0) {
		close(self->dfd);
		remove_tree(self->dir);
	}
}

/* Make NAME in the test directory with mode TYPE (regular file content). */
static int make_file(int dfd, const char *name, const char *content)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL, 0640);
	ssize_t n = content ? (ssize_t)strlen(content) : 0;

	if (fd < 0)
		return -1;
	if (n && write(fd, content, n) != n) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/*
 * NAME in DFD, as statx and as fstatat (FLAGS), and as statx through an
 * O_PATH descriptor with "" + AT_EMPTY_PATH: all three agree.  TYPE is
 * the file type statx must report.
 */
static void check_fields(struct __test_metadata *_metadata, int dfd,
			 const char *name, int flags, mode_t type)
{
	struct statx x, byfd;
	struct stat st;
	int fd;

	memset(&x, 0, sizeof(x));
	memset(&byfd, 0, sizeof(byfd));
	ASSERT_EQ(0, sys_statx(dfd, name, flags, STATX_BASIC_STATS, &x));
	ASSERT_EQ(0, sys_newfstatat(dfd, name, &st, flags));
	expect_statx_matches_stat_unkept(_metadata, &x, &st, fs_unkept);
	EXPECT_EQ(type, x.stx_mode & S_IFMT);

	fd = openat(dfd, name, O_PATH | ((flags & AT_SYMLINK_NOFOLLOW) ? O_NOFOLLOW : 0));
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, sys_statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &byfd));
	close(fd);
	expect_same_statx(_metadata, &x, &byfd);
}

TEST_F(conf, fields_regular_file)
{
	ASSERT_EQ(0, make_file(self->dfd, "file", "0123456789"));
	check_fields(_metadata, self->dfd, "file", 0, S_IFREG);
}

TEST_F(conf, fields_directory)
{
	ASSERT_EQ(0, mkdirat(self->dfd, "sub", 0750));
	check_fields(_metadata, self->dfd, "sub", 0, S_IFDIR);
}

TEST_F(conf, fields_symlink_followed_and_not)
{
	struct statx x;

	ASSERT_EQ(0, make_file(self->dfd, "target", "abc"));
	ASSERT_EQ(0, symlinkat("target", self->dfd, "link"));
	check_fields(_metadata, self->dfd, "link", 0, S_IFREG);
	check_fields(_metadata, self->dfd, "link", AT_SYMLINK_NOFOLLOW, S_IFLNK);
	ASSERT_EQ(0, sys_statx(self->dfd, "link", AT_SYMLINK_NOFOLLOW,
			       STATX_SIZE, &x));
	EXPECT_EQ(strlen("target"), x.stx_size);
}

/*
 * AFS keeps no FIFOs, sockets or device files: kafs has no ->mknod, so the
 * VFS refuses them with EPERM.  Checked, then the test is skipped.
 */
#define AFS_NO_SPECIAL_FILES(call, what) do { \
	if (variant->afs) { \
		ASSERT_EQ(-1, (call)); \
		ASSERT_EQ(EPERM, errno); \
		SKIP(return, "AFS keeps no %s: EPERM (kafs has no ->mknod)", what); \
	} \
} while (0)

TEST_F(conf, fields_fifo)
{
	AFS_NO_SPECIAL_FILES(mkfifoat(self->dfd, "fifo", 0600), "FIFOs");
	ASSERT_EQ(0, mkfifoat(self->dfd, "fifo", 0600));
	check_fields(_metadata, self->dfd, "fifo", 0, S_IFIFO);
}

TEST_F(conf, fields_socket)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int s;

	ASSERT_LT(strlen(self->dir) + 6, sizeof(sun.sun_path));
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/sock", self->dir);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	ASSERT_LE(0, s);
	AFS_NO_SPECIAL_FILES(bind(s, (struct sockaddr *)&sun, sizeof(sun)), "sockets");
	ASSERT_EQ(0, bind(s, (struct sockaddr *)&sun, sizeof(sun)));
	check_fields(_metadata, self->dfd, "sock", 0, S_IFSOCK);
	close(s);
}

TEST_F(conf, fields_character_device)
{
	struct statx x;

	AFS_NO_SPECIAL_FILES(mknodat(self->dfd, "null", S_IFCHR | 0666, makedev(1, 3)),
			     "device files");
	ASSERT_EQ(0, mknodat(self->dfd, "null", S_IFCHR | 0666, makedev(1, 3)));
	check_fields(_metadata, self->dfd, "null", 0, S_IFCHR);
	ASSERT_EQ(0, sys_statx(self->dfd, "null", 0, STATX_TYPE, &x));
	EXPECT_EQ(1, x.stx_rdev_major);
	EXPECT_EQ(3, x.stx_rdev_minor);
}

TEST_F(conf, fields_block_device)
{
	struct statx x;

	AFS_NO_SPECIAL_FILES(mknodat(self->dfd, "loop0", S_IFBLK | 0660, makedev(7, 0)),
			     "device files");
	ASSERT_EQ(0, mknodat(self->dfd, "loop0", S_IFBLK | 0660, makedev(7, 0)));
	check_fields(_metadata, self->dfd, "loop0", 0, S_IFBLK);
	ASSERT_EQ(0, sys_statx(self->dfd, "loop0", 0, STATX_TYPE, &x));
	EXPECT_EQ(7, x.stx_rdev_major);
	EXPECT_EQ(0, x.stx_rdev_minor);
}

TEST_F(conf, fields_hard_link)
{
	struct statx a, b;

	ASSERT_EQ(0, make_file(self->dfd, "file", "x"));
	ASSERT_EQ(0, linkat(self->dfd, "file", self->dfd, "hard", 0));
	check_fields(_metadata, self->dfd, "hard", 0, S_IFREG);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	ASSERT_EQ(0, sys_statx(self->dfd, "file", 0, STATX_BASIC_STATS, &a));
	ASSERT_EQ(0, sys_statx(self->dfd, "hard", 0, STATX_BASIC_STATS, &b));
	EXPECT_EQ(2, a.stx_nlink);
	EXPECT_EQ(0, memcmp(&a, &b, sizeof(a)));
}

/*
 * Each mask bit alone: what comes back.  ext4 and tmpfs fill the basic
 * stats whatever was asked, and report BTIME (ext4: and DIOALIGN) only
 * when it is asked for; NFS may return no more than was asked and what
 * its cache holds valid; STATX_MNT_ID always comes back (the VFS).  AFS
 * keeps no birth time.  6.1's kafs fills every basic stat through
 * generic_fillattr(), ATIME, CTIME and BLOCKS included, though AFS keeps
 * none of them (they are made up from mtime and the size); the original
 * statx series' AFS part cleared them from the mask, and patches/afs
 * does again.  The afs variant carries it; afs0 is kafs as shipped.
 */

TEST_F(conf, mask_per_requested_bit)
{
	static const unsigned int bits[] = {
		STATX_TYPE, STATX_MODE, STATX_NLINK, STATX_UID, STATX_GID,
		STATX_ATIME, STATX_MTIME, STATX_CTIME, STATX_INO, STATX_SIZE,
		STATX_BLOCKS, STATX_BTIME, STATX_MNT_ID, STATX_DIOALIGN, 0,
		STATX_BASIC_STATS, STATX_ALL,
	};
	struct statx x;
	unsigned int i;

	ASSERT_EQ(0, make_file(self->dfd, "file", "mask"));
	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		ASSERT_EQ(0, sys_statx(self->dfd, "file", 0, bits[i], &x));
		note("statx-mask %s 0x%x 0x%x\n", variant->fs,
			       bits[i], x.stx_mask);
		/* What was asked of the basic stats comes back (on AFS with
		 * patches/afs: but what it does not keep) ... */
		if (variant->afs && !kafs_as_shipped()) {
			EXPECT_EQ(bits[i] & STATX_BASIC_STATS & ~AFS_MADE_UP,
				  x.stx_mask & bits[i] & STATX_BASIC_STATS);
		} else {
			EXPECT_EQ(bits[i] & STATX_BASIC_STATS,
				  x.stx_mask & bits[i] & STATX_BASIC_STATS);
		}
		/* ... and local file systems fill all of them anyway. */
		if (variant->afs && !kafs_as_shipped()) {
			EXPECT_EQ(STATX_BASIC_STATS & ~AFS_MADE_UP,
				  x.stx_mask & STATX_BASIC_STATS);
		} else if (!variant->nfs) {
			EXPECT_EQ(STATX_BASIC_STATS, x.stx_mask & STATX_BASIC_STATS);
		}
		EXPECT_TRUE(x.stx_mask & STATX_MNT_ID);
		if (!strcmp(variant->fs, "ext4"))
			EXPECT_EQ(!!(bits[i] & STATX_DIOALIGN),
				  !!(x.stx_mask & STATX_DIOALIGN));
		if (variant->afs) {
			EXPECT_FALSE(x.stx_mask & STATX_BTIME);
		} else if (!variant->nfs) {
			EXPECT_EQ(!!(bits[i] & STATX_BTIME),
				  !!(x.stx_mask & STATX_BTIME));
		}
		EXPECT_EQ(0, x.stx_mask & STATX__RESERVED);
	}
}

static int64_t ts_ns(const struct statx_timestamp *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * The kernel stamps inodes from the coarse clock: the coarse clock read
 * before an operation and the fine clock read after it bracket the stamp.
 */
#define EXPECT_BRACKETED(lo, t, hi) do { \
	EXPECT_LE(lo, t); \
	EXPECT_LE(t, hi); \
} while (0)

/*
 * AFS: the server keeps one modification time per file for its clients,
 * in whole seconds.  6.1's kafs reports it as mtime, ctime and atime
 * alike when it fetches a file's status.  A chmod sets ctime from this
 * client's clock (afs_setattr(): op->ctime) and leaves mtime.
 */
static void afs_timestamps(struct __test_metadata *_metadata, int dfd)
{
	const int64_t sec = 1000000000;
	int64_t t0, t1, t2, t3;
	struct statx a, b;
	int fd;

	t0 = clock_ns(CLOCK_REALTIME_COARSE) / sec * sec;
	fd = openat(dfd, "file", O_WRONLY | O_CREAT | O_EXCL, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(5, write(fd, "hello", 5));
	close(fd);
	t1 = clock_ns(CLOCK_REALTIME);
	ASSERT_EQ(0, sys_statx(dfd, "file", 0, STATX_BASIC_STATS | STATX_BTIME, &a));
	EXPECT_BRACKETED(t0, ts_ns(&a.stx_mtime), t1);
	EXPECT_EQ(0, a.stx_mtime.tv_nsec);
	EXPECT_EQ(ts_ns(&a.stx_mtime), ts_ns(&a.stx_ctime));
	EXPECT_EQ(ts_ns(&a.stx_mtime), ts_ns(&a.stx_atime));
	EXPECT_FALSE(a.stx_mask & STATX_BTIME);

	usleep(1100000);
	t2 = clock_ns(CLOCK_REALTIME_COARSE) / sec * sec;
	ASSERT_EQ(0, fchmodat(dfd, "file", 0600, 0));
	t3 = clock_ns(CLOCK_REALTIME);
	ASSERT_EQ(0, sys_statx(dfd, "file", 0, STATX_BASIC_STATS, &b));
	EXPECT_EQ(0600, b.stx_mode & 07777);
	EXPECT_EQ(ts_ns(&a.stx_mtime), ts_ns(&b.stx_mtime));
	EXPECT_BRACKETED(t2, ts_ns(&b.stx_ctime), t3);

	note("afs times: created %lld; after chmod mtime %lld ctime %lld\n",
	     (long long)a.stx_mtime.tv_sec, (long long)b.stx_mtime.tv_sec,
	     (long long)b.stx_ctime.tv_sec);
}

TEST_F(conf, timestamps_bracketed_and_ordered)
{
	int64_t t0, t1, t2, t3, t4, t5;
	unsigned int mask = STATX_BASIC_STATS | STATX_BTIME;
	int sync = variant->nfs ? AT_STATX_FORCE_SYNC : 0;
	struct statx a, b, c;
	int fd;

	if (variant->afs) {
		afs_timestamps(_metadata, self->dfd);
		return;
	}
	t0 = clock_ns(CLOCK_REALTIME_COARSE);
	fd = openat(self->dfd, "file", O_WRONLY | O_CREAT | O_EXCL, 0644);
	ASSERT_LE(0, fd);
	t1 = clock_ns(CLOCK_REALTIME);
	ASSERT_EQ(0, sys_statx(self->dfd, "file", sync, mask, &a));
	EXPECT_BRACKETED(t0, ts_ns(&a.stx_mtime), t1);
	EXPECT_BRACKETED(t0, ts_ns(&a.stx_ctime), t1);
	if (a.stx_mask & STATX_BTIME)
		EXPECT_BRACKETED(t0, ts_ns(&a.stx_btime), t1);

	usleep(20000);
	t2 = clock_ns(CLOCK_REALTIME_COARSE);
	ASSERT_EQ(5, write(fd, "hello", 5));
	ASSERT_EQ(0, fsync(fd));
	t3 = clock_ns(CLOCK_REALTIME);
	close(fd);
	ASSERT_EQ(0, sys_statx(self->dfd, "file", sync, mask, &b));
	EXPECT_BRACKETED(t2, ts_ns(&b.stx_mtime), t3);
	EXPECT_BRACKETED(t2, ts_ns(&b.stx_ctime), t3);

	usleep(20000);
	t4 = clock_ns(CLOCK_REALTIME_COARSE);
	ASSERT_EQ(0, fchmodat(self->dfd, "file", 0600, 0));
	t5 = clock_ns(CLOCK_REALTIME);
	ASSERT_EQ(0, sys_statx(self->dfd, "file", sync, mask, &c));
	EXPECT_BRACKETED(t4, ts_ns(&c.stx_ctime), t5);
	EXPECT_EQ(ts_ns(&b.stx_mtime), ts_ns(&c.stx_mtime));
	EXPECT_LE(ts_ns(&c.stx_mtime), ts_ns(&c.stx_ctime));
	if (c.stx_mask & STATX_BTIME) {
		EXPECT_EQ(ts_ns(&a.stx_btime), ts_ns(&c.stx_btime));
		EXPECT_LE(ts_ns(&c.stx_btime), ts_ns(&c.stx_mtime));
	}
}

/* chattr +i, +a, +d and the stx_attributes bits they show as. */
TEST_F(conf, attributes_from_inode_flags)
{
	static const struct { int fl; unsigned long long attr; const char *name; } f[] = {
		{ FS_IMMUTABLE_FL, STATX_ATTR_IMMUTABLE, "+i" },
		{ FS_APPEND_FL, STATX_ATTR_APPEND, "+a" },
		{ FS_NODUMP_FL, STATX_ATTR_NODUMP, "+d" },
	};
	struct statx x;
	unsigned int i;
	int fd, flags;

	ASSERT_EQ(0, make_file(self->dfd, "file", "attr"));
	fd = openat(self->dfd, "file", O_RDONLY);
	ASSERT_LE(0, fd);
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags)) {
		close(fd);
		SKIP(return, "%s has no inode flags (FS_IOC_GETFLAGS: %s)",
		     variant->fs, strerror(errno));
	}
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		int on = flags | f[i].fl;

		ASSERT_EQ(0, ioctl(fd, FS_IOC_SETFLAGS, &on)) TH_LOG("chattr %s", f[i].name);
		ASSERT_EQ(0, sys_statx(self->dfd, "file", 0, STATX_BASIC_STATS, &x));
		EXPECT_TRUE(x.stx_attributes & f[i].attr) TH_LOG("after chattr %s", f[i].name);
		EXPECT_TRUE(x.stx_attributes_mask & f[i].attr);
		EXPECT_EQ(0, x.stx_attributes & ~x.stx_attributes_mask);
		ASSERT_EQ(0, ioctl(fd, FS_IOC_SETFLAGS, &flags));
		ASSERT_EQ(0, sys_statx(self->dfd, "file", 0, STATX_BASIC_STATS, &x));
		EXPECT_FALSE(x.stx_attributes & f[i].attr) TH_LOG("after chattr -%s", f[i].name + 1);
		EXPECT_TRUE(x.stx_attributes_mask & f[i].attr);
	}
	close(fd);
}

TEST_F(conf, mount_root_attribute)
{
	struct statx x;

	ASSERT_EQ(0, sys_statx(AT_FDCWD, variant->mnt, 0, STATX_BASIC_STATS, &x));
	EXPECT_TRUE(x.stx_attributes & STATX_ATTR_MOUNT_ROOT);
	EXPECT_TRUE(x.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT);
	ASSERT_EQ(0, sys_statx(self->dfd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &x));
	EXPECT_FALSE(x.stx_attributes & STATX_ATTR_MOUNT_ROOT);
	EXPECT_TRUE(x.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT);
}

/* The id of the topmost mount on MNT, from /proc/self/mountinfo. */
static long long mountinfo_id(const char *mnt)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[4096], point[4096];
	long long id, found = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lld %*d %*s %*s %4095s", &id, point) == 2 &&
		    !strcmp(point, mnt))
			found = id;
	fclose(f);
	return found;
}

TEST_F(conf, mnt_id_matches_mountinfo)
{
	long long id = mountinfo_id(variant->mnt);
	struct statx x;

	ASSERT_LT(0, id);
	ASSERT_EQ(0, sys_statx(self->dfd, "", AT_EMPTY_PATH, STATX_MNT_ID, &x));
	EXPECT_TRUE(x.stx_mask & STATX_MNT_ID);
	EXPECT_EQ(id, (long long)x.stx_mnt_id);
	ASSERT_EQ(0, sys_statx(AT_FDCWD, variant->mnt, 0, STATX_MNT_ID, &x));
	EXPECT_EQ(id, (long long)x.stx_mnt_id);
}

/* DIOALIGN, where reported, is a pair of powers of two that O_DIRECT takes. */
TEST_F(conf, dioalign_regular_file)
{
	struct statx x;
	void *mem;
	int fd;

	fd = openat(self->dfd, "file", O_RDWR | O_CREAT, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 65536));
	ASSERT_EQ(0, fsync(fd));
	close(fd);
	ASSERT_EQ(0, sys_statx(self->dfd, "file", 0, STATX_DIOALIGN, &x));
	if (!(x.stx_mask & STATX_DIOALIGN)) {
		ASSERT_NE(0, strcmp(variant->fs, "ext4"));
		SKIP(return, "%s does not report STATX_DIOALIGN on 6.1", variant->fs);
	}
	ASSERT_LT(0, x.stx_dio_mem_align);
	ASSERT_LT(0, x.stx_dio_offset_align);
	EXPECT_EQ(0, x.stx_dio_mem_align & (x.stx_dio_mem_align - 1));
	EXPECT_EQ(0, x.stx_dio_offset_align & (x.stx_dio_offset_align - 1));
	fd = openat(self->dfd, "file", O_RDONLY | O_DIRECT);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, posix_memalign(&mem, x.stx_dio_mem_align, x.stx_dio_offset_align));
	EXPECT_EQ((ssize_t)x.stx_dio_offset_align,
		  pread(fd, mem, x.stx_dio_offset_align, x.stx_dio_offset_align));
	free(mem);
	close(fd);
}

/* A block device reports its alignment: by name and by descriptor. */
TEST(dioalign_block_device)
{
	const char *dev = "/dev/vda";
	struct statx byname, byfd;
	int fd, lbs;

	fd = open(dev, O_RDONLY);
	if (fd < 0)
		SKIP(return, "no %s: %s", dev, strerror(errno));
	ASSERT_EQ(0, ioctl(fd, BLKSSZGET, &lbs));
	memset(&byname, 0, sizeof(byname));
	memset(&byfd, 0, sizeof(byfd));
	ASSERT_EQ(0, sys_statx(AT_FDCWD, dev, 0, STATX_DIOALIGN | STATX_BASIC_STATS, &byname));
	ASSERT_EQ(0, sys_statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN | STATX_BASIC_STATS, &byfd));
	close(fd);
	ASSERT_TRUE(byname.stx_mask & STATX_DIOALIGN);
	EXPECT_EQ((unsigned int)lbs, byname.stx_dio_offset_align);
	EXPECT_LT(0, byname.stx_dio_mem_align);
	EXPECT_EQ(0, memcmp(&byname, &byfd, sizeof(byname)));
}

/*
 * The statx series' AFS part: a kafs dynroot cell directory is an
 * automount point; with AT_NO_AUTOMOUNT statx reports it as one (and
 * does not try to reach the cell's servers).  Without the flag the walk
 * mounts the cell's root.cell volume there, and statx reports that
 * volume's root: a mount root, not an automount point.  Needs a kernel
 * with kafs (VARIANT=afs); conformance.sh starts the guest's cell
 * (vm/afs-lib.sh) and mounts the dynroot on AFS_DYNROOT.
 */
#define AFS_DYNROOT "/mnt/afsdyn"
#define AFS_CELL "statx.test"

TEST(afs_dynroot_cell_is_automount_point)
{
	static const unsigned int masks[] = { 0, STATX_BASIC_STATS, STATX_ALL };
	struct statfs sf;
	struct statx x;
	unsigned int i;

	if (statfs(AFS_DYNROOT, &sf) || sf.f_type != 0x6B414653)
		SKIP(return, "no kafs dynroot on %s (a kernel without CONFIG_AFS_FS; "
		     "make conformance VARIANT=afs)", AFS_DYNROOT);
	for (i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
		memset(&x, 0, sizeof(x));
		ASSERT_EQ(0, sys_statx(AT_FDCWD, AFS_DYNROOT "/" AFS_CELL, AT_NO_AUTOMOUNT,
				       masks[i], &x));
		note("statx-mask afs-dynroot 0x%x 0x%x\n", masks[i], x.stx_mask);
		EXPECT_TRUE(S_ISDIR(x.stx_mode));
		EXPECT_TRUE(x.stx_attributes & STATX_ATTR_AUTOMOUNT);
		EXPECT_TRUE(x.stx_attributes_mask & STATX_ATTR_AUTOMOUNT);
		EXPECT_EQ(STATX_BASIC_STATS & ~(kafs_as_shipped() ? 0 : AFS_MADE_UP),
			  x.stx_mask & STATX_BASIC_STATS);
	}
	/* The dynroot itself is a mount root, not an automount point. */
	ASSERT_EQ(0, sys_statx(AT_FDCWD, AFS_DYNROOT, AT_NO_AUTOMOUNT, STATX_BASIC_STATS, &x));
	EXPECT_TRUE(x.stx_attributes & STATX_ATTR_MOUNT_ROOT);
	EXPECT_FALSE(x.stx_attributes & STATX_ATTR_AUTOMOUNT);
	/* Followed, the cell directory is root.cell's root. */
	memset(&x, 0, sizeof(x));
	ASSERT_EQ(0, sys_statx(AT_FDCWD, AFS_DYNROOT "/" AFS_CELL, 0, STATX_BASIC_STATS, &x));
	EXPECT_TRUE(S_ISDIR(x.stx_mode));
	EXPECT_TRUE(x.stx_attributes & STATX_ATTR_MOUNT_ROOT);
	EXPECT_FALSE(x.stx_attributes & STATX_ATTR_AUTOMOUNT);
}

/*
 * A mount point inside a volume, as AFS cells have them: /mnt/afs/mp, at
 * the root of statx.bench, to root.cell (vm/afs-lib.sh makes it: a
 * symlink of mode 0644 whose text is "#statx.test:root.cell.").  With
 * AT_NO_AUTOMOUNT statx reports the mount point itself: a directory to
 * kafs, an automount point, not a mount root.  Without it the walk mounts
 * root.cell there and statx reports that volume's root: a mount root on
 * another mount, not an automount point.  stat() does not cross it
 * (fstatat() adds AT_NO_AUTOMOUNT).
 */
#define AFS_MP "/mnt/afs/mp"

TEST(afs_mount_point_in_volume)
{
	struct statx np, root, vol;
	struct statfs sf;
	struct stat st;

	if (statfs("/mnt/afs", &sf) || sf.f_type != 0x6B414653)
		SKIP(return, "no kafs mount on /mnt/afs (a kernel without CONFIG_AFS_FS; "
		     "make conformance VARIANT=afs)");
	memset(&vol, 0, sizeof(vol));
	ASSERT_EQ(0, sys_statx(AT_FDCWD, "/mnt/afs", 0, STATX_BASIC_STATS | STATX_MNT_ID, &vol));
	memset(&np, 0, sizeof(np));
	ASSERT_EQ(0, sys_statx(AT_FDCWD, AFS_MP, AT_NO_AUTOMOUNT | AT_SYMLINK_NOFOLLOW,
			       STATX_BASIC_STATS | STATX_MNT_ID, &np));
	note("statx-mount-point afs mode 0%o attributes 0x%llx\n", np.stx_mode,
	     (unsigned long long)np.stx_attributes);
	EXPECT_TRUE(S_ISDIR(np.stx_mode));
	EXPECT_TRUE(np.stx_attributes_mask & STATX_ATTR_AUTOMOUNT);
	EXPECT_TRUE(np.stx_attributes & STATX_ATTR_AUTOMOUNT);
	EXPECT_FALSE(np.stx_attributes & STATX_ATTR_MOUNT_ROOT);
	EXPECT_EQ(vol.stx_mnt_id, np.stx_mnt_id);
	/* stat() stops at the mount point as well. */
	ASSERT_EQ(0, stat(AFS_MP, &st));
	EXPECT_EQ(np.stx_ino, st.st_ino);
	/* Crossed: root.cell's root, on a mount of its own. */
	memset(&root, 0, sizeof(root));
	ASSERT_EQ(0, sys_statx(AT_FDCWD, AFS_MP, 0, STATX_BASIC_STATS | STATX_MNT_ID, &root));
	EXPECT_TRUE(S_ISDIR(root.stx_mode));
	EXPECT_TRUE(root.stx_attributes & STATX_ATTR_MOUNT_ROOT);
	EXPECT_FALSE(root.stx_attributes & STATX_ATTR_AUTOMOUNT);
	EXPECT_NE(vol.stx_mnt_id, root.stx_mnt_id);
	EXPECT_NE(np.stx_ino, root.stx_ino);
}

TEST_F(conf, flag_symlink_nofollow)
{
	struct statx f, n, t;

	ASSERT_EQ(0, make_file(self->dfd, "target", "12345"));
	ASSERT_EQ(0, symlinkat("target", self->dfd, "link"));
	ASSERT_EQ(0, sys_statx(self->dfd, "link", 0, STATX_BASIC_STATS, &f));
	ASSERT_EQ(0, sys_statx(self->dfd, "target", 0, STATX_BASIC_STATS, &t));
	ASSERT_EQ(0, sys_statx(self->dfd, "link", AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &n));
	EXPECT_EQ(t.stx_ino, f.stx_ino);
	EXPECT_TRUE(S_ISREG(f.stx_mode));
	EXPECT_TRUE(S_ISLNK(n.stx_mode));
	EXPECT_NE(t.stx_ino, n.stx_ino);
	/* A trailing slash follows the link whatever the flag says. */
	ASSERT_EQ(0, mkdirat(self->dfd, "d", 0755));
	ASSERT_EQ(0, symlinkat("d", self->dfd, "dlink"));
	ASSERT_EQ(0, sys_statx(self->dfd, "dlink/", AT_SYMLINK_NOFOLLOW, STATX_TYPE, &n));
	EXPECT_TRUE(S_ISDIR(n.stx_mode));
}

/*
 * AT_NO_AUTOMOUNT.  On NFS, conformance.sh exports a tmpfs under the
 * export ("automnt", crossmnt): the client sees an automount point there.
 * Elsewhere the flag must change nothing.
 */
TEST_F(conf, flag_no_automount)
{
	char path[300];
	struct statx a, b;

	if (!variant->nfs) {
		ASSERT_EQ(0, mkdirat(self->dfd, "d", 0755));
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		ASSERT_EQ(0, sys_statx(self->dfd, "d", 0, STATX_BASIC_STATS, &a));
		ASSERT_EQ(0, sys_statx(self->dfd, "d", AT_NO_AUTOMOUNT, STATX_BASIC_STATS, &b));
		EXPECT_EQ(0, memcmp(&a, &b, sizeof(a)));
		return;
	}
	snprintf(path, sizeof(path), "%s/automnt", variant->mnt);
	if (access(NFS_EXPORT "/automnt/.automount-test", F_OK))
		SKIP(return, "no crossmnt submount under the export");
	ASSERT_EQ(0, sys_statx(AT_FDCWD, path, AT_NO_AUTOMOUNT, STATX_BASIC_STATS, &a));
	EXPECT_TRUE(a.stx_attributes & STATX_ATTR_AUTOMOUNT) TH_LOG("attributes 0x%llx",
		(unsigned long long)a.stx_attributes);
	EXPECT_TRUE(a.stx_attributes_mask & STATX_ATTR_AUTOMOUNT);
	/* Without the flag, the walk mounts it and stats its root. */
	ASSERT_EQ(0, sys_statx(AT_FDCWD, path, 0, STATX_BASIC_STATS, &b));
	EXPECT_TRUE(b.stx_attributes & STATX_ATTR_MOUNT_ROOT);
	EXPECT_FALSE(b.stx_attributes & STATX_ATTR_AUTOMOUNT);
}

TEST_F(conf, flag_empty_path)
{
	struct statx a, b;
	char cwd[PATH_MAX];
	int fd;

	ASSERT_EQ(0, make_file(self->dfd, "file", "empty"));
	fd = openat(self->dfd, "file", O_RDONLY);
	ASSERT_LE(0, fd);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	ASSERT_EQ(0, sys_statx(self->dfd, "file", 0, STATX_BASIC_STATS | STATX_BTIME, &a));
	ASSERT_EQ(0, sys_statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS | STATX_BTIME, &b));
	EXPECT_EQ(0, memcmp(&a, &b, sizeof(a)));
	close(fd);
	/* A directory descriptor, and the working directory. */
	ASSERT_EQ(0, sys_statx(self->dfd, ".", 0, STATX_BASIC_STATS, &a));
	ASSERT_EQ(0, sys_statx(self->dfd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &b));
	EXPECT_EQ(0, memcmp(&a, &b, sizeof(a)));
	ASSERT_NE(NULL, getcwd(cwd, sizeof(cwd)));
	ASSERT_EQ(0, fchdir(self->dfd));
	memset(&b, 0, sizeof(b));
	EXPECT_EQ(0, sys_statx(AT_FDCWD, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &b));
	EXPECT_EQ(0, memcmp(&a, &b, sizeof(a)));
	ASSERT_EQ(0, chdir(cwd));
	/* AT_EMPTY_PATH with a name: the name counts. */
	ASSERT_EQ(0, sys_statx(self->dfd, "file", AT_EMPTY_PATH, STATX_TYPE, &b));
	EXPECT_TRUE(S_ISREG(b.stx_mode));
}

/*
 * NFS: change the file through the server's own ext4 path.  DONT_SYNC
 * answers from the attribute cache (stale); FORCE_SYNC asks the server.
 */
TEST_F(conf, nfs_dont_sync_stale_force_sync_fresh)
{
	char spath[300];
	struct statx x;

	if (variant->afs)
		SKIP(return, "AFS: a callback break, not a timeout, makes the cache stale: "
		     "tests/guest/afs-faults.sh checks DONT_SYNC and FORCE_SYNC there");
	if (!variant->nfs)
		SKIP(return, "%s has no attribute cache to go stale", variant->fs);
	ASSERT_EQ(0, make_file(self->dfd, "file", "sync"));
	ASSERT_EQ(0, sys_statx(self->dfd, "file", AT_STATX_FORCE_SYNC, STATX_BASIC_STATS, &x));
	ASSERT_EQ(0640, x.stx_mode & 07777);
	snprintf(spath, sizeof(spath), "%s/file", self->sdir);
	ASSERT_EQ(0, chmod(spath, 0604));
	ASSERT_EQ(0, truncate(spath, 1000));
	ASSERT_EQ(0, sys_statx(self->dfd, "file", AT_STATX_DONT_SYNC, STATX_BASIC_STATS, &x));
	EXPECT_EQ(0640, x.stx_mode & 07777);
	EXPECT_EQ(4, x.stx_size);
	ASSERT_EQ(0, sys_statx(self->dfd, "file", AT_STATX_FORCE_SYNC, STATX_BASIC_STATS, &x));
	EXPECT_EQ(0604, x.stx_mode & 07777);
	EXPECT_EQ(1000, x.stx_size);
	ASSERT_EQ(0, sys_statx(self->dfd, "file", AT_STATX_DONT_SYNC, STATX_BASIC_STATS, &x));
	EXPECT_EQ(0604, x.stx_mode & 07777);
}

/* An error, with the buffer (poisoned first) left as it was. */
#define EXPECT_ERR_UNTOUCHED(err, dfd, name, flags, mask) do { \
	struct statx _x; \
	memset(&_x, POISON, sizeof(_x)); \
	EXPECT_EQ(err, statx_err(dfd, name, flags, mask, &_x)) \
		TH_LOG("statx(%d, %s, 0x%x, 0x%x)", (int)(dfd), #name, \
		       (unsigned int)(flags), (unsigned int)(mask)); \
	EXPECT_TRUE(buf_untouched(&_x, sizeof(_x))); \
} while (0)

TEST_F(conf, error_ebadf)
{
	int fd;

	fd = openat(self->dfd, "file", O_RDWR | O_CREAT, 0644);
	ASSERT_LE(0, fd);
	close(fd);
	EXPECT_ERR_UNTOUCHED(EBADF, -1, "file", 0, STATX_BASIC_STATS);
	EXPECT_ERR_UNTOUCHED(EBADF, fd, "file", 0, STATX_BASIC_STATS);
	EXPECT_ERR_UNTOUCHED(EBADF, fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS);
	EXPECT_ERR_UNTOUCHED(EBADF, 100000, "", AT_EMPTY_PATH, STATX_BASIC_STATS);
	/* An absolute name does not look at dfd. */
	EXPECT_EQ(0, statx_err(-1, self->dir, 0, STATX_BASIC_STATS, &(struct statx){}));
}

TEST_F(conf, error_efault)
{
	long page = sysconf(_SC_PAGESIZE);
	char *map, *edge;
	struct statx x;

	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, munmap(map + page, page));
	ASSERT_EQ(0, make_file(self->dfd, "file", "fault"));
	/* Bad name pointers: low, kernel, unmapped, running off a page. */
	EXPECT_ERR_UNTOUCHED(EFAULT, self->dfd, (const char *)1, 0, STATX_BASIC_STATS);
	EXPECT_ERR_UNTOUCHED(EFAULT, self->dfd, (const char *)0xffffffff81000000ul, 0,
			     STATX_BASIC_STATS);
	EXPECT_ERR_UNTOUCHED(EFAULT, self->dfd, map + page, 0, STATX_BASIC_STATS);
	edge = map + page - 4;
	memcpy(edge, "file", 4);
	EXPECT_ERR_UNTOUCHED(EFAULT, self->dfd, edge, 0, STATX_BASIC_STATS);
	EXPECT_ERR_UNTOUCHED(EFAULT, self->dfd, map + page, AT_EMPTY_PATH, STATX_BASIC_STATS);
	/* NULL without AT_EMPTY_PATH: EFAULT before and after the series. */
	EXPECT_ERR_UNTOUCHED(EFAULT, self->dfd, NULL, 0, STATX_BASIC_STATS);
	/* Bad buffers: the call does the work and fails at copy-out. */
	EXPECT_EQ(EFAULT, statx_err(self->dfd, "file", 0, STATX_BASIC_STATS, NULL));
	EXPECT_EQ(EFAULT, statx_err(self->dfd, "file", 0, STATX_BASIC_STATS, (void *)1));
	EXPECT_EQ(EFAULT, statx_err(self->dfd, "file", 0, STATX_BASIC_STATS,
				    map + page - sizeof(x) / 2));
	ASSERT_EQ(0, mprotect(map, page, PROT_READ));
	EXPECT_EQ(EFAULT, statx_err(self->dfd, "file", 0, STATX_BASIC_STATS, map));
	munmap(map, page);
}

TEST_F(conf, error_einval)
{
	ASSERT_EQ(0, make_file(self->dfd, "file", "inval"));
	EXPECT_ERR_UNTOUCHED(EINVAL, self->dfd, "file", 0x80000000, STATX_BASIC_STATS);
	EXPECT_ERR_UNTOUCHED(EINVAL, self->dfd, "file", AT_REMOVEDIR, STATX_BASIC_STATS);
	EXPECT_ERR_UNTOUCHED(EINVAL, self->dfd, "file",
			     AT_STATX_FORCE_SYNC | AT_STATX_DONT_SYNC, STATX_BASIC_STATS);
	EXPECT_ERR_UNTOUCHED(EINVAL, self->dfd, "file", 0, STATX__RESERVED);
	EXPECT_ERR_UNTOUCHED(EINVAL, self->dfd, "file", 0, STATX__RESERVED | STATX_BASIC_STATS);
	/* The same flag checks hold for the descriptor paths. */
	EXPECT_ERR_UNTOUCHED(EINVAL, self->dfd, "", AT_EMPTY_PATH | 0x80000000,
			     STATX_BASIC_STATS);
	EXPECT_ERR_UNTOUCHED(EINVAL, self->dfd, "",
			     AT_EMPTY_PATH | AT_STATX_SYNC_TYPE, STATX_BASIC_STATS);
	EXPECT_ERR_UNTOUCHED(EINVAL, self->dfd, NULL, AT_EMPTY_PATH, STATX__RESERVED);
}

TEST_F(conf, error_enoent)
{
	EXPECT_ERR_UNTOUCHED(ENOENT, self->dfd, "", 0, STATX_BASIC_STATS);
	EXPECT_ERR_UNTOUCHED(ENOENT, self->dfd, "missing", 0, STATX_BASIC_STATS);
	EXPECT_ERR_UNTOUCHED(ENOENT, self->dfd, "missing/x", 0, STATX_BASIC_STATS);
	ASSERT_EQ(0, symlinkat("missing", self->dfd, "dangling"));
	EXPECT_ERR_UNTOUCHED(ENOENT, self->dfd, "dangling", 0, STATX_BASIC_STATS);
	EXPECT_EQ(0, statx_err(self->dfd, "dangling", AT_SYMLINK_NOFOLLOW,
			       STATX_BASIC_STATS, &(struct statx){}));
}

TEST_F(conf, error_enotdir)
{
	int fd;

	ASSERT_EQ(0, make_file(self->dfd, "file", "notdir"));
	EXPECT_ERR_UNTOUCHED(ENOTDIR, self->dfd, "file/x", 0, STATX_BASIC_STATS);
	EXPECT_ERR_UNTOUCHED(ENOTDIR, self->dfd, "file/", 0, STATX_BASIC_STATS);
	fd = openat(self->dfd, "file", O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_ERR_UNTOUCHED(ENOTDIR, fd, "x", 0, STATX_BASIC_STATS);
	close(fd);
}

TEST_F(conf, error_enametoolong)
{
	char *name = malloc(PATH_MAX + 2);
	char comp[NAME_MAX + 2];

	ASSERT_NE(NULL, name);
	memset(comp, 'c', NAME_MAX + 1);
	comp[NAME_MAX + 1] = '\0';
	EXPECT_ERR_UNTOUCHED(ENAMETOOLONG, self->dfd, comp, 0, STATX_BASIC_STATS);
	/* PATH_MAX bytes with no terminator in them. */
	memset(name, '/', PATH_MAX + 1);
	name[PATH_MAX + 1] = '\0';
	EXPECT_ERR_UNTOUCHED(ENAMETOOLONG, self->dfd, name, 0, STATX_BASIC_STATS);
	/* PATH_MAX - 1 bytes and the terminator: a valid name ("/"). */
	name[PATH_MAX - 1] = '\0';
	EXPECT_EQ(0, statx_err(self->dfd, name, 0, STATX_BASIC_STATS, &(struct statx){}));
	free(name);
}

TEST_F(conf, error_eloop)
{
	char from[16], to[16];
	int i;

	ASSERT_EQ(0, symlinkat("b", self->dfd, "a"));
	ASSERT_EQ(0, symlinkat("a", self->dfd, "b"));
	EXPECT_ERR_UNTOUCHED(ELOOP, self->dfd, "a", 0, STATX_BASIC_STATS);
	EXPECT_ERR_UNTOUCHED(ELOOP, self->dfd, "a/x", AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS);
	EXPECT_EQ(0, statx_err(self->dfd, "a", AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS,
			       &(struct statx){}));
	/* 40 links are followed (MAXSYMLINKS); 41 are one too many. */
	ASSERT_EQ(0, make_file(self->dfd, "l41", "end"));
	for (i = 40; i >= 0; i--) {
		snprintf(from, sizeof(from), "l%d", i);
		snprintf(to, sizeof(to), "l%d", i + 1);
		ASSERT_EQ(0, symlinkat(to, self->dfd, from));
	}
	EXPECT_EQ(0, statx_err(self->dfd, "l1", 0, STATX_BASIC_STATS, &(struct statx){}));
	EXPECT_ERR_UNTOUCHED(ELOOP, self->dfd, "l0", 0, STATX_BASIC_STATS);
}

/* An unprivileged caller cannot search a 0700 directory it does not own. */
TEST_F(conf, error_eacces_unprivileged)
{
	struct statx x;
	pid_t pid;
	int status;

	ASSERT_EQ(0, mkdirat(self->dfd, "private", 0700));
	ASSERT_EQ(0, make_file(self->dfd, "private/file", "secret"));
	ASSERT_EQ(0, fchmod(self->dfd, 0755));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int err;

		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(100);
		memset(&x, POISON, sizeof(x));
		err = statx_err(self->dfd, "private/file", 0, STATX_BASIC_STATS, &x);
		if (err != EACCES)
			_exit(err ? err : 101);
		if (!buf_untouched(&x, sizeof(x)))
			_exit(102);
		/* The directory itself is visible: only search is denied. */
		_exit(statx_err(self->dfd, "private", 0, STATX_BASIC_STATS, &x) ? 103 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	/*
	 * AFS: a directory's mode bits grant nothing; its ACL does, for the
	 * caller's token, and without tokens root and nobody are the same
	 * anonymous user.  So nobody's statx succeeds (101), as root's does.
	 */
	if (variant->afs) {
		ASSERT_EQ(101, WEXITSTATUS(status));
		SKIP(return, "AFS checks the directory's ACL for the caller's token, "
		     "not mode bits: without tokens, nobody is root's anonymous user");
	}
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("child: %d (an errno, or 100-103)",
						 WEXITSTATUS(status));
}

/* xorshift64*: a fixed seed gives the same calls on every kernel. */
static uint64_t rnd_state;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545F4914F6CDD1Dull;
}

static long env_long(const char *name, long def)
{
	const char *s = getenv(name);

	return s && *s ? strtol(s, NULL, 0) : def;
}

static int documented_errno(int err)
{
	switch (err) {
	case EBADF: case EFAULT: case EINVAL: case ENOENT: case ENOTDIR:
	case ENAMETOOLONG: case ELOOP: case EACCES: case ENOMEM:
		return 1;
	}
	return 0;
}

/*
 * Random dfd, name pointer, flags, mask and buffer, for statx and for
 * newfstatat: every return is success or a documented errno, a call with
 * a bad buffer or bad flags never succeeds, and the kernel says nothing.
 */
TEST_F_TIMEOUT(conf, fuzz, 900)
{
	long page = sysconf(_SC_PAGESIZE);
	long calls = env_long("STATX_FUZZ_CALLS", 100000);
	uint64_t seed = env_long("STATX_FUZZ_SEED", 20161116);
	const unsigned int known_flags = AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT |
		AT_EMPTY_PATH | AT_STATX_SYNC_TYPE;
	long i, ok = 0, counts[200] = { 0 };
	char *map, *bmap, *longname, *edge;
	int fds[8], file_fd, closed_fd;
	const char *names[12];
	void *bufs[5];
	struct statx *good;

	if (variant->nfs)
		calls /= 10;	/* every call may be a loopback RPC */
	note("fuzz: %s seed=%llu calls=%ld\n", variant->fs,
		       (unsigned long long)seed, calls);
	rnd_state = seed ? seed : 1;

	map = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, munmap(map + 2 * page, page));	/* a hole after it */
	good = (struct statx *)map;
	longname = map + page;				/* PATH_MAX-ish '/'s */
	memset(longname, '/', page);
	edge = map + 2 * page - 4;
	memcpy(edge, "file", 4);			/* runs into the hole */
	/* Buffers running into a hole of their own: names stay as they are. */
	bmap = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, bmap);
	ASSERT_EQ(0, munmap(bmap + page, page));

	ASSERT_EQ(0, make_file(self->dfd, "file", "fuzz"));
	ASSERT_EQ(0, symlinkat("file", self->dfd, "link"));
	ASSERT_EQ(0, symlinkat("loop", self->dfd, "loop"));
	file_fd = openat(self->dfd, "file", O_RDONLY);
	ASSERT_LE(0, file_fd);
	fds[6] = openat(self->dfd, "link", O_PATH | O_NOFOLLOW);
	ASSERT_LE(0, fds[6]);
	closed_fd = open("/", O_RDONLY);	/* a number nothing holds */
	close(closed_fd);
	fds[0] = AT_FDCWD; fds[1] = self->dfd; fds[2] = file_fd;
	fds[3] = closed_fd; fds[4] = -1; fds[5] = INT_MIN; fds[7] = 0;
	names[0] = NULL; names[1] = ""; names[2] = "file"; names[3] = "link";
	names[4] = "loop"; names[5] = "file/x"; names[6] = "missing";
	names[7] = (const char *)1; names[8] = edge; names[9] = longname;
	names[10] = self->dir; names[11] = (const char *)0xffffffff81000000ul;
	bufs[0] = good; bufs[1] = NULL; bufs[2] = bmap + page - 8;
	bufs[3] = (void *)0xffffffff81000000ul; bufs[4] = good;

	for (i = 0; i < calls; i++) {
		uint64_t r = rnd();
		int dfd = fds[r % 8];
		const char *name = names[(r >> 3) % 12];
		int b = (r >> 7) % 5;
		void *buf = bufs[b];
		unsigned int flags = (r >> 10) & known_flags;
		unsigned int mask = (r >> 16) & 0x3fff;
		int bad_flags, bad_buf = b == 1 || b == 2 || b == 3;
		long ret;

		if (((r >> 40) & 15) == 0)
			flags |= 1u << ((r >> 44) % 32);
		if (((r >> 48) & 15) == 0)
			mask = (uint32_t)(r >> 20);
		if (r >> 63) {
			bad_flags = (flags & ~known_flags) ||
				    (flags & AT_STATX_SYNC_TYPE) == AT_STATX_SYNC_TYPE ||
				    (mask & STATX__RESERVED);
			ret = sys_statx(dfd, name, flags, mask, buf);
		} else {
			/* 6.1's fstatat lets the statx sync bits through. */
			bad_flags = !!(flags & ~known_flags);
			ret = sys_newfstatat(dfd, name, buf, flags);
		}
		if (ret == 0) {
			ok++;
			EXPECT_FALSE(bad_buf || bad_flags)
				TH_LOG("call %ld succeeded: dfd %d flags 0x%x mask 0x%x buf %d",
				       i, dfd, flags, mask, b);
			continue;
		}
		EXPECT_EQ(-1, ret);
		EXPECT_TRUE(documented_errno(errno))
			TH_LOG("call %ld: errno %d (%s)", i, errno, strerror(errno));
		if (errno > 0 && errno < 200)
			counts[errno]++;
		if (_metadata->passed == 0)
			break;
	}
	note("fuzz: %s %ld calls, %ld succeeded; EBADF %ld EFAULT %ld EINVAL %ld ENOENT %ld ENOTDIR %ld ENAMETOOLONG %ld ELOOP %ld\n",
		       variant->fs, i, ok, counts[EBADF], counts[EFAULT], counts[EINVAL],
		       counts[ENOENT], counts[ENOTDIR], counts[ENAMETOOLONG], counts[ELOOP]);
	EXPECT_LT(0, ok);
	close(file_fd);
	close(fds[6]);
	munmap(map, 2 * page);
	munmap(bmap, page);
}

TEST_HARNESS_MAIN
