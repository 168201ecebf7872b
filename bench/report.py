"""Turns the JSON that bench/run's drivers wrote into bench/RESULTS.md (and
prints it on stdout): the header, the targets and the order of the sections
here; the tables in report_tables.py (engine, PyTorch), report_pair.py (the
pair ceiling), report_dp.py (data-parallel), loading.py and the scaling
model's own markdown; shared helpers in report_util.py.

    python3 bench/report.py --engine E.json [--pytorch P.json | --pytorch-skipped WHY]
                            [--stepkernel S.json] --out bench/RESULTS.md [--timings K=V,...]
"""

import argparse
import datetime
import json
import os
import platform
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_dp  # noqa: E402
import report_pair  # noqa: E402
import loading  # noqa: E402
from report_tables import (  # noqa: E402
    MODE_LABEL, engine_items, engine_table, extra_per_worker, fmnist_section, lost_updates_table,
    memory_table, memory_totals, pytorch_memory_table, pytorch_table, ratio_rows, scaling_table,
    startup_table, stepkernel_figures, stepkernel_summary)
from report_util import (PRESERVED, med, pooled, rate, sh, stats, table,  # noqa: E402
                         verdict)

TARGET_CEILING_SHARE = 50.0   # % of the single-core matmul ceiling, serial step
TARGET_CNN_CEILING_SHARE = 60.0  # % of that ceiling, cnn:mnist's step (batch 64)
TARGET_VS_PYTORCH = 10.0      # engine serial / PyTorch serial loop
TARGET_SPAWN_MS = 50.0
TARGET_FORK_MS = 5.0          # fork and forkserver
TARGET_EXTRA_MB = 30.0        # extra memory per extra process worker


def machine(engine_doc, pytorch_doc, build_dir, pytorch_skipped):
    lscpu = sh("lscpu")

    def field(name):
        m = re.search(r"^%s:\s*(.*)$" % re.escape(name), lscpu, re.M)
        return m.group(1).strip() if m else "?"
    mem_kb = 0
    try:
        with open("/proc/meminfo") as f:
            mem_kb = int(re.search(r"MemTotal:\s+(\d+)", f.read()).group(1))
    except (OSError, AttributeError):
        pass
    compiler = "?"
    cache = os.path.join(build_dir, "CMakeCache.txt")
    build_type = ""
    if os.path.exists(cache):
        with open(cache) as f:
            text = f.read()
        m = re.search(r"^CMAKE_CXX_COMPILER:\w+=(.*)$", text, re.M)
        if m:
            compiler = sh("%s --version | head -1" % m.group(1)) or m.group(1)
        m = re.search(r"^CMAKE_BUILD_TYPE:\w+=(.*)$", text, re.M)
        build_type = m.group(1) if m else ""
    if compiler == "?":
        compiler = sh("c++ --version | head -1") or "?"
    torch = "not available (%s)" % pytorch_skipped if pytorch_skipped else "?"
    versions = [r["torch"] for runs in (pytorch_doc or {}).get("results", {}).values()
                for r in runs if r.get("torch")]
    if versions:
        py = pytorch_doc["python"]
        py_version = sh(py + " -c 'import platform; print(platform.python_version())'")
        torch = "%s (%s, Python %s)" % (versions[0], py, py_version)
    vm = field("Hypervisor vendor")
    return {
        "cpu": "%s (family %s, model %s, %s)" % (
            field("Model name"), field("CPU family"), field("Model"),
            "virtual machine, " + vm if vm != "?" else "no hypervisor reported"),
        "cores": "%s CPUs (%s core(s) per socket, %s thread(s) per core)" % (
            field("CPU(s)"), field("Core(s) per socket"), field("Thread(s) per core")),
        "memory": "%.1f GiB" % (mem_kb / 1024.0 / 1024.0),
        "kernel": "%s %s" % (platform.system(), platform.release()),
        "compiler": compiler + (", CMake build type %s" % build_type if build_type else ""),
        "torch": torch,
        "os": sh(". /etc/os-release 2>/dev/null && echo \"$PRETTY_NAME\"") or "?",
    }


