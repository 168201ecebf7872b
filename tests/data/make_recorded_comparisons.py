"""Records the comparison presets' runs for tst_verdicts: each preset run
headless with --out, and per run what its verdict reads (samples/s, test
accuracy, training seconds, each worker's start-up, the final divergence of
each worker, the median of its step samples' divergence, as
ui/teaching/comparisonverdict.cpp's medianDivergence takes it).

    python3 tests/data/make_recorded_comparisons.py ENGINE [OUT.json]

OUT defaults to tests/data/recorded-comparisons.json; it also names the
machine and the load it ran at, since the figures are that machine's.
"""

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

PRESETS = ["hogwild-vs-locked", "ddp-vs-hogwild", "local-sgd", "start-methods",
           "accumulate-hogwild"]


def processor():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def run_of(folder):
    with open(os.path.join(folder, "summary.json")) as f:
        s = json.load(f)
    steps = []
    with open(os.path.join(folder, "metrics.csv")) as f:
        header = f.readline().strip().split(",")
        col = {k: i for i, k in enumerate(header)}
        for line in f:
            p = line.strip().split(",")
            if len(p) == len(header) and p[col["kind"]] == "step":
                d = float(p[col["divergence"]])
                if d == d:
                    steps.append(d)
    final = s["final"]
    return {
        "samples_per_second": final["samples_per_second"],
        "test_accuracy": final["test_accuracy"],
        "train_seconds": final["train_seconds"],
        "state": s["state"],
        "startup_seconds": [w["startup_seconds"] for w in s["workers"]],
        "final_divergence": [w["divergence"] for w in s["workers"]],
        "median_divergence": statistics.median(steps) if steps else -1,
        "processes": s["mode"].startswith("processes"),
    }


def main():
    engine = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "recorded-comparisons.json")
    doc = {"machine": "%s, %d cores" % (processor(), os.cpu_count()),
           "load_before": os.getloadavg()[0], "presets": {}}
    for preset in PRESETS:
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([engine, "--headless", "--preset", preset, "--out", tmp, "--quiet"],
                           check=True, stdout=subprocess.DEVNULL)
            labels = sorted(os.listdir(tmp), key=lambda d: os.path.getmtime(os.path.join(tmp, d)))
            doc["presets"][preset] = [dict(label=label, **run_of(os.path.join(tmp, label)))
                                      for label in labels]
        print("recorded", preset, file=sys.stderr)
    doc["load_after"] = os.getloadavg()[0]
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
