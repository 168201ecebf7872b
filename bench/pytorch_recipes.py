"""The PyTorch recipes of the blog post Hogwild Lab grew out of, instrumented.

One recipe per invocation, on the blog's workload: MLP 100-256-10,
X = randn(10000, 100), random labels, batch 32, SGD lr 0.01 (no momentum),
3 epochs, DataLoader(shuffle=True, num_workers=0), one intra-op thread in the
parent and in every worker (torch.set_num_threads(1)).

    /usr/bin/python3 bench/pytorch_recipes.py RECIPE [--workers N] [--epochs E]

RECIPE:
  serial   the plain training loop
  spawn    process Hogwild with mp.spawn, model.share_memory() (the blog's 方案一)
  fork     the same worker with mp.get_context("fork").Process
  threads  the blog's thread recipe (ThreadHogwildTrainer of its 完整修复代码:
           one queue of batches per epoch, N threads, each with its own
           optimizer on the shared model)
  ddp      DistributedDataParallel, gloo, DistributedSampler (the blog's 方案二)

What is added to the recipes, for measuring only: timestamps, a barrier
after each worker's set-up (so the training window starts when every worker
is ready; the blog's workers start training as soon as each is up), and a
queue that brings each worker's figures back. The training code itself is
the blog's. Prints one line "RESULT {json}" on stdout; progress and errors go
to stderr. Exit status 0 when the recipe ran (even with thread errors, which
are counted), 1 when it failed.

Fields of RESULT: recipe, workers, split ("replicate": every worker walks
all data, as the blog's Hogwild workers do; "shard": each sample once per
epoch), samples (processed by all workers), train_s (from the moment every
worker is ready to the last worker's finish), samples_per_s, startup_ms
(per worker: launch to ready for its first step, its own set-up only),
all_ready_ms (launch to the last worker ready), final_loss (mean over workers
of their last epoch's mean batch loss), worker_pids, errors.
"""

import json
import os
import socket
import sys
import threading
import time
import traceback

import torch
import torch.multiprocessing as mp
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

ROWS, DIM, CLASSES, HIDDEN = 10000, 100, 10, 256
BATCH, LR = 32, 0.01


def now():
    return time.monotonic()  # CLOCK_MONOTONIC: one clock for all processes


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def make_data():
    g = torch.Generator().manual_seed(0)
    X = torch.randn(ROWS, DIM, generator=g)
    y = torch.randint(0, CLASSES, (ROWS,), generator=g)
    return TensorDataset(X, y)


def make_model():
    torch.manual_seed(1)
    return nn.Sequential(nn.Linear(DIM, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, CLASSES))


def param_checksum(model):
    with torch.no_grad():
        return float(sum(p.double().sum() for p in model.parameters()))


