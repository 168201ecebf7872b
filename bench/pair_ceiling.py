#!/usr/bin/env python3
"""Two workers against this machine's 2-worker ceiling, side by side in one run.

The ceiling: two INDEPENDENT serial engine runs at once (nothing shared, no
Hogwild), their combined samples/s. It includes what the two cores lose to
each other (shared caches, memory bandwidth, frequency, a hypervisor's SMT
siblings) and none of Hogwild's own costs, so no 2-worker mode can beat it
here. Each repeat measures, interleaved so the machine's noise hits all
alike, for each workload:

  dense   the blog's MLP 100-256-10 (random 10000x100), runs of a few seconds:
          serial alone, the pair, Hogwild x2 over threads and over processes
          under each start method (--split replicate: each worker does a
          serial run's work), process Hogwild x2 with --no-share (a private
          copy each: what sharing the parameters costs); data-parallel x2
          against its own ceiling is bench/dataparallel.py's;
  sparse  the embedding bag (20000-32-4 on sparse-bow): serial alone, the
          pair, Hogwild x2 over threads and processes (forkserver), and
          the latter with --no-share.

Then build/bench/sharedupdate (--sharedupdate): what moving the dense
model's parameters from one core to the other costs by itself.

A row's fraction of the ceiling in one repeat is its samples/s over the
pair's of the same repeat. Writes JSON: {"ceiling": {workload: {"alone",
"pair", "ratio"}}, "rows": [{"workload", "label", "args", "rates",
"fractions"}], plus "alone", "pair", "ratio" of the dense workload for
the summary's context row.

    python3 bench/pair_ceiling.py --app build/app/hogwild-lab --out FILE
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import engine_runs  # noqa: E402

RATE = re.compile(r"summary: \w+ after .*?: ([0-9.]+)([kM]?) samples/s")


def rate(text):
    m = RATE.search(text)
    if not m:
        raise RuntimeError("no summary line in:\n" + text[-500:])
    return float(m.group(1)) * {"": 1, "k": 1e3, "M": 1e6}[m.group(2)]


def two(*extra):
    return ["--workers", "2"] + list(extra)


def hogwild(method):
    if method == "threads":
        return ["--mode", "threads"] + two("--split", "replicate")
    return ["--mode", "processes", "--start-method", method] + two("--split", "replicate")


# label -> mode flags; every row runs the workload's serial epochs
DENSE_ROWS = [
    ("Hogwild threads ×2", hogwild("threads")),
    ("Hogwild processes fork ×2", hogwild("fork")),
    ("Hogwild processes spawn ×2", hogwild("spawn")),
    ("Hogwild processes forkserver ×2", hogwild("forkserver")),
    ("process Hogwild fork ×2, --no-share (private copies)", hogwild("fork") + ["--no-share"]),
]
SPARSE_ROWS = [
    ("Hogwild threads ×2", hogwild("threads")),
    ("Hogwild processes forkserver ×2", hogwild("forkserver")),
    ("process Hogwild forkserver ×2, --no-share (private copies)",
     hogwild("forkserver") + ["--no-share"]),
]
WORKLOADS = {"dense": (engine_runs.BLOG, DENSE_ROWS), "sparse": (engine_runs.SPARSE, SPARSE_ROWS)}


def run(app, args, epochs, timeout):
    cmd = [app, "--headless", "--quiet", "--epochs", str(epochs)] + args
    return rate(subprocess.run(cmd, capture_output=True, text=True, check=True,
                               timeout=timeout).stdout)


def pair(app, args, epochs):
    cmd = [app, "--headless", "--quiet", "--epochs", str(epochs)] + args
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    return sum(rate(p.communicate()[0]) for p in procs)


def calibrate(app, base, seconds):
    """Epochs for a serial run of about `seconds` (from a 3-epoch probe)."""
    t = time.time()
    run(app, base + ["--mode", "serial"], 3, 60)
    per_epoch = max(1e-4, (time.time() - t) / 3)
    return max(10, min(2000, int(seconds / per_epoch)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--app", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=2.5,
                    help="about how long one serial run lasts (default 2.5)")
    ap.add_argument("--sharedupdate", help="build/bench/sharedupdate, when built")
    a = ap.parse_args()
    doc = {"ceiling": {}, "rows": [], "epochs": {}, "seconds": a.seconds}
    rows = {}
    for name, (base, spec) in WORKLOADS.items():
        epochs = calibrate(a.app, base, a.seconds)
        doc["epochs"][name] = epochs
        doc["ceiling"][name] = {"alone": [], "pair": [], "ratio": []}
        for label, flags in spec:
            rows[(name, label)] = {"workload": name, "label": label, "epochs": epochs,
                                   "args": " ".join(base + flags), "rates": [], "fractions": []}
    for rep in range(a.repeats):
        for name, (base, spec) in WORKLOADS.items():
            epochs = doc["epochs"][name]
            serial = base + ["--mode", "serial"]
            alone = run(a.app, serial, epochs, 300)
            both = pair(a.app, serial, epochs)
            c = doc["ceiling"][name]
            c["alone"].append(alone)
            c["pair"].append(both)
            c["ratio"].append(both / alone)
            line = []
            for label, flags in spec:
                r = rows[(name, label)]
                x = run(a.app, base + flags, epochs, 300)
                r["rates"].append(x)
                r["fractions"].append(x / both)
                line.append("%s %.0f%%" % (label, 100 * x / both))
            print("pair ceiling %s, repeat %d: alone %.0f, pair %.0f samples/s (%.2fx); %s"
                  % (name, rep + 1, alone, both, both / alone, ", ".join(line)), flush=True)
    doc["rows"] = list(rows.values())
    if a.sharedupdate and os.access(a.sharedupdate, os.X_OK):
        # What moving the parameter vector between the cores costs by itself.
        out = subprocess.run([a.sharedupdate], capture_output=True, text=True, timeout=120)
        doc["sharedupdate"] = out.stdout.strip().splitlines()
        print("\n".join(doc["sharedupdate"]), flush=True)
    dense = doc["ceiling"]["dense"]
    doc.update({k: dense[k] for k in ("alone", "pair", "ratio")})
    doc["command"] = "%s --headless --quiet --epochs %d %s --mode serial" % (
        a.app, doc["epochs"]["dense"], " ".join(engine_runs.BLOG))
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
