// SPDX-License-Identifier: GPL-2.0
/*
 * statx_series_test.c - what patches/ changes, checked in the guest.
 *
 * fd-only statx (NULL name with AT_EMPTY_PATH), the "" fast path, and the
 * stat:* tracepoints, on each file system (FIXTURE_VARIANT).  On the stock
 * kernel the same tests expect what 6.1 does without the series: -EFAULT
 * for a NULL name, and no stat:* events, so that the difference between
 * the two runs is the series.
 *
 * Built against tools/testing/selftests/kselftest_harness.h from the
 * kernel tree in the cache; runs as root in the guest, where the guest
 * init has mounted /mnt/ext4 and /mnt/tmpfs and tests/guest/run.sh has
 * mounted NFS v3 and v4.2 from the guest's own knfsd.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "statx_expect.h"

#define TRACEFS "/sys/kernel/tracing"
#define NCALLS 23

static long sys_statx(int dfd, const char *name, int flags, unsigned int mask,
		      struct statx *buf)
{
	return syscall(SYS_statx, dfd, name, flags, mask, buf);
}

static long sys_newfstatat(int dfd, const char *name, struct stat *st,
			   int flags)
{
	return syscall(SYS_newfstatat, dfd, name, st, flags);
}

/*
 * How much of the series the running kernel carries, from the variant name
 * that ends its release (vm/kbuild.sh): "stock" none, "seriesN" patches
 * 1..N, any other variant all of them.  The patches the tests look at:
 * 1 statx(fd, NULL) on a descriptor, 2 the "" fast path, which takes NULL
 * on a descriptor in fstatat() too (v6.11's terms), 3 NULL and "" with
 * other flags on a descriptor and NULL with AT_FDCWD (looked up as ""),
 * 4 the small struct filename (no change a test can see), 5 the stat:*
 * events.
 */
#define LEVEL_NULL	1
#define LEVEL_EMPTY	2
#define LEVEL_WIDE	3
#define LEVEL_EVENTS	5
#define SERIES_ALL 1000

static int series_level(void)
{
	struct utsname u;
	const char *dash;

	uname(&u);
	dash = strrchr(u.release, '-');
	if (!dash)
		return SERIES_ALL;
	if (!strcmp(dash, "-stock"))
		return 0;
	if (!strncmp(dash, "-series", 7) && dash[7] >= '1' && dash[7] <= '9')
		return atoi(dash + 7);
	return SERIES_ALL;
}

