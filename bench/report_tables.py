"""bench/RESULTS.md's engine and PyTorch tables (sections 1-7 and 9), from
bench/engine_runs.py's and bench/pytorch_runs.py's JSON."""
import re

from report_util import mb, med, mrange, num, ok_runs, pooled, rate, runs_cell, stats, table

MODE_LABEL = {"serial": "serial", "threads": "threads", "threads-locked": "threads-locked",
              "fork": "processes fork", "spawn": "processes spawn",
              "forkserver": "processes forkserver"}


def engine_items(doc, group):
    return [it for it in doc["items"] if it["group"] == group]


def engine_table(doc):
    rows = []
    for it in engine_items(doc, "blog"):
        runs = doc["results"].get(it["key"], [])
        rows.append([MODE_LABEL[it["mode"]], it["workers"], it["split"],
                     mrange(pooled(runs, "samples_per_s")),
                     mrange(pooled(runs, "wall_s"), num("%.3f")),
                     mrange(pooled(runs, "startup_ms"), num("%.2f")),
                     mrange(pooled(runs, "final_loss"), num("%.4f"), spread=False),
                     mrange([mb(x) for x in pooled(runs, "maxrss_kb")], num("%.1f")),
                     runs_cell(runs)])
    return table(["mode", "workers", "split", "samples/s (training)", "wall s (engine's)",
                  "start-up ms per worker", "final train loss", "max RSS MB (time -v)", "runs"],
                 rows)


def pt_key(recipe, workers):
    return "%s/%d" % (recipe, workers)


PT_LABEL = {"serial": "serial loop", "fork": "process Hogwild, fork",
            "spawn": "process Hogwild, mp.spawn", "threads": "threads (queue recipe)",
            "ddp": "DDP, gloo"}


def pytorch_table(doc):
    rows = []
    for it in doc["items"]:
        runs = doc["results"].get(it["key"], [])
        good = ok_runs(runs)
        split = good[0]["split"] if good else "?"
        notes = []
        terr = [len(r.get("thread_errors") or []) for r in good]
        if it["recipe"] == "threads":
            notes.append("threads died: %s per run of 3 epochs" % (
                ", ".join(str(x) for x in terr) if terr else "-"))
        if it["recipe"] in ("fork", "spawn"):
            changed = [r.get("shared_params_changed") for r in good]
            if changed and not all(changed):
                notes.append("parent's parameters unchanged in %d run(s)" % changed.count(False))
        rows.append([PT_LABEL[it["recipe"]], it["workers"], split,
                     mrange(pooled(runs, "samples_per_s")),
                     mrange(pooled(runs, "cmd_wall_s"), num("%.2f")),
                     mrange(pooled(runs, "startup_ms"), num("%.1f")),
                     mrange(pooled(runs, "all_ready_ms"), num("%.0f")),
                     mrange(pooled(runs, "final_loss"), num("%.4f"), spread=False),
                     mrange([mb(x) for x in pooled(runs, "maxrss_kb")], num("%.0f")),
                     mrange([mb(x) for x in pooled(runs, "worker_peak_pss_kb")], num("%.0f")),
                     mrange([mb(x) for x in pooled(runs, "peak_total_pss_kb")], num("%.0f")),
                     runs_cell(runs), "; ".join(notes)])
    return table(["recipe", "workers", "split", "samples/s (training)", "wall s (command)",
                  "start-up ms per worker", "all ready ms", "final loss", "max RSS MB (time -v)",
                  "peak PSS MB per worker", "peak total PSS MB", "runs", "notes"], rows)


def ratio_text(r):
    """0.0022 -> '0.0022 (1/450)': small start-up ratios stay readable."""
    if r <= 0:
        return "%.2g" % r
    return "%.2g (1/%.0f)" % (r, 1 / r) if r < 0.5 else "%.2g" % r


