#!/usr/bin/env python3
"""mix.py - the instruction stream of one call, from QEMU's own logs.

Debian's QEMU 7.2 has no TCG plugins, so the stream is read from its
debug log: `-d in_asm,exec,nochain` prints each translation block (TB)
when it is translated (in_asm: the guest instructions, as the running
kernel has them after boot-time patching) and each time it runs (exec;
nochain keeps every run going through the loop that logs it).  The log
is switched on through the monitor only while the harness (statx-bench
--mix) runs its windows, and QEMU translates anew once it is on, so every
TB a window runs is disassembled inside the same log.

Cost mode's count is the same sum this reads: under -icount a TB that
runs adds its instruction count, and a REP string instruction runs as a
TB of one instruction once per iteration plus once to find its count at
zero.  A TB that stops part-way is counted up to where it stopped: one
rewound for I/O (cpu_io_recompile) up to its I/O instruction, one that
faulted (`int` in the log) up to the faulting instruction, as icount
counts them.  So a window's total is exact: analysis/mix.py checks it
against the harness's clock read around that same window (given on its
"mix done" line) and against the cost-mode median of the same boot.

Usage:
  mix.py run VARIANT OUTDIR [--cases A,B] [--configs ext4,nfs3]
        boot VARIANT (vm/run.sh -c), steer its windows, and leave in
        OUTDIR: the harness's JSON per configuration, the guest's
        kallsyms, and CONFIG/CASE.json per case (the windows, extracted)
  mix.py extract BEGIN END LOG... > CASE.json
        one case's windows from saved logs of one boot (--keep-logs), in
        the order they were written: the last log's windows, the earlier
        ones read for the blocks they disassembled
"""
import argparse
import json
import os
import re
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The headline cases (issue 16): the fd paths, by path, long names; and
# statx(SIZE) beside statx(MTIME), whose difference on NFS is the flush
# nfs_getattr() makes for the times (issue 17).
CASES = ("fstat,glibc.fstat,fstatat.empty,statx.fd.empty,statx.fd.null,"
         "stat,statx.BASIC_STATS,stat.name160,stat.name1024,statx.SIZE,statx.MTIME")
CONFIGS = "ext4,nfs3,nfs3.actimeo0"

# An instruction: address, up to 8 bytes, two spaces or more, the text.
# An instruction longer than 8 bytes goes on with its address and the
# rest of its bytes on a line of their own.
INSN_RE = re.compile(r"^0x([0-9a-f]+):  ((?:[0-9a-f]{2} ?){1,8}?) {2,}(\S.*?)\s*$")
MORE_RE = re.compile(r"^0x[0-9a-f]+:  (?:[0-9a-f]{2} ?)+\s*$")
EXEC_RE = re.compile(r"^Trace \d+: 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/([0-9a-f]+)/([0-9a-f]+)\]")


class MixError(Exception):
    """A log this cannot read as asked, named by case."""


# -d int: an exception or interrupt as the CPU takes it (vector, error
# code, software or not, the pc it was taken at).
INT_RE = re.compile(r"^\s*\d+: v=([0-9a-f]+) e=[0-9a-f]+ i=(\d) cpl=\d IP=[0-9a-f]+:([0-9a-f]+) ")
STOP_RE = re.compile(r"^Stopped execution of TB chain before 0x[0-9a-f]+ \[([0-9a-f]+)\]")


