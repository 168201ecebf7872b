#!/usr/bin/env python3
"""Loading speed and memory of the CSV and LIBSVM readers on a generated
1 GB file of each (build/bench/loading, one process per load, so each peak
is its own). Side by side in the same run, repeated: `cat FILE > /dev/null`
(what reading the file alone costs here: the page cache's speed), the
reader on 1 thread (the serial path: the same parser, no pipeline), and the
reader on every core; then one load with the train/test split a run does
(test fraction 0.1). Figures: MB/s of file (10^6 bytes), and the peak RSS of
the process against the loaded dataset (the arrays: features, labels and,
for LIBSVM, the CSR offsets and indices).

  bench/loading.py --loading build/bench/loading --out build/bench-results/loading.json

The files go to the folder of --out and are deleted after. Prints the
markdown section (section()) that bench/report.py puts in bench/RESULTS.md.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time

TARGET_MBS = 250.0
TARGET_PEAK = 1.3


def csv_block(rng, rows, dim):
    lines = []
    for _ in range(rows):
        lines.append("%d,%s" % (rng.randrange(10), ",".join(
            "%.6g" % rng.gauss(0, 1) for _ in range(dim))))
    return ("\n".join(lines) + "\n").encode()


def libsvm_block(rng, rows, vocab, nnz):
    lines = []
    for _ in range(rows):
        idx = sorted(rng.sample(range(1, vocab + 1), nnz))
        lines.append("%d %s" % (rng.randrange(10), " ".join(
            "%d:%.6g" % (i, rng.gauss(0, 1)) for i in idx)))
    return ("\n".join(lines) + "\n").encode()


def generate(path, block, size):
    """`size` bytes or a little more: `block` (distinct rows) over and over."""
    written = 0
    with open(path, "wb") as f:
        while written < size:
            f.write(block)
            written += len(block)
    return written


def run_load(loader, fmt, path, threads, split=None):
    cmd = [loader, fmt, path, "--threads", str(threads)]
    if split is not None:
        cmd += ["--split", str(split)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(cmd), out.stderr.strip()))
    r = json.loads(out.stdout)
    r["mbs"] = r["file_bytes"] / r["seconds"] / 1e6
    r["cpus"] = r["cpu_seconds"] / r["seconds"]
    r["peak_ratio"] = r["rss_peak_kib"] * 1024.0 / r["dataset_bytes"]
    return r


def cat_mbs(path):
    start = time.monotonic()
    with open(path, "rb") as f:
        while f.read(1 << 22):
            pass
    return os.path.getsize(path) / (time.monotonic() - start) / 1e6


def measure(loader, fmt, path, repeats, deadline):
    m = {"cat": [], "serial": [], "parallel": [], "split": None}
    for i in range(repeats):
        if i > 0 and time.monotonic() > deadline:
            break
        m["cat"].append(cat_mbs(path))
        m["serial"].append(run_load(loader, fmt, path, 1))
        m["parallel"].append(run_load(loader, fmt, path, 0))
        print("loading: %s %s: cat %.0f MB/s, 1 thread %.0f MB/s, all cores %.0f MB/s "
              "(peak %.2fx the dataset)" % (fmt, i + 1, m["cat"][-1], m["serial"][-1]["mbs"],
                                           m["parallel"][-1]["mbs"],
                                           m["parallel"][-1]["peak_ratio"]), flush=True)
    m["split"] = run_load(loader, fmt, path, 0, 0.1)
    return m


def span(values, fmt="%.0f"):
    if not values:
        return "?"
    return (fmt + " (" + fmt + "–" + fmt + ")") % (statistics.median(values), min(values),
                                                   max(values))


def rows_for(fmt, m, file_bytes):
    par, ser = m["parallel"], m["serial"]
    ratio = [p["mbs"] / s["mbs"] for p, s in zip(par, ser)]
    first = par[0]
    shape = "%d rows × %d, %.0f MB" % (first["rows"], first["dim"], first["dataset_bytes"] / 1e6)
    return [
        "| %s, %.2f GB (%s) | %s | %s | %s | %s | %s | %s | %s |" % (
            fmt.upper(), file_bytes / 1e9, shape, span(m["cat"]), span([s["mbs"] for s in ser]),
            span([p["mbs"] for p in par]), span(ratio, "%.2f"),
            span([p["cpus"] for p in par], "%.2f"),
            span([p["peak_ratio"] for p in par], "%.2f"),
            "%.2f" % m["split"]["peak_ratio"]),
    ]


def verdicts(doc):
    out = []
    for fmt in ("csv", "libsvm"):
        m = doc.get(fmt)
        if not m:
            continue
        mbs = statistics.median(p["mbs"] for p in m["parallel"])
        peak = max(p["peak_ratio"] for p in m["parallel"])
        cpus = statistics.median(p["cpus"] for p in m["parallel"])
        per_cpu = statistics.median(p["mbs"] / p["cpus"] for p in m["parallel"])
        short = ""
        if mbs < TARGET_MBS and cpus < doc["cores"] - 0.5:
            short = (" while other programs left it %.2f of the %d cores; %.0f MB per CPU "
                     "second" % (cpus, doc["cores"], per_cpu))
        out.append("%s: %.0f MB/s on %d cores (target %.0f: %s%s), peak %.2fx the dataset "
                   "(target %.1f: %s)" % (
                       fmt.upper(), mbs, doc["cores"], TARGET_MBS,
                       "met" if mbs >= TARGET_MBS else "missed", short, peak, TARGET_PEAK,
                       "met" if peak <= TARGET_PEAK else "missed"))
    return out


def section(doc):
    """The markdown for bench/RESULTS.md."""
    if not doc:
        return "Not measured in this run."
    lines = ["| file | `cat` MB/s | 1 thread MB/s | all cores MB/s | all cores / 1 thread | "
             "CPUs it got | peak RSS / dataset | with the split |",
             "|---|---|---|---|---|---|---|---|"]
    for fmt in ("csv", "libsvm"):
        if doc.get(fmt):
            lines += rows_for(fmt, doc[fmt], doc[fmt]["file_bytes"])
    text = "\n".join(lines)
    text += "\n\n" + "; ".join(verdicts(doc)) + "."
    text += (
        "\n\n`%s` (%d cores; load average %s at the start). Median (min–max) of %d runs, each "
        "a process of its own; one file per format, generated into build/bench-results/ and "
        "deleted after (CSV: a label and 100 features written `%%.6g`; LIBSVM: a label and 60 "
        "of 1000 indices). `cat`: reading the file alone (from the page cache); 1 thread: the "
        "serial path (the same parser, no pipeline); all cores: the pipeline of 1 MiB chunks; "
        "CPUs it got: its CPU time over its wall time (below the core count when other "
        "programs had the cores: the MB/s then fall with it). "
        "Peak RSS is the whole process's (GNU's ru_maxrss) over the dataset's arrays (features "
        "and labels; for LIBSVM also offsets and indices); \"with the split\": one more load "
        "followed by the shuffle and split of a run at test fraction 0.1, which copies the test "
        "rows (dense) or gathers each array of both parts anew, one array at a time (sparse)." % (doc["command"], doc["cores"], doc["load_start"],
                   max(len(doc[f]["parallel"]) for f in ("csv", "libsvm") if doc.get(f))))
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loading", default="build/bench/loading", help="the bench program")
    ap.add_argument("--out", default="build/bench-results/loading.json")
    ap.add_argument("--bytes", type=float, default=1e9, help="size of each generated file")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--budget-s", type=float, default=80, help="fewer repeats beyond it")
    a = ap.parse_args()
    if not os.access(a.loading, os.X_OK):
        print("loading: %s is not built (ninja -C build loading)" % a.loading, file=sys.stderr)
        return 1
    folder = os.path.dirname(os.path.abspath(a.out))
    os.makedirs(folder, exist_ok=True)
    start = time.monotonic()
    doc = {"command": "bench/loading.py --bytes %.0f" % a.bytes, "cores": os.cpu_count(),
           "load_start": " ".join(open("/proc/loadavg").read().split()[:3])}
    rng = random.Random(22)
    blocks = {"csv": lambda: csv_block(rng, 10000, 100),
              "libsvm": lambda: libsvm_block(rng, 10000, 1000, 60)}
    for i, fmt in enumerate(("csv", "libsvm")):
        path = os.path.join(folder, "loading-bench." + fmt)
        try:
            size = generate(path, blocks[fmt](), a.bytes)
            # Each format gets its half of what is left of the budget.
            left = a.budget_s - (time.monotonic() - start)
            m = measure(a.loading, fmt, path, a.repeats, time.monotonic() + left / (2 - i) * 0.6)
            m["file_bytes"] = size
            doc[fmt] = m
        finally:
            if os.path.exists(path):
                os.remove(path)
    doc["seconds"] = time.monotonic() - start
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
    print(section(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
