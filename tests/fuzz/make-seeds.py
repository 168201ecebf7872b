#!/usr/bin/env python3
"""Writes the seed corpus of each fuzz target into tests/fuzz/corpus/<target>/.

Seeds are small real files, valid and slightly broken, in the forms the
parsers meet: IDX pairs raw and gzip (made like tests/tst_datasourcefiles.cpp
makes them), CSV and LIBSVM with headers, CRLF, a BOM, comments and gzip,
safetensors files written by hwl::writeSafetensors (through the helper
fuzz_seed_weights, built with the fuzz targets) plus hand-made hostile ones,
the experiment files of resources/experiments/, and command lines.

Usage: tests/fuzz/make-seeds.py [--build-dir build-fuzz]

Every file it writes is named seed-*; files found by fuzzing (named by their
SHA-1, added with tests/fuzz/run's merge) are left alone. Output is
deterministic (gzip mtime 0), so rerunning it changes nothing.
"""
import argparse
import gzip
import json
import pathlib
import struct
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CORPUS = HERE / "corpus"


def gz(data: bytes, level: int = 9) -> bytes:
    return gzip.compress(data, compresslevel=level, mtime=0)


def put(target: str, name: str, data: bytes) -> None:
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / ("seed-" + name)).write_bytes(data)


# --- IDX ---------------------------------------------------------------------


def idx_images(n: int, h: int, w: int, pixel_bytes: int = -1) -> bytes:
    count = pixel_bytes if pixel_bytes >= 0 else n * h * w
    return struct.pack(">IIII", 0x803, n, h, w) + bytes((i * 37) % 256 for i in range(count))


def idx_labels(labels) -> bytes:
    return struct.pack(">II", 0x801, len(labels)) + bytes(labels)


def idx_input(images: bytes, labels: bytes) -> bytes:
    """fuzz_idx's encoding: 2 bytes big-endian labels length, labels, images."""
    return struct.pack(">H", len(labels)) + labels + images


def idx_seeds() -> None:
    img, lab = idx_images(4, 2, 3), idx_labels([0, 3, 12, 1])
    mnist_like = idx_images(3, 28, 28), idx_labels([9, 0, 4])
    pairs = {
        "raw-4x2x3": (img, lab),
        "raw-3x28x28": mnist_like,
        "labels-below-10": (idx_images(2, 1, 1), idx_labels([1, 2])),
        "swapped": (lab, img),
        "truncated": (img[:-2], lab),
        "trailing": (img + b"\x00\x00", lab),
        "count-mismatch": (img, idx_labels([0, 1])),
        "zero-images": (idx_images(0, 28, 28), idx_labels([])),
        "huge-header": (idx_images(1, 0xFFFFFFFF, 0xFFFFFFFF, 8), idx_labels([1])),
    }
    for name, (i, l) in pairs.items():
        put("fuzz_idx", name, idx_input(i, l))
        put("fuzz_idx_gzip", name, idx_input(i, l))  # the target gzips the images itself
    put("fuzz_idx", "gzip-both", idx_input(gz(img), gz(lab)))
    put("fuzz_idx", "gzip-stored", idx_input(gz(img, 0), gz(lab, 0)))
    put("fuzz_idx", "gzip-images", idx_input(gz(mnist_like[0]), mnist_like[1]))
    put("fuzz_idx", "gzip-labels", idx_input(img, gz(lab)))
    put("fuzz_idx", "gzip-truncated", idx_input(gz(img)[:-12], lab))
    put("fuzz_idx", "gzip-corrupt", idx_input(gz(img, 0)[:14] + b"x" * 20, lab))
    bomb = struct.pack(">IIII", 0x803, 1 << 20, 1024, 1024) + bytes(100)
    put("fuzz_idx", "gzip-huge-header", idx_input(gz(bomb), idx_labels([0])))
    put("fuzz_idx_gzip", "huge-header-2^40", idx_input(bomb, idx_labels([0])))
    under_cap = struct.pack(">IIII", 0x803, 1 << 14, 256, 512) + bytes(64)  # 2 GiB promised
    put("fuzz_idx_gzip", "promise-2GiB", idx_input(under_cap, idx_labels([0])))


# --- CSV and LIBSVM ----------------------------------------------------------

