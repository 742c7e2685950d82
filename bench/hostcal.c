// SPDX-License-Identifier: GPL-2.0
/*
 * hostcal.c - what the sequences cost mode weighs wrongly cost on this
 * machine's own CPU, in user space: REP string instructions at the sizes
 * the kernel uses, fences, a locked read-modify-write, call/ret, and the
 * shapes Debian's speculation mitigations give a kernel's returns and
 * indirect calls on some cores (a return thunk, a return through a call
 * whose stack slot is dropped, a retpoline), against a plain
 * two-instruction loop.
 *
 * Usage: hostcal [--samples N] [--json FILE | --out-dir DIR]
 *   --out-dir writes DIR/<vendor>-f<family>-m<model>.json (one file per
 *   CPU model, so that calibrations of several machines sit side by side).
 *
 * Runs on the host, natively, nothing loaded into the kernel.  There is
 * no PMU here, so no cycle counter: each sequence is timed with
 * CLOCK_MONOTONIC over a batch and given three ways, ns per operation,
 * TSC ticks per operation, and plain-loop iterations per operation (the
 * loop "dec; jnz" runs one iteration a cycle on current cores, so the
 * last is close to cycles, whatever the clock frequency).  Cost mode
 * (QEMU -icount) counts a REP instruction's every iteration and a fence
 * as one instruction; set beside these, the two say how far an
 * instruction count is from time for each class.
 *
 * Prints one line per sequence: "hostcal i/N name ... value".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include "util.h"

#define BATCH	2000		/* operations per timed batch */
#define LOOP_N	1000		/* iterations of the plain loop per operation */

static char dst[4096] __attribute__((aligned(64)));
static char src[4096] __attribute__((aligned(64)));
static long word __attribute__((aligned(64)));

struct seq {
	const char *name;	/* as in the JSON */
	const char *what;	/* the instructions one operation runs */
	unsigned long size;	/* bytes, for REP string instructions */
	void (*op)(unsigned long size);
	unsigned long icount;	/* what cost mode counts for one operation */
};

static void op_loop(unsigned long n)
{
	unsigned long i = LOOP_N;

	(void)n;
	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(i));
}

static void op_stosb(unsigned long n)
{
	void *d = dst;

	__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(0) : "memory");
}

