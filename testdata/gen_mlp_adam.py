#!/usr/bin/python3
"""Make testdata/mlp_adam.npz, the golden of optim's MLP training test.

Run with an interpreter that has NumPy (Debian's python3-numpy):
`/usr/bin/python3 testdata/gen_mlp_adam.py`. Deterministic: the inputs come
from numpy.random.default_rng(20261201) and the archive is written with
fixed member timestamps, so re-running it reproduces the file byte for byte.

The model is a 2-layer MLP, 8 -> 16 -> 4, in PyTorch's Linear convention
(weights [out, in], y = x @ W.T + b):

    h      = relu(x @ W1.T + b1)
    logits = h @ W2.T + b2
    loss   = mean_i( logsumexp(logits_i) - logits_i[y_i] )   (cross-entropy)

on a fixed batch of 6 samples with integer labels. Forward, backward and the
optimisers are written out by hand in float64, independently of tessera:

    Adam  (PyTorch's torch.optim.Adam: L2 weight decay added to the gradient,
           bias-corrected moments, eps added to sqrt(v)/sqrt(1-b2^t))
    AdamW (torch.optim.AdamW: p <- p*(1 - lr*wd) before the same update)

Each optimiser takes 3 steps; each step recomputes loss and gradients at the
current parameters on the same batch.

Arrays (all float64 except y, int64):
    x [6,8], y [6], W1 [16,8], b1 [16], W2 [4,16], b2 [4]   the inputs
    loss0, gW1, gb1, gW2, gb2        loss and gradients at the inputs
    adam_loss [3]                    the loss before each Adam step
    adam_W1 ... adam_b2              the parameters after 3 Adam steps
    adamw_loss [3], adamw_W1 ...     the same for AdamW
    hyper [6]                        lr, beta1, beta2, eps, adam wd, adamw wd
"""

import io
import os
import zipfile

import numpy as np

LR, B1, B2, EPS = 0.01, 0.9, 0.999, 1e-8
ADAM_WD, ADAMW_WD = 0.05, 0.1
NAMES = ["W1", "b1", "W2", "b2"]


def forward_backward(x, y, p):
    """Loss and gradients of the MLP at parameters p (a dict)."""
    n = x.shape[0]
    z1 = x @ p["W1"].T + p["b1"]
    h = np.maximum(z1, 0.0)
    logits = h @ p["W2"].T + p["b2"]
    mx = logits.max(axis=1, keepdims=True)
    lse = mx[:, 0] + np.log(np.exp(logits - mx).sum(axis=1))
    loss = np.mean(lse - logits[np.arange(n), y])
    # d loss / d logits = (softmax - onehot) / n
    soft = np.exp(logits - lse[:, None])
    onehot = np.zeros_like(logits)
    onehot[np.arange(n), y] = 1.0
    dlogits = (soft - onehot) / n
    g = {"W2": dlogits.T @ h, "b2": dlogits.sum(axis=0)}
    dh = dlogits @ p["W2"]
    dz1 = dh * (z1 > 0)
    g["W1"] = dz1.T @ x
    g["b1"] = dz1.sum(axis=0)
    return loss, g


def train(x, y, p0, decoupled, wd, steps=3):
    p = {k: v.copy() for k, v in p0.items()}
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v = {k: np.zeros_like(v) for k, v in p.items()}
    losses = []
    for t in range(1, steps + 1):
        loss, g = forward_backward(x, y, p)
        losses.append(loss)
        for k in NAMES:
            d = g[k]
            if decoupled:
                p[k] = p[k] * (1 - LR * wd)
            else:
                d = d + wd * p[k]
            m[k] = B1 * m[k] + (1 - B1) * d
            v[k] = B2 * v[k] + (1 - B2) * d * d
            bc1 = 1 - B1**t
            bc2 = 1 - B2**t
            denom = np.sqrt(v[k]) / np.sqrt(bc2) + EPS
            p[k] = p[k] - (LR / bc1) * m[k] / denom
    return np.array(losses), p


def write_npz(path, arrays):
    """np.savez with fixed timestamps, so the bytes do not depend on time."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zf:
        for name in sorted(arrays):
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.ascontiguousarray(arrays[name]), allow_pickle=False)
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            zf.writestr(info, buf.getvalue())


def main():
    rng = np.random.default_rng(20261201)
    x = rng.standard_normal((6, 8))
    y = np.array([0, 3, 1, 2, 3, 0], dtype=np.int64)
    p0 = {
        "W1": rng.standard_normal((16, 8)) / np.sqrt(8),
        "b1": rng.standard_normal(16) * 0.1,
        "W2": rng.standard_normal((4, 16)) / np.sqrt(16),
        "b2": rng.standard_normal(4) * 0.1,
    }
    out = {"x": x, "y": y, **p0}
    loss0, g = forward_backward(x, y, p0)
    out["loss0"] = np.array(loss0)
    for k in NAMES:
        out["g" + k] = g[k]
    for prefix, decoupled, wd in (("adam", False, ADAM_WD), ("adamw", True, ADAMW_WD)):
        losses, p = train(x, y, p0, decoupled, wd)
        out[prefix + "_loss"] = losses
        for k in NAMES:
            out[prefix + "_" + k] = p[k]
    out["hyper"] = np.array([LR, B1, B2, EPS, ADAM_WD, ADAMW_WD])
    here = os.path.dirname(os.path.abspath(__file__))
    write_npz(os.path.join(here, "mlp_adam.npz"), out)


if __name__ == "__main__":
    main()
