#!/usr/bin/python3
"""Make tessera's NumPy golden files for the linear algebra functions.

Run with an interpreter that has NumPy (Debian's python3-numpy;
`/usr/bin/python3 testdata/gen_linalg.py`). Deterministic: it uses
numpy.random.default_rng(20240611) and nothing that depends on time or the
machine, so re-running it with the same NumPy reproduces every file (LAPACK
builds may differ in the last bits of the results; the tests' tolerances
allow that).

It writes golden/linalg/ beside itself (removing its old .npy files first),
separate from gen_golden.py's golden/ so that neither script deletes the
other's files. The cases are listed in golden/linalg/MANIFEST.txt.
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "golden", "linalg")

rng = np.random.default_rng(20240611)

HEAD = """\
# tessera linear algebra golden files, made by testdata/gen_linalg.py with NumPy {version}.
# Do not edit: change the script and re-run it.
#
# Every array is float64, C order, little-endian. Input values are exactly
# representable in float32, so a test may run a case in f32 (Cast the inputs,
# which is exact) and expect the float64 reference rounded once.
#
# Identical inputs of several cases are stored once (the first case's file).
#
# Lines: case <name> op=<op> inputs=<file>[,<file>] outs=<file>[,<file>...] params=[k=<int>]
# Ops and their outputs (NumPy calls):
#   cholesky   L = np.linalg.cholesky(a)              (a's strict upper triangle holds junk:
#                                                      only the lower triangle is read)
#   solve      x = np.linalg.solve(a, b)              (torch's rule: b is a batch of vectors when it
#                                                      is 1-D or b.shape == a.shape[:-1], else of
#                                                      matrices; batch axes broadcast)
#   inv        np.linalg.inv(a)
#   det        np.linalg.det(a)
#   slogdet    sign, logabsdet = np.linalg.slogdet(a)
#   eigh       w, v = np.linalg.eigh(a)               (UPLO='L'; upper triangle holds junk;
#                                                      eigenvectors compare up to sign)
#   svd        u, s, vh = np.linalg.svd(a, full_matrices=False)  (vectors up to paired sign)
#   qr         q, r = np.linalg.qr(a)                 (mode='reduced'; up to the sign of each
#                                                      column of q and row of r)
#   lstsq      np.linalg.lstsq(a, b, rcond=None)[0]   (also rank-deficient: minimum norm)
#   diag       np.diag(a, k)
#   diag_embed out[..., i, i+k] = a[..., i] (torch.diag_embed on the last axis)
#   trace      np.trace(a, axis1=-2, axis2=-1)
"""


def f32(x):
    """Values exactly representable in float32, stored as float64."""
    return np.asarray(x, dtype=np.float64).astype(np.float32).astype(np.float64)


def normal(*shape):
    return f32(rng.standard_normal(shape))


def hilbert(n):
    i = np.arange(n)
    return f32(1.0 / (i[:, None] + i[None, :] + 1))


def spd(n):
    g = normal(n, n)
    return f32(g @ g.T + n * np.eye(n))


def junk_upper(a):
    """a with its strict upper triangle replaced by junk (only the lower is read)."""
    a = a.copy()
    iu = np.triu_indices(a.shape[-1], 1)
    a[..., iu[0], iu[1]] = 99.0
    return a


def solve_matrices(a, b):
    """np.linalg.solve with b a batch of matrices whatever its rank (NumPy 1.x
    reads b as vectors when b.ndim == a.ndim - 1)."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return np.linalg.solve(np.broadcast_to(a, batch + a.shape[-2:]), np.broadcast_to(b, batch + b.shape[-2:]))


lines = []
names = set()
saved = {}  # (shape, bytes) -> file: a case reuses an identical earlier input


def case(name, op, inputs, outs, params=""):
    if name in names:
        raise SystemExit("duplicate case " + name)
    names.add(name)
    ins = []
    for tag, arr in zip("ab", inputs):
        key = (arr.shape, np.ascontiguousarray(arr, dtype=np.float64).tobytes())
        if key not in saved:
            saved[key] = "%s_%s.npy" % (name, tag)
            save(saved[key], arr)
        ins.append(saved[key])
    outfs = []
    for j, arr in enumerate(outs):
        fn = "%s_out%d.npy" % (name, j)
        save(fn, arr)
        outfs.append(fn)
    lines.append("case %s op=%s inputs=%s outs=%s params=%s" % (name, op, ",".join(ins), ",".join(outfs), params))
    shapes = lambda arrs: ", ".join(str(tuple(a.shape)) for a in arrs)
    lines.append("#   %s(%s) -> %s" % (op, shapes(inputs), shapes(outs)))


def save(fn, arr):
    arr = np.asarray(arr, dtype=np.float64)
    if np.isnan(arr).any():
        raise SystemExit("NaN in " + fn)
    np.save(os.path.join(OUT, fn), np.ascontiguousarray(arr) if arr.ndim else arr)


