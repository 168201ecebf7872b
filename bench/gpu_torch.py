"""The PyTorch side of the GPU device check (tests/gpu/device-check), and the
Python it needs besides the blog's recipes (bench/pytorch_recipes.py).

    python3 bench/gpu_torch.py SUBCOMMAND [options]

Subcommands (each prints one line "RESULT {json}" on stdout at the end;
progress and reasons go to stderr; exit 0 when it ran, 1 when it failed, 3
when it was skipped, e.g. no CUDA device, saying why in the RESULT):

  make-data DIR   writes the end-to-end data sets the engine trains on and
                  PyTorch evaluates: DIR/mlp.csv (a learnable teacher task,
                  features exact in float32 so both parse the same bits),
                  DIR/bag.svm (LIBSVM bags of tokens, each class preferring
                  its part of the vocabulary) and DIR/cnn.csv (28x28 images
                  of small integers, each class a bright square at a place of
                  its own, jittered, on noise, a tenth of the labels random:
                  a task the CNN learns to about 92%, the most those labels
                  allow, in an epoch or two, where the teacher: sets give it
                  nothing to learn). Files, not the engine's
                  synthetic specs: PyTorch reads exactly the rows the engine
                  read, and the engine's held-out split (Fisher-Yates with its
                  xoshiro256** Rng, seeded by --seed) is reproduced here.
  evaluate RUN... loads each --out folder (experiment.json, weights.safetensors
                  and weights.npz), rebuilds the model as torch.nn modules
                  (nn.Sequential of Linear for mlp:, EmbeddingBag + Linear for
                  embedding-bag:, the example's Net for cnn:mnist), regenerates the test split (of csv: and
                  libsvm: files, and of the synthetic random:, teacher: and
                  sparse-bow: sets, ported from core/data/synthetic.cpp) and
                  evaluates it; compares with the run's own last test
                  evaluation (metrics.csv, kind eval): accuracy within 0.5
                  points and loss within 1e-3 (relative to max(1, loss))
                  pass. Each run's entry carries its mode and device, and
                  "why" names every figure that disagrees and by how much;
                  "verdict" says whether the CPU runs (the control) agree, so
                  a GPU run's disagreement is told from the evaluator's.
  replicas        R data-parallel replicas of one MLP on one GPU, batch B each,
                  the way PyTorch does it best: parameters stacked along a
                  replica axis, torch.func.vmap(grad(functional_call)) for all
                  replicas' gradients in one batched computation, their mean
                  applied to every replica (they stay identical, as DDP's and
                  the engine's do); eager and captured in one CUDA graph;
                  plus one model at batch R*B for reference. samples/s.
                  --model cnn: mnist_hogwild's Net instead, written over the
                  stacked parameters (cnn_forward), its two dropout masks
                  drawn per replica outside vmap.
  cpu-bag         process Hogwild on the CPU in the blog's style (fork,
                  share_memory(), one intra-op thread per worker, every
                  worker walking all rows) on the sparse embedding bag
                  (nn.EmbeddingBag sparse gradients), samples/s.

Written for PyTorch 2.x (torch.func); runs on 1.13 with functorch, and says
so when neither is there.
"""

import argparse
import json
import math
import os
import struct
import sys
import time

sys.dont_write_bytecode = True

try:
    import numpy as np
except ImportError:  # make-data and the Rng need no numpy; the rest says why
    np = None

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_eval import (Rng, cmd_evaluate, log, make_synthetic, np,  # noqa: E402
                      parse_synthetic, result)