class Reader:
    """Reads QEMU's logs of one boot, case by case.  A TB is known by its
    pc, flags and cflags; its instructions are the in_asm block printed
    just before its first run.  The map lives for the whole boot: with
    nochain on, QEMU runs TBs translated with CF_NO_GOTO_TB (they show in
    the exec line's cflags), which exist only because the log was on, so
    each was disassembled in this case's log or an earlier one's."""

    def __init__(self):
        self.known = {}      # (pc, flags, cflags) -> instructions
        # pc -> translations an earlier log printed and no TB ran in it
        # (translated just before the log went off): the next log's run
        # of an unknown TB at that pc is the latest of them.
        self.carried = {}

    def extract(self, lines, begin, end, case="?"):
        """The windows of one case from QEMU's log @lines: each window
        the TBs that ran between the TB at @begin (mix_begin) and the one
        at @end (mix_end).  A window is marked when QEMU stopped a TB
        before it ran (an interrupt or exit pending: what follows is not
        the call's) or rewound one for I/O (icount's cpu_io_recompile)."""
        tbs, index = [], {}  # this case's TBs, and key -> index in tbs
        # pc -> translations not yet run, the latest last: a TB translated,
        # then stopped before it ran (an interrupt), may be translated again
        # at the same pc with other flags and run before the first one does.
        pending = {}
        block = None
        windows, cur, dropped, ordinal = [], None, [], 0
        for line in lines:
            if line.startswith("IN:"):
                block = []
                continue
            if block is not None:
                m = INSN_RE.match(line)
                if m:
                    block.append([int(m.group(1), 16), m.group(2).strip(), m.group(3)])
                    continue
                if block and MORE_RE.match(line):
                    block[-1][1] += " " + line.split(":", 1)[1].strip()
                    continue
                if block:
                    pending.setdefault(block[0][0], []).append(block)
                block = None
            m = STOP_RE.match(line)
            if m:
                # The TB logged last did not run.
                pc = int(m.group(1), 16)
                if cur is not None:
                    if cur["tbs"] and tbs[cur["tbs"][-1]]["pc"] == pc:
                        cur["tbs"].pop()
                        cur["interrupted"] = True
                    elif pc == begin and not cur["tbs"]:
                        cur = None
                continue
            m = INT_RE.match(line)
            if m:
                # A fault (a vector under 32, not an int instruction) in
                # the TB logged last: the instructions before the faulting
                # one ran, it did not (it runs again, or a fixup runs).
                # An interrupt is taken between TBs: nothing to cut.
                if cur is not None and cur["tbs"] and int(m.group(1), 16) < 32 \
                        and m.group(2) == "0":
                    self.cut(cur, tbs, index, int(m.group(3), 16))
                continue
            if line.startswith("cpu_io_recompile"):
                # The TB logged last stopped at an I/O instruction that
                # was not its last: QEMU rolled it back to that
                # instruction and runs a new TB from there.  Only the
                # instructions before it ran (cut below, at the next TB).
                if cur is not None and cur["tbs"]:
                    cur["rewound"] = True
                    cur["cut"] = True
                continue
            m = EXEC_RE.match(line)
            if not m:
                continue
            pc = int(m.group(1), 16)
            key = (pc, m.group(2), m.group(3))
            if pending.get(pc):
                self.known[key] = pending[pc].pop()
            elif key not in self.known and self.carried.get(pc):
                self.known[key] = self.carried[pc].pop()
            if cur is not None and cur.pop("cut", False):
                self.cut(cur, tbs, index, pc)
            if pc == begin:
                cur = {"tbs": [], "interrupted": False, "rewound": False}
                continue
            if cur is None:
                continue
            if pc == end:
                # The window's place among the case's (the harness's
                # clock for it is the n-th of its "mix done" line).
                cur["n"] = ordinal
                ordinal += 1
                if cur.get("unknown"):
                    dropped.append(cur["unknown"])
                else:
                    windows.append(cur)
                cur = None
                continue
            if cur.get("unknown"):
                continue
            if key not in index:
                if key not in self.known:
                    # Its instructions are not in any log of this boot
                    # (seen on 6.12 in a window an RPC interrupted): the
                    # window cannot be counted and is dropped, named.
                    cur["unknown"] = f"{pc:#x} (flags {key[1]}, cflags {key[2]})"
                    continue
                index[key] = len(tbs)
                tbs.append({"pc": pc, "cflags": key[2], "insns": self.known[key]})
            cur["tbs"].append(index[key])
        for pc, blocks in pending.items():
            if blocks:
                self.carried.setdefault(pc, []).extend(blocks)
        if cur is not None:
            raise MixError(f"{case}: a window opened at {begin:#x} never reached {end:#x}")
        if dropped and not windows:
            raise MixError(f"{case}: every window ran a TB no log of this boot disassembles "
                           f"({', '.join(dropped)})")
        return {"begin": begin, "end": end, "tbs": tbs, "windows": windows, "dropped": dropped}

    @staticmethod
    def cut(cur, tbs, index, pc):
        """The window's last TB ran up to @pc only (rewound for I/O: the
        new TB's first instruction; or faulted there): count that part,
        as a TB of its own.  If @pc is not in it (an interrupt taken
        first), it stays whole and a rewound window stays marked so."""
        last = tbs[cur["tbs"][-1]]
        at = [i for i, insn in enumerate(last["insns"]) if insn[0] == pc]
        if not at:
            return
        key = ("cut", cur["tbs"][-1], pc)
        if key not in index:
            index[key] = len(tbs)
            tbs.append({"pc": last["pc"], "cflags": last["cflags"],
                        "insns": last["insns"][:at[0]], "cut_at": pc})
        cur["tbs"][-1] = index[key]
        cur["rewound"] = False


class Monitor:
    """QEMU's human monitor on a unix socket."""

    def __init__(self, path):
        self.sock = connect(path)
        self.read_prompt()

    def read_prompt(self):
        buf = b""
        while not buf.endswith(b"(qemu) "):
            chunk = self.sock.recv(4096)
            if not chunk:
                raise MixError("the monitor closed")
            buf += chunk
        return buf

    def cmd(self, line):
        self.sock.sendall(line.encode() + b"\n")
        out = self.read_prompt().decode(errors="replace")
        if "rror" in out or "nvalid" in out:
            raise MixError(f"monitor: {line!r}: {out.strip()[-200:]}")


