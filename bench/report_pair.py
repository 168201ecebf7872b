"""bench/RESULTS.md's rows about two workers against the machine's pair
ceiling (bench/pair_ceiling.py's JSON), for bench/report.py."""
import statistics

TARGET_HOGWILD = 0.90  # Hogwild x2, long runs, dense and sparse
TARGET_SHORT = 0.80  # Hogwild x2 on the blog's 3-epoch runs


def spread(values):
    return statistics.median(values), min(values), max(values)


def pct(values):
    m, lo, hi = spread(values)
    return "%.0f%% (%.0f–%.0f%%)" % (100 * m, 100 * lo, 100 * hi)


def verdict(value, target):
    return "met" if value >= target else "**missed**"


def target_of(row):
    if "--no-share" in row["label"]:
        return None
    return TARGET_HOGWILD


def target_rows(pair, short=None):
    """Rows for the summary's targets table: each 2-worker mode's share of the
    pair ceiling of the same run. `short`: {label: (rate x2, serial rate)} of
    the blog's 3-epoch runs, set against the long runs' ceiling factor."""
    rows = []
    if not pair or not pair.get("rows"):
        return rows
    for row in pair["rows"]:
        target = target_of(row)
        if target is None or not row["fractions"]:
            continue
        rows.append(["%s (%s, %d epochs) ≥ %.0f%% of the pair ceiling" % (
            row["label"], row["workload"], row["epochs"], 100 * target),
            pct(row["fractions"]), verdict(spread(row["fractions"])[0], target)])
    ceiling = pair.get("ceiling", {}).get("dense", {}).get("ratio")
    for label, (x2, serial) in (short or {}).items():
        if not (x2 and serial and ceiling):
            continue
        share = x2 / serial / statistics.median(ceiling)
        rows.append(["%s (blog's 3 epochs) ≥ %.0f%% of the pair ceiling" % (label,
                                                                          100 * TARGET_SHORT),
                     "%.2f× serial / %.2f× ceiling = %.0f%%" % (
                         x2 / serial, statistics.median(ceiling), 100 * share),
                     verdict(share, TARGET_SHORT)])
    return rows


def section(pair):
    """The section's table and its note."""
    if not pair or not pair.get("rows"):
        return "Not measured in this run (bench/pair_ceiling.py wrote no rows)."
    lines = ["| workload | what ran | epochs | samples/s | × serial alone | share of the pair "
             "ceiling | repeats |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for name, c in pair["ceiling"].items():
        if not c["ratio"]:
            continue
        lines.append("| %s | serial alone | %d | %.0fk | 1.00× | - | %d |" % (
            name, pair["epochs"][name], spread(c["alone"])[0] / 1e3, len(c["alone"])))
        lines.append("| %s | **two serial runs at once (the ceiling)** | %d | %.0fk | %.2f× "
                     "(%.2f–%.2f×) | 100%% | %d |" % (
                         name, pair["epochs"][name], spread(c["pair"])[0] / 1e3,
                         *spread(c["ratio"]), len(c["pair"])))
        alone = spread(c["alone"])[0]
        for row in pair["rows"]:
            if row["workload"] != name or not row["rates"]:
                continue
            lines.append("| %s | %s | %d | %.0fk | %.2f× | %s | %d |" % (
                name, row["label"], row["epochs"], spread(row["rates"])[0] / 1e3,
                spread(row["rates"])[0] / alone, pct(row["fractions"]), len(row["rates"])))
    note = ("\n\nEvery row of a repeat ran interleaved with that repeat's ceiling, so a busy "
            "moment hits them alike; a row's share is its samples/s over the ceiling's of the same "
            "repeat (median, min–max). Runs last a few seconds each (`--seconds` %.1f for serial), "
            "so start-up weighs little. Hogwild rows use `--split replicate` (each worker does a "
            "serial run's work). Data-parallel ×2 against the same ceiling is in section 8." % pair.get("seconds", 0))
    if pair.get("sharedupdate"):
        note += ("\n\nWhat moving the dense model between the two cores costs by itself "
                 "(`build/bench/sharedupdate`, the engine's SGD pass over 28,426 floats, two "
                 "pinned threads taking turns), verbatim:\n\n```\n%s\n```" %
                 "\n".join(pair["sharedupdate"]))
    return "\n".join(lines) + note