# -------------------------------------------------------------------- make-data
def cmd_make_data(a):
    import random
    os.makedirs(a.dir, exist_ok=True)
    rnd = random.Random(a.seed)
    # mlp.csv: label, then DIM features that are multiples of 1/1024 in
    # [-8, 8], written with all their (up to 11) significant digits, so the
    # decimal is exact and both parsers get the same float32 (%.10g rounded
    # one value in six); labels from a fixed random teacher DIM-32-CLASSES
    # (tanh), so the task is learnable.
    hidden = 32
    w1 = [[rnd.gauss(0, 1) / math.sqrt(a.dim) for _ in range(a.dim)] for _ in range(hidden)]
    w2 = [[rnd.gauss(0, 1) / math.sqrt(hidden) for _ in range(hidden)] for _ in range(a.classes)]
    path = os.path.join(a.dir, "mlp.csv")
    with open(path, "w") as f:
        for _ in range(a.rows):
            x = [max(-8.0, min(8.0, round(rnd.gauss(0, 1) * 1024) / 1024)) for _ in range(a.dim)]
            h = [math.tanh(sum(wi * xi for wi, xi in zip(row, x))) for row in w1]
            z = [sum(wi * hi for wi, hi in zip(row, h)) for row in w2]
            label = max(range(a.classes), key=lambda c: z[c])
            f.write("%d,%s\n" % (label, ",".join("%.12g" % v for v in x)))
    # bag.svm: TOKENS draws per row, 75% from the class's own slice of the
    # vocabulary, the rest anywhere; repeated tokens become counts (LIBSVM
    # indices must increase). The last row holds the last token, so the
    # engine's vocabulary (the largest index) is exactly VOCAB.
    vpath = os.path.join(a.dir, "bag.svm")
    part = a.vocab // a.classes
    with open(vpath, "w") as f:
        for r in range(a.bag_rows):
            label = rnd.randrange(a.classes)
            counts = {}
            for _ in range(a.tokens):
                if rnd.random() < 0.75:
                    t = label * part + rnd.randrange(part)
                else:
                    t = rnd.randrange(a.vocab)
                counts[t] = counts.get(t, 0) + 1
            if r == a.bag_rows - 1:
                counts[a.vocab - 1] = counts.get(a.vocab - 1, 0) + 1
            f.write("%d %s\n" % (label, " ".join("%d:%d" % (t + 1, counts[t])
                                                 for t in sorted(counts))))
    cpath = os.path.join(a.dir, "cnn.csv")
    write_images(cpath, a.image_rows, rnd)
    return result({"ok": True, "mlp": path, "mlp_spec": "csv:" + path, "bag": vpath,
                   "bag_spec": "libsvm:" + vpath, "cnn": cpath, "cnn_spec": "csv:" + cpath,
                   "rows": a.rows, "dim": a.dim, "classes": a.classes, "bag_rows": a.bag_rows,
                   "vocab": a.vocab, "image_rows": a.image_rows})


