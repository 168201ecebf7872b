"""Do the teaching presets' words match what they show? Runs every preset that
states a measured figure (bench/preset-claims.txt) headless REPEATS times at
its own pace and prints each claim beside the measured range (min-max over the
repeats) of the figure it is about; then times every preset (one run each, at
its default pace) against the 20-60 s it should last.

    python3 bench/presets.py [REPEATS] [--app build/app/hogwild-lab] [--only ID,...]
                             [--no-durations]

Ratios (hogwild/locked) are taken within one repeat, so that both runs saw
about the same load; the load average is printed beside every run, since the
machine may be shared. Exit 1 when a claim does not hold or a preset's length
is out of range, 2 when a run could not be parsed.
"""

import argparse
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import procmon  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CLAIMS = os.path.join(HERE, "preset-claims.txt")
KINDS = ("rate", "acc", "train", "comm", "mb", "startup", "lost", "steps", "wall")
# A claim that holds at some load only ("if others 20..50": other processes
# took 20-50% of the CPUs during the repeat) is checked against such repeats.
WHEN = {"quiet": (0, 15), "busy": (40, 100)}
TARGET_S = (20.0, 60.0)  # how long a preset should last at its own pace
# Presets that stop by design before training (a refused run, a failed spawn):
# their length is the time to say why, not a lesson to watch.
REFUSED = ("cuda-before-fork", "unable-to-open-shm", "nested-workers")


def load_claims(path=CLAIMS):
    claims = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            cells = [c.strip() for c in line.split("|")]
            if len(cells) != 4:
                sys.exit("%s:%d: want 'preset | figure | low..high | phrase'" % (path, n))
            run, figure, bounds, phrase = cells
            low, high = (float(v) for v in bounds.split(".."))
            when = "any"
            if " if " in figure:
                figure, when = figure.split(" if ")
                when = when.strip()
                span = WHEN.get(when) or tuple(float(v) for v in when.split()[1].split(".."))
                when = (when, span)
            terms = [t.split() for t in figure.split("/")]
            if any(len(t) != 2 or t[0] not in KINDS for t in terms) or len(terms) > 2:
                sys.exit("%s:%d: bad figure %r" % (path, n, figure))
            claims.append({"run": run, "figure": figure, "terms": terms, "low": low,
                           "high": high, "phrase": phrase, "when": when})
    return claims


def loadavg():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


SUMMARY = re.compile(r"^summary: (\w+) after (\d+) of (\d+) epochs; (\d+) samples in ([\d.]+) s "
                     r"training")
ACC = re.compile(r"^summary: final test accuracy ([\d.]+)%")
STARTUP = re.compile(r"(\d+): ([\d.]+) ms")
COMM = re.compile(r"\d+: [\d.]+ s, (\d+)%, ([\d.]+) MB")
LOST = re.compile(r"^summary: lost updates: \d+ of \d+ \(([\d.]+)%\)")
STEPS = re.compile(r"^summary: optimizer steps: (?:shared|per worker) ([\d, ]+) \(")


def parse(out):
    """{label: {kind: [values]}} from one command's output; a single run is '-'."""
    runs, label = {}, "-"
    for line in out.splitlines():
        m = re.match(r"^== run \d+ of \d+: (.+) ==$", line)
        if m:
            label = m.group(1)
            continue
        r = runs.setdefault(label, {k: [] for k in KINDS})
        if (m := SUMMARY.match(line)):
            samples, train = int(m.group(4)), float(m.group(5))
            r["state"] = m.group(1)
            r["train"].append(train)
            r["rate"].append(samples / train if train > 0 else 0.0)
        elif (m := ACC.match(line)):
            r["acc"].append(float(m.group(1)))
        elif (m := LOST.match(line)):
            r["lost"].append(float(m.group(1)))
        elif (m := STEPS.match(line)):
            r["steps"] += [float(v) for v in m.group(1).split(",")]
        elif line.startswith("summary: worker start-up"):
            r["startup"] += [float(v) for _, v in STARTUP.findall(line)]
        elif line.startswith("summary: communication"):
            ranks = COMM.findall(line)
            if ranks:
                r["comm"].append(sum(float(c) for c, _ in ranks) / len(ranks))
                r["mb"].append(sum(float(b) for _, b in ranks) / len(ranks))
    return {k: v for k, v in runs.items() if "state" in v}


def run_preset(app, run, log):
    """One headless run of `run` ("ID [flags]"): its parsed runs, wall s, loads."""
    args = [app, "--headless", "--preset"] + run.split() + ["--quiet"]
    load0, cpu0 = loadavg(), procmon.cpu_snapshot()
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    load1, cpu1 = loadavg(), procmon.cpu_snapshot()
    wall, others = cpu1[0] - cpu0[0], procmon.cpu_shares(cpu0, cpu1)["others"]
    log.write("$ %s\n%s\nexit %d, %.1f s, load %s -> %s, others %.0f%%\n\n" %
              (" ".join(args), p.stdout, p.returncode, wall, load0, load1, 100 * others))
    log.flush()
    return {"runs": parse(p.stdout), "wall": wall, "load": (load0, load1), "code": p.returncode,
            "others": others}