SCALING_LIMITS = (
    "**What limits 2-worker scaling** (perf, and the rows of section 3a): (1) the machine "
    "itself: two independent serial runs at once reach the ceiling, not 2×; every share above "
    "is of that ceiling. (2) Sharing parameters: a Hogwild worker's step reads lines of the "
    "parameter vector the other core has just written, and its update writes them back, so "
    "each step moves the model (113 KB for the blog's MLP) between the cores, twice. "
    "build/bench/sharedupdate times that transfer alone (section 3a quotes it): about as much "
    "per step as Hogwild ×2 loses against the --no-share rows, which reach the ceiling. The "
    "embedding bag's sparse-bow data draw 80% of their tokens from each class's 5% of the "
    "vocabulary, so its hot rows are shared the same way. Threads and processes pay the same "
    "on the same work (section 3a); the figures that set threads behind processes compared "
    "different runs. (3) On the blog's 3-epoch runs (30-60 ms of training), fixed costs: the "
    "workers' start-up (its own column) and the first steps on cold caches; the 3-epoch rows "
    "of the targets table set them against the long runs' ceiling.")


def cnn_ceiling_rows(sk):
    """cnn:mnist's step against the ceiling, and a layer list's against it."""
    cnn = stepkernel_figures(sk, "CNN cnn:mnist (batch 64)")
    listed = stepkernel_figures(sk, "the same CNN as a net: list")
    name = "cnn:mnist step ≥ %.0f%% of the single-core matmul ceiling" % TARGET_CNN_CEILING_SHARE
    if not cnn:
        return [[name, "stepkernel's CNN line not found; not measured in this run",
                 "not measured"]]
    rows = [[name, "stepkernel: step %.1f GFLOP/s = %.0f%% of %.1f GFLOP/s (1024^3), batch 64, "
             "%s samples/s" % (cnn[2], cnn[0], cnn[1], rate(cnn[3])),
             verdict(cnn[0], TARGET_CNN_CEILING_SHARE)]]
    if listed:
        rows.append(["the same network as a net: layer list no slower than cnn:mnist",
                     "%.1f / %.1f GFLOP/s = %.2f× (one kernel: a difference is noise)" %
                     (listed[2], cnn[2], listed[2] / cnn[2]),
                     verdict(listed[2] / cnn[2], 0.95)])
    return rows