# ---------------------------------------------------------------- serial loop
def run_serial(epochs):
    torch.set_num_threads(1)
    model, dataset = make_model(), make_data()
    launch = now()
    dataloader = DataLoader(dataset, batch_size=BATCH, shuffle=True, num_workers=0)
    optimizer = optim.SGD(model.parameters(), lr=LR)
    criterion = nn.CrossEntropyLoss()
    ready = now()
    samples, last = 0, None
    for epoch in range(epochs):
        total_loss, num_batches = 0.0, 0
        for batch_x, batch_y in dataloader:
            output = model(batch_x)
            loss = criterion(output, batch_y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total_loss += loss.item()
            num_batches += 1
            samples += batch_x.shape[0]
        last = total_loss / num_batches
    finish = now()
    return {"split": "-", "samples": samples, "train_s": finish - ready,
            "startup_ms": [(ready - launch) * 1e3], "all_ready_ms": None,
            "final_loss": last, "worker_pids": [os.getpid()], "errors": []}


# ------------------------------------------------------ process Hogwild worker
def hogwild_worker(rank, model, dataset, num_epochs, batch_size, learning_rate, launch,
                   barrier, results):
    """The blog's train_worker (方案一), with timestamps and a start barrier."""
    try:
        torch.set_num_threads(1)
        torch.manual_seed(42 + rank)
        dataloader = DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=0)
        optimizer = optim.SGD(model.parameters(), lr=learning_rate)
        criterion = nn.CrossEntropyLoss()
        ready = now()
        barrier.wait()
        samples, epoch_losses = 0, []
        for epoch in range(num_epochs):
            total_loss, num_batches = 0.0, 0
            for batch_x, batch_y in dataloader:
                output = model(batch_x)
                loss = criterion(output, batch_y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                total_loss += loss.item()
                num_batches += 1
                samples += batch_x.shape[0]
            epoch_losses.append(total_loss / num_batches)
        results.put({"rank": rank, "pid": os.getpid(), "launch": launch, "ready": ready,
                     "finish": now(), "samples": samples, "epoch_losses": epoch_losses})
    except BaseException as e:  # report, then let the recipe's own failure path run
        results.put({"rank": rank, "pid": os.getpid(), "error": "%s: %s" % (type(e).__name__, e)})
        barrier.abort()
        raise


def collect(results, n):
    got = [results.get() for _ in range(n)]
    errors = [r["error"] for r in got if "error" in r]
    ok = sorted((r for r in got if "error" not in r), key=lambda r: r["rank"])
    return ok, errors


def summarise(ok, split, errors):
    ready = max(r["ready"] for r in ok)
    finish = max(r["finish"] for r in ok)
    return {"split": split, "samples": sum(r["samples"] for r in ok), "train_s": finish - ready,
            "startup_ms": [(r["ready"] - r["launch"]) * 1e3 for r in ok],
            "all_ready_ms": (ready - min(r["launch"] for r in ok)) * 1e3,
            "final_loss": sum(r["epoch_losses"][-1] for r in ok) / len(ok),
            "worker_pids": [r["pid"] for r in ok], "errors": errors}


def run_spawn(workers, epochs):
    torch.set_num_threads(1)
    model, dataset = make_model(), make_data()
    model.share_memory()  # the blog's key line
    before = param_checksum(model)
    ctx = mp.get_context("spawn")
    barrier, results = ctx.Barrier(workers), ctx.SimpleQueue()
    launch = now()
    mp.spawn(hogwild_worker, args=(model, dataset, epochs, BATCH, LR, launch, barrier, results),
             nprocs=workers, join=True)
    ok, errors = collect(results, workers)
    out = summarise(ok, "replicate", errors)
    out["shared_params_changed"] = param_checksum(model) != before
    return out


def run_fork(workers, epochs):
    torch.set_num_threads(1)
    model, dataset = make_model(), make_data()
    model.share_memory()
    before = param_checksum(model)
    ctx = mp.get_context("fork")
    barrier, results = ctx.Barrier(workers), ctx.SimpleQueue()
    processes = []
    for rank in range(workers):
        p = ctx.Process(target=hogwild_worker,
                        args=(rank, model, dataset, epochs, BATCH, LR, now(), barrier, results))
        p.start()
        processes.append(p)
    ok, errors = collect(results, workers)
    for p in processes:
        p.join()
    errors += ["worker pid %d exited with %d" % (p.pid, p.exitcode) for p in processes
               if p.exitcode != 0]
    out = summarise(ok, "replicate", errors)
    out["shared_params_changed"] = param_checksum(model) != before
    return out


# ----------------------------------------------------------------------- DDP
def ddp_worker(rank, world_size, port, dataset, num_epochs, batch_size, lr, launch, barrier,
               results):
    """The blog's DDPTrainer._worker (方案二), on 127.0.0.1 and a free port."""
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.utils.data.distributed import DistributedSampler
    try:
        torch.set_num_threads(1)
        os.environ["MASTER_ADDR"] = "127.0.0.1"
        os.environ["MASTER_PORT"] = str(port)
        dist.init_process_group("gloo", rank=rank, world_size=world_size)
        model = DDP(make_model())
        sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank)
        dataloader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
        optimizer = optim.SGD(model.parameters(), lr=lr)
        criterion = nn.CrossEntropyLoss()
        ready = now()
        barrier.wait()
        samples, epoch_losses = 0, []
        for epoch in range(num_epochs):
            sampler.set_epoch(epoch)
            total_loss, num_batches = 0.0, 0
            for batch_x, batch_y in dataloader:
                output = model(batch_x)
                loss = criterion(output, batch_y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                total_loss += loss.item()
                num_batches += 1
                samples += batch_x.shape[0]
            epoch_losses.append(total_loss / num_batches)
        finish = now()
        dist.destroy_process_group()
        results.put({"rank": rank, "pid": os.getpid(), "launch": launch, "ready": ready,
                     "finish": finish, "samples": samples, "epoch_losses": epoch_losses})
    except BaseException as e:
        results.put({"rank": rank, "pid": os.getpid(), "error": "%s: %s" % (type(e).__name__, e)})
        barrier.abort()
        raise


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_ddp(workers, epochs):
    torch.set_num_threads(1)
    dataset = make_data()
    ctx = mp.get_context("spawn")
    barrier, results = ctx.Barrier(workers), ctx.SimpleQueue()
    launch = now()
    mp.spawn(ddp_worker,
             args=(workers, free_port(), dataset, epochs, BATCH, LR, launch, barrier, results),
             nprocs=workers, join=True)
    ok, errors = collect(results, workers)
    return summarise(ok, "shard", errors)


# ------------------------------------------------------------------- threads
class ThreadHogwildTrainer:
    """The blog's ThreadHogwildTrainer (完整修复代码), with step counters and
    timestamps; its per-epoch print goes to stderr."""

    def __init__(self, model, dataset, num_threads=4, batch_size=32, lr=0.01):
        self.model = model
        self.dataset = dataset
        self.num_threads = num_threads
        self.batch_size = batch_size
        self.lr = lr
        self.criterion = nn.CrossEntropyLoss()
        self.train_s = 0.0
        self.samples = 0
        self.first_step = {}  # thread_id -> seconds from its start to its first finished step
        self.last_epoch_loss = None

    def _train_thread(self, thread_id, data_queue, stats_dict, started):
        optimizer = optim.SGD(self.model.parameters(), lr=self.lr)
        batches_processed = 0
        total_loss = 0
        samples = 0
        while True:
            batch = data_queue.get()
            if batch is None:
                break
            batch_x, batch_y = batch
            output = self.model(batch_x)
            loss = self.criterion(output, batch_y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            batches_processed += 1
            total_loss += loss.item()
            samples += batch_x.shape[0]
            if batches_processed == 1 and thread_id not in self.first_step:
                self.first_step[thread_id] = now() - started
            stats_dict[thread_id] = {
                "batches": batches_processed,
                "avg_loss": total_loss / max(batches_processed, 1),
                "samples": samples,
            }

    def train(self, num_epochs=10):
        import queue
        log(f"启动线程 Hogwild 训练: {self.num_threads} 个线程")
        for epoch in range(num_epochs):
            dataloader = DataLoader(self.dataset, batch_size=self.batch_size, shuffle=True)
            data_queue = queue.Queue()
            for batch in dataloader:
                data_queue.put(batch)
            for _ in range(self.num_threads):
                data_queue.put(None)
            stats_dict = {}
            threads = []
            started = now()
            for i in range(self.num_threads):
                t = threading.Thread(target=self._train_thread,
                                     args=(i, data_queue, stats_dict, now()))
                t.start()
                threads.append(t)
            for t in threads:
                t.join()
            self.train_s += now() - started
            total_batches = sum(s["batches"] for s in stats_dict.values())
            self.samples += sum(s["samples"] for s in stats_dict.values())
            avg_loss = sum(s["avg_loss"] * s["batches"]
                           for s in stats_dict.values()) / max(total_batches, 1)
            self.last_epoch_loss = avg_loss
            log(f"  Epoch {epoch}, Batches: {total_batches}, Avg Loss: {avg_loss:.4f}")


def run_threads(workers, epochs):
    torch.set_num_threads(1)
    thread_errors = []

    def excepthook(args):  # count every thread that dies, say so on stderr, never hide it
        thread_errors.append("%s: %s" % (args.exc_type.__name__, str(args.exc_value).split("\n")[0]))
        log("thread %s died: %s" % (args.thread.name if args.thread else "?", thread_errors[-1]))

    threading.excepthook = excepthook
    trainer = ThreadHogwildTrainer(make_model(), make_data(), num_threads=workers,
                                   batch_size=BATCH, lr=LR)
    trainer.train(num_epochs=epochs)
    return {"split": "shard", "samples": trainer.samples, "train_s": trainer.train_s,
            "startup_ms": [trainer.first_step[k] * 1e3 for k in sorted(trainer.first_step)],
            "all_ready_ms": None, "final_loss": trainer.last_epoch_loss,
            "worker_pids": [os.getpid()], "errors": [], "thread_errors": thread_errors}


RECIPES = {"serial": lambda w, e: run_serial(e), "spawn": run_spawn, "fork": run_fork,
           "threads": run_threads, "ddp": run_ddp}


def main():
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("recipe", choices=sorted(RECIPES))
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--epochs", type=int, default=3)
    a = ap.parse_args()
    workers = 1 if a.recipe == "serial" else a.workers
    result = {"recipe": a.recipe, "workers": workers, "epochs": a.epochs,
              "torch": torch.__version__}
    try:
        result.update(RECIPES[a.recipe](workers, a.epochs))
        result["samples_per_s"] = result["samples"] / result["train_s"] if result["train_s"] else None
        result["ok"] = not result["errors"]
    except BaseException as e:
        traceback.print_exc()
        result.update(ok=False, errors=result.get("errors", []) + ["%s: %s" % (type(e).__name__,
                                                                          str(e).strip()[:500])])
    print("RESULT " + json.dumps(result), flush=True)
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
