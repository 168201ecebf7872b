"""Data-parallel training beyond one machine, on paper: predicts the step time
and scaling efficiency at 2 to 64 ranks on 10, 25 and 100 Gbit/s Ethernet and
InfiniBand HDR, and writes them as a markdown section for bench/RESULTS.md.

Measured here: each model's serial step (the engine's summary line), the local
collectives (build/bench/collective and mpicollective, or bench/dataparallel.py's
figures of the same bench run with --dp) and memcpy's bandwidth (the adds of a
reduction). Assumed: each network's latency and bandwidth (NETWORKS, printed
beside the results). Alpha-beta costs per allreduce (ring, recursive doubling,
Rabenseifner: the cheapest), summed over the collectives the engine runs per
step (core/collective/allreduceupdate.cpp: buckets one after the other, no
overlap; a vote every step and the parameters every K steps at --sync-every K;
the divergence measurements). Weak scaling, as DDP: batch 32 on every rank.

    python3 bench/scaling_model.py --out FILE [--dp build/bench-results/dp.json]
    python3 bench/scaling_model.py --out FILE --inputs FILE.json  (render only)
    python3 bench/scaling_model.py --self-test"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dataparallel  # noqa: E402
import engine_runs  # noqa: E402
import report_util as report  # noqa: E402

RANKS = (2, 4, 8, 16, 32, 64)
SYNC_EVERY = (1, 8, 64)
VOTE_BYTES = 8             # the per-step vote of K > 1 (a few bytes: latency only)
BUCKET_MB, FIRST_BUCKET_MB = 25.0, 1.0  # the engine's defaults (--bucket-mb; makeBuckets)
BACKWARD_SHARE = 2.0 / 3   # an MLP's backward pass: two matrix products of the step's three
BATCH = 32
BYTES = {"113 KB": 28170 * 4, "100 MB": 25000000 * 4}  # bench/collective.cpp's buffers


class Net:
    def __init__(self, name, alpha_us, line_gbit, share, why):
        self.name, self.alpha, self.line_gbit, self.share, self.why = (
            name, alpha_us * 1e-6, line_gbit, share, why)
        self.bw = line_gbit * 1e9 / 8 * share  # bytes/s one rank sends at


# Assumptions, not measurements: typical MPI ping-pong latency and streaming
# bandwidth as the OSU micro-benchmarks (osu_latency, osu_bw) report them on
# such links, one rank per machine.
NETWORKS = [
    Net("10 GbE", 30, 10, 0.90,
        "TCP (Open MPI btl tcp): MPI ping-pong through the kernel's stack is typically 20-50 µs; "
        "TCP payload reaches about 90% of the line rate"),
    Net("25 GbE", 25, 25, 0.90,
        "TCP: as 10 GbE, the stack's latency a little lower on newer NICs"),
    Net("100 GbE", 20, 100, 0.60,
        "TCP: one flow per peer, driven by one core, rarely fills 100 Gbit/s (60% assumed); "
        "RoCE would give about 2 µs and 90%"),
    Net("IB HDR", 1.5, 200, 0.95,
        "InfiniBand HDR 200 Gbit/s through UCX/verbs: MPI ping-pong about 1-2 µs, osu_bw about "
        "24 GB/s"),
]

MODELS = [
    {"key": "blog", "spec": "mlp:100-256-10", "dataset": "random:10000x100:10", "epochs": 30,
     "label": "The blog's MLP"},
    {"key": "10m", "spec": "mlp:1000-4000-1500-10", "dataset": "random:640x1000:10", "epochs": 2,
     "label": "A 10M-parameter MLP"},
]
COMMON = ["--batch", str(BATCH), "--lr", "0.01", "--momentum", "0", "--test-fraction", "0"]
DP2 = ["--mode", "data-parallel", "--transport", "threads", "--workers", "2"]


# ------------------------------------------------------------ the arithmetic
def mlp_tensors(spec):
    """Sizes of an MLP's tensors in the engine's layout order (each layer's
    weight, then its bias: core/model/mlp.cpp)."""
    widths = [int(x) for x in spec.split(":")[1].split("-")]
    sizes = []
    for fan_in, fan_out in zip(widths, widths[1:]):
        sizes += [fan_in * fan_out, fan_out]
    return sizes


def buckets(tensors, cap_mb=BUCKET_MB, first_mb=FIRST_BUCKET_MB):
    """The gradient's buckets in floats, as core/collective/buckets.cpp forms
    them: whole tensors in reverse layout order, a first bucket of at most
    first_mb MiB, then up to cap_mb MiB."""
    floats = lambda mb: max(1, int(mb * 1024 * 1024 / 4))  # noqa: E731
    out, cap, current = [], floats(min(first_mb, cap_mb)), 0
    for size in reversed(tensors):
        if current > 0 and current + size > cap:
            out.append(current)
            current, cap = 0, floats(cap_mb)
        current += size
    if current > 0:
        out.append(current)
    return out


def chunks(count, cap):
    """A buffer of `count` floats cut into the collective's operations."""
    return [min(cap, count - at) for at in range(0, count, cap)]


