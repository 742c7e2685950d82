// SPDX-License-Identifier: GPL-2.0
/*
 * hangwatch - run a kselftest_harness binary, pass its TAP through, and
 * say where a slow test is waiting and what its clock did meanwhile.
 *
 * Usage (in the guest): hangwatch [-o DIR] [-a SECS] [-e SECS] [-n] -- CMD [ARG...]
 *   -o DIR    where the stacks and the per-test table go (default /tmp/hangwatch)
 *   -a SECS   take stacks once a test has run this long (default 20: the
 *             harness kills a test at 30)
 *   -e SECS   and again every SECS after that (default 2); each snapshot
 *             replaces the one before, so the file holds the last one
 *             before the test ended
 *   -n        no sysrq-w, no kernel-log marker, no debugfs: user space
 *             only, for a dry run of the parsing outside the guest
 *
 * Each test ("#  RUN" to "ok"/"not ok") gets a row in DIR/tests.tsv:
 * guest seconds, of them CPU busy and idle (/proc/stat), and host seconds
 * (the CMOS RTC, which QEMU drives from the host's wall clock; 1-s
 * resolution).  Busy and idle add up all CPUs (the guest has one).  A test that ran past -a gets DIR/NAME.txt: for every
 * process under CMD (the harness, the test, what the test ran) each
 * thread's state, wchan and kernel stack, the RPC tasks in flight
 * (sunrpc's debugfs: an NFS call waiting on knfsd), then the kernel log
 * of a sysrq-w (tasks in uninterruptible sleep, kernel threads included).
 * When the harness says a test was "terminated by timeout", the last
 * snapshot is printed into the TAP stream as "# hangwatch:" lines.
 *
 * Exit status: CMD's.  Needs root (stacks, sysrq, the kernel log).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_PIDS 4096
#define LINE_MAX_LEN 8192
#define KLOG_LEN (1 << 20)

struct clocks {
	double guest;		/* CLOCK_MONOTONIC, seconds */
	double busy, idle;	/* /proc/stat, all CPUs, seconds */
	long host;		/* RTC seconds since the epoch, -1 unknown */
};

struct test {
	char name[256];
	struct clocks start;
	double last_snap;	/* guest time of the last snapshot, 0: none */
	int timed_out;
};

static const char *outdir = "/tmp/hangwatch";
static double snap_after = 20, snap_every = 2;
static pid_t root_pid;
static int user_only;
static FILE *table;

static void die(const char *what)
{
	fprintf(stderr, "hangwatch: %s: %s\n", what, strerror(errno));
	exit(125);
}

static double now_guest(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return (int)n;
}

static void read_clocks(struct clocks *c)
{
	unsigned long long v[8] = { 0 };
	long hz = sysconf(_SC_CLK_TCK);
	char buf[512];

	c->guest = now_guest();
	c->busy = c->idle = 0;
	/* cpu user nice system idle iowait irq softirq steal */
	if (read_file("/proc/stat", buf, sizeof(buf)) > 0 &&
	    sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
		c->busy = (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / hz;
		c->idle = (double)(v[3] + v[4]) / hz;
	}
	c->host = -1;
	if (read_file("/sys/class/rtc/rtc0/since_epoch", buf, sizeof(buf)) > 0)
		c->host = atol(buf);
}

/* "guest 30.01 s: busy 0.52 s, idle 29.49 s; host 1 s" */
static void describe(char *out, size_t len, const struct clocks *a,
		     const struct clocks *b)
{
	char host[32] = "unknown";

	if (a->host >= 0 && b->host >= 0)
		snprintf(host, sizeof(host), "%ld s", b->host - a->host);
	snprintf(out, len, "guest %.2f s: CPU busy %.2f s, idle %.2f s; host %s",
		 b->guest - a->guest, b->busy - a->busy, b->idle - a->idle, host);
}

/* The parent of PID, from /proc/PID/stat (after the command's ")"). */
static pid_t parent_of(pid_t pid)
{
	char path[64], buf[1024], *p;
	int ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return -1;
	return ppid;
}

/* Every process descended from root_pid, root_pid first. */
static int descendants(pid_t *pids, int max)
{
	static pid_t all[MAX_PIDS], par[MAX_PIDS];
	int n = 0, found = 1, i, j, k;
	struct dirent *d;
	DIR *dir;

	dir = opendir("/proc");
	if (!dir)
		return 0;
	while ((d = readdir(dir)) && n < MAX_PIDS) {
		pid_t pid = atoi(d->d_name);

		if (pid <= 0)
			continue;
		all[n] = pid;
		par[n++] = parent_of(pid);
	}
	closedir(dir);
	k = 0;
	pids[k++] = root_pid;
	while (found && k < max) {
		found = 0;
		for (i = 0; i < n && k < max; i++) {
			int known = 0, child = 0;

			for (j = 0; j < k; j++) {
				known |= all[i] == pids[j];
				child |= par[i] == pids[j];
			}
			if (child && !known) {
				pids[k++] = all[i];
				found = 1;
			}
		}
	}
	return k;
}

static void dump_file(FILE *out, const char *label, const char *path)
{
	char buf[4096];

	if (read_file(path, buf, sizeof(buf)) < 0)
		snprintf(buf, sizeof(buf), "(unreadable: %s)\n", strerror(errno));
	fprintf(out, "  %s:%s%s", label, strchr(buf, '\n') ? "\n" : " ", buf);
	if (!strchr(buf, '\n'))
		fputc('\n', out);
}

static void dump_process(FILE *out, pid_t pid)
{
	char path[128], comm[64] = "?", stat[1024];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	read_file(path, comm, sizeof(comm));
	comm[strcspn(comm, "\n")] = '\0';
	fprintf(out, "process %d (%s)%s\n", pid, comm,
		pid == root_pid ? ", the harness" : "");
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		char *p;
		int tid = atoi(d->d_name);

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
		if (read_file(path, stat, sizeof(stat)) <= 0)
			continue;
		p = strrchr(stat, ')');
		fprintf(out, " thread %d: state %c\n", tid, p ? p[2] : '?');
		snprintf(path, sizeof(path), "/proc/%d/task/%d/wchan", pid, tid);
		dump_file(out, "wchan", path);
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stack", pid, tid);
		dump_file(out, "stack", path);
	}
	closedir(dir);
}