CSV = {
    "plain": b"0,0.5,1.0\n1,0.25,0.75\n2,1e-3,-4.5\n",
    "header": b"label,x1,x2\n0,1,2\n1,3,4\n",
    "crlf": b"label,a,b,c\r\n1,0.1,0.2,0.3\r\n0,0.4,0.5,0.6\r\n",
    "bom-header": b"\xef\xbb\xbflabel,f1\n0,1.5\n1,2.5\n",
    "bom-no-header": b"\xef\xbb\xbf1,0.5\n0,0.25\n",
    "comment-line": b"# exported by hand\n0,1\n1,2\n",
    "blank-lines": b"0,1,2\n\n1,3,4\n\n",
    "spaces": b" 0 , 1.0 , 2.0 \n 1 , 3.0 , 4.0 \n",
    "no-final-newline": b"0,1\n1,2",
    "ragged": b"0,1,2\n1,3\n",
    "negative-label": b"-1,1\n1,2\n",
    "fraction-label": b"1.5,1\n0,2\n",
    "one-class": b"0,1\n0,2\n",
    "nan-inf": b"0,nan,inf\n1,-inf,1\n",
    "empty": b"",
    "header-only": b"label,x\n",
    "label-only": b"0\n1\n",
    "big-label": b"2147483648,1\n0,1\n",
}

LIBSVM = {
    "plain": b"1 1:0.5 3:1.0\n0 2:0.25\n2 1:1 2:2 3:3\n",
    "binary": b"+1 1:0.5 4:1\n-1 2:0.25\n+1 3:1e2\n",
    "comments": b"# a comment\n1 1:2 # trailing\n0 2:1\n",
    "crlf": b"1 1:0.5\r\n0 2:1.5\r\n",
    "bom": b"\xef\xbb\xbf1 1:1\n0 2:1\n",
    "empty-row": b"1\n0 1:1\n",
    "tabs": b"1\t1:1\t5:2\n0\t2:3\n",
    "decreasing": b"1 3:1 2:1\n0 1:1\n",
    "zero-index": b"1 0:1\n0 1:1\n",
    "missing-value": b"1 1:\n0 2:1\n",
    "big-index": b"1 2147483648:1\n0 1:1\n",
    "no-features": b"1\n0\n",
    "empty": b"",
    "qid": b"1 qid:3 1:1\n0 qid:3 2:1\n",
}


def text_seeds() -> None:
    for name, data in CSV.items():
        put("fuzz_csv", name, data)
    put("fuzz_csv", "gzip", gz(CSV["header"]))
    for name, data in LIBSVM.items():
        put("fuzz_libsvm", name, data)
    put("fuzz_libsvm", "gzip", gz(LIBSVM["comments"]))


# --- safetensors -------------------------------------------------------------


def safetensors(tensors, metadata=None, header_extra=None, pad=True) -> bytes:
    """tensors: [(name, dtype, shape, bytes)], in file order."""
    header, data = {}, b""
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    header.update(header_extra or {})
    text = json.dumps(header, separators=(",", ":")).encode()
    if pad:
        text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


def floats(*values) -> bytes:
    return struct.pack("<%df" % len(values), *values)


def mlp_432(w0=None):
    w0 = w0 or floats(*[0.1 * i for i in range(12)])
    return [("0.weight", "F32", [3, 4], w0), ("0.bias", "F32", [3], floats(0, 1, 2)),
            ("2.weight", "F32", [2, 3], floats(*range(6))), ("2.bias", "F32", [2], floats(1, -1))]