def targets_table(eng, pt, sk, pair=None):
    rows = []
    serial = med(eng["results"].get("blog/serial/1/-", []), "samples_per_s")
    fig = stepkernel_figures(sk)
    if fig:
        share, ceiling, gflops, step_rate = fig
        ceiling_rate = step_rate * ceiling / gflops
        rows.append(["serial step ≥ %.0f%% of the single-core matmul ceiling" %
                     TARGET_CEILING_SHARE,
                     "stepkernel: step %.1f GFLOP/s = %.0f%% of %.1f GFLOP/s (1024^3); the CLI's "
                     "serial run (%s samples/s) is %.0f%% of that ceiling (%s samples/s)" %
                     (gflops, share, ceiling, rate(serial), 100 * serial / ceiling_rate if serial
                      else 0, rate(ceiling_rate)),
                     verdict(share, TARGET_CEILING_SHARE)])
    else:
        why = ("stepkernel absent" if not sk or not sk.get("present") else
               "stepkernel failed" if not sk.get("ok") else
               "stepkernel's summary line not found")
        rows.append(["serial step ≥ %.0f%% of the single-core matmul ceiling" %
                     TARGET_CEILING_SHARE, why + "; not measured in this run", "not measured"])
    rows += cnn_ceiling_rows(sk)
    ps = med(pt["results"].get("serial/1", []), "samples_per_s") if pt else None
    rows.append(["serial ≥ %.0f× PyTorch's serial loop" % TARGET_VS_PYTORCH,
                 "%s / %s = %.1f×" % (rate(serial), rate(ps), serial / ps) if serial and ps else
                 "PyTorch not measured" if not pt else "-",
                 verdict(serial / ps if serial and ps else None, TARGET_VS_PYTORCH)])
    if pair and pair.get("ratio"):
        r = stats(pair["ratio"])
        rows.append(["(context) this machine's 2-worker ceiling",
                     "two independent serial runs at once do %.2f× one alone (median of %d, "
                     "%.2f–%.2f): no 2-worker mode can exceed that here" % (r[0], r[3], r[1], r[2]),
                     "-"])
    short = {}
    for mode in ("threads", "fork", "spawn", "forkserver"):
        s = med(eng["results"].get("blog/%s/2/shard" % mode, []), "samples_per_s")
        short["Hogwild %s ×2 (shard)" % MODE_LABEL[mode]] = (s, serial)
    rows += report_pair.target_rows(pair, short)
    for method, target in (("spawn", TARGET_SPAWN_MS), ("fork", TARGET_FORK_MS),
                           ("forkserver", TARGET_FORK_MS)):
        v = []
        for w in (1, 2, 4):
            for split in ("replicate", "shard"):
                v += pooled(eng["results"].get("blog/%s/%d/%s" % (method, w, split), []),
                            "startup_ms")
        s = stats(v)
        v1 = pooled(eng["results"].get("blog/%s/1/replicate" % method, []), "startup_ms")
        s1 = stats(v1)
        rows.append(["%s start-up ≤ %.0f ms" % (method, target),
                     "median %.2f ms over %d worker starts (1 worker: %.2f ms)" % (
                         s[0], s[3], s1[0] if s1 else float("nan")) if s else "-",
                     verdict(s[0] if s else None, target, higher_is_better=False)])
    totals = memory_totals(eng)
    for method in ("fork", "spawn", "forkserver"):
        x = extra_per_worker(totals, method)
        rows.append(["extra memory per process worker ≤ %.0f MB (%s)" % (TARGET_EXTRA_MB, method),
                     "%.1f MB PSS ((4 workers − 1 worker) / 3)" % x if x is not None else "-",
                     verdict(x, TARGET_EXTRA_MB, higher_is_better=False)])
    return table(["target", "measured (medians)", "status"], rows)


def failures(eng, pt, sk):
    lines = []
    for name, doc in (("engine", eng), ("pytorch", pt)):
        if not doc:
            continue
        for key, runs in doc["results"].items():
            for i, r in enumerate(runs):
                if not r.get("ok"):
                    lines.append("- %s %s run %d: %s" % (name, key, i + 1, r.get("error", "failed")))
        for n in doc.get("notes", []):
            lines.append("- %s: %s" % (name, n))
    if sk and sk.get("present") and not sk.get("ok"):
        lines.append("- stepkernel: exit %s%s" % (sk.get("rc"), ", timed out" if sk.get("timed_out")
                                                  else ""))
    return "\n".join(lines) if lines else "None: every run finished and was parsed."




def scaling_section(path):
    """bench/scaling_model.py's section as it wrote it (### subsections)."""
    if not path or not os.path.exists(path):
        return "Not computed: bench/scaling_model.py wrote no section (%s)." % (
            path or "report.py got no --scaling")
    with open(path) as f:
        return f.read().strip()


def load_json(path, required=True):
    """A driver's JSON, or None when it wrote none (a part that did not run)."""
    if not path or not os.path.exists(path):
        if required and path:
            raise SystemExit("report.py: %s does not exist" % path)
        return None
    with open(path) as f:
        return json.load(f)


