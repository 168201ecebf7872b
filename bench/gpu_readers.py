"""Readers that are not this project's, on what the engine writes: the GPU
device check's last word on its files (tests/gpu/device-check runs them on
the end-to-end runs' folders; the GPU machine's python3 has the packages,
Debian 12's does not, so here they say SKIPPED).

    python3 bench/gpu_readers.py READER ARGS...

Each prints one line "RESULT {json}" at the end (progress and reasons on
stderr) and exits 0 when every file it read agrees with the run's own
figures, 1 when one does not (its "why" says which and by how much), 3 when
its library is not installed ("skipped" says which).

  tensorboard LOGDIR   TensorBoard's own EventMultiplexer on a --tensorboard
                       logdir: the logdir's HParams experiment and its
                       custom_scalars layout; each run's session (started,
                       ended in success, its --out folder as the model URI),
                       its training losses (finite) and its test/accuracy and
                       test/loss at every epoch, equal to that --out folder's
                       metrics.csv to float rounding.
  onnxruntime RUN...   onnxruntime runs each --out folder's model.onnx (an
                       MLP, the CNN, a layer list, the embedding bag) on the
                       rows the engine held out (its split, bench/gpu_eval.py)
                       and its accuracy and loss must be the run's own last
                       test evaluation: within 0.5 points and 1e-3.
  safetensors RUN...   the safetensors package loads weights.safetensors into
                       torch.nn modules (load_state_dict, strict: every name
                       and shape), equal to weights.npz bit for bit; the
                       modules' accuracy and loss as above.
"""

import argparse
import json
import math
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_eval import (ACCURACY_POINTS, LOSS_REL, build_model, dataset_rows,  # noqa: E402
                      engine_split, forward_test, log, np, result)


READERS = {"tensorboard": "TensorBoard's reader", "onnxruntime": "onnxruntime's reader",
           "safetensors": "the safetensors reader"}


def skipped(what, e):
    return result({"ok": None, "skipped": "%s: python3 has no %s package" % (what, e.name)}, 3)


def eval_rows(metrics_path):
    """metrics.csv's test evaluations: epoch -> (loss, accuracy)."""
    rows = {}
    with open(metrics_path) as f:
        header = f.readline().strip().split(",")
        col = {k: i for i, k in enumerate(header)}
        for line in f:
            p = line.strip().split(",")
            if len(p) == len(header) and p[col["kind"]] == "eval":
                rows[int(p[col["epoch"]])] = (float(p[col["loss"]]), float(p[col["accuracy"]]))
    return rows


def held_out(run_dir):
    """The run's experiment, its rows (gpu_eval.dataset_rows) and the held-out
    row numbers; or a string saying why they cannot be had."""
    with open(os.path.join(run_dir, "experiment.json")) as f:
        exp = json.load(f)
    seed, fraction = int(exp["seed"]), float(exp["test-fraction"])
    data = dataset_rows(exp["dataset"], seed, run_dir, exp.get("out"))
    if isinstance(data, str):
        return data
    _, test = engine_split(len(data[-1]), fraction, seed)
    if not test:
        return "no test set (test-fraction %g)" % fraction
    return exp, data, test


def judge(run_dir, loss, accuracy, why):
    """Compares a reader's loss and accuracy with the run's last evaluation."""
    rows = eval_rows(os.path.join(run_dir, "metrics.csv"))
    if not rows:
        why.append("metrics.csv holds no test evaluation")
        return {}
    epoch = max(rows)
    want_loss, want_acc = rows[epoch]
    dacc = 100 * abs(accuracy - want_acc)
    dloss = abs(loss - want_loss) / max(1.0, abs(want_loss))
    if not dacc <= ACCURACY_POINTS:
        why.append("accuracy %.2f%%, the run's %.2f%% (%.2f points apart)"
                   % (100 * accuracy, 100 * want_acc, dacc))
    if not dloss <= LOSS_REL:
        why.append("loss %.6g, the run's %.6g (%.3g apart relative to max(1, loss))"
                   % (loss, want_loss, dloss))
    return {"accuracy": accuracy, "loss": loss, "run_accuracy": want_acc, "run_loss": want_loss}


def log_softmax_loss(logits, labels):
    z = logits.astype(np.float64)
    z = z - z.max(axis=1, keepdims=True)
    lse = np.log(np.exp(z).sum(axis=1))
    loss = float(np.mean(lse - z[np.arange(len(labels)), labels]))
    return loss, float(np.mean(logits.argmax(axis=1) == labels))


