#!/usr/bin/env python3
"""Runtime predictions for a Standard Workload Format trace, for rota-sim --predictions.

Writes one "JOBID SECONDS" line per job that has a prediction. Jobs are grouped by
KEY, a comma-separated choice of user, limit (the requested time) and procs:

  --online KEY     the mean of the last two runs of the job's group that had ended
                   (by the trace's own log) when it was submitted; none before that
  --hindsight KEY  the median runtime of the job's group over the whole trace. It
                   uses the future, so no scheduler could predict it: it bounds what
                   any predictor working from those fields can do.

--mae prints, as `name value unit` lines on standard error, the predictions' mean
absolute runtime error (a job without a prediction counts with its limit).

Usage: scripts/runtime_predictions.py (--online KEY | --hindsight KEY) [--mae] TRACE.swf[.gz]
"""
import argparse
import collections
import gzip
import heapq
import statistics
import sys

FIELDS = ("user", "limit", "procs")  # The job keys a group may be made of


def read_swf(path):
    opener = gzip.open if path.endswith(".gz") else open
    jobs = []
    with opener(path, "rt") as f:
        for line in f:
            fields = line.split()
            if not fields or line.lstrip().startswith(";"):
                continue
            number, submit, wait, run, procs = (int(x) for x in fields[0:5])
            requested_procs, requested_time, user = int(fields[7]), int(fields[8]), int(fields[11])
            procs = procs if procs > 0 else requested_procs
            if run <= 0 or procs <= 0:
                continue  # rota-sim skips these too
            jobs.append({"id": number, "submit": submit, "end": submit + max(wait, 0) + run,
                         "run": run, "user": user, "procs": procs,
                         "limit": requested_time if requested_time > 0 else None})
    return jobs


def online(jobs, key):
    predictions = {}
    recent = collections.defaultdict(lambda: collections.deque(maxlen=2))
    running = []  # (end, key, runtime) of jobs submitted so far
    for job in sorted(jobs, key=lambda j: (j["submit"], j["id"])):
        while running and running[0][0] <= job["submit"]:
            _, k, run = heapq.heappop(running)
            recent[k].append(run)
        k = key(job)
        if recent[k]:
            predictions[job["id"]] = max(1, round(sum(recent[k]) / len(recent[k])))
        heapq.heappush(running, (job["end"], k, job["run"]))
    return predictions


def hindsight(jobs, key):
    runs = collections.defaultdict(list)
    for job in jobs:
        runs[key(job)].append(job["run"])
    median = {k: statistics.median(v) for k, v in runs.items()}
    return {job["id"]: max(1, int(median[key(job)])) for job in jobs}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    how = parser.add_mutually_exclusive_group(required=True)
    how.add_argument("--online", metavar="KEY")
    how.add_argument("--hindsight", metavar="KEY")
    parser.add_argument("--mae", action="store_true")
    parser.add_argument("trace")
    args = parser.parse_args()
    names = (args.online or args.hindsight).split(",")
    for name in names:
        if name not in FIELDS:
            parser.error(f"unknown key field {name!r}: choose among {', '.join(FIELDS)}")
    key = lambda job: tuple(job[n] for n in names)
    jobs = read_swf(args.trace)
    predictions = (online if args.online else hindsight)(jobs, key)
    out = sys.stdout
    for job in jobs:
        if job["id"] in predictions:
            out.write(f"{job['id']} {predictions[job['id']]}\n")
    if args.mae:
        errors = []
        for job in jobs:
            limit = job["limit"] if job["limit"] is not None else job["run"]
            planned = min(predictions.get(job["id"], limit), limit)
            errors.append(abs(planned - job["run"]))
        print(f"predicted {len(predictions)} jobs", file=sys.stderr)
        print(f"runtime_mae {statistics.mean(errors):.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