def ratio_rows(eng, pt):
    """(engine mode, engine workers, split, pytorch recipe)."""
    pairs = [("serial", 1, "-", "serial")]
    for w in (1, 2, 4):
        pairs.append(("threads", w, "replicate" if w == 1 else "shard", "threads"))
    for method, recipe in (("fork", "fork"), ("spawn", "spawn"), ("forkserver", "spawn")):
        for w in (1, 2, 4):
            pairs.append((method, w, "replicate", recipe))
    rows = []
    for mode, w, split, recipe in pairs:
        key = "blog/%s/%d/%s" % (mode, w, split)
        er = eng["results"].get(key, [])
        pr = pt["results"].get(pt_key(recipe, w), []) if pt else []
        es, ps = med(er, "samples_per_s"), med(pr, "samples_per_s")
        eu, pu = med(er, "startup_ms"), med(pr, "startup_ms")
        rows.append([MODE_LABEL[mode], PT_LABEL[recipe], w, split if split != "-" else "-",
                     rate(es), rate(ps),
                     "%.1f×" % (es / ps) if es and ps else "-",
                     "%.2f" % eu if eu is not None else "-",
                     "%.1f" % pu if pu is not None else "-",
                     ratio_text(eu / pu) if eu is not None and pu else "-"])
    return table(["engine", "PyTorch recipe", "workers", "split", "engine samples/s",
                  "PyTorch samples/s", "samples/s engine/PyTorch", "engine start-up ms",
                  "PyTorch start-up ms", "start-up engine/PyTorch"], rows)


def scaling_table(doc):
    rows = []
    for group, label in (("scaling-dense", "dense MLP 100-256-10"),
                         ("scaling-sparse", "sparse embedding-bag 20000-32-4")):
        for mode in ("threads", "forkserver"):
            base = med(doc["results"].get("%s/%s/1/shard" % (group, mode), []), "samples_per_s")
            for w in (1, 2, 4, 8):
                runs = doc["results"].get("%s/%s/%d/shard" % (group, mode, w), [])
                if not runs:
                    continue
                s = med(runs, "samples_per_s")
                rows.append([label, MODE_LABEL[mode], w, mrange(pooled(runs, "samples_per_s")),
                             "%.2f×" % (s / base) if s and base else "-", runs_cell(runs)])
    return table(["model", "mode", "workers", "samples/s (training)", "speedup over 1 worker",
                  "runs"], rows)


def lost_updates_table(doc):
    rows = []
    for label, model in (("dense", "MLP 100-256-10"), ("sparse", "embedding-bag 20000-32-4")):
        for mode in ("threads", "threads-locked", "forkserver"):
            key = "%s/2/shard" % mode
            off = doc["results"].get("lost-off-%s/%s" % (label, key), [])
            on = doc["results"].get("lost-on-%s/%s" % (label, key), [])
            if not off or not on:
                continue
            a, b = med(off, "samples_per_s"), med(on, "samples_per_s")
            lost, writes = med(on, "lost_updates"), med(on, "update_writes")
            rows.append([model, MODE_LABEL[mode], mrange(pooled(off, "samples_per_s")),
                         mrange(pooled(on, "samples_per_s")),
                         "%+.1f%%" % (100 * (b / a - 1)) if a and b else "-",
                         "%.3f%%" % (100 * lost / writes) if writes else "-",
                         "%s / %s" % (runs_cell(off), runs_cell(on))])
    return table(["model", "mode (2 workers)", "samples/s without", "samples/s with --lost-updates",
                  "change", "lost of block writes (median)", "runs"], rows)


