"""The data-parallel part of bench/RESULTS.md: target rows and a section,
from bench/dataparallel.py's JSON (and the PyTorch DDP recipe's runs)."""

import report_util as r


def _runs(dp, key):
    return r.ok_runs(dp.get("blog", {}).get(key))


CEILING_MODES = (("dp-threads", "threads"), ("dp-processes", "processes (forkserver)"))


def ceiling_shares(dp, key):
    """Each repetition's data-parallel x2 rate over the pair of the same repetition."""
    return [x[key] / x["pair"] for x in dp.get("ceiling", {}).get("reps", [])
            if x.get(key) and x.get("pair")]


def _ceiling_rows(dp):
    c = dp.get("ceiling", {})
    rows = []
    for key, label in CEILING_MODES:
        shares = ceiling_shares(dp, key)
        s = r.stats(shares)
        rows.append(["data-parallel ×2 (%s), blog MLP %s epochs ≥ 85%% of the pair ceiling"
                     % (label, c.get("epochs", "?")),
                     "%s of the pair of the same repetition (%d repetitions)"
                     % (r.mrange([100 * x for x in shares], r.num("%.0f%%")), len(shares))
                     if s else "not measured", r.verdict(100 * s[0] if s else None, 85)])
    return rows


def _collective_rows(dp):
    rows = []
    for op in dp.get("collective", {}).get("ops", []):
        if not op["what"].startswith("allreduce 1") or " in place," not in op["what"]:
            continue  # the targets are training's path; copy in/out is for reference
        p10 = " (10th percentile %.1f µs)" % op["p10_us"] if op.get("p10_us") else ""
        if "113 KB" in op["what"]:
            rows.append(["%s ≤ 10 µs" % op["what"], "%.1f µs%s" % (op["us"], p10),
                         r.verdict(op["us"], 10, higher_is_better=False)])
        else:
            rows.append(["%s ≥ 50%% of memcpy's bandwidth" % op["what"],
                         "%.2f GB/s, %.0f%% of memcpy" % (op["gbps"], op["of_memcpy"]),
                         r.verdict(op["of_memcpy"], 50)])
    return rows


def target_rows(dp, pt):
    """Rows for the summary's targets table."""
    if not dp:
        return [["data-parallel targets", "not measured (bench/dataparallel.py did not run)",
                 "not measured"]]
    rows = _ceiling_rows(dp) if dp.get("ceiling") else []
    serial = r.med(_runs(dp, "serial"), "samples_per_s")
    ddp = r.med(r.ok_runs((pt or {}).get("results", {}).get("ddp/2")), "samples_per_s")
    for key, label in (("dp-threads", "threads"), ("dp-processes", "processes"),
                       ("dp-mpi", "MPI, shared memory"), ("dp-mpi-tcp", "MPI, TCP")):
        if key not in dp.get("blog", {}):
            continue
        x = r.med(_runs(dp, key), "samples_per_s")
        ratio = x / serial if x and serial else None
        rows.append(["data-parallel ×2 (%s) ≥ 1.6× engine serial" % label,
                     "%s / %s = %s" % (r.rate(x), r.rate(serial),
                                       "%.2f×" % ratio if ratio else "-"),
                     r.verdict(ratio, 1.6)])
        vs = x / ddp if x and ddp else None
        rows.append(["data-parallel ×2 (%s) ≥ 50× PyTorch DDP/gloo ×2" % label,
                     "%s / %s = %s" % (r.rate(x), r.rate(ddp), "%.1f×" % vs if vs else "-"),
                     r.verdict(vs, 50) if ddp else "not measured (no PyTorch)"])
    return rows + _collective_rows(dp)