def connect(path, proc=None, wait=300):
    t0 = time.time()
    while time.time() - t0 < wait:
        if proc is not None and proc.poll() is not None:
            raise MixError(f"vm/run.sh exited ({proc.returncode}) before {path} appeared")
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect(path)
            return s
        except OSError:
            time.sleep(0.2)
    raise MixError(f"no socket {path} after {wait} s")


def run(args):
    out = os.path.abspath(args.outdir)
    os.makedirs(out, exist_ok=True)
    for f in ("monitor.sock", "ctl.sock"):
        if os.path.exists(os.path.join(out, f)):
            os.unlink(os.path.join(out, f))
    cmd = [os.path.join(ROOT, "vm", "run.sh"), "-c", "-q", "-v", args.variant,
           "-t", str(args.timeout), "-o", out, "--",
           f"traces/guest-mix.sh {args.variant} {args.cases} {args.configs}"]
    print("mix: " + " ".join(cmd), flush=True)
    proc = subprocess.Popen(cmd)
    try:
        mon = Monitor(os.path.join(out, "monitor.sock"))
        ctl = connect(os.path.join(out, "ctl.sock"), proc).makefile("rwb", buffering=0)
        steer(mon, ctl, out, args.keep_logs)
    except MixError as e:
        # TERM, not KILL: vm/run.sh's trap stops its QEMU and removes its
        # disk; a killed run.sh leaves the guest running.
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        sys.exit(f"mix.py: {e}")
    rc = proc.wait()
    if rc:
        sys.exit(f"mix.py: the guest's command failed ({rc}); see {out}/console.log")


def steer(mon, ctl, out, keep=False):
    """Answer the harness's lines: a log per case's windows, extracted at
    once (the raw log is large) and removed."""
    label, n = None, 0
    raw = os.path.join(out, "mix.log")
    reader = Reader()
    while True:
        line = ctl.readline()
        if not line:
            raise MixError("the guest closed the control line before 'mix end'")
        words = line.decode(errors="replace").split()
        if words[:2] == ["mix", "config"]:
            label = words[2]
            os.makedirs(os.path.join(out, label), exist_ok=True)
        elif words[:2] == ["mix", "ready"]:
            case, begin, end = words[2], int(words[3], 16), int(words[4], 16)
            mon.cmd(f"logfile {raw}")
            mon.cmd("log in_asm,exec,nochain,int")
            ctl.write(b"go\n")
        elif words[:2] == ["mix", "done"]:
            mon.cmd("log none")
            mon.cmd("logfile /dev/null")
            with open(raw, errors="replace") as f:
                doc = reader.extract(f, begin, end, f"{label}/{case}")
            if keep:
                os.rename(raw, os.path.join(out, label, case.replace("|", "+") + ".log"))
            else:
                os.unlink(raw)
            if not doc["windows"]:
                raise MixError(f"{label}/{case}: no window in the log")
            # The harness's clock around each window (instructions in
            # cost mode), in window order: analysis/mix.py checks each
            # window's total against its own.
            try:
                clock = [int(x) for x in words[3:]]
            except ValueError:
                raise MixError(f"{label}/{case}: 'mix done' with a clock that is not "
                               f"a count: {' '.join(words[3:])}")
            seen = len(doc["windows"]) + len(doc["dropped"])
            if clock and len(clock) != seen:
                raise MixError(f"{label}/{case}: {len(clock)} clock readings for "
                               f"{seen} windows in the log")
            doc.update(case=case, config=label, clock=clock)
            with open(os.path.join(out, label, case.replace("|", "+") + ".json"), "w") as f:
                json.dump(doc, f, separators=(",", ":"))
            n += 1
            print(f"mix: {label}/{case}: {len(doc['windows'])} windows, "
                  f"{len(doc['tbs'])} blocks" + (f", {len(doc['dropped'])} dropped (a TB no log "
                                                  f"disassembles: {doc['dropped'][0]})"
                                                  if doc["dropped"] else ""), flush=True)
            ctl.write(b"go\n")
        elif words[:2] == ["mix", "end"]:
            print(f"mix: {n} cases", flush=True)
            return


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("run")
    r.add_argument("variant")
    r.add_argument("outdir")
    r.add_argument("--cases", default=CASES)
    r.add_argument("--configs", default=CONFIGS)
    r.add_argument("--timeout", type=int, default=1800)
    r.add_argument("--keep-logs", action="store_true",
                   help="keep each case's raw log beside its JSON (large)")
    x = sub.add_parser("extract")
    x.add_argument("begin", type=lambda v: int(v, 16))
    x.add_argument("end", type=lambda v: int(v, 16))
    x.add_argument("logs", nargs="+")
    args = ap.parse_args()
    if args.what == "run":
        run(args)
    else:
        reader = Reader()
        try:
            for log in args.logs:
                with open(log, errors="replace") as f:
                    doc = reader.extract(f, args.begin, args.end, log)
        except MixError as e:
            sys.exit(f"mix.py: {e}")
        json.dump(doc, sys.stdout)


if __name__ == "__main__":
    main()
