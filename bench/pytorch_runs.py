"""Runs the blog's PyTorch recipes (pytorch_recipes.py) several times each,
under GNU time, sampling every process's RSS and PSS, and writes the results
as JSON.

    /usr/bin/python3 bench/pytorch_runs.py --out FILE --budget-s S [--python /usr/bin/python3]
"""

import argparse
import json
import os
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import procmon  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def plan():
    items = [{"key": "serial/1", "recipe": "serial", "workers": 1, "min_reps": 3, "max_reps": 5}]
    for recipe in ("fork", "spawn", "threads"):
        for w in (1, 2, 4):
            items.append({"key": "%s/%d" % (recipe, w), "recipe": recipe, "workers": w,
                          "min_reps": 3, "max_reps": 5})
    items.append({"key": "ddp/2", "recipe": "ddp", "workers": 2, "min_reps": 3, "max_reps": 5})
    return items


def run_one(python, item, timeout):
    cmd = [python, os.path.join(HERE, "pytorch_recipes.py"), item["recipe"],
           "--workers", str(item["workers"])]
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    r = procmon.run(cmd, timeout=timeout, sample_interval=0.1, env=env)
    out = {"rc": r["rc"], "timed_out": r["timed_out"], "cmd_wall_s": r["wall_s"],
           "maxrss_kb": r["maxrss_kb"], "peak_total_pss_kb": r.get("peak_total_pss_kb"),
           "peak_total_rss_kb": r.get("peak_total_rss_kb")}
    result = None
    for line in r["stdout"].splitlines():
        if line.startswith("RESULT "):
            try:
                result = json.loads(line[7:])
            except ValueError as e:
                out["error"] = "unparsable RESULT line: %s" % e
    if result is None:
        tail = [l for l in r["stderr"].splitlines() if l.strip()][-3:]
        out.update(ok=False, error=out.get("error") or (
            "timed out after %d s" % timeout if r["timed_out"] else
            "no RESULT line (exit %s): %s" % (r["rc"], " | ".join(tail)[-400:])))
        return out
    out.update(result)
    if r["rc"] != 0 and result.get("ok"):
        out["ok"] = False
        out["errors"] = result.get("errors", []) + ["exit status %s" % r["rc"]]
    if not out.get("ok"):
        out["error"] = "; ".join(out.get("errors") or ["failed"])[:500]
    procs = {p["pid"]: p for p in r.get("procs", [])}
    parent = [p for p in procs.values() if p["depth"] == 1]
    out["parent_peak_pss_kb"] = parent[0]["max_pss_kb"] if parent else None
    out["parent_peak_rss_kb"] = parent[0]["max_rss_kb"] if parent else None
    pids = result.get("worker_pids") or []
    if item["recipe"] in ("fork", "spawn", "ddp"):
        seen = [procs[p] for p in pids if p in procs]
        out["worker_peak_pss_kb"] = [p["max_pss_kb"] for p in seen]
        out["worker_peak_rss_kb"] = [p["max_rss_kb"] for p in seen]
        out["workers_sampled"] = len(seen)
        out["helper_processes"] = [
            {"cmdline": p["cmdline"][:120], "peak_pss_kb": p["max_pss_kb"]}
            for p in procs.values() if p["depth"] > 1 and p["pid"] not in pids]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--budget-s", type=float, default=240)
    ap.add_argument("--hard-budget-s", type=float, default=None)
    ap.add_argument("--only", help="comma-separated keys, e.g. serial/1,fork/2 (for trying things)")
    ap.add_argument("--max-reps", type=int, default=None)
    a = ap.parse_args()
    items = procmon.select_items(plan(), "key", a.only, a.max_reps)
    start = time.monotonic()
    cpu_before = procmon.cpu_snapshot()
    deadline = start + a.budget_s
    hard = start + a.hard_budget_s if a.hard_budget_s else None

    def progress(item, rep, r):
        if r.get("ok"):
            what = "%.1fk samples/s, wall %.1f s" % ((r.get("samples_per_s") or 0) / 1e3,
                                                     r["cmd_wall_s"])
            if r.get("thread_errors"):
                what += ", %d thread(s) died" % len(r["thread_errors"])
        else:
            what = "FAILED: " + r.get("error", "?")[:200]
        print("  pytorch %-10s run %d: %s" % (item["key"], rep + 1, what), flush=True)

    results, notes = procmon.rounds(
        items, lambda it, rep: run_one(a.python, it, timeout=120), deadline, hard, progress)
    doc = {"python": a.python, "items": items, "results": results, "notes": notes,
           "elapsed_s": time.monotonic() - start,
           "cpu": procmon.cpu_shares(cpu_before, procmon.cpu_snapshot())}
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