def section(dp, pt):
    if not dp:
        return "Not measured: bench/dataparallel.py wrote no results."
    serial = r.med(_runs(dp, "serial"), "samples_per_s")
    ddp_runs = r.ok_runs((pt or {}).get("results", {}).get("ddp/2"))
    rows = []
    for key, label in (("serial", "engine serial"), ("dp-threads", "data-parallel ×2, threads"),
                       ("dp-processes", "data-parallel ×2, processes (forkserver)"),
                       ("dp-mpi", "data-parallel ×2, MPI ranks (shared memory)"),
                       ("dp-mpi-tcp", "data-parallel ×2, MPI ranks (TCP)")):
        if key not in dp.get("blog", {}):
            continue
        runs = dp.get("blog", {}).get(key)
        good = r.ok_runs(runs)
        x = r.med(good, "samples_per_s")
        rows.append([label, r.mrange(r.pooled(good, "samples_per_s")),
                     "%.2f×" % (x / serial) if x and serial else "-",
                     r.mrange([100 * s for s in r.pooled(good, "comm_share")],
                              r.num("%.0f%%")) if key != "serial" else "-",
                     r.runs_cell(runs)])
    rows.append(["PyTorch DDP/gloo ×2 (the blog's recipe 2)",
                 r.mrange(r.pooled(ddp_runs, "samples_per_s")),
                 "-", "-", r.runs_cell((pt or {}).get("results", {}).get("ddp/2"))])
    text = r.table(["run", "samples/s (training)", "vs engine serial",
                    "time in collectives", "runs"], rows)
    text += ("\n\nThe blog's workload (MLP 100-256-10, random data, batch 32 per replica, "
             "3 epochs), sharded as DistributedSampler does; runs interleaved. Each step's "
             "averaged gradient is the 113 KB of the model: each rank's backward pass writes it "
             "into its slot of the shared-memory collective, each rank sums its stripe of the "
             "elements over the ranks in rank order, and the replicas' SGD steps read the mean "
             "where it lies (bench/collective below), so on 2 cores each replica spends the "
             "share above in collectives instead of computing. Runs this short (tens of "
             "milliseconds) weigh the fixed costs (start-up, the epoch gates); the long runs "
             "below measure the steady state.")
    text += "\n\n" + _ceiling_section(dp)
    sp = dp.get("sparse", {})
    if sp:
        sserial = r.med(r.ok_runs(sp.get("serial")), "samples_per_s")
        srows = []
        for key, label in (("serial", "serial"), ("dp-threads", "data-parallel ×2, threads"),
                           ("hogwild-threads", "Hogwild ×2, threads")):
            good = r.ok_runs(sp.get(key))
            x = r.med(good, "samples_per_s")
            srows.append([label, r.mrange(r.pooled(good, "samples_per_s")),
                          "%.2f×" % (x / sserial) if x and sserial else "-",
                          r.runs_cell(sp.get(key))])
        text += "\n\n" + r.table(["sparse embedding bag", "samples/s", "vs serial", "runs"],
                                  srows)
        text += ("\n\n`--model embedding-bag:20000-32-4 --dataset sparse-bow:20000x20000:4:20 "
                 "--lr 0.5 --momentum 0`, 3 epochs. The replicas average only the table rows "
                 "some replica touched (and the linear layer): about 1,300 of the 20,000 rows "
                 "per step, where a dense allreduce would move the whole 2.56 MB table every "
                 "step. Even so the exchange outweighs a step this cheap: for sparse models "
                 "Hogwild is the mode to use.")
    col = dp.get("collective", {})
    if col.get("present") and col.get("memcpy"):
        m = col["memcpy"]
        crow = [["memcpy 113 KB / 100 MB", "%.2f us / %.2f ms" % (m["small_us"], m["large_ms"]),
                 "%.1f / %.2f GB/s" % (m["small_gbps"], m["large_gbps"]), "100%"]]
        crow += [[o["what"], "%.2f us" % o["us"], "%.2f GB/s" % o["gbps"],
                  "%.0f%%" % o["of_memcpy"]] for o in col.get("ops", [])]
        crow += [[v["what"], "%.2f us" % v["us"], "-", "-"] for v in col.get("votes", [])]
        text += "\n\n" + r.table(["operation (2 ranks)", "time", "bandwidth", "of memcpy"], crow)
        crowded = col.get("crowded", [])
        if crowded:
            text += "\n\n" + r.table(
                ["more ranks than cores (threads)", "113 KB in place", "cores busy",
                 "CPU per operation"],
                [["%d ranks" % c["ranks"], "%.1f µs" % c["us"], "%.2f" % c["busy_cores"],
                  "%.0f µs" % c["cpu_us"]] for c in crowded])
        text += ("\n\nbuild/bench/collective; time: the median operation of a timed loop (in "
                 "brackets its 10th percentile: on a shared machine a peer that lost its core "
                 "shows in the median); bandwidth = the buffer's bytes / that time. In place is "
                 "what training does: the gradient is already in the rank's slot (its backward "
                 "pass wrote it there, untimed here), each rank reads its stripe of the other "
                 "ranks' slots (from the other core's cache), sums it and the mean is read where "
                 "it lies; copy in/out (allreduceMean on a private buffer, what the sparse model "
                 "and the parameter averaging of sync-every K use) adds a copy each way. Two "
                 "ranks sum in float with the double formula's bits (collective/rankmean.h). On "
                 "100 MB each rank sums half the buffer on its own core, so the in-place "
                 "reduction can pass one core's memcpy. A "
                 "wait spins on its peer's arrival word (a cache line's round trip), yields its "
                 "core when the peer seems to wait for one, and sleeps on a futex after 1 ms; "
                 "with more ranks than cores it yields at every turn and sleeps after 50 µs: "
                 "the crowded runs keep both cores busy, but each operation costs less CPU "
                 "than with waits that sleep at once (system calls and wake-ups), and a yield "
                 "hands the core to any thread that wants it.")
    else:
        text += "\n\nbuild/bench/collective was not built: no collective figures."
    se = dp.get("sync_every", {})
    if "skipped" in se:
        text += "\n\nsync-every on Fashion-MNIST: skipped (%s)." % se["skipped"]
    elif se:
        srows = [[k, r.rate(v.get("samples_per_s")), "%.2f%%" % v["final_accuracy"]
                  if v.get("final_accuracy") is not None else "-",
                  "%.0f%%" % (100 * max(v.get("comm_share") or [0]))]
                 for k, v in sorted(se.items(), key=lambda kv: int(kv[0])) if v.get("ok")]
        text += "\n\n" + r.table(["--sync-every", "samples/s", "final test accuracy",
                                  "time in collectives"], srows)
        text += ("\n\nFashion-MNIST, the default MLP, 5 epochs, 2 replicas over threads; K > 1 "
                 "averages the parameters every K steps (and at each epoch's end), each replica "
                 "keeping its own momentum buffer; one run each.")
    text += "\n\n" + _mpi_collective(dp.get("mpi_collective", {}))
    return text


