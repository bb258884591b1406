# One training step of the MLP 784-256-128-10 (ReLU, cross-entropy on
# integer labels, Adam), written in NumPy as a careful user would: float32,
# in-place Adam updates, no framework. Prints the best time of one step in
# microseconds over the repeats. Used by ci/bench-train.sh, which compares
# it with tessera's BenchmarkTrainStep in the same run.
# The batch is the first images and labels of MNIST's training files, the
# same ones the Go benchmark uses.
#   python3 ci/train_step_numpy.py MNIST_DIR [batch] [seconds]
import gzip
import os
import sys
import time

import numpy as np

data = sys.argv[1]
batch = int(sys.argv[2]) if len(sys.argv) > 2 else 128
budget = float(sys.argv[3]) if len(sys.argv) > 3 else 3.0


def idx(name, header):
    path = os.path.join(data, name)
    opener = gzip.open if os.path.exists(path + ".gz") else open
    with opener(path + ".gz" if os.path.exists(path + ".gz") else path, "rb") as f:
        return np.frombuffer(f.read(), dtype=np.uint8, offset=header)


pixels = idx("train-images-idx3-ubyte", 16)[: batch * 784].reshape(batch, 784)
labels = idx("train-labels-idx1-ubyte", 8)[:batch]
rng = np.random.default_rng(7)
sizes = [784, 256, 128, 10]
params = []
for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
    bound = 1 / np.sqrt(fan_in)
    params.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
    params.append(rng.uniform(-bound, bound, fan_out).astype(np.float32))
m = [np.zeros_like(p) for p in params]
v = [np.zeros_like(p) for p in params]
x = ((pixels.astype(np.float32) / 255 - np.float32(0.1307)) / np.float32(0.3081)).astype(np.float32)
y = labels.astype(np.int64)
lr, b1, b2, eps = np.float32(1e-3), np.float32(0.9), np.float32(0.999), np.float32(1e-8)
step = 0


def train_step():
    global step
    w1, c1, w2, c2, w3, c3 = params
    h1 = x @ w1.T + c1
    a1 = np.maximum(h1, 0)
    h2 = a1 @ w2.T + c2
    a2 = np.maximum(h2, 0)
    z = a2 @ w3.T + c3
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    s = e.sum(axis=1, keepdims=True)
    loss = float(np.mean(np.log(s[:, 0]) - z[np.arange(batch), y]))
    dz = e / s
    dz[np.arange(batch), y] -= 1
    dz /= batch
    da2 = dz @ w3
    da2 *= h2 > 0
    da1 = da2 @ w2
    da1 *= h1 > 0
    grads = [da1.T @ x, da1.sum(0), da2.T @ a1, da2.sum(0), dz.T @ a2, dz.sum(0)]
    step += 1
    c1b = 1 - b1**step
    c2b = 1 - b2**step
    for p, g, mi, vi in zip(params, grads, m, v):
        mi *= b1
        mi += (1 - b1) * g
        vi *= b2
        vi += (1 - b2) * g * g
        p -= lr / c1b * mi / (np.sqrt(vi / c2b) + eps)
    return loss


for _ in range(5):
    train_step()
best = float("inf")
start = time.perf_counter()
while time.perf_counter() - start < budget:
    t0 = time.perf_counter()
    train_step()
    best = min(best, time.perf_counter() - t0)
print(f"{best * 1e6:.1f}")