static int is_stock(void)
{
	return series_level() == 0;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

FIXTURE(fs) {
	char dir[256];
	char file[300];
	int fd;
};

FIXTURE_VARIANT(fs) {
	const char *mnt;
	long magic;
	const char *fstype;
};

FIXTURE_VARIANT_ADD(fs, ext4) { "/mnt/ext4", 0xEF53, "ext4" };
FIXTURE_VARIANT_ADD(fs, tmpfs) { "/mnt/tmpfs", 0x01021994, "tmpfs" };
FIXTURE_VARIANT_ADD(fs, nfs3) { "/mnt/nfs3", 0x6969, "nfs" };
FIXTURE_VARIANT_ADD(fs, nfs4) { "/mnt/nfs4", 0x6969, "nfs4" };

FIXTURE_SETUP(fs)
{
	struct statfs sf;

	if (statfs(variant->mnt, &sf) || sf.f_type != variant->magic)
		SKIP(return, "%s is not mounted as %s", variant->mnt, variant->fstype);
	snprintf(self->dir, sizeof(self->dir), "%s/series-test-%d", variant->mnt, getpid());
	ASSERT_EQ(0, mkdir(self->dir, 0755));
	snprintf(self->file, sizeof(self->file), "%s/file", self->dir);
	self->fd = open(self->file, O_RDWR | O_CREAT, 0644);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(6, write(self->fd, "statx\n", 6));
}

FIXTURE_TEARDOWN(fs)
{
	if (self->fd > 0)
		close(self->fd);
	unlink(self->file);
	rmdir(self->dir);
}

/*
 * statx(dfd, NULL, flags): dfd's own attributes with patch LEVEL and later,
 * -EFAULT before it.
 */
static void check_null_flags(struct __test_metadata *_metadata, int dfd,
			     const char *by_path, int flags, int level)
{
	struct statx want, got;
	long ret;

	memset(&want, 0, sizeof(want));
	memset(&got, 0xa5, sizeof(got));
	ASSERT_EQ(0, sys_statx(AT_FDCWD, by_path, AT_SYMLINK_NOFOLLOW,
			       STATX_BASIC_STATS | STATX_BTIME, &want));
	errno = 0;
	ret = sys_statx(dfd, NULL, flags, STATX_BASIC_STATS | STATX_BTIME, &got);
	if (series_level() < level) {
		EXPECT_EQ(-1, ret);
		EXPECT_EQ(EFAULT, errno);
		return;
	}
	ASSERT_EQ(0, ret) TH_LOG("statx(%d, NULL, %#x): %s", dfd, flags, strerror(errno));
	expect_same_statx(_metadata, &want, &got);
}

/* statx(fd, NULL, AT_EMPTY_PATH) on a descriptor: patch 1. */
static void check_null(struct __test_metadata *_metadata, int dfd,
		       const char *by_path)
{
	check_null_flags(_metadata, dfd, by_path, AT_EMPTY_PATH, LEVEL_NULL);
}

TEST_F(fs, null_name_regular_fd)
{
	check_null(_metadata, self->fd, self->file);
}

TEST_F(fs, null_name_opath_fd)
{
	int fd = open(self->file, O_PATH);

	ASSERT_LE(0, fd);
	check_null(_metadata, fd, self->file);
	close(fd);
}

TEST_F(fs, null_name_directory_fd)
{
	int fd = open(self->dir, O_RDONLY | O_DIRECTORY);

	ASSERT_LE(0, fd);
	check_null(_metadata, fd, self->dir);
	close(fd);
}

TEST_F(fs, null_name_at_fdcwd_is_cwd)
{
	char old[512];

	ASSERT_NE(NULL, getcwd(old, sizeof(old)));
	ASSERT_EQ(0, chdir(self->dir));
	/* The working directory, looked up as "": patch 3, as in v6.13. */
	check_null_flags(_metadata, AT_FDCWD, self->dir, AT_EMPTY_PATH, LEVEL_WIDE);
	ASSERT_EQ(0, chdir(old));
}

TEST_F(fs, null_name_with_other_flags)
{
	/* AT_SYMLINK_NOFOLLOW beside AT_EMPTY_PATH: patch 3. */
	check_null_flags(_metadata, self->fd, self->file,
			 AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, LEVEL_WIDE);
	/* AT_NO_AUTOMOUNT and a sync flag: patch 1, as v6.11. */
	check_null_flags(_metadata, self->fd, self->file,
			 AT_EMPTY_PATH | AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC, LEVEL_NULL);
}

TEST_F(fs, newfstatat_null_at_fdcwd_is_cwd)
{
	struct stat want, got;
	char old[512];
	long ret;

	ASSERT_NE(NULL, getcwd(old, sizeof(old)));
	ASSERT_EQ(0, chdir(self->dir));
	memset(&want, 0, sizeof(want));
	memset(&got, 0, sizeof(got));
	ASSERT_EQ(0, stat(self->dir, &want));
	errno = 0;
	ret = sys_newfstatat(AT_FDCWD, NULL, &got, AT_EMPTY_PATH);
	ASSERT_EQ(0, chdir(old));
	if (series_level() < LEVEL_WIDE) {
		EXPECT_EQ(-1, ret);
		EXPECT_EQ(EFAULT, errno);
		return;
	}
	ASSERT_EQ(0, ret) TH_LOG("newfstatat(AT_FDCWD, NULL): %s", strerror(errno));
	EXPECT_EQ(0, memcmp(&want, &got, sizeof(want)));
}

TEST_F(fs, null_name_bad_fd_is_ebadf)
{
	struct statx stx;

	EXPECT_EQ(-1, sys_statx(9999, NULL, AT_EMPTY_PATH, STATX_BASIC_STATS, &stx));
	EXPECT_EQ(series_level() < LEVEL_NULL ? EFAULT : EBADF, errno);
}

TEST_F(fs, null_name_without_empty_path_is_efault)
{
	struct statx stx;

	/* Rust's std probes statx this way and relies on -EFAULT. */
	EXPECT_EQ(-1, sys_statx(self->fd, NULL, 0, STATX_BASIC_STATS, &stx));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, sys_statx(0, NULL, 0, 0xfff, NULL));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(fs, null_name_unknown_flags_is_einval)
{
	struct statx stx;

	/* Flags are checked before the name is used: stock says EINVAL too. */
	EXPECT_EQ(-1, sys_statx(self->fd, NULL, AT_EMPTY_PATH | 0x10000,
				STATX_BASIC_STATS, &stx));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, sys_statx(self->fd, NULL, AT_EMPTY_PATH | AT_STATX_FORCE_SYNC |
				AT_STATX_DONT_SYNC, STATX_BASIC_STATS, &stx));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, sys_statx(self->fd, NULL, AT_EMPTY_PATH, 0x80000000u, &stx));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, sys_statx(self->fd, "", AT_EMPTY_PATH | 0x10000,
				STATX_BASIC_STATS, &stx));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(fs, same_result_by_path_empty_and_null)
{
	struct statx by_path, by_empty, by_null;
	const unsigned int mask = STATX_BASIC_STATS | STATX_BTIME;

	memset(&by_path, 0, sizeof(by_path));
	memset(&by_empty, 0, sizeof(by_empty));
	memset(&by_null, 0, sizeof(by_null));
	ASSERT_EQ(0, sys_statx(AT_FDCWD, self->file, 0, mask, &by_path));
	ASSERT_EQ(0, sys_statx(self->fd, "", AT_EMPTY_PATH, mask, &by_empty));
	expect_same_statx(_metadata, &by_path, &by_empty);
	if (series_level() < LEVEL_NULL)
		SKIP(return, "stock 6.1 has no NULL name (patch 1 adds it)");
	ASSERT_EQ(0, sys_statx(self->fd, NULL, AT_EMPTY_PATH, mask, &by_null));
	expect_same_statx(_metadata, &by_path, &by_null);
}

