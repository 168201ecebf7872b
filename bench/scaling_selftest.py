"""bench/scaling_model.py's arithmetic at values worked out by hand: the
allreduce costs, the engine's buckets and divergence measurements, the step
and the fit of a measured transport, and one rendering of synthetic
measurements. No build, no timing; ctest runs it as "scalingmodel".

    python3 bench/scaling_model.py --self-test
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scaling_model import (VOTE_BYTES, Model, allreduce, buckets, chunks,  # noqa: E402
                           comm_per_step, fit, hub, local_cost, measures_per_period,
                           mlp_tensors, openmpi_choice, rabenseifner, recursive_doubling,
                           render, ring, step_time)


def run():
    """The arithmetic at values worked out by hand (no build, no timing)."""
    checks = []

    def near(what, got, want):
        checks.append((what, abs(got - want) <= 1e-12 + 1e-9 * abs(want), got, want))

    def same(what, got, want):
        checks.append((what, got == want, got, want))

    # Ring: 2 ranks, 1 MB, 10 us, 1 GB/s: 2 messages + the whole buffer once.
    near("ring N=2", ring(2, 1e6, 10e-6, 1e9), 20e-6 + 1e-3)
    # 4 ranks, 4 MB, 1 us, 1 GB/s: 6 messages + 1.5 x 4 MB; gamma 1 ns/byte on 3/4 of it.
    near("ring N=4", ring(4, 4e6, 1e-6, 1e9), 6e-6 + 6e-3)
    near("ring N=4 gamma", ring(4, 4e6, 1e-6, 1e9, 1e-9), 6e-6 + 6e-3 + 3e-3)
    # The per-rank bytes tend to twice the buffer: 64 ranks move 2*63/64 of it.
    near("ring N=64 bytes", ring(64, 64e6, 0, 1.0), 2 * 63e6)
    near("recursive doubling N=8", recursive_doubling(8, 8, 1e-6, 1e9), 3 * (1e-6 + 8e-9))
    near("hub N=3", hub(3, 1e6, 1e-6, 1e9), 4 * (1e-6 + 1e-3))
    near("Rabenseifner N=16", rabenseifner(16, 16e6, 1e-6, 1e9), 8e-6 + 30e-3)
    # The cheapest: a tiny buffer by recursive doubling, a large one by
    # Rabenseifner (the ring's bytes in fewer messages) once N > 2.
    same("cheapest small", allreduce(8, 8, 1e-6, 1e9)[1], "recursive doubling")
    same("cheapest large", allreduce(8, 1e8, 1e-6, 1e9)[1], "Rabenseifner")
    # Open MPI 4.1.4's table (coll_tuned_decision_fixed.c), commutative ops.
    same("Open MPI table", [openmpi_choice(n, b) for n, b in (
        (2, 113704), (2, 8), (4, 113704), (64, 113704), (64, 300000), (32, 100))],
        ["ring", "recursive doubling", "Rabenseifner", "recursive doubling", "Rabenseifner",
         "ring"])
    near("one rank costs nothing", allreduce(1, 1e9, 1, 1)[0], 0.0)
    # Buckets (core/collective/buckets.cpp): the blog MLP is one 113 KB bucket
    # (25,600 + 256 + 2,560 + 10 floats: the summary's bytes reduced agree);
    # 1000-4000-1500-10 is fc3 and b2 in the 1 MiB first bucket, W2 and b1,
    # then W1 in 25 MiB buckets.
    same("blog buckets", buckets(mlp_tensors("mlp:100-256-10")), [28426])
    big = Model("mlp:1000-4000-1500-10", 0.04)
    same("10M buckets", big.buckets, [16510, 6004000, 4000000])
    same("10M total", big.total, 10020510)
    same("chunks", chunks(10, 4), [4, 4, 2])
    near("measures at K=8", measures_per_period(8), 1)
    near("measures at K=64", measures_per_period(64), 3)
    # sync-every 1 on one bucket, alpha 1 us, 1 GB/s, 2 ranks: one exchange
    # (recursive doubling beats the ring's 2 messages) plus a 32nd of one
    # more (the divergence measurement).
    blog = Model("mlp:100-256-10", 60e-6)
    one = 1e-6 + 28426 * 4 / 1e9
    near("comm K=1", comm_per_step(blog, 2, 1, 1e-6, 1e9), one * (1 + 1 / 32))
    near("comm K=8", comm_per_step(blog, 2, 8, 1e-6, 1e9),
         (7 * recursive_doubling(2, VOTE_BYTES, 1e-6, 1e9) + 2 * one) / 8)
    near("comm, one rank", comm_per_step(blog, 1, 1, 1e-6, 1e9), 0.0)
    near("step, no overlap", step_time(1.0, 0.5), 1.5)
    near("step, overlap hides", step_time(1.0, 0.5, overlap=True), 1.0)
    near("step, overlap bound", step_time(0.9, 1.0, overlap=True), 0.3 + 1.0)
    same("fit", fit(2e-6, 0.05, 10e-6), (5e-6, 112680 / 2e-6, 2e9))
    same("fit without a vote", fit(2e-6, 0.05)[0], None)
    t = {"alpha": 1e-6, "bw_small": 8e9, "bw_large": 2e9}
    near("local cost, cached size", local_cost(t, 8e5), 1e-4)
    near("local cost, streamed size", local_cost(t, 2e7), 1e-2)
    near("local cost, a vote", local_cost(t, 8), 2e-6)
    # One rendering of synthetic measurements: every table and row present,
    # the 2-rank check's prediction = serial step + the bucket at 113 KB's
    # bandwidth (112,680 B in 112.68 us: 1 GB/s).
    col = {"present": True, "memcpy": {"large_gbps": 5.0},
           "ops": [{"what": "allreduce 113 KB, threads", "us": 112.68},
                   {"what": "allreduce 100 MB, threads", "us": 1e5}],
           "votes": [{"what": "agree (one vote), threads", "us": 1.0}]}
    serial = {"ok": True, "samples_per_s": 32 / 100e-6}
    dp = {"ok": True, "samples_per_s": 64 / 300e-6, "samples": 64000, "comm_s": [0.1, 0.1]}
    doc = {"runs": {"blog": {"serial": [serial], "dp2": [dp]}, "10m": {"serial": [serial],
                                                                     "dp2": []}},
           "collective": col, "mpi_collective": {"present": False}, "source": "s", "machine": "m"}
    import scaling_model
    host = scaling_model.local_transports(col, doc["mpi_collective"])
    text = render({k: Model(spec, 100e-6) for k, spec in (("blog", "mlp:100-256-10"),
                                                           ("10m", "mlp:1000-4000-1500-10"))},
                  doc, host)
    same("rendered tables", [text.count("| **%d** | 2 |" % k) for k in (1, 8, 64)], [2, 2, 2])
    same("rendered ranks", text.count("|  | 64 |"), 6)
    same("rendered networks", all(n.name in text for n in scaling_model.NETWORKS), True)
    pred = 100e-6 + 28426 * 4 / 1e9 * (1 + 1 / 32)
    same("2-rank check", "| mlp:100-256-10 | 0.300 ms | %.3f ms |" % (pred * 1e3) in text, True)
    same("not measured", "| mlp:1000-4000-1500-10 | not measured |" in text, True)
    bad = [c for c in checks if not c[1]]
    for what, _, got, want in bad:
        print("scaling_model self-test FAILED: %s: got %r, want %r" % (what, got, want))
    print("scaling_model self-test: %d of %d checks passed" % (len(checks) - len(bad),
                                                                len(checks)))
    return 1 if bad else 0



if __name__ == "__main__":
    sys.exit(run())