def header(a, eng, pt):
    """The lines above the sections: when, where, on what, under which load."""
    timings = dict(kv.split("=", 1) for kv in a.timings.split(",") if "=" in kv)
    m = machine(eng, pt, a.build_dir, a.pytorch_skipped)
    load_end = open("/proc/loadavg").read().split()[:3]

    doc = []
    doc.append("# Benchmark results: Hogwild Lab and the blog's PyTorch recipes\n")
    doc.append("Written by `bash bench/run`; do not edit by hand, run it again.\n")
    doc.append("- Date: %s" % (a.date or datetime.datetime.now().astimezone().strftime(
        "%Y-%m-%d %H:%M %Z")))
    doc.append("- Command: `%s`; took %s s in all (build %s s, stepkernel %s s, engine %s s, "
               "data-parallel %s s, PyTorch %s s, report)" % (
                   a.command, timings.get("total", "?"), timings.get("build", "?"),
                   timings.get("stepkernel", "?"), timings.get("engine", "?"),
                   timings.get("dp", "?"), timings.get("pytorch", "?")))
    doc.append("- Machine: %s; %s; %s memory; %s; %s" % (m["cpu"], m["cores"], m["memory"],
                                                        m["kernel"], m["os"]))
    doc.append("- Compiler: %s" % m["compiler"])
    doc.append("- PyTorch: %s" % m["torch"])
    doc.append("- Load average (1, 5, 15 min) at the start: %s; at the end: %s. The machine is "
               "shared (other people's builds and tests run on it), so figures move by 10-30%% "
               "between runs of this command; ratios measured in the same run are steadier than "
               "absolute figures." % (a.load_start, " ".join(load_end)))
    for label, d in (("engine", eng), ("PyTorch", pt)):
        c = d and d.get("cpu")
        if c:
            doc.append("- CPU during the %s measurements (%.0f s): these runs %.0f%%, other processes "
                       "%.0f%%, hypervisor steal %.0f%% of the %d CPUs" % (
                           label, c["wall_s"], 100 * c["ours"], 100 * c["others"], 100 * c["steal"],
                           c["cpus"]))
    if a.build_note:
        doc.append("- Build: %s" % a.build_note)
    doc.append("")
    doc.append("Workload (the blog's): MLP 100-256-10 with ReLU, X = randn(10000, 100), random "
               "labels over 10 classes, batch 32, SGD lr 0.01 without momentum, 3 epochs; engine: "
               "`--model mlp:100-256-10 --dataset random:10000x100:10 --batch 32 --lr 0.01 "
               "--momentum 0 --epochs 3 --test-fraction 0 --quiet`. Every figure is the median of "
               "the runs counted in its row, with (min–max); start-up figures pool every worker of "
               "every run. samples/s counts training only: the engine's own summary figure (from "
               "the first worker's first step to the moment the last worker leaves its training "
               "loop, minus evaluation; start-up and process teardown are not in it); for "
               "PyTorch, all samples the workers processed divided by the time from the moment "
               "every worker is ready to the last worker's finish. "
               "`replicate`: every worker walks the whole dataset each epoch (the blog's Hogwild "
               "recipe: N workers do N times the work); `shard`: each sample once per epoch across "
               "the workers (DDP's DistributedSampler; the thread recipe's shared queue).\n")

    return doc


