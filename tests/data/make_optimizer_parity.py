#!/usr/bin/python3
"""Makes tests/data/optimizer-parity.safetensors: 100 steps of each
torch.optim 1.13 optimizer on a small model, the reference tst_optimizers
compares the engine's update rules with (the test needs no torch).

  /usr/bin/python3 tests/data/make_optimizer_parity.py   (needs python3-torch)

The model is a 6-5-3 tanh MLP (53 parameters) on 64 fixed random rows, 8
rows a step; the rate follows StepLR (halved every 30 steps), so the
schedule's rate enters each step. For each case, under "<case>.":
  init        [P]       the flat parameters before the first step
  grads       [100, P]  the gradient torch computed at each step
  lrs         [100]     the rate of each step
  final       [P]       the flat parameters after the 100 steps
  state.<key> [P]       each state buffer after them (flat, torch's key)
Metadata "cases": each case's optimizer and hyper-parameters, as the
engine's fields name them. The flat order is the state_dict's.
"""
import json
import os

import torch

from safetensors_out import write_safetensors

STEPS, ROWS, BATCH = 100, 64, 8
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "optimizer-parity.safetensors")

CASES = [
    ("sgd-momentum", "sgd", dict(lr=0.05, momentum=0.9), {"momentum": 0.9}),
    ("sgd-nesterov", "sgd", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3),
     {"momentum": 0.9, "nesterov": True, "weight-decay": 1e-3}),
    ("adam", "adam", dict(lr=0.01), {}),
    ("adam-wd", "adam", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.05),
     {"beta1": 0.8, "beta2": 0.99, "weight-decay": 0.05}),
    ("adamw", "adamw", dict(lr=0.01, weight_decay=0.01), {"weight-decay": 0.01}),
    ("rmsprop", "rmsprop", dict(lr=0.01), {}),
    ("rmsprop-wd", "rmsprop", dict(lr=0.01, alpha=0.9, eps=1e-6, weight_decay=0.01),
     {"alpha": 0.9, "eps": 1e-6, "weight-decay": 0.01}),
    ("adagrad", "adagrad", dict(lr=0.1), {}),
    ("adagrad-wd", "adagrad",
     dict(lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1, weight_decay=0.01),
     {"lr-decay": 0.01, "initial-accumulator": 0.1, "weight-decay": 0.01}),
]
CLASSES = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam, "adamw": torch.optim.AdamW,
           "rmsprop": torch.optim.RMSprop, "adagrad": torch.optim.Adagrad}


def flat(tensors):
    return torch.cat([t.detach().reshape(-1) for t in tensors]).float()


def run(name, kind, kwargs):
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.Tanh(), torch.nn.Linear(5, 3))
    x = torch.randn(ROWS, 6)
    y = torch.randint(0, 3, (ROWS,))
    params = list(model.parameters())
    opt = CLASSES[kind](params, **kwargs)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.5)
    out = {"init": flat(params)}
    grads, lrs = [], []
    for step in range(STEPS):
        rows = torch.arange(step * BATCH, (step + 1) * BATCH) % ROWS
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x[rows]), y[rows]).backward()
        grads.append(flat([p.grad for p in params]))
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    out["grads"] = torch.stack(grads)
    out["lrs"] = torch.tensor(lrs, dtype=torch.float32)
    out["final"] = flat(params)
    keys = [k for k in opt.state[params[0]] if k != "step"]
    for key in keys:
        out["state." + key] = flat([opt.state[p][key] for p in params])
    return {name + "." + k: v for k, v in out.items()}


def main():
    torch.set_num_threads(1)
    tensors, cases = {}, []
    for name, kind, kwargs, fields in CASES:
        tensors.update(run(name, kind, kwargs))
        cases.append({"name": name, "optimizer": kind, "fields": fields})
    write_safetensors(OUT, tensors, {"cases": json.dumps(cases), "torch": torch.__version__})
    print("wrote", OUT, len(tensors), "tensors")


if __name__ == "__main__":
    main()