def _ceiling_section(dp):
    c = dp.get("ceiling", {})
    reps = c.get("reps", [])
    if not reps:
        return "Data-parallel against the pair ceiling: not measured."
    serial = [x.get("serial") for x in reps]
    pair = [x.get("pair") for x in reps]
    rows = [["one serial run alone", r.mrange(serial), "1.00×", "-", "-"],
            ["two serial runs at once (the pair ceiling)", r.mrange(pair),
             r.mrange([p / s for p, s in zip(pair, serial) if p and s], r.num("%.2f×")), "100%",
             "-"]]
    comm = {}
    for key, label in CEILING_MODES:
        x = [v.get(key) for v in reps]
        comm[key] = [100 * f for v in reps for f in v.get(key + " comm_share") or []]
        rows.append(["data-parallel ×2, %s" % label, r.mrange(x),
                     r.mrange([a / s for a, s in zip(x, serial) if a and s], r.num("%.2f×")),
                     r.mrange([100 * v for v in ceiling_shares(dp, key)], r.num("%.0f%%")),
                     r.mrange(comm[key], r.num("%.0f%%"))])
    limit = ""
    dp_rate, pair_rate = r.stats([v.get("dp-threads") for v in reps]), r.stats(pair)
    if comm["dp-threads"] and dp_rate and pair_rate:
        # Per rank and step of 32 samples: the data-parallel step, its part
        # outside collectives, and a step of one of the two runs of the pair.
        step = 2 * 32 / dp_rate[0] * 1e6
        outside = step * (1 - r.stats(comm["dp-threads"])[0] / 100)
        limit = (" What limits it: each step the two ranks pass the model's 113 KB between "
                 "their cores' caches, each way. A threads rank's step takes %.1f µs against "
                 "%.1f µs for a step of one of the pair's runs: %s of it in collectives (its "
                 "stripe of the other rank's gradient, read from the other core's cache, and "
                 "the waits), and outside them still %.1f µs, as its backward pass writes lines "
                 "the other core read and its SGD step reads the other rank's half of the mean "
                 "from the other core. Cutting that needs fewer bytes per step (bf16 or "
                 "compressed gradients, no longer exact) or more samples per step." % (
                     step, 2 * 32 / pair_rate[0] * 1e6,
                     r.mrange(comm["dp-threads"], r.num("%.0f%%")), outside))
    return (r.table(["blog MLP, %s epochs" % c.get("epochs", "?"), "samples/s", "vs serial",
                     "of the pair ceiling", "time in collectives"], rows) +
            "\n\nbench/dataparallel.py's ceiling part: in each of %d repetitions one serial run "
            "alone, two at once (nothing shared: what the machine gives two workers) and the "
            "two data-parallel runs, back to back; each ratio is taken within its repetition, "
            "so the machine's drift cancels. Runs of seconds: the fixed costs weigh little." %
            len(reps) + limit)


