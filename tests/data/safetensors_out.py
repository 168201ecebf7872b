"""What the reference generators share: write_safetensors(), their writer of
torch tensors as safetensors (F32), the format the tests read with the
engine's reader, and train_in_file_order(), the parity runs' SGD loop."""

import json
import struct


def write_safetensors(path, tensors, metadata=None):
    """Writes `tensors` (name -> torch tensor, as float32) and `metadata`
    (name -> string) to `path`."""
    header, body = ({"__metadata__": metadata} if metadata else {}), b""
    for name, t in tensors.items():
        data = t.detach().contiguous().float().numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape),
                        "data_offsets": [len(body), len(body) + len(data)]}
        body += data
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + body)


def train_in_file_order(model, x, y, loss_fn, epochs, batch, lr, momentum):
    """The parity references' training: `model` in eval() (no dropout: the
    runs compared use --dropout 0), SGD over (x, y) batch after batch in file
    order (--no-shuffle), as the engine's serial mode steps."""
    import torch
    model.eval()
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    for _ in range(epochs):
        for start in range(0, len(y), batch):
            opt.zero_grad()
            loss_fn(model(x[start:start + batch]), y[start:start + batch]).backward()
            opt.step()
