"""The evaluation side of the GPU device check (bench/gpu_torch.py evaluate):
the engine's generator, its held-out split and its synthetic data sets
ported to Python, the readers of an --out folder, and the evaluation of its
exported weights by torch.nn modules on the rows the engine held out. Also
the helpers every subcommand of gpu_torch.py prints with."""

import json
import math
import os
import struct
import sys

sys.dont_write_bytecode = True

try:
    import numpy as np
except ImportError:  # make-data and the Rng need no numpy; the rest says why
    np = None


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def result(obj, rc=0):
    print("RESULT " + json.dumps(obj), flush=True)
    return rc


# ------------------------------------------------------------ the engine's Rng
M64 = (1 << 64) - 1


def _rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & M64


class Rng:
    """core/util/random.h: xoshiro256** seeded by splitmix64."""

    def __init__(self, seed):
        self.s = []
        self.spare = None
        seed &= M64
        for _ in range(4):
            seed = (seed + 0x9E3779B97F4A7C15) & M64
            z = seed
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
            self.s.append(z ^ (z >> 31))

    def next(self):
        s = self.s
        out = (_rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl(s[3], 45)
        return out

    def below(self, n):
        return (self.next() * n) >> 64

    def uniform(self):
        return (self.next() >> 11) * 2.0 ** -53

    @staticmethod
    def derive(seed, a, b=0):
        z = seed ^ ((a * 0xD1B54A32D192ED03) & M64) ^ ((b * 0x8CB92BA72F3D8DD7) & M64)
        z = ((z ^ (z >> 33)) * 0xFF51AFD7ED558CCD) & M64
        return z ^ (z >> 33)

    def normals(self, n):
        """n draws of normal() (Box-Muller, cos then its sin twin), as doubles.
        A twin left over stays for the next call, as the engine's does."""
        out = []
        if self.spare is not None and n > 0:
            out.append(self.spare)
            self.spare = None
        while len(out) < n:
            u1 = 0.0
            while u1 <= 0.0:
                u1 = self.uniform()
            u2 = self.uniform()
            r = math.sqrt(-2.0 * math.log(u1))
            out.append(r * math.cos(2.0 * math.pi * u2))
            twin = r * math.sin(2.0 * math.pi * u2)
            if len(out) < n:
                out.append(twin)
            else:
                self.spare = twin
        return out


def engine_split(rows, fraction, seed):
    """core/data/datasources.cpp splitTrainTest: the row indices of the train
    and test sets, in the engine's order."""
    n_test = int(math.floor(float(rows) * fraction))
    if n_test <= 0:
        return list(range(rows)), []
    order = list(range(rows))
    rng = Rng(seed)
    for i in range(rows - 1, 0, -1):
        j = rng.below(i + 1)
        order[i], order[j] = order[j], order[i]
    n_train = rows - n_test
    return order[:n_train], order[n_train:]


# ------------------------------------------ the engine's synthetic data sets
# core/data/synthetic.cpp: rows come in blocks of 1024, block b drawn from
# Rng(derive(seed, b, STREAM)); the split then shuffles them as any file's.
BLOCK_ROWS = 1024
RANDOM_STREAM, TEACHER_STREAM, TEACHER_WEIGHTS = 0x52414E444F4D, 0x54454143484552, 0x57454947485453
BOW_STREAM, BOW_CLASSES = 0x424F57, 0x434C41535345


def parse_synthetic(spec):
    """(kind, rows, dim, classes, extra) of random:/teacher:/sparse-bow:
    ROWSxDIM:CLASSES[:EXTRA] (core/data/datasetspec.cpp), or None."""
    kind, _, rest = spec.partition(":")
    if kind not in ("random", "teacher", "sparse-bow"):
        return None
    parts = rest.split(":")
    rows, dim = (int(v) for v in parts[0].split("x"))
    extra = int(parts[2]) if len(parts) > 2 else (32 if kind == "teacher" else 20)
    return kind, rows, dim, int(parts[1]), extra


def _blocks(rows, seed, stream):
    for b in range((rows + BLOCK_ROWS - 1) // BLOCK_ROWS):
        first = b * BLOCK_ROWS
        yield first, min(rows, first + BLOCK_ROWS), Rng(Rng.derive(seed, b, stream))


def _tanhf():
    """The C library's tanhf, which the engine's std::tanh(float) calls (numpy's
    float32 tanh may round differently); numpy's when libm cannot be loaded."""
    try:
        import ctypes
        import ctypes.util
        f = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6").tanhf
        f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float]
        return np.vectorize(f, otypes=[np.float32])
    except (OSError, AttributeError):
        return np.tanh


def make_synthetic(kind, rows, dim, classes, extra, seed):
    """The engine's rows of a synthetic set: ("dense", X, y) or
    ("sparse", indices, values, offsets, y)."""
    labels = np.zeros(rows, dtype=np.int64)
    if kind == "random":
        X = np.zeros((rows, dim), dtype=np.float32)
        for first, end, rng in _blocks(rows, seed, RANDOM_STREAM):
            X[first:end] = np.asarray(rng.normals((end - first) * dim),
                                      dtype=np.float64).reshape(end - first, dim)
            labels[first:end] = [rng.below(classes) for _ in range(end - first)]
        return "dense", X, labels
    if kind == "teacher":
        hidden = extra
        wrng = Rng(Rng.derive(seed, TEACHER_WEIGHTS))  # W1 (transposed, dim x hidden), then W2
        w1t = (np.asarray(wrng.normals(dim * hidden)) * (1.0 / math.sqrt(dim))).astype(
            np.float32).reshape(dim, hidden)
        w2 = (np.asarray(wrng.normals(classes * hidden)) * (1.0 / math.sqrt(hidden))).astype(
            np.float32).reshape(classes, hidden)
        tanhf = _tanhf()
        X = np.zeros((rows, dim), dtype=np.float32)
        for first, end, rng in _blocks(rows, seed, TEACHER_STREAM):
            x = np.asarray(rng.normals((end - first) * dim)).astype(np.float32).reshape(-1, dim)
            X[first:end] = x
            # float32 sums in the engine's order (its build does not fuse multiply-adds)
            h = np.zeros((end - first, hidden), dtype=np.float32)
            for k in range(dim):
                h += x[:, k:k + 1] * w1t[k]
            h = tanhf(h).astype(np.float32)
            z = np.zeros((end - first, classes), dtype=np.float32)
            for j in range(hidden):
                z += h[:, j:j + 1] * w2[:, j]
            labels[first:end] = z.argmax(1)  # the first of equal logits, as the engine's
        return "dense", X, labels
    tokens, vocab = extra, dim  # sparse-bow
    preferred = max(1, vocab // 20)
    class_keys = [Rng.derive(seed, c, BOW_CLASSES) for c in range(classes)]
    idx = np.zeros(rows * tokens, dtype=np.int64)
    for first, end, rng in _blocks(rows, seed, BOW_STREAM):
        for r in range(first, end):
            c = rng.below(classes)
            labels[r] = c
            row = []
            for _ in range(tokens):
                if rng.uniform() < 0.8:
                    row.append((Rng.derive(class_keys[c], rng.below(preferred)) * vocab) >> 64)
                else:
                    row.append(rng.below(vocab))
            idx[r * tokens:(r + 1) * tokens] = sorted(row)
    return ("sparse", idx, np.ones(rows * tokens, dtype=np.float32),
            np.arange(0, rows * tokens + 1, tokens, dtype=np.int64), labels)


# --------------------------------------------------------------------- evaluate
def read_safetensors(path):
    """The format by hand (the safetensors package may be missing): name ->
    float32 numpy array."""
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    base = 8 + n
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        if t["dtype"] != "F32":
            raise ValueError("%s: tensor %s has dtype %s, expected F32" % (path, name, t["dtype"]))
        lo, hi = t["data_offsets"]
        out[name] = np.frombuffer(blob[base + lo:base + hi], dtype="<f4").reshape(t["shape"]).copy()
    return out


def open_text(path):
    """A data file as the engine reads it: gzip-compressed or not (by its
    first bytes), a UTF-8 byte-order mark left out."""
    import gzip
    with open(path, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    return (gzip.open if gz else open)(path, "rt", encoding="utf-8-sig", errors="replace")


def load_csv(path):
    """core/data/csvreader.cpp: label first, then the features; a first line
    whose first field is not a number is a header; a label may be written as
    a float ("3.0")."""
    labels, rows = [], []
    seen_first = False
    with open_text(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            parts = line.split(",")
            try:
                lab = float(parts[0])
            except ValueError:
                if not seen_first:
                    seen_first = True
                    continue  # a header line
                raise
            seen_first = True
            labels.append(int(lab))
            rows.append([float(v) for v in parts[1:]])
    return np.asarray(rows, dtype=np.float32), np.asarray(labels, dtype=np.int64)


def load_libsvm(path):
    labels, idx, val, offsets = [], [], [], [0]
    with open_text(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            labels.append(int(float(parts[0])))
            for p in parts[1:]:
                i, v = p.split(":")
                idx.append(int(i) - 1)
                val.append(float(v))
            offsets.append(len(idx))
    labs = np.asarray(labels, dtype=np.int64)
    if set(np.unique(labs).tolist()) <= {-1, 1} and (labs == -1).any():
        labs = (labs > 0).astype(np.int64)  # the pair -1/+1 as 0/1, as the engine maps it
    return (np.asarray(idx, dtype=np.int64), np.asarray(val, dtype=np.float32),
            np.asarray(offsets, dtype=np.int64), labs)


def last_eval(metrics_path):
    last = None
    with open(metrics_path) as f:
        header = f.readline().strip().split(",")
        col = {k: i for i, k in enumerate(header)}
        for line in f:
            p = line.strip().split(",")
            if len(p) == len(header) and p[col["kind"]] == "eval":
                last = {"epoch": int(p[col["epoch"]]), "loss": float(p[col["loss"]]),
                        "accuracy": float(p[col["accuracy"]])}
    return last


def build_model(torch, nn, spec):
    kind, _, rest = spec.partition(":")
    if kind == "mlp":
        dims, _, act = rest.partition(":")
        widths = [int(v) for v in dims.split("-")]
        acts = {"": nn.ReLU, "relu": nn.ReLU, "tanh": nn.Tanh, "sigmoid": nn.Sigmoid}
        layers = []
        for i in range(len(widths) - 1):
            layers.append(nn.Linear(widths[i], widths[i + 1]))
            if i < len(widths) - 2:
                layers.append(acts[act]())
        return nn.Sequential(*layers), "mlp"
    if kind == "embedding-bag":
        v, d, c = (int(x) for x in rest.split("-"))

        class Bag(nn.Module):  # the engine's: sum of value/nnz * embedding, then Linear
            def __init__(self):
                super().__init__()
                self.embedding = nn.EmbeddingBag(v, d, mode="sum")
                self.fc = nn.Linear(d, c)

            def forward(self, idx, offsets, weights):
                return self.fc(self.embedding(idx, offsets, per_sample_weights=weights))
        return Bag(), "bag"
    if spec == "cnn:mnist":  # PyTorch's mnist_hogwild Net, whose state_dict names the export has
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from mnist_hogwild_net import Net
        return Net(), "cnn"
    raise ValueError("model %r: not an mlp:, embedding-bag: or cnn:mnist spec" % spec)


def engine_cwd(run_dir, out):
    """The engine's working directory, when the run's --out (experiment.json's
    "out") was relative and run_dir is where it led; else None."""
    if not out or os.path.isabs(out):
        return None
    run, rel = os.path.abspath(run_dir), os.path.normpath(out)
    if run == os.sep + rel or not run.endswith(os.sep + rel):
        return None
    return run[:-len(rel) - 1] or os.sep


def dataset_rows(spec, seed, run_dir, out=None):
    """Every row of the run's data set, in the engine's order, before the
    split: ("dense", X, y) or ("sparse", indices, values, offsets, y); or a
    string saying why it cannot be had here."""
    kind, _, path = spec.partition(":")
    if kind in ("csv", "libsvm"):
        if not os.path.isabs(path):
            # relative to the engine's working directory: found from a relative
            # --out, else taken to be this one
            cwd = engine_cwd(run_dir, out)
            if cwd is not None:
                path = os.path.join(cwd, path)
        if not os.path.isfile(path):
            return "dataset %s: there is no file %s to read the rows from" % (spec, path)
        if kind == "csv":
            X, y = load_csv(path)
            return "dense", X, y
        return ("sparse",) + load_libsvm(path)
    syn = parse_synthetic(spec)
    if syn is not None:
        return make_synthetic(*syn, seed)
    return ("dataset %s: its rows are not regenerated here (csv:, libsvm:, random:, teacher: and "
            "sparse-bow: are); the weights were loaded into torch, no accuracy check" % spec)


def forward_test(torch, model, kind, data, test, device):
    """Logits of the test rows, and their labels, on `device`."""
    if data[0] == "dense":
        _, X, y = data
        rows = torch.from_numpy(X[test]).to(device)
        # the CNN reads each row of 784 as one 28x28 image (its log-softmax is
        # its own logits' cross-entropy: log_softmax is idempotent)
        logits = model(rows.view(-1, 1, 28, 28) if kind == "cnn" else rows)
    elif kind == "mlp":  # sparse rows into an MLP: dense, repeated indices summed (batchgather.h)
        _, idx, val, offs, y = data
        X = np.zeros((len(test), model[0].in_features), dtype=np.float32)
        for i, r in enumerate(test):
            b, e = int(offs[r]), int(offs[r + 1])
            np.add.at(X[i], idx[b:e], val[b:e])
        logits = model(torch.from_numpy(X).to(device))
    else:
        _, idx, val, offs, y = data
        ti, tw, to = [], [], [0]
        for r in test:
            b, e = int(offs[r]), int(offs[r + 1])
            ti.append(idx[b:e])
            # the engine's bag mean: value * (1/nnz), in float32
            tw.append(val[b:e] * (np.float32(1) / np.float32(max(e - b, 1))))
            to.append(to[-1] + (e - b))
        logits = model(torch.from_numpy(np.concatenate(ti)).to(device),
                       torch.tensor(to[:-1], dtype=torch.int64, device=device),
                       torch.from_numpy(np.concatenate(tw).astype(np.float32)).to(device))
    return logits, torch.from_numpy(np.asarray(y)[test]).to(device)


ACCURACY_POINTS, LOSS_REL = 0.5, 1e-3  # the agreement asked of every run


def evaluate_one(torch, nn, run_dir, device):
    with open(os.path.join(run_dir, "experiment.json")) as f:
        exp = json.load(f)
    out = {"run": os.path.basename(os.path.abspath(run_dir)), "model": exp["model"],
           "dataset": exp["dataset"], "mode": exp["mode"], "device": exp.get("device"),
           "workers": exp.get("workers"), "epochs": exp.get("epochs")}
    why = []  # every disagreement, in words
    st = read_safetensors(os.path.join(run_dir, "weights.safetensors"))
    npz = dict(np.load(os.path.join(run_dir, "weights.npz")))
    same = sorted(st) == sorted(npz) and all(
        st[k].shape == npz[k].shape and np.array_equal(st[k], npz[k]) for k in st)
    out["npz_equals_safetensors"] = bool(same)
    if not same:
        if sorted(st) != sorted(npz):
            why.append("weights.npz holds tensors %s, weights.safetensors %s"
                       % (sorted(npz), sorted(st)))
        else:
            bad = [k for k in st if st[k].shape != npz[k].shape or not np.array_equal(st[k], npz[k])]
            why.append("weights.npz differs from weights.safetensors in %s" % ", ".join(bad))
    try:  # the package, when installed, must read the same file the same way
        from safetensors.numpy import load_file
        pk = load_file(os.path.join(run_dir, "weights.safetensors"))
        agrees = sorted(pk) == sorted(st) and all(np.array_equal(pk[k], st[k]) for k in st)
        out["safetensors_package_agrees"] = bool(agrees)
        if not agrees:
            why.append("the safetensors package reads weights.safetensors differently")
    except ImportError:
        out["safetensors_package_agrees"] = None
    model, kind = build_model(torch, nn, exp["model"])
    model.load_state_dict({k: torch.from_numpy(v) for k, v in st.items()})  # strict: names, shapes
    model = model.to(device).eval()
    fraction, seed = float(exp["test-fraction"]), int(exp["seed"])
    reported = last_eval(os.path.join(run_dir, "metrics.csv"))
    out["reported"] = reported
    data = dataset_rows(exp["dataset"], seed, run_dir, exp.get("out"))
    if isinstance(data, str):
        out.update(ok=None if same else False, note=data)
        if why:
            out["why"] = "; ".join(why)
        return out
    _, test = engine_split(len(data[-1]), fraction, seed)
    if not test:
        out.update(ok=None if same else False, note="no test set (test-fraction %g)" % fraction)
        if why:
            out["why"] = "; ".join(why)
        return out
    with torch.no_grad():
        logits, yt = forward_test(torch, model, kind, data, test, device)
        loss = torch.nn.functional.cross_entropy(logits.double(), yt).item()
        acc = (logits.argmax(1) == yt).double().mean().item()
    out.update(test_rows=len(test), torch_loss=loss, torch_accuracy=acc)
    if reported is None:
        why.append("metrics.csv holds no eval row to compare with")
        out.update(ok=False, why="; ".join(why))
        return out
    dacc = 100 * abs(acc - reported["accuracy"])
    if math.isnan(loss) and math.isnan(reported["loss"]):
        dloss = 0.0  # both diverged: the loss agrees, the accuracy still has to
    else:
        dloss = abs(loss - reported["loss"]) / max(1.0, abs(reported["loss"]))
    out.update(accuracy_diff_points=dacc, loss_rel_diff=dloss)
    if not dacc <= ACCURACY_POINTS:
        why.append("accuracy: torch %.2f%%, engine %.2f%% (%.2f points apart, at most %.1f allowed)"
                   % (100 * acc, 100 * reported["accuracy"], dacc, ACCURACY_POINTS))
    if not dloss <= LOSS_REL:
        why.append("loss: torch %.6g, engine %.6g (%.3g apart relative to max(1, loss), at most "
                   "%g allowed)" % (loss, reported["loss"], dloss, LOSS_REL))
    if why and exp.get("epochs") is not None and reported["epoch"] != int(exp["epochs"]):
        why.append("the last evaluation is of epoch %d of %d: the run stopped before its end, "
                   "and the weights may be later than that evaluation"
                   % (reported["epoch"], int(exp["epochs"])))
    out["ok"] = not why
    if why:
        out["why"] = "; ".join(why)
    return out


def trained_on_gpu(exp):
    return exp.get("mode") == "gpu-hogwild" or str(exp.get("device", "cpu")).startswith("cuda")


def cmd_evaluate(a):
    try:
        import torch
        import torch.nn as nn
    except ImportError as e:
        return result({"ok": None, "skipped": "PyTorch is not installed here: %s" % e}, 3)
    if np is None:
        return result({"ok": None, "skipped": "numpy is not installed here"}, 3)
    device = "cuda" if (a.device == "auto" and torch.cuda.is_available()) else (
        "cpu" if a.device == "auto" else a.device)
    runs, failed = [], 0
    for d in a.runs:
        try:
            r = evaluate_one(torch, nn, d, device)
        except Exception as e:  # one bad folder must not hide the others
            r = {"run": os.path.basename(os.path.abspath(d)), "ok": False,
                 "error": "%s: %s" % (type(e).__name__, str(e)[:300])}
            try:
                with open(os.path.join(d, "experiment.json")) as f:
                    exp = json.load(f)
                r.update(mode=exp.get("mode"), device=exp.get("device"), model=exp.get("model"))
            except Exception:
                pass
            r["why"] = "the evaluator failed: " + r["error"]
        try:
            with open(os.path.join(d, "experiment.json")) as f:
                r["trained_on"] = "gpu" if trained_on_gpu(json.load(f)) else "cpu"
        except Exception:
            r["trained_on"] = None
        runs.append(r)
        if r.get("ok") is False:
            failed += 1
        rep = r.get("reported") or {}
        if "torch_accuracy" in r:
            log("%-18s %-14s %-24s torch: accuracy %.2f%% loss %.5f | engine: accuracy %.2f%% "
                "loss %.5f | npz=safetensors %s -> %s" % (
                    r["run"], r["mode"], r["model"], 100 * r["torch_accuracy"], r["torch_loss"],
                    100 * rep.get("accuracy", float("nan")), rep.get("loss", float("nan")),
                    r["npz_equals_safetensors"], "ok" if r["ok"] else "MISMATCH: " + r["why"]))
        else:
            log("%-18s %-14s %s" % (r["run"], r.get("mode", "-"),
                                    r.get("why") or r.get("note")))
    # The CPU runs are the control: when they disagree too, the evaluator (or
    # the engine's export) is at fault, not the GPU runs.
    cpu = [r for r in runs if r["trained_on"] == "cpu" and r.get("ok") is not None]
    gpu_bad = [r["run"] for r in runs if r["trained_on"] != "cpu" and r.get("ok") is False]
    cpu_bad = [r["run"] for r in cpu if r["ok"] is False]
    if not cpu:
        verdict = "no CPU control run was compared: a disagreement cannot be told apart from " \
                  "an evaluator fault"
    elif cpu_bad:
        verdict = "the CPU control runs %s disagree too: suspect the evaluator (or the engine's " \
                  "export), not only the GPU runs" % ", ".join(cpu_bad)
    elif gpu_bad:
        verdict = "the CPU control runs agree; the GPU runs %s do not: their exported weights " \
                  "are not what their own evaluation measured" % ", ".join(gpu_bad)
    else:
        verdict = "every compared run agrees"
    log("verdict: " + verdict)
    return result({"ok": failed == 0, "device": device, "torch": torch.__version__,
                   "cpu_control_ok": (not cpu_bad) if cpu else None, "verdict": verdict,
                   "runs": runs}, 0 if failed == 0 else 1)
