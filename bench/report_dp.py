"""The data-parallel part of bench/RESULTS.md: target rows and a section,
from bench/dataparallel.py's JSON (and the PyTorch DDP recipe's runs)."""

import report as r


def _runs(dp, key):
    return r.ok_runs(dp.get("blog", {}).get(key))


def target_rows(dp, pt):
    """Rows for the summary's targets table."""
    if not dp:
        return [["data-parallel targets", "not measured (bench/dataparallel.py did not run)",
                 "not measured"]]
    rows = []
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
    for op in dp.get("collective", {}).get("ops", []):
        rows.append(["%s ≥ 50%% of memcpy's bandwidth" % op["what"],
                     "%.2f GB/s, %.0f%% of memcpy" % (op["gbps"], op["of_memcpy"]),
                     r.verdict(op["of_memcpy"], 50)])
    return rows


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
             "averaged gradient is the 113 KB of the model: the shared-memory allreduce copies "
             "it in, sums each element over the ranks in rank order and the replicas read the "
             "mean (bench/collective below), so on 2 cores each replica spends the share above "
             "in collectives instead of computing.")
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
        text += ("\n\nbuild/bench/collective; bandwidth = the buffer's bytes / the time of one "
                 "operation. An allreduce over shared memory moves each byte several times "
                 "(in, reduced, out) and between two cores' caches, so it cannot reach one "
                 "core's memcpy of the same buffer.")
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