def ring(n, nbytes, alpha, bw, gamma=0.0):
    """Reduce-scatter then allgather around a ring: 2(N-1) messages, each
    rank sends 2(N-1)/N of the buffer and adds (N-1)/N of it."""
    return 2 * (n - 1) * alpha + 2 * (n - 1) / n * nbytes / bw + (n - 1) / n * nbytes * gamma


def recursive_doubling(n, nbytes, alpha, bw, gamma=0.0):
    """log2(N) exchanges of the whole buffer (N a power of two)."""
    return math.log2(n) * (alpha + nbytes / bw + nbytes * gamma)


def rabenseifner(n, nbytes, alpha, bw, gamma=0.0):
    """Recursive halving then doubling: the ring's bytes in 2 log2(N) messages."""
    return 2 * math.log2(n) * alpha + 2 * (n - 1) / n * nbytes / bw + (n - 1) / n * nbytes * gamma


def hub(n, nbytes, alpha, bw, gamma=0.0):
    """A star through rank 0 (MpiCollective's exact reduction): rank 0
    receives and sends N-1 buffers one after the other and sums them all."""
    return 2 * (n - 1) * (alpha + nbytes / bw) + (n - 1) * nbytes * gamma


ALGORITHMS = {"ring": ring, "recursive doubling": recursive_doubling,
              "Rabenseifner": rabenseifner}


def allreduce(n, nbytes, alpha, bw, gamma=0.0):
    """Seconds and algorithm: the cheapest of ALGORITHMS under alpha-beta."""
    if n <= 1:
        return 0.0, "-"
    return min((f(n, nbytes, alpha, bw, gamma), name) for name, f in ALGORITHMS.items())


def openmpi_choice(n, nbytes):
    """What Open MPI 4.1.4's fixed rule picks for a commutative sum of
    `nbytes` over n < 128 ranks (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c
    at v4.1.4; its segmented ring counted as the ring)."""
    table = [(4, [(8, "ring"), (4096, "recursive doubling"), (8192, "ring"),
                  (16384, "recursive doubling"), (262144, "ring")]),
             (8, [(16, "ring"), (8192, "recursive doubling")]),
             (16, [(8192, "recursive doubling")]),
             (32, [(64, "ring"), (4096, "recursive doubling")]),
             (64, [(128, "ring")]),
             (128, [(262144, "recursive doubling")])]
    for below, steps in table:
        if n < below:
            return next((name for limit, name in steps if nbytes < limit), "Rabenseifner")
    return None


