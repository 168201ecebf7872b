"""The mnist_hogwild CNN: Hogwild Lab against PyTorch's example, side by side.

Both train examples/mnist_hogwild's Net on Fashion-MNIST in the example's
setting: 2 Hogwild processes updating one shared model, each walking the
whole training set every epoch (shuffled), batch 64, SGD lr 0.01 momentum
0.5, dropout 0.5, then the test set. PyTorch runs
bench/mnist_hogwild_torch.py (the example's own code, FashionMNIST read from
Debian's dataset-fashion-mnist) with /usr/bin/python3 and Debian's
python3-torch and python3-torchvision; Hogwild Lab runs its preset
mnist-hogwild (the same setting, start method spawn as the example's). The
rounds alternate the two, so a change in the machine's load hits both.

    /usr/bin/python3 bench/cnn.py --app build/app/hogwild-lab [--epochs 10]
                                  [--rounds 1] [--results bench/RESULTS.md]

Prints, per round and side: the whole run's seconds (start to exit, loading
and testing included), the training seconds, samples/s and test accuracy,
and the ratios PyTorch / Hogwild Lab. With --results it replaces the section
"## The mnist_hogwild CNN against PyTorch's example" in that file (appends
it when absent). Exit 1 when a side could not run.
"""
import argparse
import gzip
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SOURCE = os.environ.get("HWL_FASHION_MNIST_DIR", "/usr/share/datasets/fashion-mnist")
FILES = ["train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
         "t10k-labels-idx1-ubyte"]
HEADING = "## The mnist_hogwild CNN against PyTorch's example"
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from report_util import machine, write_preserved  # noqa: E402


def prepare(folder):
    """torchvision's FashionMNIST layout (FashionMNIST/raw/, unpacked)."""
    raw = os.path.join(folder, "FashionMNIST", "raw")
    os.makedirs(raw, exist_ok=True)
    for name in FILES:
        with gzip.open(os.path.join(SOURCE, name + ".gz")) as src, \
                open(os.path.join(raw, name), "wb") as dst:
            shutil.copyfileobj(src, dst)


def run_torch(folder, epochs):
    t = time.monotonic()
    p = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "mnist_hogwild_torch.py"),
                        "--data", folder, "--epochs", str(epochs)],
                       capture_output=True, text=True, timeout=3600)
    wall = time.monotonic() - t
    m = re.search(r"^RESULT (\{.*\})$", p.stdout, re.M)
    if p.returncode != 0 or not m:
        raise RuntimeError("PyTorch's example failed (exit %d): %s" % (p.returncode,
                                                                      p.stderr[-2000:]))
    r = json.loads(m.group(1))
    return {"wall_s": wall, "train_s": r["train_s"], "accuracy": r["accuracy"],
            "samples": r["samples"], "threads": r["threads"]}


def run_ours(app, epochs):
    t = time.monotonic()
    p = subprocess.run([app, "--headless", "--preset", "mnist-hogwild", "--epochs", str(epochs),
                        "--pace", "0"], capture_output=True, text=True, timeout=3600)
    wall = time.monotonic() - t
    done = re.search(r"^summary: finished after \d+ of \d+ epochs; (\d+) samples in ([\d.]+) s "
                     r"training", p.stdout, re.M)
    acc = re.search(r"^summary: final test accuracy ([\d.]+)%", p.stdout, re.M)
    if p.returncode != 0 or not done or not acc:
        raise RuntimeError("hogwild-lab failed (exit %d): %s" % (p.returncode,
                                                                p.stderr[-2000:]))
    return {"wall_s": wall, "train_s": float(done.group(2)), "accuracy": float(acc.group(1)),
            "samples": int(done.group(1))}


def section(rows, args, load):
    med = {side: {k: statistics.median(r[side][k] for r in rows)
                  for k in ("wall_s", "train_s", "accuracy")} for side in ("torch", "ours")}
    lines = [HEADING, "",
             "`/usr/bin/python3 bench/cnn.py --app %s --epochs %d --rounds %d` (also step 4b "
             "of `bash bench/run`, with 2 epochs), %s, %s, load average %s at the start. Both sides train "
             "examples/mnist_hogwild's Net on Fashion-MNIST in its setting (2 Hogwild "
             "processes, each over the whole training set per epoch, batch 64, SGD lr 0.01 "
             "momentum 0.5, dropout 0.5), then test. PyTorch %s runs the example's own code "
             "(`bench/mnist_hogwild_torch.py`, %d intra-op threads a process, its default); "
             "Hogwild Lab runs `--preset mnist-hogwild`. Medians of the rounds; ratios are "
             "PyTorch / Hogwild Lab. Both normalise the pixels as the example does, "
             "(x - 0.1307) / 0.3081 (the preset's `--normalize 0.1307,0.3081`)."
             % (args.app, args.epochs, args.rounds, time.strftime("%Y-%m-%d %H:%M UTC",
                                                                   time.gmtime()),
                machine(), load, args.torch_version, rows[0]["torch"]["threads"]), "",
             "| | PyTorch's example | Hogwild Lab | ratio |",
             "| --- | --- | --- | --- |"]
    for key, label in (("wall_s", "whole run, s (loading and test included)"),
                       ("train_s", "training, s")):
        lines.append("| %s | %.1f | %.1f | %.2f |" % (label, med["torch"][key], med["ours"][key],
                                                     med["torch"][key] / med["ours"][key]))
    lines.append("| test accuracy, %% | %.2f | %.2f | |" % (med["torch"]["accuracy"],
                                                           med["ours"]["accuracy"]))
    lines.append("")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--app", default="build/app/hogwild-lab")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--results")
    args = ap.parse_args()
    try:
        import torch  # noqa: F401
        import torchvision  # noqa: F401
        args.torch_version = torch.__version__
    except ImportError as e:
        print("bench/cnn.py: %s (apt-get install python3-torch python3-torchvision)" % e,
              file=sys.stderr)
        return 1
    if not os.path.exists(os.path.join(SOURCE, FILES[0] + ".gz")):
        print("bench/cnn.py: Fashion-MNIST is not in %s (apt-get install "
              "dataset-fashion-mnist)" % SOURCE, file=sys.stderr)
        return 1
    load = open("/proc/loadavg").read().split()[0]
    rows = []
    with tempfile.TemporaryDirectory(prefix="hwl-cnn-bench-") as folder:
        prepare(folder)
        for i in range(args.rounds):
            row = {}
            for side in (("torch", "ours") if i % 2 == 0 else ("ours", "torch")):
                try:
                    row[side] = run_torch(folder, args.epochs) if side == "torch" \
                        else run_ours(args.app, args.epochs)
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    print("bench/cnn.py: %s" % e, file=sys.stderr)
                    return 1
                r = row[side]
                print("round %d %-5s whole %.1f s, training %.1f s, %.0f samples/s, accuracy "
                      "%.2f%%" % (i + 1, side, r["wall_s"], r["train_s"],
                                  r["samples"] / r["train_s"], r["accuracy"]), flush=True)
            rows.append(row)
    text = section(rows, args, load)
    print(text)
    if args.results:
        write_preserved(args.results, HEADING, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