def busy(res):
    """How busy the machine was around a run: load average, other processes' CPU."""
    return "load %s -> %s, others %2.0f%% CPU" % (res["load"][0], res["load"][1],
                                                   100 * res["others"])


def values(result, kind, label):
    if kind == "wall":
        return [result["wall"]]
    labels = result["runs"] if label == "*" else [label]
    return [v for lab in labels for v in result["runs"].get(lab, {}).get(kind, [])]


def measure(claim, results):
    """Every value of the claim's figure over the repeats (a ratio per repeat)."""
    out = []
    for res in results:
        if claim["when"] != "any":
            low, high = claim["when"][1]
            if not low <= 100 * res["others"] <= high:
                continue
        top = values(res, *claim["terms"][0])
        if len(claim["terms"]) == 1:
            out += top
        else:
            bottom = values(res, *claim["terms"][1])
            if top and bottom and sum(bottom) > 0:  # of the means: start-up pools workers
                out.append(sum(top) / len(top) / (sum(bottom) / len(bottom)))
    return out


def fmt(v):
    return "%.3f" % v if abs(v) < 0.1 else "%.2f" % v if abs(v) < 10 else "%.0f" % v if abs(v) < 1e4 else "%.0fk" % (v / 1e3)


def check_claims(app, claims, repeats, log):
    failed = 0
    by_run = {}
    for c in claims:
        by_run.setdefault(c["run"], []).append(c)
    results = {}
    for run in by_run:
        results[run] = []
        for i in range(repeats):
            res = run_preset(app, run, log)
            results[run].append(res)
            cells = []
            for lab, r in res["runs"].items():
                rate = r["rate"][0] if r["rate"] else 0
                cells.append("%s %s/s%s" % (lab, fmt(rate),
                                            " %.1f%%" % r["acc"][0] if r["acc"] else ""))
            print("  %-20s repeat %d: %5.1f s, %s, exit %d: %s" %
                  (run, i + 1, res["wall"], busy(res), res["code"],
                   "; ".join(cells)), flush=True)
    print("\nclaims (measured: min-max over %d repeats)" % repeats)
    for run, group in by_run.items():
        for c in group:
            got = measure(c, results[run])
            if not got and c["when"] != "any":
                verdict, text = "not checked: no repeat %s" % c["when"][0], "-"
            elif not got:
                verdict, text = "NO DATA", "-"
                failed |= 2
            else:
                ok = c["low"] <= min(got) and max(got) <= c["high"]
                verdict = "holds" if ok else "DOES NOT HOLD"
                text = "%s-%s" % (fmt(min(got)), fmt(max(got)))
                failed |= 0 if ok else 1
            when = "" if c["when"] == "any" else " (repeats %s)" % c["when"][0]
            print("  %-20s '%s'\n  %20s %s%s: %s (holds in %s-%s) -> %s" %
                  (run, c["phrase"], "", c["figure"], when, text, fmt(c["low"]), fmt(c["high"]),
                   verdict))
    return failed, results


def preset_ids(app):
    """The built-in presets' ids: a user's own (listed with "from FILE") are
    not the program's to time."""
    out = subprocess.run([app, "--list-presets"], stdout=subprocess.PIPE, text=True).stdout
    return [m.group(1) for m in re.finditer(r"^([a-z0-9-]+)  \(.*\n(?!    from )", out, re.M)]


def check_durations(app, ids, known, log):
    failed = 0
    print("\nlength of each preset at its own pace (target %d-%d s)" % TARGET_S)
    for pid in ids:
        done = known.get(pid) or [run_preset(app, pid, log)]  # a claimed one: every repeat
        walls = [r["wall"] for r in done]
        if pid in REFUSED:
            verdict = "stops by design (exit %d)" % done[0]["code"]
        elif TARGET_S[0] <= min(walls) and max(walls) <= TARGET_S[1]:
            verdict = "in range"
        else:
            verdict, failed = "OUT OF RANGE", 1
        others = [100 * r["others"] for r in done]
        print("  %-20s %5.1f-%5.1f s  others %2.0f-%2.0f%% CPU  %s" %
              (pid, min(walls), max(walls), min(others), max(others), verdict), flush=True)
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repeats", nargs="?", type=int, default=3)
    ap.add_argument("--app", default=os.path.join(HERE, "..", "build", "app", "hogwild-lab"))
    ap.add_argument("--only", default="", help="comma-separated preset ids")
    ap.add_argument("--no-durations", action="store_true")
    a = ap.parse_args()
    only = [s for s in a.only.split(",") if s]
    claims = [c for c in load_claims() if not only or c["run"].split()[0] in only]
    logpath = os.path.join(HERE, "..", "build", "bench-presets.log")
    with open(logpath, "w") as log:
        print("presets: %s, %d repeats, %d CPUs, load %s (log: %s)" %
              (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), a.repeats, os.cpu_count(),
               " ".join(open("/proc/loadavg").read().split()[:3]), os.path.normpath(logpath)))
        failed, results = check_claims(a.app, claims, a.repeats, log)
        if not a.no_durations:
            ids = [i for i in preset_ids(a.app) if not only or i in only]
            failed |= check_durations(a.app, ids, results, log)
    print("load at the end: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))
    return 2 if failed & 2 else failed


if __name__ == "__main__":
    sys.exit(main())