def _mpi_collective(mc):
    if not mc.get("present"):
        return "MPI collective: not measured (%s)." % mc.get("why", "no results")
    rows = []
    for label in ("shm", "tcp"):
        run = mc.get("runs", {}).get(label, {})
        if run.get("rc") != 0:
            rows.append(["mpirun -np 2 (%s)" % label, "FAILED (rc %s)" % run.get("rc"), "-", "-"])
        rows += [[o["what"], "%.2f us" % o["us"], "%.2f GB/s" % o["gbps"],
                  "%.0f%%" % o["of_memcpy"]] for o in run.get("ops", [])]
    ops = {o["what"]: o["us"] for run in mc.get("runs", {}).values() for o in run.get("ops", [])}
    limit = ""
    fast, exact, anchor = (ops.get("allreduce 113 KB, shm, " + k) for k in (
        "MpiCollective (reduce mpi)", "MpiCollective (reduce exact)", "MPI_Allreduce"))
    if fast and exact and anchor:
        limit = (" On the blog's 113 KB over shared memory the default reduction takes %.0f us, "
                 "%.0f%% of MPI_Allreduce's speed (%.0f us): what it adds is a second round of "
                 "messages (Open MPI's non-blocking alltoallv, then allgatherv) where the "
                 "blocking two-rank allreduce exchanges the buffers once; the exact hub takes "
                 "%.0f us, as every byte goes through rank 0 and back." % (
                     fast, 100 * anchor / fast, anchor, exact))
    return (r.table(["MPI operation (2 ranks)", "time", "bandwidth", "of memcpy"], rows) +
            "\n\n`mpirun -np 2 [--mca btl self,tcp] build/bench/mpicollective`: MpiCollective "
            "(reduce mpi) is the transport's default reduction (Open MPI's alltoallv of the "
            "blocks, each rank's block summed in rank order in double, then allgatherv); "
            "MpiCollective (reduce exact) sends every rank's buffer to rank 0, which sums in "
            "rank order in double and sends the mean back; both give the shared-memory "
            "transport's bits. MPI_Allreduce is Open MPI's float sum in place, the anchor, "
            "whose bits depend on its algorithm." + limit)