def summary_sections(a, eng, pt, sk, pair, dp):
    """(title, body) of the summaries and sections 1-2, in order."""
    sections = []
    summary = stepkernel_summary(sk)
    targets = targets_table(eng, pt, sk, pair) + "\n" + "\n".join(
        "| " + " | ".join(row) + " |" for row in report_dp.target_rows(dp, pt))
    sections.append(("Summary: targets", targets + "\n\nTargets are stated, "
                     "not enforced: `bench/run` exits 0 whatever they show. On 2 cores, 2 workers "
                     "can at best double throughput; 4 and 8 workers share the same 2 cores, and "
                     "any CPU taken by other processes (see the CPU line above) comes straight "
                     "off the 2-worker figures.\n\n" + SCALING_LIMITS +
                     ("\n\nstepkernel's own summary, verbatim (full output in section 7):\n\n"
                      "```\n%s\n```" % summary if summary else "")))
    if pt:
        sections.append(("Summary: engine vs the same PyTorch recipe", ratio_rows(eng, pt) +
                         "\n\nSame work on both sides (same split). forkserver has no PyTorch "
                         "counterpart in the blog and is set against mp.spawn. The thread recipe "
                         "shares one queue of batches (each batch once per epoch), so it is set "
                         "against the engine's `threads --split shard`. Start-up: engine, launch "
                         "to the end of the worker's first step (its summary line); PyTorch, launch "
                         "to the worker ready for its first step (its own set-up: for spawn the "
                         "interpreter, `import torch`, unpickling the model and data; for the "
                         "serial loop and threads, building the DataLoader and optimizer / the "
                         "thread's first step)."))
    else:
        sections.append(("Summary: engine vs the same PyTorch recipe",
                         "PyTorch part skipped: %s" % (a.pytorch_skipped or "no results")))
    walls = []
    for it in engine_items(eng, "blog"):
        walls += pooled(eng["results"].get(it["key"], []), "wall_s")
    note = ""
    if walls:
        note = ("\n\nEach of these runs lasts only %.0f–%.0f ms (3 epochs of 10000 samples), so "
                "fixed costs per run (launching workers, the epoch gates) weigh on the multi-worker "
                "figures; section 3 runs the same model 10 times longer." %
                (1e3 * min(walls), 1e3 * max(walls)))
    sections.append(("1. Engine on the blog's workload", engine_table(eng) + note))
    if pt:
        sections.append(("2. The blog's PyTorch recipes, same workload", pytorch_table(pt) +
                         "\n\nThe recipes are the blog's code with timestamps added and a barrier "
                         "after each worker's set-up (`bench/pytorch_recipes.py`); "
                         "torch.set_num_threads(1) in the parent and every worker. The thread "
                         "recipe's errors are counted, not hidden: each one is a thread that died "
                         "with \"one of the variables needed for gradient computation has been "
                         "modified by an inplace operation\" while the other threads went on; "
                         "its samples/s counts only the steps that completed. DDP runs at 2 "
                         "workers only. Memory: GNU time's max RSS is the largest of the process "
                         "and its waited-for children; PSS is sampled every 100 ms from "
                         "/proc/PID/smaps_rollup (shared pages split between the processes that "
                         "map them, so the total counts them once).\n\n" +
                         pytorch_memory_table(pt)))
    else:
        sections.append(("2. The blog's PyTorch recipes",
                         "Skipped: %s" % (a.pytorch_skipped or "no results")))
    return sections