def fmnist_section(doc, group="fmnist"):
    items = engine_items(doc, group)
    if not doc.get("fmnist"):
        return "Skipped: %s does not exist (install Debian's dataset-fashion-mnist)." % doc[
            "fmnist_dir"]
    if not items:
        return "Not run."
    out = []
    epochs = 0
    per = {}
    for it in items:
        runs = ok_runs(doc["results"].get(it["key"], []))
        per[it["key"]] = runs
        for r in runs:
            epochs = max(epochs, max(int(e) for e in (r.get("epochs") or {"0": 0})))
    rows = []
    for e in range(1, epochs + 1):
        row = [e]
        for it in items:
            accs = [r["epochs"].get(str(e), {}).get("accuracy") for r in per[it["key"]]]
            ends = [r["epochs"].get(str(e), {}).get("end_s") for r in per[it["key"]]]
            row += [mrange(accs, num("%.2f")), mrange(ends, num("%.2f"))]
        rows.append(row)
    header = ["epoch"]
    for it in items:
        name = "serial" if it["mode"] == "serial" else "threads ×%d" % it["workers"]
        header += ["%s test accuracy %%" % name, "%s elapsed s" % name]
    out.append(table(header, rows))
    rows = []
    for it in items:
        name = "serial" if it["mode"] == "serial" else "threads ×%d" % it["workers"]
        runs = per[it["key"]]
        row = [name]
        for target in (85.0, 88.0):
            times, missed = [], 0
            for r in runs:
                hit = [v["end_s"] for k, v in sorted(r["epochs"].items(), key=lambda kv: int(kv[0]))
                       if v.get("accuracy") is not None and v["accuracy"] >= target
                       and v.get("end_s") is not None]
                if hit:
                    times.append(hit[0])
                else:
                    missed += 1
            cell = mrange(times, num("%.2f s")) if times else "not reached"
            if times and missed:
                cell += " (not reached in %d of %d runs)" % (missed, len(runs))
            row.append(cell)
        row += [mrange(pooled(doc["results"].get(it["key"], []), "samples_per_s")),
                mrange(pooled(doc["results"].get(it["key"], []), "final_accuracy"), num("%.2f")),
                runs_cell(doc["results"].get(it["key"], []))]
        rows.append(row)
    out.append(table(["run", "time to 85% test accuracy", "time to 88% test accuracy",
                      "samples/s (training)", "final test accuracy %", "runs"], rows))
    return "\n\n".join(out)


def startup_table(doc):
    rows = []
    for method in ("fork", "spawn", "forkserver"):
        row = [method]
        allv = []
        for w in (1, 2, 4):
            v = []
            for split in ("replicate", "shard"):
                v += pooled(doc["results"].get("blog/%s/%d/%s" % (method, w, split), []),
                            "startup_ms")
            allv += v
            row.append(mrange(v, num("%.2f")))
        s = stats(allv)
        row += [mrange(allv, num("%.2f")), s[3] if s else 0]
        rows.append(row)
    return table(["start method", "1 worker", "2 workers", "4 workers", "all", "worker starts"],
                 rows)


def memory_totals(doc):
    """{mode: {workers: median peak total PSS kB}}."""
    out = {}
    for it in engine_items(doc, "memory"):
        runs = doc["results"].get(it["key"], [])
        out.setdefault(it["mode"], {})[it["workers"]] = med(runs, "peak_total_pss_kb")
    return out


def extra_per_worker(totals, mode):
    t = totals.get(mode, {})
    if t.get(1) is None or t.get(4) is None:
        return None
    return (t[4] - t[1]) / 3.0 / 1024.0


