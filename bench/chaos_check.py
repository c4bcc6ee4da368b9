#!/usr/bin/python3
"""The invariant checker of a chaos run (bench/chaos.sh, docs/operations.md).

    bench/chaos_check.py DIR

reads what the run left in DIR and prints one line per check, the counts,
and every violation; exits 1 when there is any.

DIR holds:
  accepted      one line per accepted submission: "ID" for a job, "ID N"
                for an array of N tasks (what sbatch printed)
  sacct.txt     sacct -a -S @0 -X -P -n -o JobIDRaw,JobID,State,Restarts
  acct.json     sacct -a -S @0 --json=sluice (each job's events)
  nodes/NAME.log  each node daemon's log (all of its lives, appended)
  faults        one line per injected fault: "EPOCH_SECONDS KIND NODE"
                (KIND reboot ends every run on NODE at that moment)
  ctld          "rss_kb fds" of a quiet controller holding the same jobs
                (chaos.sh restarts it at the end), then of the controller
                that went through the run

The checks:
  1. every accepted job (every task of an accepted array) has exactly one
     record, in a final state;
  2. no job ran in two places, or twice in one place, at once: runs are
     read from the node daemons' own records (state=launching to
     state=ended; an adopted job goes on; a reboot ends everything);
  3. on a node, runs that overlap in time never share a GPU index;
  4. every job's Restarts equals the requeues among its events;
  5. the controller's RSS and descriptors at the end are within 10 % of
     a quiet controller's with the same jobs (plus a little slack for
     small numbers): what the faults cost it is not kept.
"""
import json
import os
import re
import sys
from datetime import datetime

FINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
         "PREEMPTED", "OUT_OF_MEMORY", "DEADLINE", "BOOT_FAIL"}
LINE = re.compile(r"^(\S+) sluiced \w+: job=(\d+) (.*)$")


def stamp(text):
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%f").timestamp()


def read_accepted(path):
    """{job id: tasks} (0 for a plain job)."""
    out = {}
    for line in open(path):
        parts = line.split()
        if parts:
            out[int(parts[0])] = int(parts[1]) if len(parts) > 1 else 0
    return out


def read_records(path):
    """[(raw id, shown id, state, restarts)] of sacct -X -P."""
    rows = []
    for line in open(path):
        f = line.rstrip("\n").split("|")
        if len(f) >= 4 and f[0].isdigit():
            state = f[2].split()[0] if f[2] else ""
            rows.append((int(f[0]), f[1], state,
                         int(f[3]) if f[3].isdigit() else 0))
    return rows


def read_faults(path):
    """{node: [reboot times]}."""
    reboots = {}
    if os.path.exists(path):
        for line in open(path):
            f = line.split()
            if len(f) >= 3 and f[1] == "reboot":
                reboots.setdefault(f[2], []).append(float(f[0]))
    return reboots


def node_runs(name, path, reboots, end_of_run):
    """[(job, start, end, gpus)] of one node's log."""
    runs, open_runs = [], {}
    reboot_times = sorted(reboots.get(name, []))
    last = 0.0

    def close(job, t):
        start, gpus = open_runs.pop(job)
        runs.append((job, start, t, gpus))

    for line in open(path, errors="replace"):
        m = LINE.match(line)
        if not m:
            continue
        t = stamp(m.group(1))
        last = max(last, t)
        while reboot_times and reboot_times[0] <= t:
            r = reboot_times.pop(0)
            for job in list(open_runs):
                close(job, r)
        job, what = int(m.group(2)), m.group(3)
        if what.startswith("state=launching"):
            g = re.search(r"gpu_idx=(\S+)", what)
            gpus = set() if not g or g.group(1) == "-" else \
                set(int(x) for x in g.group(1).split(",") if x.isdigit())
            if job in open_runs:  # launched again while it ran: a 2nd run
                runs.append((job, t, None, gpus))
            else:
                open_runs[job] = (t, gpus)
        elif (what.startswith("state=ended") or
              what.startswith("adopted state=ended") or
              what.startswith("launch abandoned")):
            if job in open_runs:
                close(job, t)
    for job in list(open_runs):
        close(job, reboot_times[0] if reboot_times else max(last, end_of_run))
    return [(j, s, e if e is not None else s, g) for j, s, e, g in runs]


def overlap(a, b):
    return a[1] < b[2] and b[1] < a[2]