/*
 * The RPC tasks in flight, from sunrpc's debugfs (one tasks file per RPC
 * client): an NFS call waiting on the guest's own knfsd shows here.
 */
static void dump_rpc_tasks(FILE *out)
{
	static const char dir_path[] = "/sys/kernel/debug/sunrpc/rpc_clnt";
	char path[320], buf[4096];
	struct dirent *d;
	int any = 0;
	DIR *dir = opendir(dir_path);

	if (!dir) {
		fprintf(out, "sunrpc: %s unreadable: %s\n", dir_path, strerror(errno));
		return;
	}
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/tasks", dir_path, d->d_name);
		if (read_file(path, buf, sizeof(buf)) > 0) {
			fprintf(out, "sunrpc client %s, tasks in flight:\n%s", d->d_name, buf);
			any = 1;
		}
	}
	closedir(dir);
	if (!any)
		fprintf(out, "sunrpc: no RPC task in flight\n");
}

/* The kernel log from the line holding MARKER on. */
static void dump_klog_since(FILE *out, const char *marker)
{
	static char buf[KLOG_LEN];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, sizeof(buf) - 1);
	char *p;

	if (n < 0) {
		fprintf(out, "kernel log unreadable: %s\n", strerror(errno));
		return;
	}
	buf[n] = '\0';
	p = strstr(buf, marker);
	if (!p) {
		fprintf(out, "kernel log: marker not found\n");
		return;
	}
	fprintf(out, "kernel log after sysrq-w (uninterruptible tasks):\n%s", p);
}

static void write_kmsg(const char *msg)
{
	int fd = open("/dev/kmsg", O_WRONLY);

	if (fd >= 0) {
		if (write(fd, msg, strlen(msg)) < 0)
			perror("hangwatch: /dev/kmsg");
		close(fd);
	}
}

static void snapshot_path(char *path, size_t len, const struct test *t)
{
	snprintf(path, len, "%s/%s.txt", outdir, t->name);
}

static void snapshot(struct test *t)
{
	static pid_t pids[256];
	char path[512], tmp[520], line[600], marker[400];
	struct clocks now;
	FILE *out;
	int i, n;

	read_clocks(&now);
	/* The harness alone: the test is gone; keep the snapshot before. */
	n = descendants(pids, sizeof(pids) / sizeof(pids[0]));
	if (n < 2)
		return;
	snapshot_path(path, sizeof(path), t);
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	out = fopen(tmp, "w");
	if (!out)
		die(tmp);
	describe(line, sizeof(line), &t->start, &now);
	fprintf(out, "test %s, running for %s\n\n", t->name, line);
	for (i = 0; i < n; i++)
		dump_process(out, pids[i]);
	snprintf(marker, sizeof(marker), "hangwatch: %s at %.2f s\n", t->name,
		 now.guest - t->start.guest);
	if (user_only) {
		fclose(out);
		goto done;
	}
	dump_rpc_tasks(out);
	write_kmsg(marker);
	i = open("/proc/sysrq-trigger", O_WRONLY);
	if (i >= 0) {
		if (write(i, "w", 1) != 1)
			fprintf(out, "sysrq-w failed: %s\n", strerror(errno));
		close(i);
	}
	dump_klog_since(out, marker);
	fclose(out);
done:
	if (rename(tmp, path))
		die(path);
	t->last_snap = now.guest;
}

