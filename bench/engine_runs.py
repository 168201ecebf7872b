"""Runs Hogwild Lab's headless CLI on the benchmark workloads, several times
each, parses its summary lines and writes the results as JSON. With
--stepkernel it runs the stepkernel benchmark executable instead.

    python3 bench/engine_runs.py --app build/app/hogwild-lab --out FILE --budget-s S
    python3 bench/engine_runs.py --stepkernel build/bench/stepkernel --out FILE --timeout-s S
"""

import argparse
import json
import os
import re
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import procmon  # noqa: E402

BLOG = ["--model", "mlp:100-256-10", "--dataset", "random:10000x100:10", "--batch", "32",
        "--lr", "0.01", "--momentum", "0", "--test-fraction", "0"]
SPARSE = ["--model", "embedding-bag:20000-32-4", "--dataset", "sparse-bow:20000x20000:4:20",
          "--batch", "32", "--lr", "0.5", "--momentum", "0", "--test-fraction", "0"]
FMNIST = ["--model", "mlp:784-128-10", "--dataset", "fashion-mnist", "--batch", "32",
          "--lr", "0.01", "--momentum", "0.9"]
FMNIST_DIR = "/usr/share/datasets/fashion-mnist"
METHODS = ("fork", "spawn", "forkserver")


def mode_flags(mode, workers, split):
    """mode: serial | threads | threads-locked | fork | spawn | forkserver."""
    if mode == "serial":
        return ["--mode", "serial"]
    flags = ["--workers", str(workers), "--split", split]
    if mode in METHODS:
        return ["--mode", "processes", "--start-method", mode] + flags
    return ["--mode", mode] + flags


def item(group, mode, workers, split, base, epochs, min_reps, max_reps, quiet=True, mem=False):
    key = "%s/%s/%d/%s" % (group, mode, workers, split)
    args = base + ["--epochs", str(epochs)] + mode_flags(mode, workers, split)
    return {"key": key, "group": group, "mode": mode, "workers": workers, "split": split,
            "epochs": epochs, "args": args + (["--quiet"] if quiet else []),
            "min_reps": min_reps, "max_reps": max_reps, "memory": mem}


def plan(fmnist):
    items = [item("blog", "serial", 1, "-", BLOG, 3, 5, 5)]
    for mode in ("threads", "threads-locked") + METHODS:
        items.append(item("blog", mode, 1, "replicate", BLOG, 3, 5, 5))
        for w in (2, 4):
            for split in ("replicate", "shard"):
                items.append(item("blog", mode, w, split, BLOG, 3, 5, 5))
    # memory: a longer run (25 epochs, replicate: every worker lives the whole run)
    items.append(item("memory", "serial", 1, "-", BLOG, 25, 2, 3, mem=True))
    for mode in ("threads",) + METHODS:
        for w in (1, 2, 4):
            items.append(item("memory", mode, w, "replicate", BLOG, 25, 2, 3, mem=True))
    # scaling: fixed total work (shard), dense MLP vs sparse embedding bag
    for mode in ("threads", "forkserver"):
        for w in (1, 2, 4, 8):
            items.append(item("scaling-dense", mode, w, "shard", BLOG, 30, 3, 5))
            items.append(item("scaling-sparse", mode, w, "shard", SPARSE, 10, 3, 5))
    # the lost-update counter's cost: the same runs with and without it
    for label, base in (("dense", BLOG), ("sparse", SPARSE)):
        for mode in ("threads", "threads-locked", "forkserver"):
            for counted in (False, True):
                group = "lost-%s-%s" % ("on" if counted else "off", label)
                extra = ["--lost-updates"] if counted else []
                items.append(item(group, mode, 2, "shard", base + extra, 10, 3, 5))
    if fmnist:
        items.append(item("fmnist", "serial", 1, "-", FMNIST, 10, 3, 3, quiet=False))
        items.append(item("fmnist", "threads", 2, "shard", FMNIST, 10, 3, 3, quiet=False))
        # the default experiment as it ships (resources/experiments/default.json)
        items.append(item("fmnist-default", "threads", 2, "shard", [], 25, 3, 5, quiet=False))
    return items


RATE_UNITS = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9}