def report(name, runs):
    bad = [r for r in runs if r.get("ok") is False]
    for r in runs:
        log("%-18s %s" % (r["run"], "agrees" if r.get("ok") else
                          ("does not agree: " + r.get("why", "")) if r.get("ok") is False
                          else r.get("note", "")))
    judged = [r for r in runs if r.get("ok") is not None]
    return result({"ok": not bad and bool(judged), "reader": name, "runs": runs,
                   "why": "; ".join("%s: %s" % (r["run"], r["why"]) for r in bad)
                   or ("" if judged else "no run could be judged")},
                  0 if not bad and judged else 1)


# ------------------------------------------------------------------ onnxruntime
def onnx_inputs(sess, kind, data, test):
    """The graph's inputs for the held-out rows (core/io/onnxexport.h)."""
    names = [i.name for i in sess.get_inputs()]
    if data[0] == "dense":
        X = data[1][test].astype(np.float32)
        shape = sess.get_inputs()[0].shape
        return {names[0]: X.reshape((len(test),) + tuple(int(d) for d in shape[1:]))}
    _, idx, val, offs, _ = data
    if kind != "bag":  # sparse rows into an MLP: their dense vectors
        X = np.zeros((len(test), int(sess.get_inputs()[0].shape[1])), dtype=np.float32)
        for i, r in enumerate(test):
            np.add.at(X[i], idx[offs[r]:offs[r + 1]], val[offs[r]:offs[r + 1]])
        return {names[0]: X}
    parts_i, parts_w, offsets = [], [], [0]
    for r in test:
        parts_i.append(idx[offs[r]:offs[r + 1]])
        parts_w.append(val[offs[r]:offs[r + 1]])
        offsets.append(offsets[-1] + int(offs[r + 1] - offs[r]))
    return {"indices": np.concatenate(parts_i).astype(np.int64),
            "offsets": np.asarray(offsets, dtype=np.int64),
            "weights": np.concatenate(parts_w).astype(np.float32)}


def cmd_onnxruntime(a):
    try:
        import onnxruntime as ort
    except ImportError as e:
        return skipped(READERS["onnxruntime"], e)
    runs = []
    for run_dir in a.runs:
        r = {"run": os.path.basename(os.path.abspath(run_dir))}
        why = []
        try:
            got = held_out(run_dir)
            if isinstance(got, str):
                r.update(ok=None, note=got)
                runs.append(r)
                continue
            exp, data, test = got
            kind = "bag" if exp["model"].startswith("embedding-bag") else "dense"
            sess = ort.InferenceSession(os.path.join(run_dir, "model.onnx"),
                                        providers=["CPUExecutionProvider"])
            labels = np.asarray(data[-1])[test]
            logits = np.concatenate([
                sess.run(["logits"], onnx_inputs(sess, kind, data, test[i:i + 256]))[0]
                for i in range(0, len(test), 256)])
            loss, acc = log_softmax_loss(logits, labels)
            r.update(model=exp["model"], mode=exp["mode"], **judge(run_dir, loss, acc, why))
        except Exception as e:  # one bad folder must not hide the others
            why.append("%s: %s" % (type(e).__name__, str(e)[:300]))
        r["ok"] = not why
        if why:
            r["why"] = "; ".join(why)
        runs.append(r)
    return report("onnxruntime " + ort.__version__, runs)


# ------------------------------------------------------------------ safetensors
def cmd_safetensors(a):
    try:
        import torch
        import torch.nn as nn
        from safetensors.torch import load_file
    except ImportError as e:
        return skipped(READERS["safetensors"], e)
    runs = []
    for run_dir in a.runs:
        r = {"run": os.path.basename(os.path.abspath(run_dir))}
        why = []
        try:
            got = held_out(run_dir)
            tensors = load_file(os.path.join(run_dir, "weights.safetensors"))
            npz = dict(np.load(os.path.join(run_dir, "weights.npz")))
            if sorted(tensors) != sorted(npz) or not all(
                    np.array_equal(tensors[k].numpy(), npz[k]) for k in npz):
                why.append("weights.safetensors as the package reads it differs from "
                           "weights.npz")
            if isinstance(got, str):
                r.update(ok=not why if why else None, note=got)
                runs.append(r)
                continue
            exp, data, test = got
            model, kind = build_model(torch, nn, exp["model"])
            model.load_state_dict(tensors, strict=True)
            model.eval()
            with torch.no_grad():
                logits, labels = forward_test(torch, model, kind, data, test, "cpu")
            loss, acc = log_softmax_loss(logits.numpy(), labels.numpy())
            r.update(model=exp["model"], mode=exp["mode"], **judge(run_dir, loss, acc, why))
        except Exception as e:
            why.append("%s: %s" % (type(e).__name__, str(e)[:300]))
        r["ok"] = not why
        if why:
            r["why"] = "; ".join(why)
        runs.append(r)
    return report("safetensors", runs)