static void op_movsb(unsigned long n)
{
	void *d = dst;
	const void *s = src;

	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

static void op_lfence(unsigned long n)
{
	(void)n;
	__asm__ volatile("lfence" : : : "memory");
}

static void op_mfence(unsigned long n)
{
	(void)n;
	__asm__ volatile("mfence" : : : "memory");
}

static void op_lock_add(unsigned long n)
{
	(void)n;
	__asm__ volatile("lock addq $1, %0" : "+m"(word));
}

static void __attribute__((noinline)) leaf(void)
{
	__asm__ volatile("" : : : "memory");
}

/* Ten calls and returns of an empty function. */
static void op_calls(unsigned long n)
{
	int i;

	(void)n;
	for (i = 0; i < 10; i++)
		leaf();
}

static void op_empty(unsigned long n)
{
	(void)n;
	__asm__ volatile("" : : : "memory");
}

/*
 * The mitigation shapes, as functions of their own (a call from inline
 * asm would write below the stack pointer, into the red zone).  Each
 * hc_*_x10 makes ten calls of an empty function and returns:
 *   plain     call; ret
 *   thunk     the callee's ret is "jmp" to a shared "ret" (a return thunk)
 *   dropret   the callee's ret is "jmp" to a stub that calls a second
 *             stub, which drops its own return address and returns to the
 *             first caller: the return stack predicts the dropped address
 *             (the shape of a safe-RET return thunk)
 *   indirect  call *%rax
 *   retpoline call to a stub that calls past a pause/lfence loop,
 *             overwrites its return address with %rax and returns: the
 *             return stack predicts the loop, the ret goes to %rax
 * Written from the descriptions in the kernel's
 * Documentation/admin-guide/hw-vuln/ and the instruction shapes; the
 * kernel's own thunks are not copied.
 */
void hc_plain_x10(void);
void hc_thunk_x10(void);
void hc_dropret_x10(void);
void hc_indirect_x10(void);
void hc_retpoline_x10(void);

#define TEN(x) x "\n\t" x "\n\t" x "\n\t" x "\n\t" x "\n\t" \
	       x "\n\t" x "\n\t" x "\n\t" x "\n\t" x "\n\t"
__asm__(".text\n"
	".p2align 6\n"
	"hc_leaf:\n\tret\n\tint3\n"
	".p2align 6\n"
	"hc_ret_thunk:\n\tret\n\tint3\n"
	".p2align 6\n"
	"hc_leaf_thunk:\n\tjmp hc_ret_thunk\n\tint3\n"
	".p2align 6\n"
	"hc_drop_stub:\n\tlea 8(%rsp), %rsp\n\tret\n\tint3\n"
	".p2align 6\n"
	"hc_drop_thunk:\n\tcall hc_drop_stub\n\tud2\n"
	".p2align 6\n"
	"hc_leaf_drop:\n\tjmp hc_drop_thunk\n\tint3\n"
	".p2align 6\n"
	"hc_rp_rax:\n\tcall 2f\n"
	"1:\tpause\n\tlfence\n\tjmp 1b\n"
	"2:\tmov %rax, (%rsp)\n\tret\n\tint3\n"
	".p2align 6\n"
	".globl hc_plain_x10\n"
	"hc_plain_x10:\n\t" TEN("call hc_leaf") "ret\n"
	".globl hc_thunk_x10\n"
	"hc_thunk_x10:\n\t" TEN("call hc_leaf_thunk") "ret\n"
	".globl hc_dropret_x10\n"
	"hc_dropret_x10:\n\t" TEN("call hc_leaf_drop") "ret\n"
	".globl hc_indirect_x10\n"
	"hc_indirect_x10:\n\tlea hc_leaf(%rip), %rax\n\t" TEN("call *%rax") "ret\n"
	".globl hc_retpoline_x10\n"
	"hc_retpoline_x10:\n\tlea hc_leaf(%rip), %rax\n\t" TEN("call hc_rp_rax") "ret\n");

static void op_plain(unsigned long n)
{
	(void)n;
	hc_plain_x10();
}

static void op_thunk(unsigned long n)
{
	(void)n;
	hc_thunk_x10();
}

static void op_dropret(unsigned long n)
{
	(void)n;
	hc_dropret_x10();
}

static void op_indirect(unsigned long n)
{
	(void)n;
	hc_indirect_x10();
}

static void op_retpoline(unsigned long n)
{
	(void)n;
	hc_retpoline_x10();
}

/*
 * A REP string instruction over @n bytes; cost mode counts one instruction
 * per iteration (QEMU counts each).  The sizes: the 4 KiB name buffer, the
 * 256-byte struct statx, patch 5's 192-byte object and its 160-byte limit.
 */
#define REP(op, n) { "rep_" #op "_" #n, "rep " #op ", " #n " bytes", n, op_##op, n }

static const struct seq seqs[] = {
	{ "empty", "the batch loop alone", 0, op_empty, 0 },
	{ "loop_1000", "dec; jnz x1000", 0, op_loop, 2 * LOOP_N },
	REP(stosb, 4096), REP(stosb, 256), REP(stosb, 192), REP(stosb, 160),
	REP(movsb, 4096), REP(movsb, 256), REP(movsb, 192), REP(movsb, 160),
	{ "lfence", "lfence", 0, op_lfence, 1 },
	{ "mfence", "mfence", 0, op_mfence, 1 },
	{ "lock_add", "lock addq $1, mem", 0, op_lock_add, 1 },
	{ "call_ret_x10", "10 x (call; ret) of an empty function", 0, op_calls, 30 },
	/* icount: the outer call and ret, then per call what QEMU counts. */
	{ "asm_call_ret_x10", "10 x (call; ret), in asm", 0, op_plain, 2 + 10 * 2 },
	{ "ret_thunk_x10", "10 x (call; jmp to a return thunk; ret)", 0, op_thunk, 2 + 10 * 3 },
	{ "dropret_x10", "10 x (call; jmp; call; lea 8(%rsp); ret): a safe-RET thunk's shape",
	  0, op_dropret, 2 + 10 * 5 },
	{ "indirect_x10", "10 x (call *%rax; ret)", 0, op_indirect, 3 + 10 * 2 },
	{ "retpoline_x10", "10 x (call thunk; call; mov to (%rsp); ret; ret): a retpoline",
	  0, op_retpoline, 3 + 10 * 5 },
};
#define NSEQ (sizeof(seqs) / sizeof(seqs[0]))

/* One batch of @s: ns and TSC ticks for BATCH operations. */
static void batch(const struct seq *s, double *ns, double *tsc)
{
	uint64_t t0 = now_ns(), c0 = __rdtsc();
	unsigned int i;

	for (i = 0; i < BATCH; i++)
		s->op(s->size);
	*tsc = (double)(__rdtsc() - c0);
	*ns = (double)(now_ns() - t0);
}

int main(int argc, char **argv)
{
	double ns[NSEQ], tsc[NSEQ], *sn, *st;
	const char *json = NULL, *dir = NULL;
	char vendor[64] = "unknown", path[4096], today[16];
	time_t t;
	unsigned int samples = 31, i, k;
	cpu_set_t cpus;
	FILE *f = NULL;
	char model[256] = "unknown", line[4096];
	int family = -1, modelnr = -1, erms = 0, fsrm = 0;
	FILE *ci;

	for (i = 1; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "--samples") && i + 1 < (unsigned int)argc)
			samples = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--json") && i + 1 < (unsigned int)argc)
			json = argv[++i];
		else if (!strcmp(argv[i], "--out-dir") && i + 1 < (unsigned int)argc)
			dir = argv[++i];
		else
			die("usage: hostcal [--samples N] [--json FILE | --out-dir DIR]");
	}
	if (samples < 3)
		die("--samples wants 3 or more");
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		die("cannot pin to CPU 0: %s", strerror(errno));
	ci = fopen("/proc/cpuinfo", "r");
	/* The first CPU's: its model, and the string-instruction features. */
	while (ci && fgets(line, sizeof(line), ci)) {
		if (line[0] == '\n')
			break;
		sscanf(line, "vendor_id : %63s", vendor);
		sscanf(line, "model name : %255[^\n]", model);
		sscanf(line, "cpu family : %d", &family);
		sscanf(line, "model : %d", &modelnr);
		if (!strncmp(line, "flags", 5)) {
			erms = strstr(line, " erms") != NULL;
			fsrm = strstr(line, " fsrm") != NULL;
		}
	}
	if (ci)
		fclose(ci);
	t = time(NULL);
	strftime(today, sizeof(today), "%Y-%m-%d", gmtime(&t));
	if (json && dir)
		die("--json and --out-dir: one or the other");
	if (dir) {
		const char *v = !strcmp(vendor, "AuthenticAMD") ? "amd" :
				!strcmp(vendor, "GenuineIntel") ? "intel" : "cpu";

		if (family < 0 || modelnr < 0)
			die("/proc/cpuinfo gives no family and model: use --json FILE");
		snprintf(path, sizeof(path), "%s/%s-f%d-m%d.json", dir, v, family, modelnr);
		json = path;
	}
	sn = calloc((size_t)samples * NSEQ, sizeof(*sn));
	st = calloc((size_t)samples * NSEQ, sizeof(*st));
	if (!sn || !st)
		die("out of memory");
	/* Warm up, then rounds of one batch per sequence, interleaved. */
	for (k = 0; k < NSEQ; k++)
		batch(&seqs[k], &ns[k], &tsc[k]);
	for (i = 0; i < samples; i++)
		for (k = 0; k < NSEQ; k++)
			batch(&seqs[k], &sn[k * samples + i], &st[k * samples + i]);
	for (k = 0; k < NSEQ; k++) {
		ns[k] = median_of(&sn[k * samples], samples);
		tsc[k] = median_of(&st[k * samples], samples);
	}
	if (json) {
		f = fopen(json, "w");
		if (!f)
			die("cannot write %s: %s", json, strerror(errno));
		fprintf(f, "{\n  \"schema\": 1, \"kind\": \"hostcal\", \"cpu\": ");
		json_str(f, model);
		fprintf(f, ", \"family\": %d, \"model\": %d, \"erms\": %s, \"fsrm\": %s",
			family, modelnr, erms ? "true" : "false", fsrm ? "true" : "false");
		fprintf(f, ", \"date\": \"%s\"", today);
		fprintf(f, ",\n  \"batch\": %d, \"samples\": %u, \"loop_iterations\": %d,\n"
			"  \"note\": \"medians over samples of BATCH operations, the empty batch loop "
			"subtracted; loop_iters: the operation in plain-loop iterations\",\n"
			"  \"sequences\": [\n", BATCH, samples, LOOP_N);
	}
	for (k = 0; k < NSEQ; k++) {
		/* Per operation, the empty batch loop taken off. */
		double n = (ns[k] - ns[0]) / BATCH, t = (tsc[k] - tsc[0]) / BATCH;
		double it = (ns[1] - ns[0]) / BATCH / LOOP_N;
		double lo = 1e300, hi = 0;

		for (i = 0; i < samples; i++) {
			double x = (sn[k * samples + i] - ns[0]) / BATCH;

			lo = fmin(lo, x);
			hi = fmax(hi, x);
		}
		printf("hostcal %u/%zu %-16s %9.2f ns %9.1f tsc %8.1f loop iterations (icount %lu)\n",
		       k + 1, NSEQ, seqs[k].name, n, t, it > 0 ? n / it : 0, seqs[k].icount);
		if (!f)
			continue;
		fprintf(f, "    {\"name\": ");
		json_str(f, seqs[k].name);
		fprintf(f, ", \"what\": ");
		json_str(f, seqs[k].what);
		fprintf(f, ", \"size\": %lu, \"icount\": %lu,\n     \"ns\": %.4f, \"ns_range\": "
			"[%.4f, %.4f], \"tsc\": %.3f, \"loop_iters\": %.3f}%s\n", seqs[k].size,
			seqs[k].icount, n, lo, hi, t, it > 0 ? n / it : 0, k + 1 < NSEQ ? "," : "");
	}
	if (f) {
		fprintf(f, "  ]\n}\n");
		if (fclose(f))
			die("cannot write %s", json);
		printf("hostcal: wrote %s\n", json);
	}
	free(sn);
	free(st);
	return 0;
}
