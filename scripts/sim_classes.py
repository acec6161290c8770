#!/usr/bin/env python3
"""Figures of a rota-sim replay from its --jobs-csv file, one `name value unit` a line.

Mean wait and bounded slowdown over all jobs and by job size (CPUs), and, when
the replay ran with --forecasts, the start forecasts' errors. The bounded
slowdown is the simulator's: max(1, (wait + run) / max(run, 10 s)).

Usage: scripts/sim_classes.py jobs.csv [more.csv ...]
"""
import csv
import sys

CLASSES = [(1, 1), (2, 4), (5, 16), (17, 64), (65, 10**9)]


def class_name(lo, hi):
    if lo == hi:
        return f"{lo}"
    return f"{lo}-{hi}" if hi < 10**9 else f"{lo}+"


def figures(path):
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["start"] in ("", "-1") or r["end"] in ("", "-1"):
                continue
            rows.append(r)
    out = []
    waits = [int(r["wait"]) for r in rows]
    runs = [int(r["end"]) - int(r["start"]) for r in rows]
    bsld = [max(1.0, (w + t) / max(t, 10)) for w, t in zip(waits, runs)]
    n = len(rows)
    out.append(("jobs", n, ""))
    out.append(("wait_mean", sum(waits) / n, "s"))
    out.append(("bsld_mean", sum(bsld) / n, ""))
    for lo, hi in CLASSES:
        idx = [i for i, r in enumerate(rows) if lo <= int(r["cpus"]) <= hi]
        name = class_name(lo, hi)
        if not idx:
            continue
        out.append((f"jobs_cpus_{name}", len(idx), ""))
        out.append((f"wait_mean_cpus_{name}", sum(waits[i] for i in idx) / len(idx), "s"))
        out.append((f"bsld_mean_cpus_{name}", sum(bsld[i] for i in idx) / len(idx), ""))
    if rows and "forecast" in rows[0]:
        err, signed, err50 = [], [], []
        for r in rows:
            fc = int(r["forecast"])
            if fc < 0:
                continue
            start = int(r["start"])
            err.append(abs(start - fc))
            signed.append(start - fc)
            p50 = int(r["forecast_p50"])
            if p50 >= 0:
                err50.append(abs(start - p50))
        if err:
            out.append(("forecasts", len(err), ""))
            out.append(("forecast_mae", sum(err) / len(err), "s"))
            out.append(("forecast_bias", sum(signed) / len(signed), "s"))
            out.append(("forecast_within_15min", sum(e <= 900 for e in err) / len(err), ""))
        if err50:
            out.append(("forecast_p50_mae", sum(err50) / len(err50), "s"))
    return out


def main():
    for path in sys.argv[1:]:
        if len(sys.argv) > 2:
            print(f"# {path}")
        for name, value, unit in figures(path):
            if isinstance(value, int):
                text = str(value)
            elif unit == "s":
                text = f"{value:.0f}"
            else:
                text = f"{value:.4f}" if abs(value) < 100 else f"{value:.1f}"
            print(f"{name} {text} {unit}".rstrip())


if __name__ == "__main__":
    main()
