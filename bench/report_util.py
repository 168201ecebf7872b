"""Small helpers bench/RESULTS.md's writers share: figures, medians, markdown
tables, verdicts against targets, the machine's name, and the sections other
bench groups keep below what bench/report.py rewrites."""
import os
import statistics
import subprocess

# Sections that other bench groups write (bench/portable.py's, bench/cnn.py's,
# bench/presets.py's by hand) follow this line; bench/report.py keeps them.
PRESERVED = "<!-- other bench groups: kept by bench/report.py -->"


def machine():
    """This machine's processor model and CPU count, from /proc/cpuinfo: the
    line every bench report names its machine with ("?" for a model it
    cannot read)."""
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "%s, %d CPUs" % (model, os.cpu_count() or 0)


def write_preserved(path, title, text):
    """Puts `text` (a section starting with the line `title`) below PRESERVED
    in `path`: in place of the earlier section of that title, up to the next
    "## ", or at the end."""
    with open(path) as f:
        old = f.read()
    if PRESERVED not in old:
        old = old.rstrip("\n") + "\n\n" + PRESERVED + "\n"
    head, tail = old.split(PRESERVED, 1)
    if title in tail:
        before, rest = tail.split(title, 1)
        nxt = rest.find("\n## ")
        tail = before + (rest[nxt + 1:] if nxt >= 0 else "")
    tail = tail.rstrip("\n") + "\n\n" + text
    with open(path + ".tmp", "w") as f:
        f.write(head + PRESERVED + tail)
    os.replace(path + ".tmp", path)

def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True,
                              timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def stats(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return statistics.median(values), min(values), max(values), len(values)


def rate(x):
    if x is None:
        return "-"
    if x >= 1e6:
        return "%.2fM" % (x / 1e6)
    if x >= 1e3:
        return "%.1fk" % (x / 1e3)
    return "%.0f" % x


def num(fmt):
    return lambda x: "-" if x is None else fmt % x


def mrange(values, f=rate, spread=True):
    """'median (min-max)' of values."""
    s = stats(values)
    if s is None:
        return "-"
    med, lo, hi, n = s
    if not spread or n == 1 or f(lo) == f(hi):
        return f(med)
    return "%s (%s–%s)" % (f(med), f(lo), f(hi))


def mb(kb):
    return None if kb is None else kb / 1024.0


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def ok_runs(runs):
    return [r for r in runs or [] if r.get("ok")]


def runs_cell(runs):
    """A row's runs: those counted, then the failed ones and the ones the time
    budget left out, each said as what they were: "2 (1 failed)", "2 (1
    skipped: out of time budget)"."""
    runs = runs or []
    failed = [r for r in runs if not r.get("ok") and not r.get("skipped")]
    skipped = [r for r in runs if not r.get("ok") and r.get("skipped")]
    notes = ["%d failed" % len(failed)] if failed else []
    if skipped:
        why = skipped[0].get("error", "").replace("skipped: ", "", 1) or "not run"
        notes.append("%d skipped: %s" % (len(skipped), why))
    return str(len(runs) - len(failed) - len(skipped)) + (
        " (%s)" % ", ".join(notes) if notes else "")


def self_test():
    """runs_cell at hand-made rows (bench/report_util.py --self-test)."""
    ok, bad = {"ok": True}, {"ok": False, "error": "exit 1"}
    skip = {"ok": False, "skipped": True, "error": "skipped: out of time budget"}
    cases = [([ok, ok], "2"), ([ok, bad], "1 (1 failed)"),
             ([ok, ok, skip], "2 (1 skipped: out of time budget)"),
             ([ok, bad, skip, skip], "1 (1 failed, 2 skipped: out of time budget)"),
             ([], "0")]
    for runs, want in cases:
        got = runs_cell(runs)
        if got != want:
            raise SystemExit("runs_cell: %r, expected %r" % (got, want))
    print("report_util self-test: %d cases" % len(cases))


def pooled(runs, field):
    out = []
    for r in ok_runs(runs):
        v = r.get(field)
        if isinstance(v, list):
            out += v
        elif v is not None:
            out.append(v)
    return out


def med(runs, field):
    s = stats(pooled(runs, field))
    return s[0] if s else None


def verdict(value, target, higher_is_better=True):
    if value is None:
        return "not measured"
    good = value >= target if higher_is_better else value <= target
    return "met" if good else "**missed**"


# ---------------------------------------------------------------- machine


if __name__ == "__main__":
    import sys
    if sys.argv[1:] != ["--self-test"]:
        raise SystemExit("usage: python3 bench/report_util.py --self-test")
    self_test()
