// SPDX-License-Identifier: GPL-2.0
/*
 * stall_test.c - a test that waits on the host for a few seconds, under
 * the harness's own 30-second timeout.
 *
 * /dev/vdb is the disk vm/run.sh -s attaches: QEMU lets it read once a
 * second of host time.  Five direct reads keep the test waiting on the
 * host for about five seconds, the guest idle meanwhile.  Where the guest
 * clock follows the host's while the guest is idle (check mode), the test
 * passes; where an idle guest's clock jumps to its next timer however
 * long the host takes (cost mode: -icount sleep=off), the harness's alarm
 * is one of those timers and the test is killed "by timeout" although
 * nothing in the guest is stuck.  tests/clock-stall.sh runs it both ways.
 *
 * Each read prints "# stall: read N: guest G s, host H s" (host seconds
 * from the CMOS RTC, which QEMU drives from the host's wall clock).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define STALL_DISK "/dev/vdb"
#define READS 5

static double guest_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long host_seconds(void)
{
	char buf[32] = "";
	int fd = open("/sys/class/rtc/rtc0/since_epoch", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atol(buf) : -1;
}

TEST(reads_that_wait_on_the_host)
{
	double g0 = guest_seconds();
	long h0 = host_seconds();
	void *buf;
	int fd, i;

	ASSERT_EQ(0, posix_memalign(&buf, 4096, 4096));
	fd = open(STALL_DISK, O_RDONLY | O_DIRECT);
	ASSERT_LE(0, fd) TH_LOG("no %s: boot with vm/run.sh -s", STALL_DISK);
	for (i = 0; i < READS; i++) {
		/* A new offset each time: nothing is served from a cache. */
		ASSERT_EQ(4096, pread(fd, buf, 4096, (off_t)i * 8192));
		ksft_print_msg("stall: read %d: guest %.2f s, host %ld s\n",
			       i + 1, guest_seconds() - g0, host_seconds() - h0);
		fflush(stdout);
	}
	close(fd);
	free(buf);
}

TEST_HARNESS_MAIN