TEST_F(fs, newfstatat_empty_and_null_match_fstat)
{
	struct stat want, empty, null;

	memset(&want, 0, sizeof(want));
	memset(&empty, 0, sizeof(empty));
	memset(&null, 0, sizeof(null));
	ASSERT_EQ(0, syscall(SYS_fstat, self->fd, &want));
	ASSERT_EQ(0, sys_newfstatat(self->fd, "", &empty, AT_EMPTY_PATH));
	EXPECT_EQ(0, memcmp(&want, &empty, sizeof(want)));
	errno = 0;
	/* NULL on a descriptor: patch 2, as vfs_empty_path() takes it (v6.11). */
	if (series_level() < LEVEL_EMPTY) {
		EXPECT_EQ(-1, sys_newfstatat(self->fd, NULL, &null, AT_EMPTY_PATH));
		EXPECT_EQ(EFAULT, errno);
		return;
	}
	ASSERT_EQ(0, sys_newfstatat(self->fd, NULL, &null, AT_EMPTY_PATH));
	EXPECT_EQ(0, memcmp(&want, &null, sizeof(want)));
}

TEST_F(fs, empty_name_bad_pointer_is_efault)
{
	struct statx stx;
	struct stat st;

	EXPECT_EQ(-1, sys_statx(self->fd, (const char *)8, AT_EMPTY_PATH,
				STATX_BASIC_STATS, &stx));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, sys_newfstatat(self->fd, (const char *)8, &st, AT_EMPTY_PATH));
	EXPECT_EQ(EFAULT, errno);
}

/* --- stat:* events, read back through a tracefs instance ---------------- */

struct trace {
	char dir[128];
};

/*
 * Enable stat:EVENT in a fresh instance, filtered to one file: its inode
 * number and its device as the kernel encodes it (MAJOR << 20 | MINOR), so
 * that nfsd's getattr of the exported ext4 file, same number, is left out.
 */
static int trace_start(struct trace *t, const char *const *events,
		       const struct stat *st)
{
	char path[256], filter[128];
	int i;

	snprintf(t->dir, sizeof(t->dir), TRACEFS "/instances/sxs-%d", getpid());
	if (mkdir(t->dir, 0700) && errno != EEXIST)
		return -1;
	snprintf(filter, sizeof(filter), "ino == %lu && dev == %lu",
		 (unsigned long)st->st_ino,
		 ((unsigned long)major(st->st_dev) << 20) | minor(st->st_dev));
	for (i = 0; events[i]; i++) {
		snprintf(path, sizeof(path), "%s/events/stat/%s/filter", t->dir, events[i]);
		if (write_file(path, filter))
			return -1;
		snprintf(path, sizeof(path), "%s/events/stat/%s/enable", t->dir, events[i]);
		if (write_file(path, "1"))
			return -1;
	}
	return 0;
}