def main():
    os.makedirs(OUT, exist_ok=True)
    for fn in os.listdir(OUT):
        if fn.endswith(".npy") or fn == "MANIFEST.txt":
            os.remove(os.path.join(OUT, fn))

    # Cholesky: a batch of three SPD matrices, one ill-conditioned (Hilbert, cond ~5e2).
    a = np.stack([spd(3), hilbert(3), f32(np.diag([4.0, 9.0, 0.25]))])
    lower = np.linalg.cholesky(np.tril(a) + np.swapaxes(np.tril(a, -1), -1, -2))
    aj = junk_upper(a)
    if not np.allclose(np.linalg.cholesky(aj), lower):
        raise SystemExit("numpy's cholesky read the upper triangle")
    case("cholesky_3x3x3", "cholesky", [aj], [lower])

    # Solve and Inv: a random matrix and an ill-conditioned regular one (Hilbert 5, cond ~5e5).
    a = np.stack([normal(5, 5) + f32(3 * np.eye(5)), hilbert(5)])
    bm = normal(5, 2)  # a matrix broadcast against a's batch
    case("solve_2x5x5_5x2", "solve", [a, bm], [solve_matrices(a, bm)])
    bv = normal(2, 5)  # shape == a.shape[:-1]: a batch of vectors
    case("solve_2x5x5_2x5", "solve", [a, bv], [np.linalg.solve(a, bv)])
    a4 = normal(2, 1, 3, 3)
    b4 = normal(3, 3, 2)
    case("solve_2x1x3x3_3x3x2", "solve", [a4, b4], [solve_matrices(a4, b4)])
    case("inv_2x5x5", "inv", [a], [np.linalg.inv(a)])

    # Det and SlogDet: a positive, a negative and an exactly singular determinant.
    a = np.stack([spd(3), f32([[0, 1, 2], [1, 0, 3], [4, -3, 8]]), f32([[1, 2, 3], [2, 4, 6], [1, 0, 1]])])
    case("det_3x3x3", "det", [a], [np.linalg.det(a)])
    s, l = np.linalg.slogdet(a)
    case("slogdet_3x3x3", "slogdet", [a], [s, l])
    a = hilbert(4)
    case("det_hilbert4", "det", [a], [np.linalg.det(a)])

    # Eigh: symmetric matrices stored in the lower triangle, junk above.
    g = normal(2, 4, 4)
    a = f32(g + np.swapaxes(g, -1, -2))
    w, v = np.linalg.eigh(a)
    aj = junk_upper(a)
    w2, _ = np.linalg.eigh(aj)
    if not np.allclose(w, w2):
        raise SystemExit("numpy's eigh read the upper triangle")
    case("eigh_2x4x4", "eigh", [aj], [w, v])

    # SVD and QR: tall (batched) and wide.
    tall = normal(2, 5, 3)
    wide = normal(3, 5)
    for name, a in (("2x5x3", tall), ("3x5", wide)):
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        case("svd_" + name, "svd", [a], [u, s, vh])
        q, r = np.linalg.qr(a) if a.ndim == 2 else (
            np.stack([np.linalg.qr(m)[0] for m in a]), np.stack([np.linalg.qr(m)[1] for m in a]))
        case("qr_" + name, "qr", [a], [q, r])

    # Lstsq: overdetermined, underdetermined (minimum norm), rank-deficient (minimum norm).
    a = normal(6, 3)
    b = normal(6, 2)
    case("lstsq_6x3_6x2", "lstsq", [a, b], [np.linalg.lstsq(a, b, rcond=None)[0]])
    b = normal(3)
    case("lstsq_3x5_3", "lstsq", [wide, b], [np.linalg.lstsq(wide, b, rcond=None)[0]])
    c = np.round(normal(5, 2) * 8) / 8  # dyadic: the column sum below is exact
    a = f32(np.stack([c[:, 0], c[:, 1], c[:, 0] + c[:, 1]], axis=1))  # column 2 = column 0 + column 1
    if np.linalg.matrix_rank(a) != 2:
        raise SystemExit("rank-deficient case has rank %d" % np.linalg.matrix_rank(a))
    b = normal(5)
    case("lstsq_rank2_5x3_5", "lstsq", [a, b], [np.linalg.lstsq(a, b, rcond=None)[0]])

    # Diag, DiagEmbed, Trace.
    m = f32(np.arange(12).reshape(3, 4) - 5)
    for k in (0, 1, -2, 5):
        case("diag_3x4_k%s" % str(k).replace("-", "m"), "diag", [m], [np.diag(m, k)], "k=%d" % k)
    v = f32([1.5, -2, 3])
    for k in (2, -1):
        case("diag_3_k%s" % str(k).replace("-", "m"), "diag", [v], [np.diag(v, k)], "k=%d" % k)
    v = normal(2, 3)
    for k in (1, -2):
        n = 3 + abs(k)
        out = np.zeros((2, n, n))
        for i in range(3):
            r, c = (i, i + k) if k >= 0 else (i - k, i)
            out[:, r, c] = v[:, i]
        case("diag_embed_2x3_k%s" % str(k).replace("-", "m"), "diag_embed", [v], [out], "k=%d" % k)
    t = normal(2, 3, 4)
    case("trace_2x3x4", "trace", [t], [np.trace(t, axis1=-2, axis2=-1)])

    with open(os.path.join(OUT, "MANIFEST.txt"), "w", newline="\n") as f:
        f.write(HEAD.format(version=np.__version__))
        f.write("\n".join(lines) + "\n")
    print("%d cases in %s" % (len(names), OUT), file=sys.stderr)


if __name__ == "__main__":
    main()