def detail_sections(a, eng, pt, sk, pair, dp):
    """Sections 3 to 11, then the runs that failed."""
    sections = []
    sections.append(("3. Scaling: dense vs sparse", scaling_table(eng) +
                     "\n\n`--split shard` (the same total work at every worker count); dense: the "
                     "blog's MLP and data, 30 epochs; sparse: `--model embedding-bag:20000-32-4 "
                     "--dataset sparse-bow:20000x20000:4:20 --lr 0.5 --momentum 0`, 10 epochs. "
                     "processes use forkserver. 2 cores: speedup beyond 2 workers is not possible "
                     "here."))
    sections.append(("3a. Two workers against this machine's pair ceiling",
                     report_pair.section(pair)))
    sections.append(("4. Fashion-MNIST: accuracy over time", fmnist_section(eng) +
                     "\n\nDefault MLP 784-128-10, lr 0.01, momentum 0.9, batch 32, 10 epochs, "
                     "Debian's Fashion-MNIST (60000 train, 10000 test). Elapsed: the run's clock "
                     "at the end of that epoch (the latest worker's \"epoch N worker R ... (S "
                     "samples, T s)\" line), before that epoch's evaluation; time to X%: the "
                     "elapsed time at the end of the first epoch whose test accuracy reached X%."))
    sections.append(("4b. Fashion-MNIST: the default experiment", fmnist_section(eng, "fmnist-default") +
                     "\n\nThe default experiment as it ships (no flags: MLP 784-128-10, 2 Hogwild "
                     "threads, batch 128, lr 0.03, momentum 0.9, 25 epochs); times as in 4."))
    sections.append(("5. Start-up per start method (engine)", startup_table(eng) +
                     "\n\nLaunch to the end of the worker's first step, from the summary line, "
                     "pooled over the replicate and shard runs of section 1. At 4 workers the "
                     "workers queue for 2 cores."))
    sections.append(("6. Memory per worker (engine)", memory_table(eng) +
                     "\n\nA longer run for sampling: the blog's workload with 25 epochs, "
                     "`--split replicate`. RSS and PSS of the app, the fork server and each worker, "
                     "sampled every 10 ms from /proc/PID/smaps_rollup; peak total PSS is the "
                     "largest sum over all of them at one instant (shared memory counted once); "
                     "extra per extra worker = (total at N workers − total at 1) / (N − 1). Max "
                     "RSS (GNU time -v) is the app's, or a child's when larger."))
    if sk and sk.get("present"):
        stdout = sk.get("stdout", "")
        body = "`%s`, exit %s, %.1f s%s. Its stdout:\n\n```\n%s```" % (
            " ".join(sk.get("cmd", [])), sk.get("rc"), sk.get("wall_s", 0),
            ", timed out" if sk.get("timed_out") else "",
            stdout if stdout.endswith("\n") else stdout + "\n")
        if sk.get("stderr", "").strip():
            body += "\n\nIts stderr (Google Benchmark's context%s):\n\n```\n%s\n```" % (
                "" if sk.get("ok") else ", and the error", sk["stderr"].strip()[-2500:])
        sections.append(("7. stepkernel (Google Benchmark), verbatim", body))
    else:
        sections.append(("7. stepkernel", "Absent: %s was not built, so the single-core matmul "
                         "ceiling and the step-kernel figures are not in this run." %
                         (sk.get("path") if sk else "build/bench/stepkernel")))
    dp_body = report_dp.section(dp, pt)
    if a.mpi_scaling and os.path.exists(a.mpi_scaling):
        with open(a.mpi_scaling) as f:
            dp_body += "\n\n" + f.read().strip()
    sections.append(("8. Data-parallel (DDP) on the CPU", dp_body))
    sections.append(("9. The lost-update counter: what it costs", lost_updates_table(eng) +
                     "\n\nThe runs of section 3 (dense: 10 epochs of the blog's workload; sparse: "
                     "the embedding bag, 10 epochs), 2 workers, `--split shard`, with and "
                     "without `--lost-updates`. The counter adds one atomic load and one atomic "
                     "add per block of 32 parameters a step writes; on a table of 20000 rows "
                     "two workers rarely write the same row at once, on the dense MLP they "
                     "write every block every step."))
    loading_doc = None
    if a.loading and os.path.exists(a.loading):
        with open(a.loading) as f:
            loading_doc = json.load(f)
    sections.append(("10. Loading CSV and LIBSVM files", loading.section(loading_doc)))
    sections.append(("11. Beyond one machine: data-parallel scaling, predicted",
                     scaling_section(a.scaling)))
    sections.append(("Failed, skipped or trimmed runs", failures(eng, pt, sk)))

    return sections


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", required=True)
    ap.add_argument("--pytorch")
    ap.add_argument("--pytorch-skipped")
    ap.add_argument("--stepkernel")
    ap.add_argument("--pair")
    ap.add_argument("--dp", help="bench/dataparallel.py's JSON")
    ap.add_argument("--scaling", help="bench/scaling_model.py's markdown section")
    ap.add_argument("--loading", help="bench/loading.py's JSON")
    ap.add_argument("--mpi-scaling", help="bench/mpi_scaling.py's markdown (section 8)")
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--out", required=True)
    ap.add_argument("--timings", default="")
    ap.add_argument("--date", default="",
                    help="when the measurements ran (to write a report again from saved "
                         "results); default now")
    ap.add_argument("--command", default="bash bench/run")
    ap.add_argument("--load-start", default="?")
    ap.add_argument("--build-note", default="")
    a = ap.parse_args()

    eng = load_json(a.engine)
    pt, sk, pair, dp = (load_json(p, required=False)
                        for p in (a.pytorch, a.stepkernel, a.pair, a.dp))
    doc = header(a, eng, pt)
    parts = (eng, pt, sk, pair, dp)
    for title, body in summary_sections(a, *parts) + detail_sections(a, *parts):
        doc.append("## %s\n\n%s\n" % (title, body))
    text = "\n".join(doc)
    # Sections that other bench groups write by hand (bench/presets.py's)
    # follow PRESERVED in the file: keep them.
    try:
        with open(a.out) as f:
            old = f.read()
        if PRESERVED in old:
            text += "\n" + old[old.index(PRESERVED):]
    except OSError:
        pass
    with open(a.out, "w") as f:
        f.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
