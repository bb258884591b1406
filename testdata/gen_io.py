#!/usr/bin/python3
"""Make, and check, tessera's model I/O golden files (.npz and .safetensors).

Run with an interpreter that has NumPy (Debian's python3-numpy):

    /usr/bin/python3 testdata/gen_io.py            # (re)write testdata/io/
    /usr/bin/python3 testdata/gen_io.py --check D  # check the files tessera wrote in D

The output is deterministic (no time, no randomness, zip member times fixed),
so re-running the script with the same NumPy reproduces every file byte for
byte.

Files written to io/ beside this script:

plain.npz              np.savez of ARRAYS (stored members)
compressed.npz         np.savez_compressed of ARRAYS (deflated members)
golden.safetensors     ARRAYS (minus the NumPy-only cases) plus "bf16", written
                       by write_safetensors below: a minimal writer that follows
                       the Hugging Face spec literally and independently of
                       tessera (tensors in name order, json.dumps with its
                       default ", " / ": " separators, header padded with spaces
                       to a multiple of 8 bytes), with metadata
                       {"format": "np", "source": "gen_io.py"}.

ARRAYS are built from small formulas, repeated in tensor/safetensors_test.go
(ioGoldenWant), which compares every value exactly.

--check D reads D/tessera.npz, D/tessera_compressed.npz (with np.load) and
D/tessera.safetensors (with read_safetensors below, which validates the header
as the spec requires), compares them with ARRAYS exactly (dtype, shape, bytes),
prints "ok" and exits 0, or prints what differs and exits 1.
"""

import json
import os
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "io")


def arrays():
    """The cases: name -> array. 'fortran' and 'bigendian' exist only in the
    .npz files (safetensors stores little-endian C order only)."""
    return {
        "f32": (np.arange(6, dtype=np.float32).reshape(2, 3) - np.float32(2.5)) * np.float32(0.75),
        "f64": np.array([[1.0 / 3.0, -2.0], [1e-300, 1e300]], dtype=np.float64),
        "f16": np.array([0.5, -1.25, 65504.0, 2.0 ** -24], dtype=np.float16),
        "i32": np.arange(-3, 3, dtype=np.int32).reshape(3, 2),
        "i64": np.array([-(2 ** 62), 0, 2 ** 62 + 1], dtype=np.int64),
        "u8": np.array([0, 7, 255], dtype=np.uint8),
        "bool": np.array([[True, False], [False, True]]),
        "scalar": np.array(2.5, dtype=np.float32),
        "empty": np.zeros((0, 4), dtype=np.float32),
        "fortran": np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3)),
        "bigendian": np.arange(4, dtype=">i4"),
    }


NPZ_ONLY = ("fortran", "bigendian")

# bfloat16 has no NumPy dtype: the safetensors golden holds these values as
# raw bits (the top halves of their float32 encodings, all exact).
BF16_VALUES = np.array([1.0, -2.5, 3.140625, 0.0078125], dtype=np.float32)
BF16_BITS = (BF16_VALUES.view(np.uint32) >> 16).astype("<u2")

ST_NAMES = {np.dtype(np.float32): "F32", np.dtype(np.float64): "F64",
            np.dtype(np.float16): "F16", np.dtype(np.int32): "I32",
            np.dtype(np.int64): "I64", np.dtype(np.uint8): "U8",
            np.dtype(np.bool_): "BOOL"}
ST_SIZES = {"F32": 4, "F64": 8, "F16": 2, "BF16": 2, "I32": 4, "I64": 8, "U8": 1, "BOOL": 1}
METADATA = {"format": "np", "source": "gen_io.py"}


def safetensors_cases():
    """name -> (dtype name, shape, little-endian C-order bytes)."""
    out = {}
    for name, a in arrays().items():
        if name in NPZ_ONLY:
            continue
        le = np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<"))
        out[name] = (ST_NAMES[a.dtype], list(a.shape), le.tobytes())
    out["bf16"] = ("BF16", [4], BF16_BITS.tobytes())
    return out


def write_safetensors(path, cases, metadata):
    """The spec, literally: u64 little-endian header length N, N bytes of
    JSON (padded with spaces to a multiple of 8), then the data buffer, each
    tensor at its data_offsets relative to the start of the buffer."""
    header = {"__metadata__": metadata}
    data = b""
    for name in sorted(cases):
        dt, shape, raw = cases[name]
        header[name] = {"dtype": dt, "shape": shape,
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    js = json.dumps(header).encode("utf-8")
    js += b" " * (-len(js) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(js)))
        f.write(js)
        f.write(data)


