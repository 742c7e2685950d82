// SPDX-License-Identifier: GPL-2.0
/*
 * probe_count.c - count hits of one probe on the getattr path with the
 * same eight-instruction BPF program whatever the probe kind, so that the
 * probe-overhead study compares attach points and not code generators.
 *
 * Usage: probe-count KIND TARGET [COMMAND...]
 *   KIND: tracepoint (TARGET: group:event), raw_tp (TARGET: event),
 *         kprobe, kretprobe, fentry, fexit (TARGET: a kernel function;
 *         fentry/fexit need BTF: /sys/kernel/btf/vmlinux)
 * Prints "attached KIND TARGET" once the probe is live, then runs COMMAND
 * and waits for it, or without one waits for SIGINT or SIGTERM, and
 * prints "hits N".
 *
 * The program is what bpftrace's `@n = count()` boils down to: look up
 * slot 0 of a one-slot per-CPU array and add one.  Written as bytecode
 * here (no compiler in the guest); the bpf() system call loads and
 * attaches it, without libbpf.
 *
 * Does not see: anything but the number of hits.  Overhead: one map
 * lookup and one add per hit, plus the attach point's own cost, which is
 * what the study measures.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "probe-count: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

static int read_int(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);

	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) <= 0)
		die(path);
	close(fd);
	return atoi(buf);
}

/* The BTF id of kernel function NAME in /sys/kernel/btf/vmlinux. */
static int btf_func_id(const char *name)
{
	static const int extra[] = {
		[BTF_KIND_INT] = 4, [BTF_KIND_ARRAY] = sizeof(struct btf_array),
		[BTF_KIND_VAR] = 4, [BTF_KIND_DECL_TAG] = 4,
	};
	static const int per_member[] = {
		[BTF_KIND_STRUCT] = 12, [BTF_KIND_UNION] = 12, [BTF_KIND_ENUM] = 8,
		[BTF_KIND_FUNC_PROTO] = 8, [BTF_KIND_DATASEC] = 12, [BTF_KIND_ENUM64] = 12,
	};
	struct btf_header *h;
	struct stat st;
	char *data, *types, *strs;
	uint32_t off;
	int fd, id = 1;

	fd = open("/sys/kernel/btf/vmlinux", O_RDONLY);
	if (fd < 0)
		die("/sys/kernel/btf/vmlinux (a kernel without BTF)");
	/* sysfs gives no size: read until the end. */
	data = NULL;
	st.st_size = 0;
	for (;;) {
		ssize_t n;

		data = realloc(data, st.st_size + (1 << 20));
		if (!data)
			die("realloc");
		n = read(fd, data + st.st_size, 1 << 20);
		if (n < 0)
			die("read BTF");
		if (n == 0)
			break;
		st.st_size += n;
	}
	close(fd);
	h = (struct btf_header *)data;
	if (h->magic != BTF_MAGIC)
		die("BTF magic");
	types = data + h->hdr_len + h->type_off;
	strs = data + h->hdr_len + h->str_off;
	for (off = 0; off < h->type_len; id++) {
		struct btf_type *t = (struct btf_type *)(types + off);
		int kind = BTF_INFO_KIND(t->info), vlen = BTF_INFO_VLEN(t->info);

		if (kind == BTF_KIND_FUNC && !strcmp(strs + t->name_off, name)) {
			free(data);
			return id;
		}
		off += sizeof(*t);
		if (kind < (int)(sizeof(extra) / sizeof(extra[0])))
			off += extra[kind];
		if (kind < (int)(sizeof(per_member) / sizeof(per_member[0])))
			off += vlen * per_member[kind];
	}
	errno = ENOENT;
	die(name);
	return -1;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct bpf_insn prog[] = {
		/* u32 key = 0 on the stack; r2 = &key */
		{ .code = BPF_ST | BPF_MEM | BPF_W, .dst_reg = BPF_REG_10, .off = -4, .imm = 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_2, .src_reg = BPF_REG_10 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_2, .imm = -4 },
		/* r1 = the map (a 16-byte load, map fd patched in below) */
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = BPF_REG_1,
		  .src_reg = BPF_PSEUDO_MAP_FD },
		{ 0 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_map_lookup_elem },
		/* if (value) *value += 1 */
		{ .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = BPF_REG_0, .off = 2, .imm = 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 1 },
		{ .code = BPF_STX | BPF_ATOMIC | BPF_DW, .dst_reg = BPF_REG_0,
		  .src_reg = BPF_REG_1, .imm = BPF_ADD },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	static char log[65536];
	union bpf_attr a;
	const char *kind, *target;
	int map, pfd, fd = -1, ncpu, i;
	uint32_t key = 0;
	uint64_t *vals, hits = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: probe-count tracepoint|raw_tp|kprobe|kretprobe|fentry|fexit TARGET [COMMAND...]\n");
		return 2;
	}
	kind = argv[1];
	target = argv[2];

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_PERCPU_ARRAY;
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = 1;
	map = sys_bpf(BPF_MAP_CREATE, &a);
	if (map < 0)
		die("BPF_MAP_CREATE");
	prog[3].imm = map;

	memset(&a, 0, sizeof(a));
	a.insns = (uintptr_t)prog;
	a.insn_cnt = sizeof(prog) / sizeof(prog[0]);
	a.license = (uintptr_t)"GPL";
	a.log_buf = (uintptr_t)log;
	a.log_size = sizeof(log);
	a.log_level = 1;
	if (!strcmp(kind, "tracepoint"))
		a.prog_type = BPF_PROG_TYPE_TRACEPOINT;
	else if (!strcmp(kind, "raw_tp"))
		a.prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT;
	else if (!strcmp(kind, "kprobe") || !strcmp(kind, "kretprobe"))
		a.prog_type = BPF_PROG_TYPE_KPROBE;
	else if (!strcmp(kind, "fentry") || !strcmp(kind, "fexit")) {
		a.prog_type = BPF_PROG_TYPE_TRACING;
		a.expected_attach_type = kind[1] == 'e' ? BPF_TRACE_FENTRY : BPF_TRACE_FEXIT;
		a.attach_btf_id = btf_func_id(target);
	} else {
		fprintf(stderr, "probe-count: unknown kind %s\n", kind);
		return 2;
	}
	pfd = sys_bpf(BPF_PROG_LOAD, &a);
	if (pfd < 0) {
		fprintf(stderr, "%s", log);
		die("BPF_PROG_LOAD");
	}

	if (a.prog_type == BPF_PROG_TYPE_RAW_TRACEPOINT ||
	    a.prog_type == BPF_PROG_TYPE_TRACING) {
		memset(&a, 0, sizeof(a));
		a.raw_tracepoint.prog_fd = pfd;
		if (!strcmp(kind, "raw_tp"))
			a.raw_tracepoint.name = (uintptr_t)target;
		fd = sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &a);
		if (fd < 0)
			die("BPF_RAW_TRACEPOINT_OPEN");
	} else {
		struct perf_event_attr pe;
		char path[512];

		memset(&pe, 0, sizeof(pe));
		pe.size = sizeof(pe);
		pe.sample_period = 1;
		pe.wakeup_events = 1;
		if (!strcmp(kind, "tracepoint")) {
			char *colon = strchr(target, ':');

			if (!colon) {
				fprintf(stderr, "probe-count: tracepoint wants group:event\n");
				return 2;
			}
			*colon = '/';
			snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s/id", target);
			*colon = ':';
			pe.type = PERF_TYPE_TRACEPOINT;
			pe.config = read_int(path);
		} else {
			pe.type = read_int("/sys/bus/event_source/devices/kprobe/type");
			pe.config1 = (uintptr_t)target;	/* kprobe_func */
			if (!strcmp(kind, "kretprobe"))
				pe.config = 1;	/* format/retprobe: config:0 */
		}
		fd = syscall(SYS_perf_event_open, &pe, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			die("perf_event_open");
		if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, pfd) || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
			die("PERF_EVENT_IOC_SET_BPF");
	}

	printf("attached %s %s\n", kind, target);
	fflush(stdout);
	if (argc > 3) {
		/* A workload of our own: no poller's processes in the count. */
		int status;
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0) {
			execvp(argv[3], argv + 3);
			die(argv[3]);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			errno = ECHILD;
			die("the workload failed");
		}
	} else {
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		while (!stop)
			pause();
	}

	ncpu = sysconf(_SC_NPROCESSORS_CONF);
	vals = calloc(ncpu, sizeof(*vals));
	memset(&a, 0, sizeof(a));
	a.map_fd = map;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)vals;
	if (!vals || sys_bpf(BPF_MAP_LOOKUP_ELEM, &a))
		die("BPF_MAP_LOOKUP_ELEM");
	for (i = 0; i < ncpu; i++)
		hits += vals[i];
	printf("hits %llu\n", (unsigned long long)hits);
	close(fd);
	return 0;
}
