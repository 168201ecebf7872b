#!/usr/bin/env python3
"""The 2-worker ceiling of this machine: two INDEPENDENT serial engine runs
at once (nothing shared, no Hogwild), against one alone. Their combined
samples/s over one run's is the best any 2-worker mode can do here: it
includes what the two cores lose to each other (shared caches, memory
bandwidth, frequency, a hypervisor's SMT siblings), and none of Hogwild's
own costs. Then the same 2-worker process Hogwild run twice: on ONE shared
copy of the parameters, and with --no-share (a private copy each): the gap
between those two is what sharing the parameters costs (every update
invalidates the other core's cached copy, which it must fetch again).
Writes JSON: {"alone", "pair", "ratio", "shared", "private"} (samples/s lists)."""
import argparse
import json
import re
import subprocess

RATE = re.compile(r"summary: \w+ after .*?: ([0-9.]+)([kM]?) samples/s")


def rate(text):
    m = RATE.search(text)
    if not m:
        raise RuntimeError("no summary line in:\n" + text[-500:])
    return float(m.group(1)) * {"": 1, "k": 1e3, "M": 1e6}[m.group(2)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--app", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--epochs", type=int, default=30)
    a = ap.parse_args()
    cmd = [a.app, "--headless", "--quiet", "--mode", "serial", "--model", "mlp:100-256-10",
           "--dataset", "random:10000x100:10", "--batch", "32", "--lr", "0.01", "--momentum", "0",
           "--test-fraction", "0", "--epochs", str(a.epochs)]
    doc = {"command": " ".join(cmd), "alone": [], "pair": [], "ratio": [], "shared": [],
           "private": []}
    hogwild = [c for c in cmd if c != "serial"]
    hogwild[hogwild.index("--mode") + 1:hogwild.index("--mode") + 1] = [
        "processes", "--start-method", "fork", "--workers", "2", "--split", "replicate"]
    for _ in range(a.repeats):
        alone = rate(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
        procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True) for _ in range(2)]
        pair = sum(rate(p.communicate()[0]) for p in procs)
        doc["alone"].append(alone)
        doc["pair"].append(pair)
        doc["ratio"].append(pair / alone)
        shared = rate(subprocess.run(hogwild, capture_output=True, text=True, check=True).stdout)
        private = rate(subprocess.run(hogwild + ["--no-share"], capture_output=True, text=True,
                                      check=True).stdout)
        doc["shared"].append(shared)
        doc["private"].append(private)
        print("pair ceiling: one alone %.0f, two at once %.0f samples/s together: %.2fx; "
              "process Hogwild x2 shared %.0f, private copies %.0f"
              % (alone, pair, pair / alone, shared, private), flush=True)
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
