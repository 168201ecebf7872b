#!/usr/bin/python3
"""Makes tests/data/cnn-parity: PyTorch's examples/mnist_hogwild Net trained
serially, in file order, without dropout, as the reference tst_cnn compares
--model cnn:mnist with.

  /usr/bin/python3 tests/data/make_cnn_parity.py   (needs python3-torch and
                                                    dataset-fashion-mnist)

Writes, next to this script:
  cnn-parity/train-images-idx3-ubyte, train-labels-idx1-ubyte
      the first ROWS Fashion-MNIST training images and labels (idx:DIR)
  cnn-parity/init.safetensors      the Net's initial state_dict (seed 0)
  cnn-parity/expected.safetensors  its state_dict after EPOCHS epochs of SGD
The settings are in cnn-parity/settings.json, which the test reads.
"""
import gzip
import json
import os
import struct

import sys

import torch
import torch.nn.functional as F

ROWS, EPOCHS, BATCH, LR, MOMENTUM = 64, 3, 16, 0.05, 0.5
HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cnn-parity")
SOURCE = "/usr/share/datasets/fashion-mnist"
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from mnist_hogwild_net import Net  # noqa: E402  (the example's network)
from safetensors_out import train_in_file_order, write_safetensors  # noqa: E402


def main():
    os.makedirs(HERE, exist_ok=True)
    with gzip.open(os.path.join(SOURCE, "train-images-idx3-ubyte.gz")) as f:
        images = f.read()[16:16 + ROWS * 784]
    with gzip.open(os.path.join(SOURCE, "train-labels-idx1-ubyte.gz")) as f:
        labels = f.read()[8:8 + ROWS]
    with open(os.path.join(HERE, "train-images-idx3-ubyte"), "wb") as f:
        f.write(struct.pack(">IIII", 0x803, ROWS, 28, 28) + images)
    with open(os.path.join(HERE, "train-labels-idx1-ubyte"), "wb") as f:
        f.write(struct.pack(">II", 0x801, ROWS) + labels)

    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = Net()
    write_safetensors(os.path.join(HERE, "init.safetensors"), model.state_dict())
    x = torch.tensor(list(images), dtype=torch.uint8).float().div(255).view(ROWS, 1, 28, 28)
    y = torch.tensor(list(labels), dtype=torch.long)
    train_in_file_order(model, x, y, F.nll_loss, EPOCHS, BATCH, LR, MOMENTUM)
    write_safetensors(os.path.join(HERE, "expected.safetensors"), model.state_dict())
    with open(os.path.join(HERE, "settings.json"), "w") as f:
        json.dump({"rows": ROWS, "epochs": EPOCHS, "batch": BATCH, "lr": LR,
                   "momentum": MOMENTUM, "torch": torch.__version__}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