def parse(stdout):
    """The summary lines (and, without --quiet, the epoch lines) of one run."""
    out = {}
    m = re.search(r"^summary: (\S+) after (\d+) of (\d+) epochs; (\d+) samples in ([\d.]+) s "
                  r"training \(([\d.]+) s wall\): ([\d.]+)([kMG]?) samples/s", stdout, re.M)
    if m:
        out.update(state=m.group(1), samples=int(m.group(4)), train_s=float(m.group(5)),
                   wall_s=float(m.group(6)),
                   samples_per_s=float(m.group(7)) * RATE_UNITS[m.group(8)])
    m = re.search(r"^summary: worker start-up \(launch to first step\): (.*)$", stdout, re.M)
    if m:
        out["startup_ms"] = [float(x) for x in re.findall(r"\d+: ([\d.]+) ms", m.group(1))]
        out["startup_no_step"] = len(re.findall(r"took no step", m.group(1)))
    m = re.search(r"^summary: lost updates: (\d+) of (\d+)", stdout, re.M)
    if m:
        out["lost_updates"] = int(m.group(1))
        out["update_writes"] = int(m.group(2))
    m = re.search(r"^summary: .*train loss ([\d.naif]+)", stdout, re.M)
    if m:
        out["final_loss"] = float(m.group(1))
    m = re.search(r"^summary: final test accuracy ([\d.]+)%", stdout, re.M)
    if m:
        out["final_accuracy"] = float(m.group(1))
    epochs = {}
    for e, w, loss, n, t in re.findall(
            r"^epoch (\d+)  worker (\d+)  loss (\S+)  \((\d+) samples, ([\d.]+) s\)", stdout, re.M):
        epochs.setdefault(int(e), {"end_s": 0.0})
        epochs[int(e)]["end_s"] = max(epochs[int(e)]["end_s"], float(t))
    for e, loss, acc in re.findall(r"^epoch (\d+)  test loss (\S+)  accuracy ([\d.]+)%",
                                   stdout, re.M):
        epochs.setdefault(int(e), {})["accuracy"] = float(acc)
    if epochs:
        out["epochs"] = {str(k): v for k, v in sorted(epochs.items())}
    out["problems"] = [l for l in stdout.splitlines()
                       if l.startswith(("worker failure:", "pitfall:", "warning:"))]
    return out


def memory(it, procs):
    """Splits the sampled process tree into app, fork server and workers."""
    app = [p for p in procs if p["depth"] == 1]
    if it["mode"] == "forkserver":
        server = [p for p in procs if p["depth"] == 2]
        workers = [p for p in procs if p["depth"] == 3]
    else:
        server = []
        workers = [p for p in procs if p["depth"] == 2]
    out = {"app_peak_pss_kb": app[0]["max_pss_kb"] if app else None,
           "app_peak_rss_kb": app[0]["max_rss_kb"] if app else None,
           "server_peak_pss_kb": [p["max_pss_kb"] for p in server],
           "worker_peak_pss_kb": [p["max_pss_kb"] for p in workers],
           "worker_peak_rss_kb": [p["max_rss_kb"] for p in workers],
           "workers_sampled": len(workers)}
    if it["mode"] == "spawn":
        out["spawn_workers_with_role_flag"] = sum("--worker-role" in p["cmdline"] for p in workers)
    return out


def run_one(app, it, timeout):
    r = procmon.run([app, "--headless"] + it["args"], timeout=timeout,
                    sample_interval=0.01 if it["memory"] else None)
    out = {"rc": r["rc"], "timed_out": r["timed_out"], "cmd_wall_s": r["wall_s"],
           "maxrss_kb": r["maxrss_kb"]}
    out.update(parse(r["stdout"]))
    if it["memory"]:
        out["peak_total_pss_kb"] = r["peak_total_pss_kb"]
        out["peak_total_rss_kb"] = r["peak_total_rss_kb"]
        out["mem_samples"] = r["mem_samples"]
        out.update(memory(it, r["procs"]))
    problems = []
    if r["timed_out"]:
        problems.append("timed out after %d s" % timeout)
    elif r["rc"] != 0:
        tail = [l for l in (r["stderr"] + "\n" + r["stdout"]).splitlines() if l.strip()][-2:]
        problems.append("exit status %s: %s" % (r["rc"], " | ".join(tail)[-300:]))
    if "samples_per_s" not in out and not problems:
        problems.append("no summary line in the output")
    if out.get("state") not in (None, "finished"):
        problems.append("run state: %s" % out["state"])
    if out.get("startup_no_step"):
        problems.append("%d worker(s) took no step" % out["startup_no_step"])
    problems += [p for p in out["problems"] if not p.startswith("warning:")]
    if it["memory"] and it["mode"] in METHODS and out.get("workers_sampled") != it["workers"]:
        out["memory_note"] = "sampled %s of %d worker processes" % (out.get("workers_sampled"),
                                                                   it["workers"])
    out["ok"] = not problems
    if problems:
        out["error"] = "; ".join(problems)
    return out


