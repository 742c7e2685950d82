/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own type names that the stat:* tracepoint formats use.
 * bpftrace without BTF (this study's kernels leave it out) parses the
 * tracepoint formats with these; run the scripts with -I traces/include.
 */
#include <linux/types.h>
typedef __u32 u32;
typedef __u64 u64;
typedef __u32 dev_t;
typedef _Bool bool;
typedef __s64 s64;
typedef __s32 s32;
typedef __u16 u16;
typedef __u8 u8;
