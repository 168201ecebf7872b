"""write_safetensors(): the reference generators' writer of torch tensors as
safetensors (F32), the format the tests read with the engine's reader."""

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
