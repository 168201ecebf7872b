#!/usr/bin/python3
"""Makes tests/data/net-parity: a layer list with every kind of layer
(--model net:...), as the nn.Sequential of the same layers, trained serially
in file order without dropout: the reference tst_layers compares the engine
with.

  /usr/bin/python3 tests/data/make_net_parity.py   (needs python3-torch)

Writes, next to this script:
  net-parity/data.csv              ROWS samples of 2x8x8 normal features and
                                   a label in 0..3 (csv:FILE)
  net-parity/init.safetensors      the Sequential's initial state_dict (seed 0)
  net-parity/expected.safetensors  its state_dict after EPOCHS epochs of SGD
  net-parity/settings.json         the model text and the settings
"""
import json
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

ROWS, EPOCHS, BATCH, LR, MOMENTUM = 48, 3, 8, 0.1, 0.5
MODEL = ("net:2x8x8:conv6k3p1,gelu,maxpool3s2,conv8k3s2p1,tanh,avgpool2,dropout2d,flatten,"
         "fc12,sigmoid,dropout,fc4")
HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "net-parity")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from safetensors_out import train_in_file_order, write_safetensors  # noqa: E402


def network():
    return nn.Sequential(
        nn.Conv2d(2, 6, 3, padding=1), nn.GELU(), nn.MaxPool2d(3, stride=2),
        nn.Conv2d(6, 8, 3, stride=2, padding=1), nn.Tanh(), nn.AvgPool2d(2), nn.Dropout2d(),
        nn.Flatten(), nn.Linear(8, 12), nn.Sigmoid(), nn.Dropout(), nn.Linear(12, 4))


def main():
    os.makedirs(HERE, exist_ok=True)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    x = torch.randn(ROWS, 2 * 8 * 8).mul(1000).round().div(1000)  # what the CSV keeps
    y = torch.randint(0, 4, (ROWS,))
    with open(os.path.join(HERE, "data.csv"), "w") as f:
        for label, row in zip(y.tolist(), x.tolist()):
            f.write(",".join([str(label)] + ["%.3f" % v for v in row]) + "\n")
    model = network()
    write_safetensors(os.path.join(HERE, "init.safetensors"), model.state_dict())
    train_in_file_order(model, x.view(ROWS, 2, 8, 8), y, F.cross_entropy, EPOCHS, BATCH, LR,
                        MOMENTUM)
    write_safetensors(os.path.join(HERE, "expected.safetensors"), model.state_dict())
    with open(os.path.join(HERE, "settings.json"), "w") as f:
        json.dump({"model": MODEL, "rows": ROWS, "epochs": EPOCHS, "batch": BATCH, "lr": LR,
                   "momentum": MOMENTUM, "torch": torch.__version__}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
