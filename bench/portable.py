"""The portable build against the native one, side by side in one run.

A portable build (HWL_NATIVE=OFF: the engine for x86-64-v2, its kernels in
modules for AVX2 and AVX-512 chosen at start) should train within 5% of a
build for this very machine (-march=native). This runs serial training (the
blog's MLP and the sparse embedding bag) and the MLP data-parallel on two
processes (the step's kernels plus the collective's reduce), with three
engines in turn, round after round (so the machine's drift falls on all three
alike): the native build, the portable build as it chooses, and the portable
build held to its own x86-64-v2 copy (HWL_CPU_KERNELS=builtin: what the
modules buy). Each ratio is taken within one round; the section gives their
median and range.

    python3 bench/portable.py [--native build/app/hogwild-lab-engine]
        [--portable build-portable/app/hogwild-lab-engine] [--rounds 3]
        [--results bench/RESULTS.md]

build-portable/ is made by bench/run, or by hand:
    HWL_BUILD_DIR=build-portable HWL_BUILD_TARGETS=hogwild-lab-engine \\
      HWL_CMAKE_ARGS="-DHWL_NATIVE=OFF -DHWL_BUILD_TESTS=OFF -DHWL_BUILD_BENCH=OFF" bash .ci/setup

With --results it writes its section into that file, below the line that
bench/report.py keeps (replacing its earlier one); it always prints it.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from engine_runs import BLOG, SPARSE, parse  # noqa: E402
from report_util import machine, write_preserved  # noqa: E402

TITLE = "## The portable build against the native one (bench/portable.py)"
TARGET = 0.95
SERIAL = ["--mode", "serial"]
# Two processes averaging their gradients every step through the shared-memory
# collective: its mean in rank order is the kernel table's too.
DATA_PARALLEL = ["--mode", "data-parallel", "--transport", "processes", "--workers", "2"]
WORKLOADS = [
    ("the blog's MLP 100-256-10, batch 32, 200 epochs", SERIAL + BLOG + ["--epochs", "200"]),
    ("embedding bag 20000-32-4, batch 32, 200 epochs", SERIAL + SPARSE + ["--epochs", "200"]),
    ("the blog's MLP, data-parallel x2 (processes), 100 epochs",
     DATA_PARALLEL + BLOG + ["--epochs", "100"]),
]


def version_line(engine, env):
    out = subprocess.run([engine, "--version"], env=env, capture_output=True, text=True).stdout
    return next((l for l in out.splitlines() if l.startswith("CPU kernels")), "?")


def run(engine, args, env):
    p = subprocess.run([engine, "--quiet"] + args, env=env,
                       capture_output=True, text=True, timeout=600)
    r = parse(p.stdout)
    if p.returncode != 0 or "samples_per_s" not in r:
        raise SystemExit("portable.py: %s failed (exit %d): %s" % (engine, p.returncode,
                                                                   p.stderr.strip()[-500:]))
    return r["samples_per_s"]


def measure(a):
    base = {k: v for k, v in os.environ.items() if not k.startswith("HWL_CPU_")}
    builtin = dict(base, HWL_CPU_KERNELS="builtin")
    engines = [("native", a.native, base), ("portable", a.portable, base),
               ("portable, x86-64-v2 only", a.portable, builtin)]
    kernels = {name: version_line(exe, env) for name, exe, env in engines}
    results = []
    for label, args in WORKLOADS:
        rates = {name: [] for name, _, _ in engines}
        for _ in range(a.rounds):
            for name, exe, env in engines:
                rates[name].append(run(exe, args, env))
        results.append((label, rates))
    return engines, kernels, results


def section(engines, kernels, results, rounds, started, load_before):
    lines = [TITLE, "",
             "`python3 bench/portable.py` (also run by `bash bench/run`), %s; %d rounds, each "
             "running every engine once in turn; load average before: %s. `--quiet`; samples/s from the run's summary line. Ratio: the portable build's "
             "rate over the native build's in the same round; median (min-max) over the rounds. "
             "Target: the portable build at least %.2f of the native one." %
             (started, rounds, load_before, TARGET), "",
             "| workload | native | portable | portable / native | target | "
             "x86-64-v2 only / native |",
             "| --- | --- | --- | --- | --- | --- |"]
    for label, rates in results:
        nat, por, v2 = (rates[name] for name, _, _ in engines)
        ratio = [p / n for p, n in zip(por, nat)]
        ratio2 = [p / n for p, n in zip(v2, nat)]
        med = statistics.median(ratio)
        lines.append("| %s | %.0fk/s | %.0fk/s | %.3f (%.3f-%.3f) | %s | %.3f (%.3f-%.3f) |" % (
            label, statistics.median(nat) / 1e3, statistics.median(por) / 1e3, med, min(ratio),
            max(ratio), "met" if med >= TARGET else "MISSED", statistics.median(ratio2),
            min(ratio2), max(ratio2)))
    lines += ["", "What each ran (its `--version`):", ""]
    for name, exe, env in engines:
        forced = " with HWL_CPU_KERNELS=builtin" if env.get("HWL_CPU_KERNELS") else ""
        # A module's path as the repository names it, not this checkout's.
        where = kernels[name].replace(os.getcwd() + os.sep, "")
        lines.append("- %s (`%s`%s): %s" % (name, exe, forced, where))
    lines += ["", "Machine: %s." % machine()]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--native", default="build/app/hogwild-lab-engine",
                    help="a native build's engine (default: build/app/hogwild-lab-engine)")
    ap.add_argument("--portable", default="build-portable/app/hogwild-lab-engine",
                    help="a portable build's engine (default: build-portable/app/...)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--results", help="write the section into this RESULTS.md")
    a = ap.parse_args()
    for exe in (a.native, a.portable):
        if not os.access(exe, os.X_OK):
            raise SystemExit("portable.py: %s is not an executable; build it first (see "
                             "bench/portable.py's docstring)" % exe)
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load_before = " ".join("%.2f" % x for x in os.getloadavg())
    engines, kernels, results = measure(a)
    text = section(engines, kernels, results, a.rounds, started, load_before)
    print(text)
    if a.results:
        write_preserved(a.results, TITLE, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