def run_stepkernel(path, out_json, timeout):
    """Runs the stepkernel benchmark; its console output is kept verbatim."""
    doc = {"path": path}
    if not os.access(path, os.X_OK):
        doc.update(present=False)
        return doc
    doc["present"] = True
    attempts = [[path, "--benchmark_color=false", "--benchmark_out=" + out_json,
                 "--benchmark_out_format=json"], [path]]
    start = time.monotonic()
    for cmd in attempts:
        left = timeout - (time.monotonic() - start)
        if left < 5:
            break
        r = procmon.run(cmd, timeout=left)
        doc.update(cmd=cmd, rc=r["rc"], timed_out=r["timed_out"], wall_s=r["wall_s"],
                   stdout=r["stdout"], stderr=r["stderr"][-4000:])
        if r["rc"] == 0 or r["timed_out"]:
            break
    doc["ok"] = doc.get("rc") == 0
    if doc["ok"] and os.path.exists(out_json) and "--benchmark_out=" + out_json in doc["cmd"]:
        try:
            with open(out_json) as f:
                doc["json"] = json.load(f)
        except ValueError as e:
            doc["json_error"] = str(e)
    return doc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--app", default="build/app/hogwild-lab")
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget-s", type=float, default=150)
    ap.add_argument("--hard-budget-s", type=float, default=None)
    ap.add_argument("--groups", help="comma-separated: blog,memory,scaling-dense,scaling-sparse,"
                    "lost-off-dense,lost-on-dense,lost-off-sparse,lost-on-sparse,fmnist,"
                    "fmnist-default")
    ap.add_argument("--max-reps", type=int, default=None)
    ap.add_argument("--stepkernel", help="run this stepkernel executable instead")
    ap.add_argument("--timeout-s", type=float, default=180)
    a = ap.parse_args()
    if a.stepkernel:
        doc = run_stepkernel(a.stepkernel, a.out + ".benchmark.json", a.timeout_s)
        with open(a.out, "w") as f:
            json.dump(doc, f, indent=1)
        if doc.get("present"):
            print("  stepkernel: %s in %.1f s" % ("ran" if doc["ok"] else "FAILED (exit %s%s)" % (
                doc.get("rc"), ", timed out" if doc.get("timed_out") else ""), doc.get("wall_s", 0)))
        return 0
    fmnist = os.path.isdir(FMNIST_DIR)
    items = procmon.select_items(plan(fmnist), "group", a.groups, a.max_reps)
    start = time.monotonic()
    cpu_before = procmon.cpu_snapshot()
    hard = start + a.hard_budget_s if a.hard_budget_s else None
    results, notes = {}, []
    # groups one after another (memory runs sample /proc and must not overlap
    # timed runs), each with its share of the budget
    lost = ["lost-off-dense", "lost-on-dense", "lost-off-sparse", "lost-on-sparse"]
    shares = {"blog": 0.28, "memory": 0.28, "scaling-dense": 0.14, "scaling-sparse": 0.14,
              "fmnist": 0.1, "fmnist-default": 0.1}
    shares.update({g: 0.015 for g in lost})
    order = ["blog", "memory", "scaling-dense", "scaling-sparse"] + lost + ["fmnist",
                                                                            "fmnist-default"]
    spent_share = 0.0
    for group in order:
        group_items = [it for it in items if it["group"] == group]
        if not group_items:
            continue
        spent_share += shares[group]
        deadline = start + a.budget_s * spent_share

        def progress(it, rep, r):
            if r.get("ok"):
                what = "%.1fk samples/s" % (r["samples_per_s"] / 1e3)
            else:
                what = "FAILED: " + r.get("error", "?")[:200]
            print("  engine %-38s run %d: %s" % (it["key"], rep + 1, what), flush=True)

        # progress only for the first repeat and failures: the log stays short
        def quiet_progress(it, rep, r):
            if rep == 0 or not r.get("ok"):
                progress(it, rep, r)

        res, n = procmon.rounds(group_items, lambda it, rep: run_one(a.app, it, timeout=120),
                                deadline, hard, quiet_progress)
        results.update(res)
        notes += ["%s: %s" % (group, x) for x in n]
    doc = {"app": a.app, "fmnist": fmnist, "fmnist_dir": FMNIST_DIR,
           "items": items, "results": results, "notes": notes,
           "elapsed_s": time.monotonic() - start,
           "cpu": procmon.cpu_shares(cpu_before, procmon.cpu_snapshot())}
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