def memory_table(doc):
    rows = []
    totals = memory_totals(doc)
    for it in engine_items(doc, "memory"):
        runs = doc["results"].get(it["key"], [])
        t = totals[it["mode"]]
        extra = "-"
        if it["workers"] > 1 and t.get(1) is not None and t.get(it["workers"]) is not None:
            extra = "%.1f" % ((t[it["workers"]] - t[1]) / (it["workers"] - 1) / 1024.0)
        notes = sorted(set(r["memory_note"] for r in ok_runs(runs) if r.get("memory_note")))
        rows.append([MODE_LABEL[it["mode"]], it["workers"],
                     mrange([mb(x) for x in pooled(runs, "app_peak_pss_kb")], num("%.1f")),
                     mrange([mb(x) for x in pooled(runs, "worker_peak_pss_kb")], num("%.1f")),
                     mrange([mb(x) for x in pooled(runs, "worker_peak_rss_kb")], num("%.1f")),
                     mrange([mb(x) for x in pooled(runs, "server_peak_pss_kb")], num("%.1f")),
                     mrange([mb(x) for x in pooled(runs, "peak_total_pss_kb")], num("%.1f")),
                     mrange([mb(x) for x in pooled(runs, "maxrss_kb")], num("%.1f")),
                     extra, runs_cell(runs) + ("; " + "; ".join(notes) if notes else "")])
    return table(["mode", "workers", "app peak PSS MB", "per-worker peak PSS MB",
                  "per-worker peak RSS MB", "fork server PSS MB", "peak total PSS MB",
                  "max RSS MB (time -v)", "extra MB per extra worker", "runs"], rows)


def pytorch_memory_table(doc):
    rows = []
    for recipe in ("fork", "spawn"):
        t = {w: med(doc["results"].get(pt_key(recipe, w), []), "peak_total_pss_kb")
             for w in (1, 2, 4)}
        for w in (1, 2, 4):
            runs = doc["results"].get(pt_key(recipe, w), [])
            extra = "-"
            if w > 1 and t[1] is not None and t[w] is not None:
                extra = "%.1f" % ((t[w] - t[1]) / (w - 1) / 1024.0)
            helpers = pooled(runs, "helper_processes")
            rows.append([PT_LABEL[recipe], w,
                         mrange([mb(x) for x in pooled(runs, "parent_peak_pss_kb")], num("%.0f")),
                         mrange([mb(x) for x in pooled(runs, "worker_peak_pss_kb")], num("%.0f")),
                         mrange([mb(x) for x in pooled(runs, "worker_peak_rss_kb")], num("%.0f")),
                         mrange([mb(x) for x in pooled(runs, "peak_total_pss_kb")], num("%.0f")),
                         extra, "resource_tracker" if any("resource_tracker" in h["cmdline"]
                                                          for h in helpers) else "-"])
    return table(["recipe", "workers", "parent peak PSS MB", "per-worker peak PSS MB",
                  "per-worker peak RSS MB", "peak total PSS MB", "extra MB per extra worker",
                  "helper processes"], rows)


STEP_RE = (r" step: ([\d.]+) GFLOP/s = (\d+)% of the 1024\^3 ceiling "
           r"\(([\d.]+) GFLOP/s\), ([\d.]+)([kM]?) samples/s")


def stepkernel_figures(sk, label="blog MLP 100-256-10"):
    """(share %, ceiling GFLOP/s, step GFLOP/s, step samples/s) of the step
    stepkernel's summary names `label`."""
    if not sk or not sk.get("ok"):
        return None
    m = re.search("^" + re.escape(label) + STEP_RE,
                  sk.get("stdout", "") + "\n" + sk.get("stderr", ""), re.M)
    if not m:
        return None
    units = {"": 1, "k": 1e3, "M": 1e6}
    ceiling = float(m.group(3))
    c = re.search(r"^ceiling 1024\^3 matmul: ([\d.]+) GFLOP/s", sk.get("stdout", ""), re.M)
    if c:
        ceiling = float(c.group(1))  # the same figure with one more digit
    return (float(m.group(2)), ceiling, float(m.group(1)), float(m.group(4)) * units[m.group(5)])


def stepkernel_summary(sk):
    """The plain-text summary stepkernel prints after the benchmark tables."""
    if not sk or not sk.get("present"):
        return None
    text = sk.get("stdout", "") + "\n" + sk.get("stderr", "")
    i = text.find("summary (single core")
    if i < 0:
        return None
    lines = []
    for line in text[i:].splitlines():
        if not line.strip():
            break
        lines.append(line)
    return "\n".join(lines)