def measures_per_period(k):
    """Divergence measurements (each as costly as averaging the parameters)
    in K steps of local SGD: AllreduceUpdate::apply's condition, step by step."""
    every = max(4, k // 4)  # divergenceInterval(K > 1)
    return sum(1 for s in range(1, k + 1) if s % every == 0 and s % k != 0)


class Model:
    def __init__(self, spec, step_s):
        self.spec, self.step_s = spec, step_s
        self.tensors = mlp_tensors(spec)
        self.total = sum(self.tensors)
        self.buckets = buckets(self.tensors)
        self.capacity = max(4096, max(self.buckets))  # collectiveCapacity()


def comm_per_step(m, n, k, alpha, bw, gamma=0.0, cost=None):
    """Mean seconds per step a rank spends in collectives at sync-every k."""
    cost = cost or (lambda nn, b: allreduce(nn, b, alpha, bw, gamma)[0])
    full = sum(cost(n, 4 * c) for c in chunks(m.total, m.capacity))
    if k == 1:
        every = max(32, m.total // 4096)  # divergenceInterval(1, P)
        return sum(cost(n, 4 * b) for b in m.buckets) + full / every
    return ((k - 1) * cost(n, VOTE_BYTES) + (1 + measures_per_period(k)) * full) / k


def step_time(t_c, comm, overlap=False):
    """No overlap: the engine's step. Overlap: the best DDP-style hiding of the
    communication behind the backward pass."""
    return max(t_c, (1 - BACKWARD_SHARE) * t_c + comm) if overlap else t_c + comm


def fit(t_small, t_large, t_vote=None, b_small=BYTES["113 KB"], b_large=BYTES["100 MB"]):
    """A measured 2-rank transport: alpha, half the round trip of one vote
    (None when not measured), and the effective bandwidth at each size
    (bytes / time, latency included): 113 KB stays in the caches where
    100 MB streams from memory, so no one line T = 2 alpha + B / bw fits both,
    and on a busy machine a fitted intercept is noise."""
    return (t_vote / 2 if t_vote is not None else None), b_small / t_small, b_large / t_large


def local_cost(t, nbytes):
    """A measured 2-rank transport's allreduce: the bandwidth of the nearer size."""
    near_small = nbytes < math.sqrt(BYTES["113 KB"] * BYTES["100 MB"])
    return max(2 * (t["alpha"] or 0), nbytes / (t["bw_small"] if near_small else t["bw_large"]))


# ------------------------------------------------------------ measurements
def engine_run(app, args, timeout=120):
    try:
        p = subprocess.run([app, "--headless"] + args + ["--quiet"], capture_output=True,
                           text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": "timed out after %d s" % timeout}
    out = engine_runs.parse(p.stdout)
    m = re.search(r"^summary: communication .*?: (.*)$", p.stdout, re.M)
    out["comm_s"] = [float(x) for x in re.findall(r"\d+: ([\d.]+) s,", m.group(1))] if m else []
    out["reduced_mb"] = [float(x) for x in re.findall(r"([\d.]+) MB", m.group(1))] if m else []
    out["ok"] = p.returncode == 0 and "samples_per_s" in out
    if not out["ok"]:
        out["error"] = (p.stderr.strip().splitlines() or ["no output"])[-1][-300:]
    return out


def per_rank_step(r, ranks):
    """Seconds per step of one rank: the run's samples/s counts every rank's."""
    return ranks * BATCH / r["samples_per_s"]


def measure_engine(app, reps, deadline):
    """Serial and 2-rank data-parallel (threads) runs of each model, interleaved."""
    runs = {m["key"]: {"serial": [], "dp2": []} for m in MODELS}
    for rep in range(reps):
        started = time.time()
        for m in MODELS:
            base = ["--model", m["spec"], "--dataset", m["dataset"], "--epochs",
                    str(m["epochs"])] + COMMON
            for kind, flags in (("serial", ["--mode", "serial"]), ("dp2", DP2)):
                r = engine_run(app, base + flags)
                runs[m["key"]][kind].append(r)
                print("  scaling %-5s %-6s %s" % (m["key"], kind, "%.2f ms/step" % (
                    1e3 * per_rank_step(r, 2 if kind == "dp2" else 1)) if r["ok"]
                    else "FAILED: " + r.get("error", "")), flush=True)
        # Whole repeats only, so that every configuration has as many runs.
        if time.time() + (time.time() - started) > deadline:
            break
    return runs


def op_us(ops, *words):
    return next((o["us"] for o in ops or [] if all(w in o["what"] for w in words)), None)


def local_transports(col, mpi):
    """The measured 2-rank transports by fit(); the MPI_Allreduce rows take
    alpha from the hub's vote over the same transport."""
    ops = col.get("ops", []) if col.get("present") else []
    votes = {v["what"].split(", ")[-1]: v["us"] for v in col.get("votes", [])}
    candidates = [("engine's shared-memory collective (threads)", "build/bench/collective",
                   ops, ("threads",), votes.get("threads")),
                  ("engine's shared-memory collective (processes)", "build/bench/collective",
                   ops, ("processes",), votes.get("processes"))]
    for label in ("shm", "tcp"):
        run = (mpi.get("runs") or {}).get(label, {}) if mpi.get("present") else {}
        where = "mpirun -np 2 %sbuild/bench/mpicollective" % (
            "--mca btl self,tcp " if label == "tcp" else "")
        vote = re.search(r"agree \(one vote\)[^\n]*?([\d.]+) us", run.get("stdout", ""))
        vote = float(vote.group(1)) if vote else None
        candidates.append(("Open MPI MPI_Allreduce, %s" % label, where, run.get("ops"),
                           ("MPI_Allreduce",), vote))
        for reduce, name in (("mpi", "Open MPI's collectives"), ("exact", "rank-0 hub")):
            candidates.append(("engine's MPI transport, --reduce %s (%s), %s" % (reduce, name,
                                                                              label),
                               where, run.get("ops"), ("(reduce %s)" % reduce,), vote))
    rows = []
    for name, where, o, words, vote_us in candidates:
        small, large = op_us(o, "113 KB", *words), op_us(o, "100 MB", *words)
        if small and large:
            alpha, bw_small, bw_large = fit(small * 1e-6, large * 1e-6,
                                            vote_us * 1e-6 if vote_us is not None else None)
            rows.append({"name": name, "where": where, "small_us": small, "large_us": large,
                         "alpha": alpha, "bw_small": bw_small, "bw_large": bw_large,
                         "vote_us": vote_us})
    return rows


def memcpy_gbps(col):
    m = col.get("memcpy") if col.get("present") else None
    return m["large_gbps"] if m else None


# ------------------------------------------------------------ the report
def ms(s):
    return "%.3f ms" % (s * 1e3) if s < 1e-3 else "%.2f ms" % (s * 1e3) if s < 1e-2 \
        else "%.1f ms" % (s * 1e3)


def size(nbytes):
    return "%.0f KB" % (nbytes / 1e3) if nbytes < 1e6 else "%.1f MB" % (nbytes / 1e6)


def cell(m, n, k, net, gamma):
    comm = comm_per_step(m, n, k, net.alpha, net.bw, gamma)
    t, t_ov = step_time(m.step_s, comm), step_time(m.step_s, comm, overlap=True)
    return "%s, %.0f%% (%.0f%%)" % (ms(t), 100 * m.step_s / t, 100 * m.step_s / t_ov)


def model_table(m, gamma):
    rows = []
    for k in SYNC_EVERY:
        for n in RANKS:
            rows.append(["**%d**" % k if n == RANKS[0] else "", str(n)] +
                        [cell(m, n, k, net, gamma) for net in NETWORKS])
    return report.table(["sync-every", "ranks"] + [net.name for net in NETWORKS], rows)


def choices(nbytes, pick):
    """'2: ring; 4-64: Rabenseifner': pick(n, nbytes) over RANKS, runs merged."""
    runs = []
    for n in RANKS:
        name = pick(n, nbytes)
        if runs and runs[-1][2] == name:
            runs[-1][1] = n
        else:
            runs.append([n, n, name])
    return "; ".join("%s: %s" % (lo if lo == hi else "%d-%d" % (lo, hi), name)
                     for lo, hi, name in runs)


def algorithms(m, gamma):
    """Which algorithm the model takes for each bucket (the cheapest; the
    same on every network unless said), and what Open MPI 4.1.4 would pick."""
    lines = []
    for b in m.buckets + [VOTE_BYTES // 4]:
        what = "the vote" if b == VOTE_BYTES // 4 else "%s floats (%s)" % (
            format(b, ","), size(4 * b))
        per_net = {}
        for net in NETWORKS:
            text = choices(4 * b, lambda n, nb: allreduce(n, nb, net.alpha, net.bw, gamma)[1])
            per_net.setdefault(text, []).append(net.name)
        model = " / ".join(t if len(per_net) == 1 else "%s on %s" % (t, ", ".join(nets))
                           for t, nets in per_net.items())
        lines.append("- %s: %s (Open MPI 4.1.4's table: %s)" % (
            what, model, choices(4 * b, openmpi_choice)))
    return "\n".join(lines)


def assumptions_table(gamma_gbps):
    rows = [[net.name, "%g µs" % (net.alpha * 1e6), "%.2f GB/s (%d%% of %g Gbit/s)" % (
        net.bw / 1e9, round(100 * net.share), net.line_gbit), net.why] for net in NETWORKS]
    rows.append(["reduction (γ)", "-", "%s per reduced byte" % (
        "%.2f GB/s, this machine's 100 MB memcpy" % gamma_gbps if gamma_gbps
        else "not measured: taken as free"),
        "measured here; an add reads two inputs and writes one, so this is optimistic; it "
        "weighs where the network outruns one core's memory bandwidth (IB)"])
    return report.table(["network", "α (latency per message)", "bandwidth per rank",
                         "where the figure comes from (assumed, not measured here)"], rows)


def hub_table(models, gamma):
    """Efficiency at sync-every 1: MPI's collectives against the rank-0 hub."""
    nets = [NETWORKS[1], NETWORKS[-1]]
    rows = []
    for n in RANKS:
        row = [str(n)]
        for m in models:
            for net in nets:
                effs = []
                for cost in (None, lambda nn, b: hub(nn, b, net.alpha, net.bw, gamma)):
                    comm = comm_per_step(m, n, 1, net.alpha, net.bw, gamma, cost)
                    effs.append("%.0f%%" % (100 * m.step_s / step_time(m.step_s, comm)))
                row.append(" / ".join(effs))
        rows.append(row)
    head = ["ranks"] + ["`%s`, %s" % (m.spec, net.name) for m in models for net in nets]
    return report.table(head, rows)


def validation_rows(models, runs, shm):
    rows = []
    for spec in MODELS:
        m, got = models.get(spec["key"]), runs.get(spec["key"], {})
        dp = [r for r in got.get("dp2", []) if r.get("ok") and r.get("comm_s")]
        if not m or not dp:
            rows.append([spec["spec"], "not measured"] + ["-"] * 6)
            continue
        steps = [per_rank_step(r, 2) for r in dp]
        comm = [sum(r["comm_s"]) / len(r["comm_s"]) / (r["samples"] / 2 / BATCH) for r in dp]
        compute = [t - c for t, c in zip(steps, comm)]
        pred_comm = comm_per_step(m, 2, 1, 0, 1, cost=lambda n, b: local_cost(shm, b)) \
            if shm else None
        pred = m.step_s + pred_comm if shm else None
        step_med = report.stats(steps)[0]
        rows.append([spec["spec"], report.mrange(steps, ms), ms(pred) if pred else "-",
                     "%+.0f%%" % (100 * (pred / step_med - 1)) if pred else "-",
                     report.mrange(compute, ms), ms(m.step_s), report.mrange(comm, ms),
                     ms(pred_comm) if pred_comm is not None else "-"])
    return rows


def bytes_note(models, runs):
    """The engine's own count of bytes reduced per rank per step (2-rank runs)
    against the model's buffer: the bytes the α-β costs are charged for."""
    parts = []
    for spec in MODELS:
        m = models.get(spec["key"])
        dp = [r for r in runs.get(spec["key"], {}).get("dp2", [])
              if r.get("ok") and r.get("reduced_mb")]
        if m and dp:
            per_step = [1e6 * max(r["reduced_mb"]) / (r["samples"] / 2 / BATCH) for r in dp]
            parts.append("`%s` %s per rank per step (the model: %s, its gradient; a ring or "
                         "Rabenseifner sends 2(N-1)/N of it per rank, %s at 64 ranks)" % (
                             spec["spec"], report.mrange(per_step, lambda b: size(b)),
                             size(4 * m.total), size(2 * 63 / 64 * 4 * m.total)))
    return ("Bytes reduced, from the summary of the 2-rank runs (steps counted as samples / "
            "64; the start's broadcast of the parameters adds one buffer per run, and a short "
            "last batch per epoch a little): " + "; ".join(parts) + ".") \
        if parts else ""


def machine():
    return "%s (`lscpu` model name; `nproc`), load average %s at the start" % (
        report.machine(), " ".join("%.2f" % x for x in os.getloadavg()))


INTRO = (
    "Predicted, not measured: data-parallel training (`--mode data-parallel`) with one rank "
    "per machine, each computing as one core of this machine does, on networks this machine "
    "does not have, from the serial step measured here, "
    "the engine's collectives per step and the assumed networks below (α-β model). Weak "
    "scaling as in DDP: every rank keeps batch 32, so the efficiency is the serial step over "
    "the predicted step. Each cell: the predicted step, its efficiency, and in parentheses "
    "the efficiency if the communication were hidden behind the backward pass (DDP's "
    "overlap: the backward pass taken as %d%% of the step's compute). The engine does not "
    "overlap: it reduces the buckets one after the other once the whole gradient is computed "
    "(core/collective/allreduceupdate.cpp), so the first figure is the engine's." %
    round(100 * BACKWARD_SHARE))

METHOD = (
    "Per step the engine reduces each bucket of the gradient at sync-every 1 (the first "
    "bucket carries the run's vote: run, pause or stop); at K > 1 each rank takes its own "
    "step, every step votes (a few bytes: latency only) and every K-th step averages the "
    "parameters, in operations of the largest bucket. It also measures the replicas' "
    "divergence, one more reduction of the parameters, every max(32, P/4096) steps at K = 1 "
    "and at %d of every 8 / %d of every 64 steps at K = 8 / 64. Each allreduce costs the "
    "cheapest of: ring 2(N-1)α + 2(N-1)/N·B/bw + (N-1)/N·B·γ; recursive doubling "
    "log2(N)·(α + B/bw + B·γ); Rabenseifner 2·log2(N)·α + 2(N-1)/N·B/bw + (N-1)/N·B·γ. "
    "Open MPI picks by a fixed table instead (coll_tuned_decision_fixed.c; beside each "
    "bucket above): at 64 ranks it takes recursive doubling below 256 KB, which moves the "
    "buffer log2(N) times, so MPI_Allreduce there would be slower than these figures until "
    "`--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm 6` forces "
    "Rabenseifner. Not modelled: the epoch's end (one more averaging; with 10,000 rows and 64 "
    "ranks an epoch is only 5 steps), switch congestion, stragglers and jitter (every "
    "collective waits for the slowest rank), and the copies into MPI's buffers.")


def render(models, doc, host):
    if not models:
        return ("Not computed: no serial run of either model succeeded, so there is no "
                "measured step to scale.\n")
    runs = doc["runs"]
    gamma_gbps = memcpy_gbps(doc["collective"])
    gamma = 1 / (gamma_gbps * 1e9) if gamma_gbps else 0.0
    out = [INTRO]
    for spec in MODELS:
        m = models.get(spec["key"])
        if not m:
            out.append("### %s (`%s`)\n\nNot computed: its serial run failed." % (
                spec["label"], spec["spec"]))
            continue
        serial = [per_rank_step(r, 1) for r in runs[spec["key"]]["serial"] if r.get("ok")]
        out.append("### %s: `%s`, %s parameters (%s of gradients)\n\nSerial step %s "
                   "(measured: median of %d run%s, %s). Collectives per step and the "
                   "algorithm taken at 2-64 ranks:\n\n%s\n\n%s" % (
                       spec["label"], spec["spec"], format(m.total, ","), size(4 * m.total),
                       ms(m.step_s), len(serial), "" if len(serial) == 1 else "s",
                       report.mrange(serial, ms), algorithms(m, gamma), model_table(m, gamma)))
    out.append("### Assumptions\n\n" + assumptions_table(gamma_gbps) + "\n\n" + METHOD %
               (measures_per_period(8), measures_per_period(64)))
    listed = [models[s["key"]] for s in MODELS if s["key"] in models]
    out.append("### MPI's collectives against a hub at rank 0\n\n" + hub_table(listed, gamma) +
               "\n\nEfficiency at sync-every 1: the cheapest MPI algorithm / a star through "
               "rank 0, the MPI transport's own exact reduction (MpiCollective: rank 0 receives "
               "and sends N-1 whole buffers one after the other and adds them all, "
               "2(N-1)·(α + B/bw) + (N-1)·B·γ per bucket). The star's cost grows with N.")
    shm = next((t for t in host if "(threads)" in t["name"]), None)
    rows = [[t["name"], "%.2f µs" % (t["alpha"] * 1e6) if t["alpha"] is not None else "-",
             "%.2f / %.2f GB/s" % (t["bw_small"] / 1e9, t["bw_large"] / 1e9),
             "%.1f / %.0f µs" % (t["small_us"], t["large_us"]),
             "%.1f µs" % t["vote_us"] if t.get("vote_us") is not None else "-",
             t["where"]] for t in host]
    out.append("### Measured on this machine\n\n" + (report.table(
        ["transport (2 ranks)", "α", "bandwidth at 113 KB / 100 MB", "allreduce 113 KB / 100 MB",
         "one vote", "command"], rows) if rows else
        "No collective figures: build/bench/collective and build/bench/mpicollective were "
        "not built or failed.") +
        "\n\nα: half the round trip of one vote (a few bytes; the MPI_Allreduce rows take "
        "the vote of the hub over the same transport); bandwidth: the buffer's bytes over one "
        "allreduce's time at each size, latency and reduction included. 113 KB stays in the "
        "caches where 100 MB streams from memory, so no one line T = 2α + B/bandwidth fits "
        "both. Figures from %s. This machine has no network: the loopback rows give the "
        "assumed networks a scale only (the local TCP stack's round trip, for one); on a "
        "busy machine the vote measures the scheduler more than the transport." %
        doc["source"])
    out.append(report.table(["2-rank check (threads, this machine)", "measured step",
                             "predicted step", "error", "measured compute", "serial step",
                             "measured comm", "predicted comm"],
                            validation_rows(models, runs, shm)) +
               "\n\nThe model with this machine's shared-memory α and bandwidths (the threads "
               "row: each bucket at the bandwidth of the nearer measured size) against `--mode data-parallel --transport threads --workers 2` runs "
               "interleaved with the serial ones (median and range); measured comm per step "
               "from the summary's time in collectives (mean of the ranks, waiting for the "
               "other rank included), compute = step - comm. Both ranks compute at once on 2 "
               "cores, so other programs' load shows in the 2-rank step's compute and not in "
               "the serial step. " + bytes_note(models, runs) + "\n\n"
               "Commands: `hogwild-lab --headless --mode serial --model SPEC --dataset DATA "
               "--batch 32 --lr 0.01 --momentum 0 --test-fraction 0 --epochs E --quiet` with "
               + ", ".join("`%s` on `%s`, %d epochs" % (s["spec"], s["dataset"], s["epochs"])
                           for s in MODELS) + "; step = batch / the summary line's samples/s. "
               "Machine: %s. Rerun: `python3 bench/scaling_model.py --out FILE`." % doc["machine"])
    return "\n\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="the markdown section; the measured inputs go to OUT.json")
    ap.add_argument("--app", default="build/app/hogwild-lab")
    ap.add_argument("--collective", default="build/bench/collective")
    ap.add_argument("--mpi-collective", default="build/bench/mpicollective")
    ap.add_argument("--dp", help="bench/dataparallel.py's JSON: reuse its collective figures")
    ap.add_argument("--inputs", help="an OUT.json of an earlier run: render it, measure nothing")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--budget-s", type=float, default=45,
                    help="for the engine runs (after the collectives when measured here)")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        import scaling_selftest
        return scaling_selftest.run()
    if not a.out:
        ap.error("--out FILE is required (or --self-test)")
    t0 = time.time()
    if a.inputs:
        with open(a.inputs) as f:
            doc = json.load(f)
    else:
        if not os.access(a.app, os.X_OK):
            sys.exit("scaling_model: %s is not an executable; build it (ninja -C build "
                     "hogwild-lab) or pass --app" % a.app)
        doc = load_collectives(a)
        doc["machine"] = machine()
        doc["runs"] = measure_engine(a.app, max(1, a.reps), time.time() + a.budget_s)
        with open(a.out + ".json", "w") as f:
            json.dump(doc, f, indent=1)
    models = {}
    for spec in MODELS:
        serial = [per_rank_step(r, 1) for r in doc["runs"][spec["key"]]["serial"] if r.get("ok")]
        if serial:
            models[spec["key"]] = Model(spec["spec"], report.stats(serial)[0])
    text = render(models, doc, local_transports(doc["collective"], doc["mpi_collective"]))
    with open(a.out, "w") as f:
        f.write(text)
    print("scaling model: wrote %s in %.0f s" % (a.out, time.time() - t0))
    return 0 if models else 1


def load_collectives(a):
    """The collective figures of bench/dataparallel.py's run, or measured now."""
    if a.dp and os.path.exists(a.dp):
        with open(a.dp) as f:
            dp = json.load(f)
        if dp.get("collective", {}).get("present"):
            return {"collective": dp["collective"], "mpi_collective": dp.get("mpi_collective", {}),
                    "source": "bench/dataparallel.py in this bench run (%s)" % a.dp}
    return {"collective": dataparallel.collective(a.collective, quick=True),
            "mpi_collective": dataparallel.mpi_collective(a.mpi_collective, quick=True),
            "source": "`%s --quick` and `mpirun -np 2 %s --quick`, run by this script" % (
                a.collective, a.mpi_collective)}


if __name__ == "__main__":
    sys.exit(main())
