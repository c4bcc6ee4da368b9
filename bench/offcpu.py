#!/usr/bin/env python3
"""Off-CPU time of a node's processes, by what they waited in.

Reads `perf script -F comm,pid,tid,time,event,trace,ip,sym` of a
`perf record -e sched:sched_switch -g -a` on stdin.  Every time a thread
of COMM leaves the CPU without being runnable (a sleep, a lock, I/O), the
interval until it runs again is charged to the kernel function it
waited in: the first frame below the scheduler that is not a generic
wait or lock helper.  Threads are split into the daemons (--daemon PID,
repeatable) and the rest of COMM (supervisors, and jobs before their
exec).  Prints, per group, the top reasons: seconds in all, count,
average ms, and ms per task (--tasks).

Used by bench/throughput.sh offcpu (issue 19); not part of make check.
"""
import argparse
import collections
import re
import sys

HEAD = re.compile(
    r"^\s*(\S+)\s+(\d+)/(\d+)\s+(\d+\.\d+):\s+sched:sched_switch:\s+"
    r"prev_comm=(.*?) prev_pid=(\d+) prev_prio=\d+ prev_state=(\S+) ==> "
    r"next_comm=.*? next_pid=(\d+)")

# Frames that say how a thread waits, not what for.
GENERIC = re.compile(
    r"^(__schedule|schedule|schedule_timeout|schedule_hrtimeout_range_clock|"
    r"schedule_preempt_disabled|io_schedule|io_schedule_timeout|"
    r"preempt_schedule.*|__mutex_lock.*|mutex_lock.*|rwsem_down_.*|down_read.*|"
    r"down_write.*|__down.*|bit_wait_io|__wait_on_bit.*|out_of_line_wait_on_bit.*|"
    r"wait_for_completion.*|__wait_for_common|submit_bio_wait|folio_wait_bit.*|"
    r"rt_mutex.*|percpu_down_.*|\[unknown\])$")


def reason(frames):
    for f in frames:
        if not GENERIC.match(f):
            return f
    return frames[-1] if frames else "?"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--comm", default="sluiced")
    ap.add_argument("--daemon", action="append", default=[])
    ap.add_argument("--tasks", type=int, default=1)
    ap.add_argument("--top", type=int, default=12)
    a = ap.parse_args()
    daemons = set(a.daemon)
    away = {}  # tid -> (time, key)
    secs = collections.Counter()
    count = collections.Counter()
    block = []

    def flush():
        if not block:
            return
        m = HEAD.match(block[0])
        if m is None:
            return
        t = float(m.group(4))
        prev_comm, prev_tid, state, next_tid = (m.group(5), m.group(6),
                                                m.group(7), m.group(8))
        if next_tid in away:
            t0, key = away.pop(next_tid)
            secs[key] += t - t0
            count[key] += 1
        if prev_comm != a.comm or state.startswith("R"):
            return
        frames = [ln.split()[1] for ln in block[1:] if len(ln.split()) > 1]
        group = "daemon" if prev_tid in daemons else "others"
        away[prev_tid] = (t, (group, state[0], reason(frames)))

    for line in sys.stdin:
        if line.strip() == "":
            flush()
            block = []
        else:
            block.append(line.rstrip("\n"))
    flush()

    for group, label in (("daemon", "the node daemons (sluiced)"),
                         ("others", "their supervisors and jobs before exec")):
        keys = [k for k in secs if k[0] == group]
        total = sum(secs[k] for k in keys)
        print("  off-CPU in %s: %.2f s, %.2f ms a task" %
              (label, total, total * 1000 / a.tasks))
        for k in sorted(keys, key=lambda k: -secs[k])[:a.top]:
            print("    %-34s %s %8.2f s %6d x %7.2f ms  %6.2f ms/task" %
                  (k[2], k[1], secs[k], count[k], secs[k] * 1000 / count[k],
                   secs[k] * 1000 / a.tasks))


if __name__ == "__main__":
    main()
