// SPDX-License-Identifier: GPL-2.0
/*
 * util.c - helpers shared by the benchmark programs (util.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static void __attribute__((noreturn))
vexit_msg(int status, const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", program_invocation_short_name, prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	exit(status);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vexit_msg(EXIT_ERROR, "", fmt, ap);
}

void refuse(enum bench_exit status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vexit_msg(status, "refusing: ", fmt, ap);
}

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double median_of(const double *v, unsigned int n)
{
	double *s = malloc(n * sizeof(*s));
	double m;

	if (!s)
		die("out of memory");
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
}

void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* The space-separated words of @s as JSON strings, comma-separated. */
void json_words(FILE *f, const char *s)
{
	char buf[256], *w, *save = NULL;
	int first = 1;

	snprintf(buf, sizeof(buf), "%s", s ? s : "");
	for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		fprintf(f, "%s", first ? "" : ", ");
		json_str(f, w);
		first = 0;
	}
}

void read_mountstats(const char *mnt, const char *const *names, unsigned int n,
		     uint64_t *ops, uint64_t *write_bytes)
{
	char line[1024], dev[256], on[256], word[64];
	unsigned long long count, bytes;
	unsigned int i;
	int in = 0, fields;
	FILE *f = fopen("/proc/self/mountstats", "r");

	memset(ops, 0, n * sizeof(*ops));
	if (write_bytes)
		*write_bytes = 0;
	if (!f)
		die("cannot read /proc/self/mountstats: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "device %255s mounted on %255s", dev, on) == 2) {
			in = !strcmp(on, mnt);
			continue;
		}
		fields = in ? sscanf(line, " %63[A-Z_]: %llu %*u %*u %llu", word, &count, &bytes) : 0;
		if (fields < 2)
			continue;
		for (i = 0; i < n; i++)
			if (!strcmp(word, names[i]))
				ops[i] = count;
		if (write_bytes && fields == 3 && !strcmp(word, "WRITE"))
			*write_bytes = bytes;
	}
	fclose(f);
}

const char *cmdline_arg(const char *key, char *buf, size_t len)
{
	char line[4096], *w, *save = NULL;
	size_t klen = strlen(key);
	FILE *f = fopen("/proc/cmdline", "r");

	if (!f)
		return NULL;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	for (w = strtok_r(line, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
		if (!strncmp(w, key, klen) && w[klen] == '=') {
			snprintf(buf, len, "%s", w + klen + 1);
			return buf;
		}
	}
	return NULL;
}
