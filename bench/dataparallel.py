"""Measures data-parallel training (--mode data-parallel) and its collective,
and writes the results as JSON for bench/report.py:

  ceiling     the blog's MLP over --ceiling-epochs (150: runs of seconds, so
              fixed costs weigh little): one serial run alone, two serial
              runs at once (the machine's pair ceiling, as pair_ceiling.py
              measures it), and 2 replicas over threads and over processes
              (forkserver), interleaved, each repetition's ratios taken
              against the serial run and the pair of the same repetition;
  blog        the blog's workload (MLP 100-256-10, batch 32 per replica, 3
              epochs), sharded as DistributedSampler does: serial, and 2
              replicas over threads, over processes (forkserver) and over MPI
              ranks (hogwild-lab starting mpirun; shared memory and TCP), runs
              interleaved, against the PyTorch DDP/gloo recipe measured by
              pytorch_runs.py in the same bench/run;
  collective  build/bench/collective: the allreduce of 113 KB and 100 MB
              between 2 ranks (threads, processes) against memcpy; and
              build/bench/mpicollective under mpirun -np 2 (shared memory,
              TCP): the MPI transport's collective against MPI_Allreduce;
  sparse      the embedding bag (20000-32-4 on sparse-bow, 3 epochs): serial,
              2 data-parallel replicas (a sparse allreduce: only the rows some
              replica touched) and 2 Hogwild threads;
  sync-every  Fashion-MNIST (default MLP, 5 epochs, 2 replicas over threads)
              with --sync-every 1, 8 and 64: samples/s and final accuracy.

    python3 bench/dataparallel.py --app build/app/hogwild-lab \
        --collective build/bench/collective --out FILE --budget-s S
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import engine_runs  # noqa: E402

BLOG = engine_runs.BLOG + ["--epochs", "3"]
SPARSE = engine_runs.SPARSE + ["--epochs", "3"]
FMNIST = engine_runs.FMNIST + ["--epochs", "5"]
MODES = {
    "serial": ["--mode", "serial"],
    "dp-threads": ["--mode", "data-parallel", "--transport", "threads", "--workers", "2"],
    "dp-processes": ["--mode", "data-parallel", "--transport", "processes",
                     "--start-method", "forkserver", "--workers", "2"],
}
if shutil.which("mpirun"):
    MODES["dp-mpi"] = ["--mode", "data-parallel", "--transport", "mpi", "--workers", "2"]
    MODES["dp-mpi-tcp"] = MODES["dp-mpi"] + ["--mpirun-args", "--mca btl self,tcp"]


def comm_share(stdout):
    """The ranks' share of training time in collectives, from the summary."""
    m = re.search(r"^summary: communication .*: (.*)$", stdout, re.M)
    return [float(x) / 100 for x in re.findall(r"s, (\d+)%", m.group(1))] if m else []


def run(app, args, timeout=300):
    t = time.time()
    p = subprocess.run([app, "--headless"] + args + ["--quiet"], capture_output=True, text=True,
                       timeout=timeout)
    out = engine_runs.parse(p.stdout)
    out.update(rc=p.returncode, cmd_wall_s=time.time() - t, comm_share=comm_share(p.stdout))
    out["ok"] = p.returncode == 0 and "samples_per_s" in out
    if not out["ok"]:
        out["error"] = (p.stderr.strip().splitlines() or ["no output"])[-1][-300:]
    return out


def rate_of(app, args):
    r = run(app, args)
    return r["samples_per_s"] if r["ok"] else None


def ceiling(app, epochs, reps, deadline):
    """Data-parallel x2 against the pair ceiling of the same repetition."""
    base = engine_runs.BLOG + ["--epochs", str(epochs)]
    doc = {"epochs": epochs, "reps": []}
    for _ in range(reps):
        if time.time() > deadline:
            break
        rep = {"serial": rate_of(app, base + MODES["serial"])}
        cmd = [app, "--headless"] + base + MODES["serial"] + ["--quiet"]
        pair = [subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True) for _ in range(2)]
        rates = [engine_runs.parse(p.communicate(timeout=600)[0]).get("samples_per_s")
                 for p in pair]
        rep["pair"] = sum(rates) if all(rates) else None
        for key in ("dp-threads", "dp-processes"):
            r = run(app, base + MODES[key])
            rep[key] = r["samples_per_s"] if r["ok"] else None
            rep[key + " comm_share"] = r.get("comm_share")
        doc["reps"].append(rep)
        s, pr = rep["serial"], rep["pair"]
        print("  dp ceiling: serial %s, pair %s (%s), dp threads %s, processes %s" % tuple(
            ["%.0fk" % (x / 1e3) if x else "FAILED" for x in (s, pr)] +
            ["%.2fx" % (pr / s) if s and pr else "-"] +
            ["%.0fk = %.0f%% of the pair" % (rep[k] / 1e3, 100 * rep[k] / pr)
             if rep[k] and pr else "FAILED" for k in ("dp-threads", "dp-processes")]),
              flush=True)
    return doc


def workload(app, base, modes, label, reps, deadline):
    results = {k: [] for k in modes}
    for _ in range(reps):
        for key, flags in modes.items():
            if time.time() > deadline:
                return results
            r = run(app, base + flags)
            results[key].append(r)
            print("  dp %s %-13s %s" % (label, key, "%.1fk samples/s" % (r["samples_per_s"] / 1e3)
                                        if r["ok"] else "FAILED: " + r.get("error", "")),
                  flush=True)
    return results