def main():
    d = sys.argv[1]
    violations = []
    accepted = read_accepted(os.path.join(d, "accepted"))
    records = read_records(os.path.join(d, "sacct.txt"))
    acct = json.load(open(os.path.join(d, "acct.json")))["jobs"]

    # 1. exactly one final record per accepted job or array task
    by_shown, finals = {}, 0
    for raw, shown, state, _ in records:
        by_shown.setdefault(shown, []).append((raw, state))
    expected = []
    for jid, tasks in accepted.items():
        if tasks == 0:
            expected.append(str(jid))
        else:
            expected += ["%d_%d" % (jid, t) for t in range(tasks)]
    for key in expected:
        rows = by_shown.get(key, [])
        if len(rows) != 1:
            violations.append("job %s: %d records" % (key, len(rows)))
        elif rows[0][1] not in FINAL:
            violations.append("job %s: not final (%s)" % (key, rows[0][1]))
        else:
            finals += 1
    print("check 1: %d accepted submissions, %d jobs and tasks expected, "
          "%d with one final record" % (len(accepted), len(expected), finals))

    # 2 and 3. runs from the node daemons' records
    reboots = read_faults(os.path.join(d, "faults"))
    end_of_run = os.path.getmtime(os.path.join(d, "sacct.txt"))
    runs = []
    logs = sorted(os.listdir(os.path.join(d, "nodes")))
    for f in logs:
        name = f[:-4]
        for r in node_runs(name, os.path.join(d, "nodes", f), reboots,
                           end_of_run):
            runs.append((name,) + r)
    by_job = {}
    for r in runs:
        by_job.setdefault(r[1], []).append(r)
    twice = 0
    for job, rs in by_job.items():
        rs.sort(key=lambda r: r[2])
        for i in range(len(rs)):
            for k in range(i + 1, len(rs)):
                if overlap(rs[i][1:], rs[k][1:]):
                    twice += 1
                    violations.append(
                        "job %d ran twice at once: on %s from %.3f and on %s "
                        "from %.3f" % (job, rs[i][0], rs[i][2], rs[k][0],
                                       rs[k][2]))
    print("check 2: %d runs of %d jobs on %d nodes, %d ran twice at once"
          % (len(runs), len(by_job), len(logs), twice))
    shared = 0
    by_node = {}
    for r in runs:
        by_node.setdefault(r[0], []).append(r)
    for node, rs in by_node.items():
        rs.sort(key=lambda r: r[2])
        for i in range(len(rs)):
            for k in range(i + 1, len(rs)):
                if rs[k][2] >= rs[i][3]:
                    break
                if rs[i][1] != rs[k][1] and rs[i][4] & rs[k][4]:
                    shared += 1
                    violations.append(
                        "%s: jobs %d and %d held GPU %s at once"
                        % (node, rs[i][1], rs[k][1],
                           ",".join(map(str, sorted(rs[i][4] & rs[k][4])))))
    print("check 3: %d GPU runs, %d pairs sharing a GPU at once"
          % (sum(1 for r in runs if r[4]), shared))

    # 4. requeue counts
    bad = 0
    requeued = 0
    for j in acct:
        n = sum(1 for e in j.get("events", []) if e.get("event") == "requeue")
        restarts = j.get("restarts") or 0
        requeued += n > 0
        if n != restarts:
            bad += 1
            violations.append("job %s: Restarts=%d but %d requeue events"
                              % (j.get("job_id"), restarts, n))
    print("check 4: %d jobs, %d requeued, %d with Restarts unlike their "
          "events" % (len(acct), requeued, bad))

    # 5. the controller's footprint
    lines = [l.split() for l in open(os.path.join(d, "ctld")) if l.strip()]
    if len(lines) >= 2:
        (rss0, fd0), (rss1, fd1) = [(int(a), int(b)) for a, b in lines[:2]]
        ok_rss = rss1 <= rss0 * 1.10 + 2048   # + 2 MiB for a small heap
        ok_fds = fd1 <= fd0 * 1.10 + 2
        if not ok_rss:
            violations.append("controller RSS %d kB at the end, %d kB quiet"
                              % (rss1, rss0))
        if not ok_fds:
            violations.append("controller descriptors %d at the end, %d "
                              "quiet" % (fd1, fd0))
        print("check 5: controller RSS %d -> %d kB, descriptors %d -> %d"
              % (rss0, rss1, fd0, fd1))
    else:
        violations.append("no controller figures in %s/ctld" % d)

    for v in violations[:50]:
        print("VIOLATION: " + v)
    if len(violations) > 50:
        print("... and %d more" % (len(violations) - 50))
    print("violations: %d" % len(violations))
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
