"""gdb script: count the instructions of one call of each statx_timing case.

Run by bench/uml-timing.sh as
    gdb -batch -x bench/uml_count.py --args LINUX ARGS...
with STATX_COUNT_OUT naming the file to write.  The timing suite
(patches/uml/) makes one warm call of each case between
statx_timing_begin(id) and statx_timing_end(id); this script stops at
each begin, returns to its caller, and single-steps until the pc reaches
statx_timing_end, writing "id instructions" a line, and then the
addresses it stepped through with their counts ("  address count" lines),
for analysis/uml_timing.py to name the functions and their instructions.  A REP string
instruction is stepped once per iteration, as QEMU's icount counts it.
The UML kernel's own signals (its timer, its I/O) are passed through
without stopping: gdb runs a handler that arrives while stepping and
does not count it.
"""
import os

import gdb  # noqa: F401  (gdb's own module; this runs inside gdb)

SIGNALS = ("SIGSEGV", "SIGUSR1", "SIGALRM", "SIGVTALRM", "SIGIO",
           "SIGWINCH", "SIGCHLD", "SIGTERM", "SIGHUP")


def main():
    gdb.execute("set pagination off")
    gdb.execute("set confirm off")
    for sig in SIGNALS:
        gdb.execute("handle %s nostop noprint pass" % sig, to_string=True)
    gdb.execute("break statx_timing_begin", to_string=True)
    end = int(gdb.parse_and_eval("(long)&statx_timing_end"))
    seen = 0
    with open(os.environ["STATX_COUNT_OUT"], "w") as out:
        gdb.execute("run", to_string=True)
        while True:
            try:
                frame = gdb.selected_frame()
            except gdb.error:
                break       # the kernel halted: no frame left
            if frame.name() != "statx_timing_begin":
                break
            case = int(gdb.parse_and_eval("$rdi"))
            gdb.execute("finish", to_string=True)
            n = 0
            pcs = {}
            pc = int(gdb.parse_and_eval("$pc"))
            while pc != end:
                pcs[pc] = pcs.get(pc, 0) + 1
                gdb.execute("stepi", to_string=True)
                n += 1
                pc = int(gdb.parse_and_eval("$pc"))
            out.write("%d %d\n" % (case, n))
            for a in sorted(pcs):
                out.write("  %x %d\n" % (a, pcs[a]))
            out.flush()
            seen += 1
            try:
                gdb.execute("continue", to_string=True)
            except gdb.error:
                break
    if not seen:
        raise SystemExit("uml_count: statx_timing_begin was never reached")


main()
