/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness.h - what a benchmark case is.
 *
 * A case is a name, a prepare, a body and a cleanup.  The body makes one
 * call and touches no clock; the harness (harness.c) owns pinning,
 * warm-up, iteration sizing, repetition, clocks and the loop overhead it
 * subtracts.  Cases are rows of a table (cases.c), like will-it-scale's
 * tests but declared as data.
 */
#ifndef STATX_BENCH_HARNESS_H
#define STATX_BENCH_HARNESS_H

#include <stdint.h>
#include <sys/stat.h>

/* What a case's body works on, set up by its prepare. */
struct bench_ctx {
	int dfd;		/* directory or file descriptor the call uses */
	const char *path;	/* name passed to the call (may be NULL) */
	char *namebuf;		/* path, when prepare allocated it */
	int flags;		/* AT_* flags */
	unsigned int mask;	/* statx mask */
	int fd;			/* descriptor of the file, for fstat */
	int opath_fd;		/* O_PATH descriptor of the file */
	long off;		/* T_DIRTY: where the next write goes */
	int cwd;		/* the directory the body runs in (below) */
	long param;		/* a study's parameter: depth or files */
	char **names;		/* T_DIR, T_FILES: the files' names, f0 .. f<param-1> */
	unsigned long nnames;
	struct stat st;
	struct statx stx;
};

enum bench_target {
	T_NONE,			/* no file: getppid, calibration */
	T_PATH,			/* the file by relative path */
	T_SYMLINK,		/* a symlink to the file, by path */
	T_FD,			/* the file by an open descriptor */
	T_OPATH,		/* the file by an O_PATH descriptor */
	T_FD_NULL,		/* the descriptor, NULL name */
	T_DIRTY,		/* a file being written: fd open for writing, path */
	T_DEPTH,		/* study: DIR/depth/d/.../f, param components */
	T_DIR,			/* study: in DIR/dir.N, beside files/ (N = param files) */
	T_FILES,		/* study: in DIR/dir.N/files, its files by name */
};

/* What changes behind the client's back before a stale case (below). */
enum { STALE_NONE, STALE_PEER, STALE_NEWLINK };

struct bench_case {
	const char *name;	/* unique, as it appears in results */
	const char *call;	/* the system call or wrapper it measures */
	const char *kind;	/* raw, wrapper, floor or calibration */
	long (*body)(struct bench_ctx *c);
	enum bench_target target;
	int flags;
	unsigned int mask;
	int quick;		/* part of QUICK=1 runs */
	int namelen;		/* T_PATH: the name padded to this length */
	const char *tags;	/* what the analysis selects it by (cases.c) */
	/*
	 * A study: one instance per parameter (name is a printf pattern
	 * with %ld), run only when --tags or --cases asks for it.
	 */
	const long *params;
	unsigned int nparams;
	int cold;		/* sync and drop the caches before each sample */
	int per_entry;		/* T_DIR, T_FILES: a sample is divided by the files */
	unsigned int min_iters;	/* calls per sample at least (a slow call's
				 * waits spread over many, not one) */
	/*
	 * The body's own bookkeeping without its calls (a pass's loop over
	 * the names), measured beside each sample and subtracted; NULL: the
	 * harness's empty loop is subtracted, as for every other case.
	 */
	long (*base)(struct bench_ctx *c);
	/*
	 * Before each sample (and its warm-up), the file changes behind this
	 * client's back: a sample is the one call that meets the change.
	 * STALE_PEER: --stale-cmd changes the file; STALE_NEWLINK: with
	 * --stale-symlink the harness makes the symlink anew, so that the
	 * call meets one this client holds no callback promise on (no other
	 * client can change a symlink on kafs).  Run only when asked for.
	 */
	int stale;
};

extern const struct bench_case bench_cases[];
extern const unsigned int bench_ncases;

/* One result line as the harness computed it. */
struct bench_result {
	const struct bench_case *bc;
	char name[96];		/* bc->name, a study's parameter filled in */
	long param;
	long ret;		/* the body's return value when checked */
	int err;		/* errno when ret < 0 */
	uint64_t iters;		/* calls per sample */
	unsigned int nsamples;
	double *samples;	/* ns per call, loop overhead subtracted */
	int ci_met;		/* time mode: 95% interval within the target */
	double nfs_ops[8];	/* NFS operations (and WRITE bytes) per call */
	double afs_ops[8];	/* kafs's file-server calls (and callbacks) per call */
	size_t name_len;	/* the name the call passes, NUL not counted */
	double *cpu;		/* a study's CPU time per call (see harness.c) */
	double *busy;		/* --busy: busy time per call (see harness.c) */
	long dentries_before;	/* a study's dcache size around its last sample */
	long dentries_after;
};

/* Does @bc carry @tag (one word of its tags)? */
int case_has_tag(const struct bench_case *bc, const char *tag);
/* T_DIRTY: write and sync every page the case's writes go round. */
int dirty_fill(struct bench_ctx *c);

/* The statx mask names as the series' tracepoints print them. */
void statx_mask_name(unsigned int mask, char *buf, unsigned long len);

#endif
