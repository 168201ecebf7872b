#!/usr/bin/env python3
"""The MPI transport's two reductions, side by side, as a markdown section.

1. Time per reduction of the blog MLP's gradients (100-256-10: 28,426
   floats, 113 KB) between 2 ranks, over shared memory and over TCP:
   `--reduce mpi` (Open MPI's collectives), `--reduce exact` (rank 0's hub)
   and Open MPI's own MPI_Allreduce on the same buffer, timed in turns in
   one process (bench/mpicollective), several rounds per run, several runs.
   The target: the fast path at >= 90% of MPI_Allreduce's speed.
2. Bytes each rank sends and receives per reduction at 2, 4 and 8 ranks
   (mpirun --oversubscribe, over TCP: bench/mpicollective --bytes counts
   what each rank passed to its sockets). The target: the fast path's
   per-rank bytes do not grow with the rank count.

    python3 bench/mpi_scaling.py [--bench build/bench/mpicollective] [--runs 3]
                                 [--ranks 2,4,8] [--quick] [--out FILE]

Prints the markdown (and writes it to FILE); bench/report.py includes FILE
in bench/RESULTS.md with --mpi-scaling FILE. Exit 1 when nothing ran.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_util  # noqa: E402

OP_RE = re.compile(r"^  (allreduce 113 KB, \w+, [^\n]*?)\s+([\d.]+) us\s", re.M)
RATIO_RE = re.compile(r"^  ratio 113 KB, (\w+): reduce mpi at (\d+)% of MPI_Allreduce's speed "
                      r"\(median of (\d+) rounds, middle half (\d+)-(\d+)%, all (\d+)-(\d+)%\)",
                      re.M)
BYTES_RE = re.compile(r"^bytes reduce (\w+) ranks (\d+) rank (\d+) sent (\d+) received (\d+) "
                      r"buffer (\d+)$", re.M)


def mpirun(n, args, timeout):
    root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
    cmd = ["mpirun"] + root + ["--oversubscribe", "-np", str(n)] + args
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, " ".join(cmd)
    return p, " ".join(cmd)


def timings(bench, runs, quick):
    """{link: {"ops": {what: [us...]}, "ratios": [(median, lo, hi)...]}}"""
    out = {}
    for link, btl in (("shm", []), ("tcp", ["--mca", "btl", "self,tcp"])):
        entry = out.setdefault(link, {"ops": {}, "ratios": [], "failed": 0})
        for _ in range(runs if link == "shm" else 1):
            # TCP: one quick run (its 100 MB rounds take seconds each).
            fast = quick or link == "tcp"
            p, cmd = mpirun(2, btl + [bench] + (["--quick"] if fast else []) + [link], 600)
            if p is None or p.returncode != 0:
                entry["failed"] += 1
                print("  mpi_scaling: FAILED: " + cmd, file=sys.stderr)
                continue
            for what, us in OP_RE.findall(p.stdout):
                entry["ops"].setdefault(what.split(", ", 2)[2], []).append(float(us))
            for _, med, rounds, q1, q3, lo, hi in RATIO_RE.findall(p.stdout):
                entry["ratios"].append(tuple(int(x) for x in (med, rounds, q1, q3, lo, hi)))
            print("  mpi_scaling: 2 ranks over %s: %s" % (link, ", ".join(
                "%s %.1f us" % (k, v[-1]) for k, v in entry["ops"].items())), flush=True)
    return out


def byte_counts(bench, ranks):
    """{(way, n): [(rank, sent, received)...]}, buffer bytes"""
    counts, buffer = {}, 0
    for n in ranks:
        p, cmd = mpirun(n, ["--mca", "btl", "self,tcp", bench, "--bytes"], 300)
        if p is None or p.returncode != 0:
            print("  mpi_scaling: FAILED: " + cmd, file=sys.stderr)
            continue
        for way, size, rank, sent, received, buf in BYTES_RE.findall(p.stdout):
            counts.setdefault((way, int(size)), []).append((int(rank), int(sent), int(received)))
            buffer = int(buf)
        print("  mpi_scaling: bytes at %d ranks counted" % n, flush=True)
    return counts, buffer


def machine():
    mpi = subprocess.run(["mpirun", "--version"], capture_output=True, text=True).stdout
    return "%s; %s" % (report_util.machine(), (mpi.splitlines() or ["mpirun ?"])[0].strip())


def kb(x):
    return "%.1f KB" % (x / 1000.0)


def markdown(times, counts, buffer, runs):
    lines = ["### MPI: Open MPI's collectives (`--reduce mpi`) and rank 0's hub "
             "(`--reduce exact`)", ""]
    lines += ["Time per reduction of the blog MLP's gradients (28,426 floats, 113 KB), 2 ranks "
              "(each run times the three in turns, in short rounds; a time is the median "
              "round over runs, the ratio the median of the runs' median per-round ratios):",
              "",
              "| link | reduce mpi | reduce exact | MPI_Allreduce | reduce mpi's speed / "
              "MPI_Allreduce's (target >= 90%) |", "| --- | --- | --- | --- | --- |"]
    for link in ("shm", "tcp"):
        e = times.get(link, {})
        ops = e.get("ops", {})

        def us(key):
            v = ops.get(key)
            return "%.1f us" % statistics.median(v) if v else "-"
        ratios = e.get("ratios", [])
        if ratios:
            ratio = "%s%% (runs' medians %s; middle half of rounds %d-%d%%, %d rounds in all)" % (
                "%.0f" % statistics.median(r[0] for r in ratios),
                ", ".join("%d%%" % r[0] for r in ratios), min(r[2] for r in ratios),
                max(r[3] for r in ratios), sum(r[1] for r in ratios))
        else:
            ratio = "FAILED" if e.get("failed") else "-"
        lines.append("| %s | %s | %s | %s | %s |" % (
            {"shm": "shared memory", "tcp": "TCP (loopback)"}[link],
            us("MpiCollective (reduce mpi)"), us("MpiCollective (reduce exact)"),
            us("MPI_Allreduce"), ratio))
    lines += ["", "Bytes each rank sends and receives per 113 KB reduction (over TCP, counted "
              "at the sockets, MPI's headers included; the buffer is %s):" % kb(buffer), "",
              "| ranks | reduce mpi: most any rank sent / received | of the buffer | "
              "reduce exact: rank 0 sent / received | other ranks |",
              "| --- | --- | --- | --- | --- |"]
    for n in sorted({n for _, n in counts}):
        fast = counts.get(("mpi", n), [])
        hub = counts.get(("exact", n), [])
        row = ["%d" % n]
        if fast:
            s, r = max(x[1] for x in fast), max(x[2] for x in fast)
            row += ["%s / %s" % (kb(s), kb(r)), "%.2f× (2(N-1)/N = %.2f×)" % (
                max(s, r) / buffer, 2.0 * (n - 1) / n)]
        else:
            row += ["-", "-"]
        zero = [x for x in hub if x[0] == 0]
        rest = [x for x in hub if x[0] != 0]
        row.append("%s / %s" % (kb(zero[0][1]), kb(zero[0][2])) if zero else "-")
        row.append("%s / %s" % (kb(max(x[1] for x in rest)), kb(max(x[2] for x in rest)))
                   if rest else "-")
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", "`python3 bench/mpi_scaling.py` (%d run%s of `mpirun -np 2 "
              "build/bench/mpicollective`, one over `--mca btl self,tcp`; `mpirun -np N "
              "--oversubscribe --mca btl self,tcp build/bench/mpicollective --bytes`), on %s. "
              "reduce mpi: MPI_Ialltoallv gives each rank every rank's copy of its block, the "
              "rank sums it in rank order in double (the hub's own code) and MPI_Iallgatherv "
              "copies the blocks back, so each rank moves 2(N-1)/N of the buffer each way "
              "(never twice the buffer) and every rank, the hub and the threads and processes "
              "transports hold the same bits. reduce exact: rank 0 receives and sends N-1 "
              "buffers per reduction, growing with the rank count. Ranks beyond the cores "
              "time-share them (--oversubscribe): the byte counts hold, times at 4 and 8 ranks "
              "would not mean much here, so none are given." % (
                  runs, "" if runs == 1 else "s", machine())]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", default="build/bench/mpicollective")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--ranks", default="2,4,8")
    ap.add_argument("--quick", action="store_true", help="fewer rounds and repetitions")
    ap.add_argument("--out", help="also write the markdown here")
    a = ap.parse_args()
    if not shutil.which("mpirun") or not os.access(a.bench, os.X_OK):
        why = "mpirun is not on PATH" if not shutil.which("mpirun") else \
            "%s is not built (no MPI in this build?)" % a.bench
        text = "### MPI reductions\n\nNot measured: %s.\n" % why
        rc = 1
    else:
        times = timings(a.bench, a.runs, a.quick)
        counts, buffer = byte_counts(a.bench, [int(x) for x in a.ranks.split(",") if x])
        text = markdown(times, counts, buffer or 28426 * 4, a.runs)
        rc = 0 if (counts or any(t["ops"] for t in times.values())) else 1
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    return rc


if __name__ == "__main__":
    sys.exit(main())
