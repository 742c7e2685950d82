/* SPDX-License-Identifier: GPL-2.0 */
/*
 * statx_expect.h - field-by-field comparisons the guest suites share
 * (statx_series_test.c, statx_conformance_test.c): a failed EXPECT names
 * the field, where a memcmp() would only say "different".  Include after
 * kselftest_harness.h.
 */
#ifndef STATX_EXPECT_H
#define STATX_EXPECT_H

#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/* Two statx results of one file: every field, then every byte. */
static inline void expect_same_statx(struct __test_metadata *_metadata,
				     const struct statx *a, const struct statx *b)
{
	EXPECT_EQ(a->stx_mask, b->stx_mask);
	EXPECT_EQ(a->stx_blksize, b->stx_blksize);
	EXPECT_EQ(a->stx_attributes, b->stx_attributes);
	EXPECT_EQ(a->stx_nlink, b->stx_nlink);
	EXPECT_EQ(a->stx_uid, b->stx_uid);
	EXPECT_EQ(a->stx_gid, b->stx_gid);
	EXPECT_EQ(a->stx_mode, b->stx_mode);
	EXPECT_EQ(a->stx_ino, b->stx_ino);
	EXPECT_EQ(a->stx_size, b->stx_size);
	EXPECT_EQ(a->stx_blocks, b->stx_blocks);
	EXPECT_EQ(a->stx_attributes_mask, b->stx_attributes_mask);
	EXPECT_EQ(a->stx_atime.tv_sec, b->stx_atime.tv_sec);
	EXPECT_EQ(a->stx_atime.tv_nsec, b->stx_atime.tv_nsec);
	EXPECT_EQ(a->stx_btime.tv_sec, b->stx_btime.tv_sec);
	EXPECT_EQ(a->stx_btime.tv_nsec, b->stx_btime.tv_nsec);
	EXPECT_EQ(a->stx_ctime.tv_sec, b->stx_ctime.tv_sec);
	EXPECT_EQ(a->stx_ctime.tv_nsec, b->stx_ctime.tv_nsec);
	EXPECT_EQ(a->stx_mtime.tv_sec, b->stx_mtime.tv_sec);
	EXPECT_EQ(a->stx_mtime.tv_nsec, b->stx_mtime.tv_nsec);
	EXPECT_EQ(a->stx_rdev_major, b->stx_rdev_major);
	EXPECT_EQ(a->stx_rdev_minor, b->stx_rdev_minor);
	EXPECT_EQ(a->stx_dev_major, b->stx_dev_major);
	EXPECT_EQ(a->stx_dev_minor, b->stx_dev_minor);
	EXPECT_EQ(a->stx_mnt_id, b->stx_mnt_id);
	EXPECT_EQ(0, memcmp(a, b, sizeof(*a)));
}

/* statx against fstatat of one file: the basic stats, field by field. */
/*
 * As expect_statx_matches_stat(), for a file system that fills the
 * fields in @unkept for stat() but keeps no such data and so does not
 * claim them in stx_mask (AFS with patches/afs: atime, ctime, blocks).
 */
static inline void expect_statx_matches_stat_unkept(struct __test_metadata *_metadata,
						    const struct statx *x,
						    const struct stat *st,
						    unsigned int unkept)
{
	EXPECT_EQ(STATX_BASIC_STATS & ~unkept, x->stx_mask & STATX_BASIC_STATS);
	EXPECT_EQ(st->st_mode, x->stx_mode);
	EXPECT_EQ(st->st_ino, x->stx_ino);
	EXPECT_EQ(st->st_nlink, x->stx_nlink);
	EXPECT_EQ(st->st_uid, x->stx_uid);
	EXPECT_EQ(st->st_gid, x->stx_gid);
	EXPECT_EQ(st->st_size, (off_t)x->stx_size);
	EXPECT_EQ(st->st_blocks, (blkcnt_t)x->stx_blocks);
	EXPECT_EQ(st->st_blksize, (blksize_t)x->stx_blksize);
	EXPECT_EQ(major(st->st_dev), x->stx_dev_major);
	EXPECT_EQ(minor(st->st_dev), x->stx_dev_minor);
	EXPECT_EQ(major(st->st_rdev), x->stx_rdev_major);
	EXPECT_EQ(minor(st->st_rdev), x->stx_rdev_minor);
	EXPECT_EQ(st->st_atim.tv_sec, x->stx_atime.tv_sec);
	EXPECT_EQ(st->st_atim.tv_nsec, x->stx_atime.tv_nsec);
	EXPECT_EQ(st->st_mtim.tv_sec, x->stx_mtime.tv_sec);
	EXPECT_EQ(st->st_mtim.tv_nsec, x->stx_mtime.tv_nsec);
	EXPECT_EQ(st->st_ctim.tv_sec, x->stx_ctime.tv_sec);
	EXPECT_EQ(st->st_ctim.tv_nsec, x->stx_ctime.tv_nsec);
}

static inline void expect_statx_matches_stat(struct __test_metadata *_metadata,
					     const struct statx *x, const struct stat *st)
{
	expect_statx_matches_stat_unkept(_metadata, x, st, 0);
}

#endif