def read_safetensors(path):
    """Reads a file and checks it against the spec: returns (metadata,
    {name: (dtype, shape, bytes)}); raises ValueError on any violation."""
    with open(path, "rb") as f:
        b = f.read()
    (n,) = struct.unpack("<Q", b[:8])
    if 8 + n > len(b):
        raise ValueError("header length %d beyond the file" % n)
    if n % 8 != 0:
        raise ValueError("header length %d is not a multiple of 8" % n)
    text = b[8:8 + n].decode("utf-8")
    if not text.startswith("{"):
        raise ValueError("header does not start with '{'")
    pairs = json.loads(text, object_pairs_hook=lambda kv: kv)
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate keys")
    header = dict(pairs)
    metadata = dict(header.pop("__metadata__", None) or [])
    buf = b[8 + n:]
    spans = []
    out = {}
    for name, entry in header.items():
        entry = dict(entry)
        dt, shape, (begin, end) = entry["dtype"], entry["shape"], entry["data_offsets"]
        if dt not in ST_SIZES:
            raise ValueError("%s: unknown dtype %s" % (name, dt))
        if end - begin != int(np.prod(shape, dtype=np.int64)) * ST_SIZES[dt]:
            raise ValueError("%s: offsets do not match the shape" % name)
        spans.append((begin, end, name))
        out[name] = (dt, list(shape), buf[begin:end])
    pos = 0
    for begin, end, name in sorted(spans):
        if begin != pos:
            raise ValueError("%s: offsets leave a gap or overlap" % name)
        pos = end
    if pos != len(buf):
        raise ValueError("the tensors do not cover the data buffer")
    return metadata, out


def generate():
    os.makedirs(OUT, exist_ok=True)
    a = arrays()
    # np.savez stamps members with the current time: fix it so the output
    # is reproducible.
    import zipfile
    orig = zipfile.ZipInfo.__init__

    def fixed(self, filename="NoName", date_time=(1980, 1, 1, 0, 0, 0)):
        orig(self, filename, (1980, 1, 1, 0, 0, 0))
    zipfile.ZipInfo.__init__ = fixed
    try:
        np.savez(os.path.join(OUT, "plain.npz"), **a)
        np.savez_compressed(os.path.join(OUT, "compressed.npz"), **a)
    finally:
        zipfile.ZipInfo.__init__ = orig
    write_safetensors(os.path.join(OUT, "golden.safetensors"), safetensors_cases(), METADATA)
    # The writer's output must pass its own reader.
    md, got = read_safetensors(os.path.join(OUT, "golden.safetensors"))
    assert md == METADATA and got == safetensors_cases()


def check(d):
    bad = []
    want = arrays()
    for fname in ("tessera.npz", "tessera_compressed.npz"):
        with np.load(os.path.join(d, fname)) as z:
            if sorted(z.files) != sorted(want):
                bad.append("%s: members %s, want %s" % (fname, sorted(z.files), sorted(want)))
            for name, w in want.items():
                if name not in z.files:
                    continue
                g = z[name]
                if g.dtype != w.dtype.newbyteorder("=") or g.shape != w.shape or \
                        g.tobytes() != w.astype(w.dtype.newbyteorder("=")).tobytes():
                    bad.append("%s: %s is %s %s %r, want %s %s %r" % (fname, name, g.dtype, g.shape, g, w.dtype, w.shape, w))
    md, got = read_safetensors(os.path.join(d, "tessera.safetensors"))
    if md != METADATA:
        bad.append("tessera.safetensors: metadata %r, want %r" % (md, METADATA))
    cases = safetensors_cases()
    if got != cases:
        for name in sorted(set(got) | set(cases)):
            if got.get(name) != cases.get(name):
                bad.append("tessera.safetensors: %s is %r, want %r" % (name, got.get(name), cases.get(name)))
    if bad:
        print("\n".join(bad))
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        check(sys.argv[2])
    elif len(sys.argv) == 1:
        generate()
    else:
        sys.exit("usage: gen_io.py [--check DIR]")
