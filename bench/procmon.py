"""Runs one command and measures it from outside: wall time, the peak RSS that
GNU time reports, and, while it runs, the RSS and PSS of the command and every
process it starts (read from /proc/<pid>/smaps_rollup).

Used by engine_runs.py and pytorch_runs.py; standard library only, so it runs
under any Python 3.
"""

import os
import re
import signal
import subprocess
import tempfile
import threading
import time

GNU_TIME = "/usr/bin/time"


def _parent_map():
    """pid -> parent pid for every process visible in /proc."""
    parents = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry, "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # the command name may contain spaces and parentheses: split after the last ')'
        rest = stat[stat.rfind(b")") + 2:].split()
        if len(rest) > 1:
            parents[int(entry)] = int(rest[1])
    return parents


def _descendants(root, parents):
    """{pid: depth below root} for root (depth 0) and every descendant."""
    children = {}
    for pid, ppid in parents.items():
        children.setdefault(ppid, []).append(pid)
    found, frontier, depth = {root: 0}, [root], 0
    while frontier:
        depth += 1
        nxt = []
        for pid in frontier:
            for child in children.get(pid, ()):
                if child not in found:
                    found[child] = depth
                    nxt.append(child)
        frontier = nxt
    return found


def _rollup(pid):
    """(rss_kb, pss_kb) of a process, or None when it is gone or unreadable."""
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            text = f.read()
    except OSError:
        return None
    rss = re.search(r"^Rss:\s+(\d+) kB", text, re.M)
    pss = re.search(r"^Pss:\s+(\d+) kB", text, re.M)
    if not rss or not pss:
        return None
    return int(rss.group(1)), int(pss.group(1))


def _cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


class _Sampler(threading.Thread):
    """Samples the process tree under `root` every `interval` seconds."""

    def __init__(self, root, interval, skip_root):
        super().__init__(daemon=True)
        self.root, self.interval, self.skip_root = root, interval, skip_root
        self.stop_flag = threading.Event()
        self.procs = {}  # pid -> {ppid, depth, cmdline, max_rss_kb, max_pss_kb}
        self.peak_total_pss_kb = 0
        self.peak_total_rss_kb = 0
        self.samples = 0

    def run(self):
        while not self.stop_flag.is_set():
            parents = _parent_map()
            total_pss = total_rss = 0
            for pid, depth in _descendants(self.root, parents).items():
                if depth == 0 and self.skip_root:
                    continue  # GNU time itself
                mem = _rollup(pid)
                if mem is None:
                    continue
                info = self.procs.get(pid)
                if info is None:
                    info = self.procs[pid] = {"pid": pid, "ppid": parents.get(pid), "depth": depth,
                                              "cmdline": _cmdline(pid), "max_rss_kb": 0,
                                              "max_pss_kb": 0, "samples": 0}
                # re-read: a child sampled between fork and exec shows its parent's
                info["cmdline"] = _cmdline(pid) or info["cmdline"]
                info["max_rss_kb"] = max(info["max_rss_kb"], mem[0])
                info["max_pss_kb"] = max(info["max_pss_kb"], mem[1])
                info["samples"] += 1
                total_rss += mem[0]
                total_pss += mem[1]
            self.peak_total_pss_kb = max(self.peak_total_pss_kb, total_pss)
            self.peak_total_rss_kb = max(self.peak_total_rss_kb, total_rss)
            self.samples += 1
            self.stop_flag.wait(self.interval)