# ------------------------------------------------------------------ tensorboard
def cmd_tensorboard(a):
    try:
        from tensorboard.backend.event_processing import plugin_event_multiplexer
        from tensorboard.plugins.custom_scalar import layout_pb2
        from tensorboard.plugins.hparams import metadata
        from tensorboard.util import tensor_util
    except ImportError as e:
        return skipped(READERS["tensorboard"], e)
    import re
    mux = plugin_event_multiplexer.EventMultiplexer()
    mux.AddRunsFromDirectory(a.logdir)
    mux.Reload()
    why = []
    hp = mux.PluginRunToTagToContent(metadata.PLUGIN_NAME)
    if "." not in hp or metadata.EXPERIMENT_TAG not in hp["."]:
        why.append("the logdir has no HParams experiment")
    else:
        exp = metadata.parse_experiment_plugin_data(hp["."][metadata.EXPERIMENT_TAG])
        metrics = [m.name.tag for m in exp.metric_infos]
        if not exp.hparam_infos or "final/test_accuracy" not in metrics:
            why.append("the experiment lists %d hyper-parameters and the metrics %s"
                       % (len(exp.hparam_infos), metrics))
    try:
        content = mux.Tensors(".", "custom_scalars__config__")[0].tensor_proto.string_val[0]
        layout = layout_pb2.Layout.FromString(content)
        if not any(re.search(c.multiline.tag[0], "loss/train/worker_0")
                   for c in layout.category[0].chart):
            why.append("the custom_scalars layout has no chart of loss/train/worker_N")
    except (KeyError, IndexError) as e:
        why.append("no custom_scalars layout (%s)" % e)
    runs = []
    values = lambda run, tag: [(ev.step, float(tensor_util.make_ndarray(ev.tensor_proto)))
                               for ev in mux.Tensors(run, tag)]
    for run in sorted(r for r in hp if r != "."):
        r = {"run": run}
        mine = []
        try:
            start = metadata.parse_session_start_info_plugin_data(
                hp[run][metadata.SESSION_START_INFO_TAG])
            end = metadata.parse_session_end_info_plugin_data(
                hp[run][metadata.SESSION_END_INFO_TAG])
            out = start.model_uri
            r["out"] = os.path.basename(out)
            if end.status != 1:  # STATUS_SUCCESS
                mine.append("the session ended with status %d, not success" % end.status)
            losses = values(run, "loss/train/worker_0")
            if not losses or not all(math.isfinite(v) for _, v in losses):
                mine.append("%d training losses of worker 0, not all finite" % len(losses))
            want = eval_rows(os.path.join(out, "metrics.csv"))
            for tag, column in (("test/loss", 0), ("test/accuracy", 1)):
                got = dict(values(run, tag))
                if sorted(got) != sorted(want):
                    mine.append("%s at epochs %s, metrics.csv at %s" % (tag, sorted(got),
                                                                       sorted(want)))
                    continue
                worst = max(abs(got[e] - want[e][column]) / max(1.0, abs(want[e][column]))
                            for e in want)
                if worst > 1e-5:
                    mine.append("%s differs from metrics.csv by %.3g" % (tag, worst))
            r["epochs"] = len(want)
        except Exception as e:
            mine.append("%s: %s" % (type(e).__name__, str(e)[:300]))
        r["ok"] = not mine
        if mine:
            r["why"] = "; ".join(mine)
        runs.append(r)
    if not runs:
        why.append("TensorBoard finds no run in the logdir")
    if why:
        runs.append({"run": "(the logdir)", "ok": False, "why": "; ".join(why)})
    import tensorboard
    return report("TensorBoard " + tensorboard.__version__, runs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("tensorboard")
    p.add_argument("logdir")
    for name in ("onnxruntime", "safetensors"):
        p = sub.add_parser(name)
        p.add_argument("runs", nargs="+")
    a = ap.parse_args()
    if np is None:
        return result({"ok": None, "skipped": "%s: python3 has no numpy package" % READERS[a.cmd]}, 3)
    return {"tensorboard": cmd_tensorboard, "onnxruntime": cmd_onnxruntime,
            "safetensors": cmd_safetensors}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