def write_images(path, rows, rnd):
    """cnn.csv: label, then 28x28 pixels (row-major) of small integers, so
    the file is short and exact: class c is a 6x6 square of brightness 3-8
    whose corner is the c-th of ten places (two rows of five), moved by up
    to two pixels down or up and one across, on noise (one pixel in twenty
    at 1-5); one row in ten bears a random label, so no model passes about
    92% and the loss stays well above 0 (about 0.54 for cnn:mnist after 4
    epochs at lr 0.01, momentum 0.5): both figures can tell a wrong model
    from a right one."""
    with open(path, "w") as f:
        for _ in range(rows):
            label = rnd.randrange(10)
            img = [rnd.randint(1, 5) if rnd.random() < 0.05 else 0 for _ in range(784)]
            top = 4 + 12 * (label // 5) + rnd.randint(-2, 2)
            left = 1 + 5 * (label % 5) + rnd.randint(-1, 1)
            level = rnd.randint(3, 8)
            for y in range(max(top, 0), min(top + 6, 28)):
                for x in range(max(left, 0), min(left + 6, 28)):
                    img[y * 28 + x] = level
            if rnd.random() < 0.1:
                label = rnd.randrange(10)
            f.write("%d,%s\n" % (label, ",".join(map(str, img))))


# --------------------------------------------------------------------- replicas
def func_api(torch):
    """(vmap, grad, functional_call, where) from torch.func, or functorch, or None."""
    try:
        from torch.func import functional_call, grad, vmap
        return vmap, grad, functional_call, "torch.func"
    except ImportError:
        pass
    try:
        from functorch import grad, vmap
        from torch.nn.utils.stateless import functional_call
        return vmap, grad, functional_call, "functorch (torch %s)" % torch.__version__
    except ImportError:
        return None


def timed(torch, device, step, min_s, max_steps):
    """Runs step() until about min_s seconds have passed (after a warm-up);
    returns (steps, seconds)."""
    sync = (lambda: torch.cuda.synchronize()) if device.startswith("cuda") else (lambda: None)
    for _ in range(3):
        step()
    sync()
    n, t0 = 5, time.perf_counter()
    for _ in range(n):
        step()
    sync()
    per = max((time.perf_counter() - t0) / n, 1e-7)
    steps = int(max(10, min(max_steps, min_s / per)))
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    sync()
    return steps, time.perf_counter() - t0


def cnn_forward(F, p, x, m2, m3):
    """mnist_hogwild's Net on parameters `p` (its state_dict names), with the
    dropout masks given: m2 per sample and channel (Dropout2d), m3 per sample
    and unit, each 0 or 1 / (1 - 0.5)."""
    h = F.relu(F.max_pool2d(F.conv2d(x, p["conv1.weight"], p["conv1.bias"]), 2))
    h = F.relu(F.max_pool2d(F.conv2d(h, p["conv2.weight"], p["conv2.bias"]) * m2, 2))
    h = F.relu(F.linear(h.reshape(h.shape[0], 320), p["fc1.weight"], p["fc1.bias"])) * m3
    return F.log_softmax(F.linear(h, p["fc2.weight"], p["fc2.bias"]), dim=1)


def dropout_masks(torch, lead, device):
    """The Net's two dropout masks (p = 0.5) for samples of shape `lead`."""
    m2 = (torch.rand(*lead, 20, 1, 1, device=device) >= 0.5).float() * 2
    m3 = (torch.rand(*lead, 50, device=device) >= 0.5).float() * 2
    return m2, m3


def cmd_replicas(a):
    try:
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
    except ImportError as e:
        return result({"ok": None, "skipped": "PyTorch is not installed here: %s" % e}, 3)
    device = a.device
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        return result({"ok": None, "skipped": "torch.cuda.is_available() is False (torch %s, built "
                       "for CUDA %s)" % (torch.__version__, torch.version.cuda)}, 3)
    torch.manual_seed(1)
    cnn = a.model == "cnn"
    if cnn:  # mnist_hogwild's Net, dropouts on; MACs: conv1 576x10x25, conv2 64x20x250, fc1, fc2
        widths = None
        flops = 6.0 * (576 * 10 * 25 + 64 * 20 * 250 + 320 * 50 + 50 * 10)
    else:
        widths = [int(v) for v in a.model.split("-")]
        flops = 6.0 * sum(widths[i] * widths[i + 1] for i in range(len(widths) - 1))
    doc = {"ok": True, "torch": torch.__version__, "device": device,
           "model": "cnn:mnist" if cnn else "mlp:" + a.model,
           "batch": a.batch, "lr": a.lr, "rows": a.rows, "flops_per_sample": flops, "results": []}
    if device.startswith("cuda"):
        doc["gpu"] = torch.cuda.get_device_name(0)
        doc["cuda"] = torch.version.cuda
        doc["tf32_matmul"] = bool(torch.backends.cuda.matmul.allow_tf32)
    else:
        torch.set_num_threads(a.threads)
    api = func_api(torch)
    doc["func_api"] = api[3] if api else None
    if api is None:
        log("neither torch.func nor functorch is here: the vmap variants are skipped")

    if cnn:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from mnist_hogwild_net import Net
        base = Net().to(device).train()
        X = torch.randn(a.rows, 1, 28, 28, device=device)
        Y = torch.randint(0, 10, (a.rows,), device=device)
    else:
        layers = []
        for i in range(len(widths) - 1):
            layers.append(nn.Linear(widths[i], widths[i + 1]))
            if i < len(widths) - 2:
                layers.append(nn.ReLU())
        base = nn.Sequential(*layers).to(device)
        X = torch.randn(a.rows, widths[0], device=device)
        Y = torch.randint(0, widths[-1], (a.rows,), device=device)
    sample = tuple(X.shape[1:])

    def record(variant, R, steps, secs, note=None):
        rate = R * a.batch * steps / secs
        r = {"variant": variant, "R": R, "steps": steps, "seconds": secs, "samples_per_s": rate,
             "step_us": secs / steps * 1e6}
        if a.fp32_peak > 0:  # the device's own peak (the engine's device report), when given
            r["fp32_share"] = rate * flops / a.fp32_peak
        if note:
            r["note"] = note
        doc["results"].append(r)
        log("%-28s R=%-4d %10.3fM samples/s  step %8.1f us" % (variant, R, rate / 1e6,
                                                              secs / steps * 1e6))

    for R in [int(v) for v in a.R.split(",")]:
        n = R * a.batch
        offs = torch.arange(n, device=device)
        counter = torch.zeros((), dtype=torch.int64, device=device)

        def gather():
            idx = (offs + counter * n) % a.rows
            counter.add_(1)
            return X.index_select(0, idx), Y.index_select(0, idx)

        variants = []
        if api is not None:
            vmap, grad, functional_call, _ = api
            stacked = {k: v.detach().unsqueeze(0).repeat(R, *([1] * v.dim())).contiguous()
                       for k, v in base.named_parameters()}

            if cnn:  # the dropout masks drawn outside vmap, each replica its own
                def loss_fn(p, x, y, m2, m3):
                    return F.nll_loss(cnn_forward(F, p, x, m2, m3), y)
            else:
                def loss_fn(p, x, y):
                    return F.cross_entropy(functional_call(base, p, (x,)), y)

            grads_of = vmap(grad(loss_fn))

            def vmap_step():
                x, y = gather()
                xs, ys = x.view(R, a.batch, *sample), y.view(R, a.batch)
                if cnn:
                    g = grads_of(stacked, xs, ys, *dropout_masks(torch, (R, a.batch), device))
                else:
                    g = grads_of(stacked, xs, ys)
                for k, p in stacked.items():  # every replica steps with the replicas' mean
                    p.sub_(a.lr * g[k].mean(0, keepdim=True))
            variants.append(("vmap", vmap_step))
        params = [p.detach().clone().requires_grad_(True) for p in base.parameters()]

        def single_step():  # one model at batch R*B: what identical replicas amount to
            x, y = gather()
            if cnn:
                p = dict(zip([k for k, _ in base.named_parameters()], params))
                out = cnn_forward(F, p, x, *dropout_masks(torch, (n,), device))
                gs = torch.autograd.grad(F.nll_loss(out, y), params)
                with torch.no_grad():
                    for q, g in zip(params, gs):
                        q.sub_(a.lr * g)
                return
            h = x
            for i in range(0, len(params), 2):
                h = F.linear(h, params[i], params[i + 1])
                if i + 2 < len(params):
                    h = F.relu(h)
            loss = F.cross_entropy(h, y)
            gs = torch.autograd.grad(loss, params)
            with torch.no_grad():
                for p, g in zip(params, gs):
                    p.sub_(a.lr * g)
        variants.append(("one model, batch R*B", single_step))

        for name, fn in variants:
            try:
                steps, secs = timed(torch, device, fn, a.min_s, a.max_steps)
                record(name + ", eager", R, steps, secs)
            except Exception as e:
                doc["results"].append({"variant": name + ", eager", "R": R,
                                       "error": "%s: %s" % (type(e).__name__, str(e)[:300])})
                log("%s eager R=%d FAILED: %s" % (name, R, e))
                continue
            if not device.startswith("cuda") or a.no_graphs:
                continue
            try:  # the whole step in one CUDA graph, replayed
                s = torch.cuda.Stream()
                s.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(s):
                    for _ in range(3):
                        fn()
                torch.cuda.current_stream().wait_stream(s)
                g = torch.cuda.CUDAGraph()
                with torch.cuda.graph(g):
                    fn()
                steps, secs = timed(torch, device, g.replay, a.min_s, a.max_steps)
                record(name + ", CUDA graph", R, steps, secs)
            except Exception as e:
                doc["results"].append({"variant": name + ", CUDA graph", "R": R,
                                       "error": "%s: %s" % (type(e).__name__, str(e)[:300])})
                log("%s graph R=%d FAILED: %s" % (name, R, e))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(doc, f, indent=1)
    doc["ok"] = any("samples_per_s" in r for r in doc["results"])
    return result(doc, 0 if doc["ok"] else 1)


# ---------------------------------------------------------------------- cpu-bag
def bag_worker(rank, model, tok, cnt, labels, epochs, batch, lr, launch, barrier, results):
    import torch
    import torch.nn.functional as F
    try:
        torch.set_num_threads(1)
        g = torch.Generator().manual_seed(42 + rank)
        opt = torch.optim.SGD(model.parameters(), lr=lr)
        rows, T = tok.shape
        offsets = torch.arange(0, batch * T, T)
        ready = time.monotonic()
        barrier.wait()
        samples, losses = 0, []
        for _ in range(epochs):
            perm = torch.randperm(rows, generator=g)
            total, nb = 0.0, 0
            for s in range(0, rows, batch):
                idx = perm[s:s + batch]
                b = idx.numel()
                out = model(tok[idx].reshape(-1), offsets[:b], (cnt[idx] / T).reshape(-1))
                loss = F.cross_entropy(out, labels[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
                total += loss.item()
                nb += 1
                samples += b
            losses.append(total / nb)
        results.put({"rank": rank, "pid": os.getpid(), "launch": launch, "ready": ready,
                     "finish": time.monotonic(), "samples": samples, "epoch_losses": losses})
    except BaseException as e:
        results.put({"rank": rank, "pid": os.getpid(), "error": "%s: %s" % (type(e).__name__, e)})
        barrier.abort()
        raise


def cmd_cpu_bag(a):
    try:
        import torch
        import torch.multiprocessing as mp
        import torch.nn as nn
    except ImportError as e:
        return result({"ok": None, "skipped": "PyTorch is not installed here: %s" % e}, 3)
    torch.set_num_threads(1)
    torch.manual_seed(0)
    V, D, C = (int(v) for v in a.model.split("-"))
    g = torch.Generator().manual_seed(0)
    labels = torch.randint(0, C, (a.rows,), generator=g)
    part = V // C
    own = labels.unsqueeze(1) * part + torch.randint(0, part, (a.rows, a.tokens), generator=g)
    anywhere = torch.randint(0, V, (a.rows, a.tokens), generator=g)
    tok = torch.where(torch.rand(a.rows, a.tokens, generator=g) < 0.75, own, anywhere)
    cnt = torch.ones(a.rows, a.tokens)

    class Bag(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.EmbeddingBag(V, D, mode="sum", sparse=True)
            self.fc = nn.Linear(D, C)

        def forward(self, idx, offsets, weights):
            return self.fc(self.embedding(idx, offsets, per_sample_weights=weights))
    model = Bag()
    model.share_memory()
    ctx = mp.get_context(a.start)
    barrier, results = ctx.Barrier(a.workers), ctx.SimpleQueue()
    procs = []
    for rank in range(a.workers):
        p = ctx.Process(target=bag_worker, args=(rank, model, tok, cnt, labels, a.epochs, a.batch,
                                                 a.lr, time.monotonic(), barrier, results))
        p.start()
        procs.append(p)
    got = [results.get() for _ in range(a.workers)]
    for p in procs:
        p.join()
    errors = [r["error"] for r in got if "error" in r]
    errors += ["worker pid %d exited with %d" % (p.pid, p.exitcode) for p in procs if p.exitcode]
    ok = [r for r in got if "error" not in r]
    doc = {"recipe": "cpu-bag (%s)" % a.start, "model": "embedding-bag:" + a.model,
           "workers": a.workers, "epochs": a.epochs, "split": "replicate",
           "torch": torch.__version__, "errors": errors}
    if ok:
        ready = max(r["ready"] for r in ok)
        finish = max(r["finish"] for r in ok)
        samples = sum(r["samples"] for r in ok)
        doc.update(samples=samples, train_s=finish - ready,
                   samples_per_s=samples / (finish - ready) if finish > ready else None,
                   startup_ms=[(r["ready"] - r["launch"]) * 1e3 for r in ok],
                   final_loss=sum(r["epoch_losses"][-1] for r in ok) / len(ok))
    doc["ok"] = not errors and bool(ok)
    return result(doc, 0 if doc["ok"] else 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("make-data")
    p.add_argument("dir")
    p.add_argument("--rows", type=int, default=12000)
    p.add_argument("--dim", type=int, default=100)
    p.add_argument("--classes", type=int, default=10)
    p.add_argument("--bag-rows", type=int, default=20000)
    p.add_argument("--vocab", type=int, default=5000)
    p.add_argument("--tokens", type=int, default=20)
    p.add_argument("--image-rows", type=int, default=4000)
    p.add_argument("--seed", type=int, default=7)
    p = sub.add_parser("evaluate")
    p.add_argument("runs", nargs="+")
    p.add_argument("--device", default="auto")
    p = sub.add_parser("replicas")
    p.add_argument("--R", default="1,8,64,256")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--model", default="100-256-10",
                   help="MLP widths, or cnn (mnist_hogwild's Net, on random 28x28 images)")
    p.add_argument("--rows", type=int, default=262144)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--device", default="cuda")
    p.add_argument("--threads", type=int, default=1, help="intra-op threads on the CPU")
    p.add_argument("--min-s", type=float, default=0.5, help="seconds measured per figure")
    p.add_argument("--max-steps", type=int, default=20000)
    p.add_argument("--no-graphs", action="store_true")
    p.add_argument("--fp32-peak", type=float, default=0,
                   help="the device's FP32 peak, FLOP/s, for each figure's share of it")
    p.add_argument("--json")
    p = sub.add_parser("cpu-bag")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--model", default="5000-32-4", help="V-D-C")
    p.add_argument("--rows", type=int, default=20000)
    p.add_argument("--tokens", type=int, default=20)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.5)
    p.add_argument("--start", default="fork", choices=["fork", "spawn", "forkserver"])
    a = ap.parse_args()
    return {"make-data": cmd_make_data, "evaluate": cmd_evaluate, "replicas": cmd_replicas,
            "cpu-bag": cmd_cpu_bag}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