def run(cmd, timeout=120, sample_interval=None, env=None, cwd=None):
    """Runs cmd (a list) under GNU time -v (when installed).

    Returns a dict: rc, timed_out, stdout, stderr, wall_s (measured here, from
    start to exit, interpreter start-up and all), maxrss_kb (GNU time's figure,
    or wait4's when GNU time is missing), and with sample_interval the sampled
    process tree: procs (list, depth 1 = the command itself), peak_total_pss_kb,
    peak_total_rss_kb, mem_samples.
    """
    with tempfile.NamedTemporaryFile(prefix="hwl-time-", suffix=".txt", delete=False) as tf:
        time_file = tf.name
    use_time = os.access(GNU_TIME, os.X_OK)
    full = ([GNU_TIME, "-v", "-o", time_file] + list(cmd)) if use_time else list(cmd)
    start = time.monotonic()
    proc = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            cwd=cwd, start_new_session=True)
    sampler = None
    if sample_interval:
        sampler = _Sampler(proc.pid, sample_interval, skip_root=use_time)
        sampler.start()
    timed_out = False
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the session we started, and only it
        except OSError:
            pass
        out, err = proc.communicate()
    wall = time.monotonic() - start
    if sampler:
        sampler.stop_flag.set()
        sampler.join()
    result = {"cmd": list(cmd), "rc": proc.returncode, "timed_out": timed_out,
              "stdout": out.decode(errors="replace"), "stderr": err.decode(errors="replace"),
              "wall_s": wall, "maxrss_kb": None}
    if use_time:
        try:
            with open(time_file) as f:
                text = f.read()
            m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
            if m:
                result["maxrss_kb"] = int(m.group(1))
        except OSError:
            pass
    try:
        os.unlink(time_file)
    except OSError:
        pass
    if sampler:
        # Under GNU time the command itself is depth 1 (time is the root, left
        # out); without it the command is the root: shift so depth 1 is the command.
        procs = list(sampler.procs.values())
        if not use_time:
            for p in procs:
                p["depth"] += 1
        result.update(procs=procs, peak_total_pss_kb=sampler.peak_total_pss_kb,
                      peak_total_rss_kb=sampler.peak_total_rss_kb, mem_samples=sampler.samples)
    return result


def cpu_snapshot():
    """(monotonic s, busy ticks, steal ticks, ticks per s, CPUs, own + waited-for children CPU s)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal ...
    busy = v[0] + v[1] + v[2] + v[5] + v[6]
    steal = v[7] if len(v) > 7 else 0
    t = os.times()
    return (time.monotonic(), busy, steal, os.sysconf("SC_CLK_TCK"), os.cpu_count() or 1,
            t.user + t.system + t.children_user + t.children_system)


def cpu_shares(before, after):
    """How the machine's CPU time was spent between two cpu_snapshot()s: this
    process tree's share, everyone else's, and the hypervisor's steal, each as
    a fraction of all CPUs over the wall time."""
    wall = after[0] - before[0]
    capacity = wall * after[4]
    if capacity <= 0:
        return None
    busy = (after[1] - before[1]) / float(after[3])
    steal = (after[2] - before[2]) / float(after[3])
    ours = after[5] - before[5]
    return {"wall_s": wall, "cpus": after[4], "ours": ours / capacity,
            "others": max(0.0, busy - ours) / capacity, "steal": steal / capacity}


def rounds(items, run_one, deadline, hard_deadline=None, log=None):
    """Runs items round-robin: round k runs every item that wants more than k
    repeats (item["min_reps"] always, up to item["max_reps"] while time allows).

    Interleaving spreads the noise of a shared machine over all items instead
    of landing on one. Rounds past an item's min_reps start only when the
    previous round's duration still fits before `deadline` (time.monotonic());
    rounds within min_reps are skipped only past `hard_deadline`, and every
    skipped run is recorded as such. run_one(item, rep) returns a dict.
    Returns {item["key"]: [results...]} and a list of skip notes.
    """
    results = {it["key"]: [] for it in items}
    notes = []
    last_round = 0.0
    max_reps = max(it["max_reps"] for it in items)
    for rep in range(max_reps):
        todo = [it for it in items if rep < it["max_reps"]]
        needed = [it for it in todo if rep < it["min_reps"]]
        extra = [it for it in todo if rep >= it["min_reps"]]
        if extra and time.monotonic() + last_round > deadline:
            notes.append("repeat %d and later of %d item(s) trimmed to stay in the time budget"
                         % (rep + 1, len(extra)))
            extra = []
        todo = [it for it in todo if it in needed or it in extra]
        if not todo:
            break
        start = time.monotonic()
        for it in todo:
            if hard_deadline is not None and time.monotonic() > hard_deadline:
                results[it["key"]].append({"ok": False, "skipped": True,
                                           "error": "skipped: out of time budget"})
                continue
            r = run_one(it, rep)
            results[it["key"]].append(r)
            if log:
                log(it, rep, r)
        last_round = time.monotonic() - start
    return results, notes


def select_items(items, field, wanted, max_reps):
    """The plan items whose `field` is in the comma-separated `wanted` (all
    when empty), each capped at max_reps repeats (when given)."""
    if wanted:
        keep = set(wanted.split(","))
        items = [it for it in items if it[field] in keep]
    if max_reps:
        for it in items:
            it["max_reps"] = min(it["max_reps"], max_reps)
            it["min_reps"] = min(it["min_reps"], it["max_reps"])
    return items