/* Print the test's last snapshot into the TAP stream as comments. */
static void print_snapshot(const struct test *t)
{
	char path[512], line[LINE_MAX_LEN];
	FILE *in;

	snapshot_path(path, sizeof(path), t);
	in = fopen(path, "r");
	if (!in) {
		printf("# hangwatch: %s: no snapshot was taken (%s)\n", t->name,
		       path);
		return;
	}
	while (fgets(line, sizeof(line), in))
		printf("# hangwatch: %s", line);
	fclose(in);
}

static void test_ended(struct test *t, const char *status)
{
	struct clocks now;
	char line[600];

	read_clocks(&now);
	describe(line, sizeof(line), &t->start, &now);
	fprintf(table, "%s\t%s\t%.3f\t%.2f\t%.2f\t%ld\n", t->name, status,
		now.guest - t->start.guest, now.busy - t->start.busy,
		now.idle - t->start.idle,
		(now.host >= 0 && t->start.host >= 0) ?
			now.host - t->start.host : -1L);
	fflush(table);
	if (t->timed_out) {
		printf("# hangwatch: %s timed out; %s\n", t->name, line);
		print_snapshot(t);
	} else if (t->last_snap) {
		printf("# hangwatch: %s ran long (%s); stacks in %s/%s.txt\n",
		       t->name, line, outdir, t->name);
	}
	t->name[0] = '\0';
	t->last_snap = 0;
	t->timed_out = 0;
}

/* One line of the harness's output. */
static void line_seen(struct test *t, const char *line)
{
	char name[256];

	if (sscanf(line, "# RUN %255s ...", name) == 1 ||
	    sscanf(line, "#  RUN %255s ...", name) == 1) {
		snprintf(t->name, sizeof(t->name), "%s", name);
		read_clocks(&t->start);
		t->last_snap = 0;
		t->timed_out = 0;
		return;
	}
	if (!t->name[0])
		return;
	if (strstr(line, "Test terminated by timeout"))
		t->timed_out = 1;
	else if (!strncmp(line, "ok ", 3))
		test_ended(t, strstr(line, "# SKIP") ? "skip" : "pass");
	else if (!strncmp(line, "not ok ", 7))
		test_ended(t, "fail");
}

static void usage(void)
{
	fprintf(stderr,
		"usage: hangwatch [-o DIR] [-a SECS] [-e SECS] [-n] -- CMD [ARG...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static char buf[LINE_MAX_LEN];
	struct test t = { .name = "" };
	char path[512];
	size_t have = 0;
	int opt, pfd[2], status;

	while ((opt = getopt(argc, argv, "o:a:e:n")) != -1) {
		switch (opt) {
		case 'o': outdir = optarg; break;
		case 'a': snap_after = atof(optarg); break;
		case 'e': snap_every = atof(optarg); break;
		case 'n': user_only = 1; break;
		default: usage();
		}
	}
	if (optind >= argc)
		usage();
	if (mkdir(outdir, 0755) && errno != EEXIST)
		die(outdir);
	snprintf(path, sizeof(path), "%s/tests.tsv", outdir);
	table = fopen(path, "w");
	if (!table)
		die(path);
	fprintf(table, "test\tstatus\tguest_s\tbusy_s\tidle_s\thost_s\n");
	if (pipe(pfd))
		die("pipe");
	root_pid = fork();
	if (root_pid < 0)
		die("fork");
	if (root_pid == 0) {
		dup2(pfd[1], STDOUT_FILENO);
		dup2(pfd[1], STDERR_FILENO);
		close(pfd[0]);
		close(pfd[1]);
		execvp(argv[optind], argv + optind);
		perror(argv[optind]);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		ssize_t n;
		char *nl;

		if (poll(&p, 1, 1000) < 0 && errno != EINTR)
			die("poll");
		/* What the harness said first: the test may have ended. */
		if (!(p.revents & (POLLIN | POLLHUP))) {
			if (t.name[0] && now_guest() - t.start.guest >= snap_after &&
			    (!t.last_snap || now_guest() - t.last_snap >= snap_every))
				snapshot(&t);
			continue;
		}
		n = read(pfd[0], buf + have, sizeof(buf) - 1 - have);
		if (n < 0 && errno != EINTR)
			die("read");
		if (n <= 0 && have == 0)
			break;
		have += n > 0 ? n : 0;
		buf[have] = '\0';
		/* Whole lines; a line longer than the buffer goes out as is. */
		while ((nl = strchr(buf, '\n')) || have == sizeof(buf) - 1 ||
		       (n == 0 && have)) {
			size_t len = nl ? (size_t)(nl - buf) + 1 : have;

			fwrite(buf, 1, len, stdout);
			buf[len - 1] = '\0';
			line_seen(&t, buf);
			fflush(stdout);
			memmove(buf, buf + len, have - len);
			have -= len;
			buf[have] = '\0';
		}
	}
	if (waitpid(root_pid, &status, 0) < 0)
		die("waitpid");
	fclose(table);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}