def collective(path, quick):
    if not os.access(path, os.X_OK):
        return {"present": False}
    p = subprocess.run([path] + (["--quick"] if quick else []), capture_output=True, text=True,
                       timeout=300)
    doc = {"present": True, "rc": p.returncode, "stdout": p.stdout}
    m = re.search(r"memcpy 113 KB: ([\d.]+) us \(([\d.]+) GB/s\); 100 MB: ([\d.]+) ms "
                  r"\(([\d.]+) GB/s\)", p.stdout)
    if m:
        doc["memcpy"] = {"small_us": float(m.group(1)), "small_gbps": float(m.group(2)),
                         "large_ms": float(m.group(3)), "large_gbps": float(m.group(4))}
    doc["ops"] = [{"what": w.strip(), "us": float(us), "gbps": float(g), "of_memcpy": float(pc),
                   "p10_us": float(p10) if p10 else None}
                  for w, us, g, pc, p10 in re.findall(
                      r"^  (allreduce [^\n]*?)\s+([\d.]+) us\s+([\d.]+) GB/s\s+(\d+)% of memcpy"
                      r"(?:  \(p10 ([\d.]+) us\))?", p.stdout, re.M)]
    doc["crowded"] = [{"ranks": int(n), "us": float(us), "busy_cores": float(b),
                       "cpu_us": float(cpu)}
                      for n, us, b, cpu in re.findall(
                          r"^  crowded: (\d+) ranks .*?([\d.]+) us\s+([\d.]+) cores busy, "
                          r"([\d.]+) us of CPU", p.stdout, re.M)]
    doc["votes"] = [{"what": w.strip(), "us": float(us)} for w, us in re.findall(
        r"^  (agree [^\n]*?)\s+([\d.]+) us$", p.stdout, re.M)]
    return doc


def mpi_collective(path, quick):
    """bench/mpicollective under mpirun -np 2, over shared memory and TCP."""
    if not os.access(path, os.X_OK) or not shutil.which("mpirun"):
        return {"present": False, "why": "no MPI in this build" if shutil.which("mpirun")
                else "mpirun is not on PATH"}
    doc = {"present": True, "runs": {}}
    root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
    for label, btl in (("shm", []), ("tcp", ["--mca", "btl", "self,tcp"])):
        cmd = ["mpirun"] + root + ["-np", "2"] + btl + [path] + (["--quick"] if quick else [])
        p = subprocess.run(cmd + [label], capture_output=True, text=True, timeout=600)
        doc["runs"][label] = {"rc": p.returncode, "stdout": p.stdout, "ops": [
            {"what": w.strip(), "us": float(us), "gbps": float(g), "of_memcpy": float(pc)}
            for w, us, g, pc in re.findall(
                r"^  (allreduce [^\n]*?)\s+([\d.]+) us\s+([\d.]+) GB/s\s+(\d+)% of memcpy",
                p.stdout, re.M)]}
        print("  dp mpi collective %s: %s" % (label, "rc %d" % p.returncode), flush=True)
    return doc


def sync_every(app, deadline):
    if not os.path.isdir(engine_runs.FMNIST_DIR):
        return {"skipped": "Fashion-MNIST is not installed in " + engine_runs.FMNIST_DIR}
    out = {}
    for k in (1, 8, 64):
        if time.time() > deadline:
            break
        r = run(app, FMNIST + MODES["dp-threads"] + ["--sync-every", str(k)])
        out[str(k)] = r
        print("  dp fmnist sync-every %-3d %s" % (k, "%.1fk samples/s, %.2f%%" % (
            r["samples_per_s"] / 1e3, r.get("final_accuracy", 0)) if r["ok"] else "FAILED"),
              flush=True)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--app", required=True)
    ap.add_argument("--collective", required=True)
    ap.add_argument("--mpi-collective", default="")
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget-s", type=float, default=120)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--ceiling-epochs", type=int, default=150)
    ap.add_argument("--ceiling-reps", type=int, default=3)
    ap.add_argument("--only", choices=["ceiling", "collective"],
                    help="measure only this part (a quick look; bench/run measures all)")
    a = ap.parse_args()
    t0 = time.time()
    deadline = t0 + a.budget_s
    if a.only:
        doc = ({"ceiling": ceiling(a.app, a.ceiling_epochs, a.ceiling_reps, deadline)}
               if a.only == "ceiling" else {"collective": collective(a.collective, False)})
        with open(a.out, "w") as f:
            json.dump(doc, f, indent=1)
        return
    doc = {"collective": collective(a.collective, quick=a.budget_s < 60),
           "mpi_collective": mpi_collective(a.mpi_collective, quick=a.budget_s < 60)}
    doc["ceiling"] = ceiling(a.app, a.ceiling_epochs, a.ceiling_reps, t0 + a.budget_s * 0.4)
    doc["blog"] = workload(a.app, BLOG, MODES, "blog", a.reps, t0 + a.budget_s * 0.65)
    sparse_modes = {"serial": MODES["serial"], "dp-threads": MODES["dp-threads"],
                    "hogwild-threads": ["--mode", "threads", "--workers", "2"]}
    doc["sparse"] = workload(a.app, SPARSE, sparse_modes, "sparse", max(1, a.reps // 2),
                             t0 + a.budget_s * 0.8)
    doc["sync_every"] = sync_every(a.app, deadline)
    doc["wall_s"] = time.time() - t0
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
