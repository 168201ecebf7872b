#!/usr/bin/env python3
"""What --trace costs: each workload's samples/s traced against untraced,
side by side in one run.

For each workload, `--repeats` pairs run back to back in alternating order
(untraced first, then traced first), so the machine's noise hits both
alike; a pair's ratio is the traced run's samples/s (summary.json's
final.samples_per_second) over the untraced one's. Prints the median ratio
and its range per workload, and the trace's size per second of training.
The target (issue: tracing costs at most 3% of samples/s) is a median
ratio of at least 0.97.

    python3 bench/trace_cost.py --app build/app/hogwild-lab [--repeats 9]
        [--results bench/RESULTS.md]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_util import machine, write_preserved  # noqa: E402

WORKLOADS = [
    # The worst case: the smallest step this project trains (about 1.4 us),
    # where tracing's one clock read and three additions per step weigh most.
    ("serial, tiny steps (mlp:20-16-4, batch 16)",
     ["--mode", "serial", "--dataset", "teacher:20000x20:4", "--model", "mlp:20-16-4",
      "--batch", "16", "--epochs", "60"]),
    ("threads x2 (the default experiment, fashion-mnist)", ["--epochs", "4"]),
    ("threads-locked x2, blog MLP",
     ["--mode", "threads-locked", "--dataset", "random:10000x100:10", "--model",
      "mlp:100-256-10", "--batch", "32", "--epochs", "120"]),
    ("data-parallel x2 (threads), blog MLP",
     ["--mode", "data-parallel", "--dataset", "random:10000x100:10", "--model",
      "mlp:100-256-10", "--batch", "32", "--epochs", "120"]),
    ("data-parallel x2 (processes, forkserver), blog MLP",
     ["--mode", "data-parallel", "--transport", "processes", "--dataset", "random:10000x100:10",
      "--model", "mlp:100-256-10", "--batch", "32", "--epochs", "120"]),
    ("processes x2 (fork), blog MLP",
     ["--mode", "processes", "--start-method", "fork", "--dataset", "random:10000x100:10",
      "--model", "mlp:100-256-10", "--batch", "32", "--epochs", "120"]),
]


def shares_of_events(events):
    """Each worker's seconds per kind (KINDS) in a trace's events."""
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
             if e["ph"] == "M" and e["name"] == "thread_name"}
    seconds = {}
    for e in events:
        name = names.get((e["pid"], e["tid"]), "")
        if e["ph"] == "X" and name.startswith("worker ") and e["name"] in KINDS:
            seconds.setdefault(name, dict.fromkeys(KINDS, 0.0))[e["name"]] += e["dur"] * 1e-6
    return seconds


def shares(trace_file):
    """shares_of_events() of a trace file."""
    with open(trace_file) as f:
        return shares_of_events(json.load(f)["traceEvents"])


def self_test():
    """The breakdown on made-up events: a worker's kinds summed, the run's own
    track (its evaluations) left out."""
    events = [{"ph": "M", "name": "thread_name", "pid": 1, "tid": 2,
               "args": {"name": "worker 0"}},
              {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1,
               "args": {"name": "run: evaluation and outputs"}},
              {"ph": "X", "name": "compute", "pid": 1, "tid": 2, "ts": 0, "dur": 5},
              {"ph": "X", "name": "wait", "pid": 1, "tid": 2, "ts": 5, "dur": 1},
              {"ph": "X", "name": "epoch gate", "pid": 1, "tid": 2, "ts": 6, "dur": 2},
              {"ph": "X", "name": "compute", "pid": 1, "tid": 2, "ts": 8, "dur": 3},
              {"ph": "X", "name": "evaluate", "pid": 1, "tid": 1, "ts": 6, "dur": 2}]
    got = shares_of_events(events)
    assert list(got) == ["worker 0"], got
    want = {"compute": 8e-6, "wait": 1e-6, "epoch gate": 2e-6, "communicate": 0.0,
            "paced": 0.0}
    for kind, value in want.items():
        assert abs(got["worker 0"][kind] - value) < 1e-12, (kind, got)
    print("trace_cost self-test: passed")
    return 0


def run(app, args, folder, traced):
    out = os.path.join(folder, "traced" if traced else "plain")
    cmd = [app, "--headless", "--quiet", "--overwrite", "--out", out] + args
    trace = os.path.join(folder, "run.trace.json")
    if traced:
        cmd += ["--trace", trace]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "summary.json")) as f:
        final = json.load(f)["final"]
    size = os.path.getsize(trace) / max(final["train_seconds"], 1e-9) if traced else 0
    return final["samples_per_second"], size, shares(trace) if traced else {}


# The trace's kinds of a worker's time (core/telemetry/trace.h's names).
KINDS = ("compute", "wait", "communicate", "epoch gate", "paced")
SHOWN = ("compute", "epoch gate", "wait", "communicate")  # the breakdown's (nothing is paced)
TITLE = "## Tracing's cost, and where the time goes (bench/trace_cost.py)"
TARGET = 0.97


def measure(app, args, folder, repeats):
    ratios, sizes, breakdowns = [], [], []
    for i in range(repeats):
        order = [False, True] if i % 2 == 0 else [True, False]
        rates = {}
        for traced in order:
            rates[traced], size, seconds = run(app, args, folder, traced)
            if traced:
                sizes.append(size)
                breakdowns.append(seconds)
        ratios.append(rates[True] / rates[False])
    return ratios, sizes, breakdowns


def breakdown_row(label, breakdowns):
    """Per worker: each kind's share of its traced time, median over the runs."""
    cells = []
    for worker in sorted(breakdowns[0]):
        parts = []
        for kind in SHOWN:
            fractions = [b[worker][kind] / max(sum(b[worker].values()), 1e-12)
                         for b in breakdowns if worker in b]
            parts.append("%.0f%%" % (100 * statistics.median(fractions)))
        cells.append("%s: %s" % (worker, " / ".join(parts)))
    return "| %s | %s |" % (label, "; ".join(cells))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", default="build/app/hogwild-lab")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--results", help="write the section into this RESULTS.md")
    parser.add_argument("--self-test", action="store_true",
                        help="check the breakdown's arithmetic on made-up events, and exit")
    opts = parser.parse_args()
    if opts.self_test:
        return self_test()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load_before = " ".join("%.2f" % x for x in os.getloadavg())
    lines = [TITLE, "",
             "`python3 bench/trace_cost.py` (also run by `bash bench/run`), %s, on %s; load "
             "average before: %s. Each workload runs %d pairs, untraced and traced back to "
             "back in alternating order; a pair's ratio is the traced run's samples/s over the "
             "untraced one's (summary.json). Target: a median of at least %.2f (tracing costs "
             "at most 3%%). What tracing adds to a step: one clock read (shared with the "
             "telemetry's) and three additions into the slice in progress." %
             (started, machine(), load_before, opts.repeats, TARGET), "",
             "| workload | traced / untraced samples/s, median (range) | status | trace size |",
             "| --- | --- | --- | --- |"]
    where = ["", "Where the time goes, from the traced runs' traces: each worker's compute / "
             "epoch gate / wait / communicate as shares of its time from its first step to "
             "leaving its loop (epoch gate: at the epoch's end, for the other workers and "
             "while the coordinator evaluates the test set; wait: for the lock, or for the "
             "slowest replica at a collective's barriers; communicate: a collective's "
             "reducing and copying), median over the runs.", "",
             "| workload | compute / epoch gate / wait / communicate |", "| --- | --- |"]
    with tempfile.TemporaryDirectory() as folder:
        for label, args in WORKLOADS:
            ratios, sizes, breakdowns = measure(opts.app, args, folder, opts.repeats)
            where.append(breakdown_row(label, breakdowns))
            med = statistics.median(ratios)
            lines.append("| %s | %.3f (%.3f-%.3f) | %s | %.0f kB per second of training |"
                         % (label, med, min(ratios), max(ratios),
                            "met" if med >= TARGET else "**missed**",
                            statistics.median(sizes) / 1e3))
            print(lines[-1])
            sys.stdout.flush()
    lines += where
    print("\n".join(where))
    text = "\n".join(lines) + "\n"
    if opts.results:
        write_preserved(opts.results, TITLE, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
