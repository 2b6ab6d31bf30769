#!/usr/bin/env python3
"""JAX's jit-compiled ADBench GMM and LSTM objectives and gradients, timed on one CPU thread.

`ad-bench jax` runs this script and puts its times next to ours, measured in the same run:

    pip install "jax[cpu]"                 # once; the benchmark says so when JAX is missing
    cargo run --release -p ad-bench -- jax

It can be run alone: `python3 ad-bench/jax/adbench_jax.py [--quick] [ADBENCH_DATA_DIR]`.

The objectives are written as a JAX user writes them (arrays, `vmap`-free broadcasting,
`lax.scan` over the sequence), in float64. Timing is ad-bench's (ADBench's) method: the minimum,
over five batches of at least 0.5 s each (10 ms with `--quick`), of the mean time per call, every
call waited for (`block_until_ready`), Python's dispatch included (as a JAX user calls it);
compilation happens before timing. One thread: the process is pinned to one core, and Eigen's
thread pool is off. The data are arguments of the jitted functions, not constants folded in.

Each gradient is checked against ADBench's reference output with ADBench's measure,
|x - y| / max(1, |x| + |y|), before it is timed; the largest difference is printed.

Output, one line per problem: `problem objective_s=.. gradient_s=.. max_error=..`. The exit
status is 3, with a message, when JAX is not installed.
"""

import math
import os
import sys
import time

# One thread, as ours runs: the process pinned to one core (every thread XLA starts runs
# there) and Eigen's thread pool off; set before JAX starts.
os.environ["XLA_FLAGS"] = (
    os.environ.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen=false"
).strip()
os.environ["JAX_PLATFORMS"] = "cpu"
os.environ["JAX_ENABLE_X64"] = "1"
if hasattr(os, "sched_setaffinity"):
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

try:
    import jax
    import jax.numpy as jnp
    from jax.scipy.special import logsumexp, multigammaln
except ImportError:
    print("JAX is not installed: `pip install \"jax[cpu]\"` to compare with it")
    sys.exit(3)


def numbers(path):
    with open(path) as text:
        return [
            float(word)
            for line in text
            if not line.lstrip().startswith("#")
            for word in line.split()
        ]


def relative_error(x, y):
    return abs(x - y) / max(1.0, abs(x) + abs(y))


def largest_error(computed, reference):
    if len(computed) != len(reference):
        raise SystemExit(
            f"the gradient has {len(computed)} entries, the reference {len(reference)}"
        )
    return max(relative_error(a, b) for a, b in zip(computed, reference))


class Reader:
    """Numbers from the front of a list, as ADBench's files give them."""

    def __init__(self, values):
        self.values = values
        self.at = 0

    def take(self, count):
        taken = self.values[self.at : self.at + count]
        self.at += count
        return taken

    def count(self):
        return int(self.take(1)[0])


def seconds_per_call(f, min_batch, batches=5):
    f()
    calls = 1
    while True:
        start = time.perf_counter()
        for _ in range(calls):
            f()
        if time.perf_counter() - start >= min_batch:
            break
        calls *= 2
    best = math.inf
    for _ in range(batches):
        start = time.perf_counter()
        for _ in range(calls):
            f()
        best = min(best, (time.perf_counter() - start) / calls)
    return best


# --- GMM (ADBench's objective: negative log-likelihood with a Wishart prior) ----------------