/* Stop tracing; return the instance's trace text (malloc'd). */
static char *trace_stop(struct trace *t)
{
	char path[256], *buf;
	size_t len = 0, cap = 1 << 16;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/tracing_on", t->dir);
	write_file(path, "0");
	snprintf(path, sizeof(path), "%s/trace", t->dir);
	fd = open(path, O_RDONLY);
	buf = malloc(cap);
	if (fd < 0 || !buf)
		return NULL;
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += n;
		if (cap - len < 4096) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				return NULL;
		}
	}
	buf[len] = '\0';
	close(fd);
	snprintf(path, sizeof(path), "%s/events/enable", t->dir);
	write_file(path, "0");
	rmdir(t->dir);
	return buf;
}

/* Lines of @text that contain every one of @needles (NULL-terminated). */
static int count_lines(const char *text, const char *const *needles)
{
	const char *line = text, *end;
	int n = 0, i;
	char buf[1024];

	for (; line && *line; line = end ? end + 1 : NULL) {
		size_t l;

		end = strchr(line, '\n');
		l = end ? (size_t)(end - line) : strlen(line);
		if (l >= sizeof(buf) || line[0] == '#')
			continue;
		memcpy(buf, line, l);
		buf[l] = '\0';
		for (i = 0; needles[i]; i++)
			if (!strstr(buf, needles[i]))
				break;
		if (!needles[i])
			n++;
	}
	return n;
}

static int have_events(void)
{
	return access(TRACEFS "/events/stat/vfs_getattr_enter", F_OK) == 0;
}

/*
 * No events where the series stops short of them (stock, series1..4): they
 * must not be there; elsewhere they must.
 */
static int events_expected(struct __test_metadata *_metadata)
{
	int want = series_level() >= LEVEL_EVENTS;

	EXPECT_EQ(want, have_events())
		TH_LOG("the stat:* events are %s on a kernel at level %d",
		       have_events() ? "there" : "missing", series_level());
	return want && have_events();
}

TEST_F(fs, events_count_and_fields)
{
	static const char *const events[] = {
		"vfs_getattr_enter", "vfs_getattr_exit", "statx_result", NULL
	};
	char dev[64], ino[64], *text;
	struct trace t;
	struct stat st;
	struct statx stx;
	int i;

	if (!events_expected(_metadata))
		SKIP(return, "%s", is_stock() ? "stock 6.1 has no stat:* events" :
		     "no stat:* events before patch 5");
	ASSERT_EQ(0, stat(self->file, &st));
	ASSERT_EQ(0, trace_start(&t, events, &st));
	for (i = 0; i < NCALLS; i++)
		ASSERT_EQ(0, sys_statx(AT_FDCWD, self->file, 0, STATX_SIZE | STATX_INO, &stx));
	text = trace_stop(&t);
	ASSERT_NE(NULL, text);

	snprintf(dev, sizeof(dev), "dev=%u:%u ", major(st.st_dev), minor(st.st_dev));
	snprintf(ino, sizeof(ino), "ino=%lu ", (unsigned long)st.st_ino);
	{
		const char *enter[] = { "vfs_getattr_enter:", dev, ino,
					"request=0x300 (INO|SIZE)", "sync=AS_STAT", NULL };
		const char *exit_[] = { "vfs_getattr_exit:", dev, ino,
					"request=0x300 (INO|SIZE)", "error=0", NULL };
		/* What was asked beside what came back, MNT_ID added. */
		const char *cp[] = { "statx_result:", dev, ino, "request=0x300 (INO|SIZE)",
				     "MNT_ID", "error=0", NULL };
		const char *any[] = { ": ", NULL };

		EXPECT_EQ(NCALLS, count_lines(text, enter)) TH_LOG("trace:\n%.2000s", text);
		EXPECT_EQ(NCALLS, count_lines(text, exit_));
		EXPECT_EQ(NCALLS, count_lines(text, cp));
		EXPECT_EQ(3 * NCALLS, count_lines(text, any));
	}
	free(text);
}

