"""Small helpers bench/RESULTS.md's writers share: figures, medians, markdown
tables, verdicts against targets."""
import statistics
import subprocess

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
    runs = runs or []
    bad = [r for r in runs if not r.get("ok")]
    return str(len(runs) - len(bad)) + (" (%d failed)" % len(bad) if bad else "")


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