def safetensors_seeds(build_dir: pathlib.Path) -> None:
    tool = build_dir / "tests" / "fuzz" / "fuzz_seed_weights"
    if tool.exists():
        subprocess.run([str(tool), str(CORPUS / "fuzz_safetensors")], check=True)
    else:
        print(f"make-seeds: {tool} is not built; the writeSafetensors seeds are not refreshed "
              "(cmake --build <dir> --target fuzz_seed_weights)", file=sys.stderr)
    t = "fuzz_safetensors"
    put(t, "py-mlp-4-3-2-unpadded", safetensors(mlp_432(), pad=False))
    put(t, "py-nan", safetensors(mlp_432(floats(float("nan"), *range(11)))))
    put(t, "py-inf", safetensors(mlp_432(floats(float("inf"), *range(11)))))
    put(t, "py-extra-tensor", safetensors(mlp_432() + [("extra", "F32", [1], floats(5))]))
    put(t, "py-f16", safetensors([("x", "F16", [2], b"\x00\x3c\x00\x3c")]))
    put(t, "py-zero-dim", safetensors([("z", "F32", [0, 7], b""), ("s", "F32", [], floats(3))]))
    put(t, "py-metadata-not-string", safetensors([], metadata={"n": 1}))
    put(t, "py-overlap", safetensors([], header_extra={
        "a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
        "b": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}) + floats(1))
    put(t, "py-gap", safetensors([], header_extra={
        "a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}) + floats(1, 2))
    put(t, "py-huge-shape", safetensors([], header_extra={
        "a": {"dtype": "F32", "shape": [1 << 62, 1 << 62], "data_offsets": [0, 4]}}) + floats(1))
    put(t, "py-header-too-long", struct.pack("<Q", 1 << 40) + b"{}")
    put(t, "py-not-json", struct.pack("<Q", 8) + b"{not ok}")
    put(t, "py-short", b"\x02\x00\x00")


# --- experiment JSON and command lines ---------------------------------------


def config_seeds() -> None:
    t = "fuzz_experiment_json"
    for f in sorted((ROOT / "resources" / "experiments").glob("*.json")):
        put(t, "resource-" + f.name, f.read_bytes())
    every = {"model": "embedding-bag:1000-16-4", "dataset": "sparse-bow:2000x1000:4:12",
             "mode": "data-parallel", "workers": 4, "start-method": "spawn", "share": False,
             "on-worker-failure": "continue", "transport": "processes", "sync-every": 4,
             "bucket-mb": 0.5, "drop-last": True, "hostfile": "hosts.txt",
             "mpirun-args": "--mca btl self,tcp", "epochs": 2, "batch": 64, "lr": 1e-3,
             "momentum": 0.0, "weight-decay": 1e-4, "seed": 18446744073709551615,
             "split": "replicate", "test-fraction": 0.25, "shuffle": False,
             "init": "w.safetensors", "out": "runs/one"}
    put(t, "every-field.json", json.dumps(every, indent=2).encode())
    put(t, "empty-object.json", b"{}")
    put(t, "serial-csv.json", b'{"mode": "serial", "dataset": "csv:data.csv", "model": "mlp:2-2"}')
    put(t, "idx-mpi.json", b'{"dataset": "idx:/data/mnist", "transport": "mpi", "workers": 2}')
    put(t, "out-of-range.json", b'{"workers": 100000, "lr": -1, "momentum": 1.5}')
    put(t, "wrong-type.json", b'{"workers": "2"}')
    put(t, "unknown-field.json", b'{"wrokers": 2}')
    put(t, "unicode.json", '{"out": "r\\u00e9sultats/\u6d4b\\u0000x"}'.encode())
    put(t, "big-number.json", b'{"lr": 1e400}')
    put(t, "deep.json", b"[" * 40 + b"]" * 40)
    put(t, "not-object.json", b"[1, 2]")
    put(t, "comments.json", b'{"workers": 2 /* not JSON */}')

    lines = {
        "empty": [],
        "headless-quiet": ["--headless", "--quiet"],
        "help": ["--help"],
        "version": ["-h", "--version"],
        "config-ok": ["--config", "ok.json", "--workers", "4"],
        "config-eq-bad": ["--config=bad.json"],
        "config-pipe": ["--config", "pipe"],
        "config-dir-big": ["--config", "dir", "--config=big.json"],
        "serial": ["--mode=serial", "--epochs", "1", "--dataset", "teacher:1000x10:3:8",
                   "--model", "mlp:10-3"],
        "processes": ["--no-share", "--mode", "processes", "--start-method", "spawn",
                      "--on-worker-failure=continue"],
        "mpi": ["--transport=mpi", "--hostfile", "hosts", "--mpirun-args",
                "--mca btl self,tcp", "--sync-every", "2", "--bucket-mb", "0.25"],
        "numbers": ["--lr", "1e-3", "--momentum", "0", "--seed", "123", "--test-fraction",
                    "0.2", "--no-shuffle", "--drop-last", "--weight-decay=0.5"],
        "files": ["--init", "w.safetensors", "--out", "outdir", "--dataset=csv:x.csv"],
        "bad": ["--bogus", "extra", "--workers"],
        "switch-value": ["--quiet=1", "--shuffle=yes"],
    }
    for name, args in lines.items():
        put("fuzz_cmdline", name, b"\0".join(a.encode() for a in args))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", default=str(ROOT / "build-fuzz"),
                        help="where fuzz_seed_weights is built (default: build-fuzz)")
    args = parser.parse_args()
    idx_seeds()
    text_seeds()
    safetensors_seeds(pathlib.Path(args.build_dir))
    config_seeds()
    total = sum(1 for _ in CORPUS.glob("*/seed-*"))
    print(f"make-seeds: {total} seed files under {CORPUS.relative_to(ROOT)}/")


if __name__ == "__main__":
    main()