TEST_F(fs, events_sync_flags_and_fstat)
{
	static const char *const events[] = { "vfs_getattr_enter", NULL };
	const char *force[] = { "vfs_getattr_enter:", "request=0x7ff (BASIC_STATS)",
				"sync=FORCE_SYNC", NULL };
	const char *dont[] = { "vfs_getattr_enter:", "request=0x1 (TYPE)",
			       "sync=DONT_SYNC", NULL };
	struct trace t;
	struct statx stx;
	struct stat st;
	char *text;
	int i;

	if (!events_expected(_metadata))
		SKIP(return, "%s", is_stock() ? "stock 6.1 has no stat:* events" :
		     "no stat:* events before patch 5");
	ASSERT_EQ(0, fstat(self->fd, &st));
	ASSERT_EQ(0, trace_start(&t, events, &st));
	for (i = 0; i < NCALLS; i++) {
		ASSERT_EQ(0, sys_statx(self->fd, "", AT_EMPTY_PATH | AT_STATX_FORCE_SYNC,
				       STATX_BASIC_STATS, &stx));
		ASSERT_EQ(0, sys_statx(self->fd, NULL, AT_EMPTY_PATH | AT_STATX_DONT_SYNC,
				       STATX_TYPE, &stx));
	}
	text = trace_stop(&t);
	ASSERT_NE(NULL, text);
	EXPECT_EQ(NCALLS, count_lines(text, force)) TH_LOG("trace:\n%.2000s", text);
	EXPECT_EQ(NCALLS, count_lines(text, dont));
	free(text);
}