def read_gmm(path):
    reader = Reader(numbers(path))
    d, k, n = reader.count(), reader.count(), reader.count()
    alphas = jnp.array(reader.take(k))
    means = jnp.array(reader.take(k * d)).reshape(k, d)
    icf = jnp.array(reader.take(k * d * (d + 1) // 2)).reshape(k, d * (d + 1) // 2)
    x = jnp.array(reader.take(n * d)).reshape(n, d)
    gamma = reader.take(1)[0]
    m = reader.count()
    return alphas, means, icf, x, gamma, m


def gmm_objective_fn(d, k, n, gamma, m):
    # The strictly lower part of each factor, column by column: L[j, i] for i < j.
    rows = [j for i in range(d) for j in range(i + 1, d)]
    columns = [i for i in range(d) for j in range(i + 1, d)]
    wishart_n = d + m + 1
    constant = -n * d * 0.5 * math.log(2 * math.pi) - k * (
        wishart_n * d * (math.log(gamma) - 0.5 * math.log(2.0))
        - float(multigammaln(0.5 * wishart_n, d))
    )

    def objective(alphas, means, icf, x):
        q = icf[:, :d]
        q_diag = jnp.exp(q)
        sum_qs = jnp.sum(q, axis=1)
        factors = jnp.zeros((k, d, d)).at[:, rows, columns].set(icf[:, d:])
        centered = x[:, None, :] - means[None, :, :]
        transformed = q_diag[None, :, :] * centered + jnp.einsum(
            "kji,nki->nkj", factors, centered
        )
        sqnorm = jnp.sum(transformed * transformed, axis=2)
        main_term = alphas[None, :] + sum_qs[None, :] - 0.5 * sqnorm
        slse = jnp.sum(logsumexp(main_term, axis=1))
        prior = 0.5 * gamma * gamma * (
            jnp.sum(q_diag * q_diag) + jnp.sum(icf[:, d:] * icf[:, d:])
        ) - m * jnp.sum(sum_qs)
        return constant + slse - n * logsumexp(alphas) + prior

    return objective


def gmm(data, name, min_batch):
    alphas, means, icf, x, gamma, m = read_gmm(os.path.join(data, "gmm", "1k", name + ".txt"))
    k, d = means.shape
    n = x.shape[0]
    objective = gmm_objective_fn(d, k, n, gamma, m)
    value = jax.jit(objective)
    gradient = jax.jit(jax.grad(objective, argnums=(0, 1, 2)))
    reference = numbers(
        os.path.join(data, "reference_outputs", "gmm_1k_" + name[4:] + "_J_Manual.txt")
    )
    computed = jnp.concatenate([g.reshape(-1) for g in gradient(alphas, means, icf, x)])
    error = largest_error(computed.tolist(), reference)
    objective_s = seconds_per_call(
        lambda: value(alphas, means, icf, x).block_until_ready(), min_batch
    )
    gradient_s = seconds_per_call(
        lambda: jax.block_until_ready(gradient(alphas, means, icf, x)), min_batch
    )
    return objective_s, gradient_s, error


# --- LSTM (ADBench's: l layers of b units over c one-hot characters) --------------------------


def read_lstm(path):
    reader = Reader(numbers(path))
    l, c, b = reader.count(), reader.count(), reader.count()
    main_params = jnp.array(reader.take(8 * l * b))
    extra_params = jnp.array(reader.take(3 * b))
    state = jnp.array(reader.take(2 * l * b))
    sequence = jnp.array(reader.take(c * b))
    return l, c, b, main_params, extra_params, state, sequence


def lstm_objective_fn(l, c, b):
    def objective(main_params, extra_params, state, sequence):
        state = state.reshape(l, 2, b)
        sequence = sequence.reshape(c, b)
        # Per layer: weights then biases, each four gates (forget, input, output, change).
        params = main_params.reshape(l, 2, 4, b)
        in_weight, out_weight, out_bias = extra_params.reshape(3, b)

        def step(carry, t):
            hidden, cell, total = carry
            x = sequence[t] * in_weight
            new_hidden = []
            new_cell = []
            for layer in range(l):
                w, bias = params[layer, 0], params[layer, 1]
                h = hidden[layer]
                forget = jax.nn.sigmoid(x * w[0] + bias[0])
                ingate = jax.nn.sigmoid(h * w[1] + bias[1])
                outgate = jax.nn.sigmoid(x * w[2] + bias[2])
                change = jnp.tanh(h * w[3] + bias[3])
                cell_layer = cell[layer] * forget + ingate * change
                h = outgate * jnp.tanh(cell_layer)
                new_hidden.append(h)
                new_cell.append(cell_layer)
                x = h
            prediction = x * out_weight + out_bias
            normalizer = jnp.log(2.0 + jnp.sum(jnp.exp(prediction)))
            total = total + jnp.sum((prediction - normalizer) * sequence[t + 1])
            return (jnp.stack(new_hidden), jnp.stack(new_cell), total), None

        carry = (state[:, 0, :], state[:, 1, :], jnp.zeros(()))
        (_, _, total), _ = jax.lax.scan(step, carry, jnp.arange(c - 1))
        return -total / ((c - 1) * b)

    return objective


def lstm(data, min_batch):
    l, c, b, main_params, extra_params, state, sequence = read_lstm(
        os.path.join(data, "lstm", "lstm_l2_c1024.txt")
    )
    objective = lstm_objective_fn(l, c, b)
    value = jax.jit(objective)
    gradient = jax.jit(jax.grad(objective, argnums=(0, 1)))
    args = (main_params, extra_params, state, sequence)
    reference = numbers(os.path.join(data, "reference_outputs", "lstm_l2_c1024_J_Manual.txt"))
    computed = jnp.concatenate(list(gradient(*args)))
    error = largest_error(computed.tolist(), reference)
    objective_s = seconds_per_call(lambda: value(*args).block_until_ready(), min_batch)
    gradient_s = seconds_per_call(lambda: jax.block_until_ready(gradient(*args)), min_batch)
    return objective_s, gradient_s, error


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    min_batch = 0.01 if "--quick" in sys.argv else 0.5
    here = os.path.dirname(os.path.abspath(__file__))
    data = args[0] if args else os.path.join(here, "..", "..", "..", "shared", "adbench")
    print(f"# jax {jax.__version__}, devices {jax.devices()}", flush=True)
    for problem, run in [
        ("gmm-d10K25", lambda: gmm(data, "gmm_d10_K25", min_batch)),
        ("lstm-l2c1024", lambda: lstm(data, min_batch)),
    ]:
        objective_s, gradient_s, error = run()
        print(
            f"{problem} objective_s={objective_s:.6e} gradient_s={gradient_s:.6e} "
            f"max_error={error:.3e}",
            flush=True,
        )


if __name__ == "__main__":
    main()