TEST_F(fs, events_on_failing_calls)
{
	static const char *const events[] = {
		"vfs_getattr_enter", "vfs_getattr_exit", "statx_result", NULL
	};
	const char *efault[] = { "statx_result:", "error=-14", NULL };
	const char *getattr[] = { "vfs_getattr_", NULL };
	char denied[400], inner[420];
	struct trace t;
	struct stat st;
	struct statx stx;
	pid_t pid;
	int i, status;

	if (!events_expected(_metadata))
		SKIP(return, "%s", is_stock() ? "stock 6.1 has no stat:* events" :
		     "no stat:* events before patch 5");

	/* ENOENT: the lookup fails, getattr never runs: no events. */
	ASSERT_EQ(0, stat(self->file, &st));
	ASSERT_EQ(0, trace_start(&t, events, &st));
	for (i = 0; i < NCALLS; i++) {
		EXPECT_EQ(-1, sys_statx(AT_FDCWD, "/mnt/no/such/file", 0, STATX_SIZE, &stx));
		EXPECT_EQ(ENOENT, errno);
	}
	/* EFAULT on copy-out: getattr ran, statx_result reports the fault. */
	for (i = 0; i < NCALLS; i++) {
		EXPECT_EQ(-1, sys_statx(self->fd, "", AT_EMPTY_PATH, STATX_SIZE,
					(struct statx *)8));
		EXPECT_EQ(EFAULT, errno);
	}
	{
		char *text = trace_stop(&t);

		ASSERT_NE(NULL, text);
		EXPECT_EQ(NCALLS, count_lines(text, efault)) TH_LOG("trace:\n%.2000s", text);
		EXPECT_EQ(2 * NCALLS, count_lines(text, getattr));
		free(text);
	}

	/* EACCES: an unprivileged caller is refused before any getattr. */
	snprintf(denied, sizeof(denied), "%s/denied", self->dir);
	snprintf(inner, sizeof(inner), "%s/denied/f", self->dir);
	ASSERT_EQ(0, mkdir(denied, 0700));
	i = open(inner, O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, i);
	close(i);
	ASSERT_EQ(0, stat(inner, &st));
	ASSERT_EQ(0, trace_start(&t, events, &st));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int bad = 0;

		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(2);
		for (i = 0; i < NCALLS; i++)
			if (sys_statx(AT_FDCWD, inner, 0, STATX_SIZE, &stx) != -1 ||
			    errno != EACCES)
				bad++;
		_exit(bad ? 1 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("the unprivileged statx was not EACCES");
	{
		char *text = trace_stop(&t);

		ASSERT_NE(NULL, text);
		EXPECT_EQ(0, count_lines(text, getattr)) TH_LOG("trace:\n%.2000s", text);
		free(text);
	}
	unlink(inner);
	rmdir(denied);
}

/*
 * Both result events of one statx() carry the (dev, ino) the caller sees, so
 * they join on it where the inode the filesystem is asked about has another:
 * a lower-layer file of an overlay whose layers are different filesystems
 * (ext4 below, tmpfs above, xino off) reports its layer's pseudo device,
 * not the overlay's.  Needs overlayfs, which only the overlay variant has.
 */
TEST(overlay_result_events_join)
{
	/*
	 * The copy-out event; series v2 called it cp_statx, and keyed it on the
	 * result while vfs_getattr_exit took the inode's: this test shows what
	 * that did on an overlay, with either name.
	 */
	const char *copyout = access(TRACEFS "/events/stat/cp_statx", F_OK) ?
			      "statx_result" : "cp_statx";
	const char *const events[] = { "vfs_getattr_exit", copyout, NULL };
	char result_name[32];
	char top[128], lower[160], upper[160], work[160], merged[160];
	char opts[600], file[200], dev[64], ino[64], *text;
	struct trace t;
	struct statx stx;
	struct stat st;
	int fd, i;

	if (!events_expected(_metadata))
		SKIP(return, "%s", is_stock() ? "stock 6.1 has no stat:* events" :
		     "no stat:* events before patch 5");
	snprintf(top, sizeof(top), "/mnt/tmpfs/ovl-%d", getpid());
	snprintf(lower, sizeof(lower), "/mnt/ext4/ovl-lower-%d", getpid());
	snprintf(upper, sizeof(upper), "%s/upper", top);
	snprintf(work, sizeof(work), "%s/work", top);
	snprintf(merged, sizeof(merged), "%s/merged", top);
	ASSERT_EQ(0, mkdir(top, 0755));
	ASSERT_EQ(0, mkdir(lower, 0755));
	ASSERT_EQ(0, mkdir(upper, 0755));
	ASSERT_EQ(0, mkdir(work, 0755));
	ASSERT_EQ(0, mkdir(merged, 0755));
	snprintf(file, sizeof(file), "%s/file", lower);
	fd = open(file, O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	close(fd);
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s,xino=off",
		 lower, upper, work);
	if (mount("overlay", merged, "overlay", 0, opts)) {
		int e = errno;

		unlink(file);
		rmdir(lower);
		ASSERT_EQ(ENODEV, e) TH_LOG("mount overlay: %s", strerror(e));
		SKIP(return, "overlay not mounted: this kernel has no overlayfs "
		     "(vm/variants/overlay.conf has)");
	}
	snprintf(file, sizeof(file), "%s/file", merged);
	ASSERT_EQ(0, stat(file, &st));
	ASSERT_EQ(0, trace_start(&t, events, &st));
	for (i = 0; i < NCALLS; i++)
		ASSERT_EQ(0, sys_statx(AT_FDCWD, file, 0, STATX_BASIC_STATS, &stx));
	text = trace_stop(&t);
	ASSERT_NE(NULL, text);
	snprintf(dev, sizeof(dev), "dev=%u:%u ", major(st.st_dev), minor(st.st_dev));
	snprintf(ino, sizeof(ino), "ino=%lu ", (unsigned long)st.st_ino);
	snprintf(result_name, sizeof(result_name), "%s:", copyout);
	{
		const char *exit_[] = { "vfs_getattr_exit:", dev, ino, "error=0", NULL };
		const char *result[] = { result_name, dev, ino, "error=0", NULL };

		EXPECT_EQ(NCALLS, count_lines(text, result)) TH_LOG("trace:\n%.2000s", text);
		EXPECT_EQ(NCALLS, count_lines(text, exit_)) TH_LOG("trace:\n%.2000s", text);
	}
	free(text);
	EXPECT_EQ(0, umount(merged));
	snprintf(file, sizeof(file), "%s/file", lower);
	unlink(file);
	rmdir(lower);
	rmdir(merged);
	rmdir(work);
	rmdir(upper);
	rmdir(top);
}

/*
 * Name lengths (patch 4).  A name of @len bytes (the NUL not counted) for
 * @file: its directory, then slashes, then "file", written at @buf.  The
 * lengths around both of getname()'s limits are tested on every kernel, as
 * the behaviour must not change: patch 4 keeps names of up to 159 bytes in
 * its 192-byte struct filename; stock 6.1 embeds names of up to 4063 bytes
 * in a PATH_MAX buffer; PATH_MAX - 1 is the longest name there is.
 */
static int pad_name(char *buf, size_t size, const char *dir, size_t len)
{
	size_t d = strlen(dir), f = strlen("/file");

	if (len < d + f || len >= size)
		return -1;
	memcpy(buf, dir, d);
	memset(buf + d, '/', len - d - f);
	memcpy(buf + len - f, "/file", f + 1);
	return 0;
}

static void expect_name_reaches(struct __test_metadata *_metadata,
				const char *name, const struct stat *want)
{
	size_t len = strlen(name);
	struct statx stx;
	struct stat st;
	int fd;

	ASSERT_EQ(0, sys_newfstatat(AT_FDCWD, name, &st, 0))
		TH_LOG("stat, name of %zu bytes: %s", len, strerror(errno));
	EXPECT_EQ(want->st_ino, st.st_ino);
	EXPECT_EQ(want->st_dev, st.st_dev);
	ASSERT_EQ(0, sys_statx(AT_FDCWD, name, 0, STATX_INO, &stx))
		TH_LOG("statx, name of %zu bytes: %s", len, strerror(errno));
	EXPECT_EQ(want->st_ino, stx.stx_ino);
	fd = open(name, O_RDONLY);
	ASSERT_LE(0, fd) TH_LOG("open, name of %zu bytes: %s", len, strerror(errno));
	ASSERT_EQ(0, fstat(fd, &st));
	EXPECT_EQ(want->st_ino, st.st_ino);
	close(fd);
}

static void expect_name_fails(struct __test_metadata *_metadata,
			      const char *name, int err)
{
	struct statx stx;
	struct stat st;

	errno = 0;
	EXPECT_EQ(-1, sys_newfstatat(AT_FDCWD, name, &st, 0));
	EXPECT_EQ(err, errno);
	errno = 0;
	EXPECT_EQ(-1, sys_statx(AT_FDCWD, name, 0, STATX_INO, &stx));
	EXPECT_EQ(err, errno);
	errno = 0;
	EXPECT_EQ(-1, open(name, O_RDONLY));
	EXPECT_EQ(err, errno);
}

TEST_F(fs, names_of_every_length_reach_the_file)
{
	static const size_t lens[] = { 158, 159, 160, 161, 191, 192, 1024,
				       4062, 4063, 4064, 4065, PATH_MAX - 1 };
	static char name[PATH_MAX + 2];
	struct stat want;
	unsigned int i;

	ASSERT_EQ(0, fstat(self->fd, &want));
	expect_name_reaches(_metadata, self->file, &want);
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		ASSERT_EQ(0, pad_name(name, sizeof(name), self->dir, lens[i]));
		ASSERT_EQ(lens[i], strlen(name));
		expect_name_reaches(_metadata, name, &want);
	}
}

TEST_F(fs, name_of_path_max_bytes_is_enametoolong)
{
	static char name[PATH_MAX + 512];

	ASSERT_EQ(0, pad_name(name, sizeof(name), self->dir, PATH_MAX));
	expect_name_fails(_metadata, name, ENAMETOOLONG);
	ASSERT_EQ(0, pad_name(name, sizeof(name), self->dir, PATH_MAX + 100));
	expect_name_fails(_metadata, name, ENAMETOOLONG);
}

/*
 * A name whose bytes run into an unmapped page, at either side of the
 * small object's end and in the long copy: -EFAULT, as on stock.  The same
 * name with its NUL as the mapping's last byte works.
 */
TEST_F(fs, name_running_into_unmapped_page_is_efault)
{
	static const size_t lens[] = { 100, 159, 160, 161, 300, 2000 };
	long page = sysconf(_SC_PAGESIZE);
	struct stat want;
	unsigned int i;
	char *map;

	ASSERT_EQ(0, fstat(self->fd, &want));
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, mprotect(map + page, page, PROT_NONE));
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		char *name = map + page - lens[i];

		/* lens[i] bytes, no NUL before the unmapped page. */
		memset(name, '/', lens[i]);
		expect_name_fails(_metadata, name, EFAULT);
		/* The same bytes, the last one a NUL: a name of lens[i] - 1. */
		if (lens[i] - 1 < strlen(self->file))
			continue;
		ASSERT_EQ(0, pad_name(name, lens[i] + 1, self->dir, lens[i] - 1));
		expect_name_reaches(_metadata, name, &want);
	}
	munmap(map, 2 * page);
}

TEST_HARNESS_MAIN
