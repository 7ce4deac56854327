"""
Iterations to separation as the dimension grows
===============================================

Gradient descent on the logistic loss with a large step behaves like a perceptron. On the R1 dataset
the linear model needs a number of steps that grows linearly with the dimension d, while a two-layer
model with quadratic activation, run in its perceptron form (the limit of an infinite step), needs far
fewer. This example runs both over d, plots the median iterations to zero training error on log-log
axes, and draws the linear Batch Perceptron's exact count 2d + 4 for reference.
"""

# %%
# Two runs; each one advances every (d, step size, initialisation) together in one batched
# computation. ``gammas=[inf]`` is the perceptron form of the two-layer model.
import math

import matplotlib.pyplot as plt
import pandas as pd

import toolkit

d_values = [16, 32, 64, 128, 256]
linear = toolkit.run(
    "gd_perceptron.scaling",
    {"dataset": "r1", "model": "linear", "d_values": d_values, "gammas": [1e3]},
    seed=0,
)
two_layer = toolkit.run(
    "gd_perceptron.scaling",
    {
        "dataset": "r1",
        "model": "two_layer",
        "activation": "quadratic",
        "d_values": d_values,
        "gammas": [math.inf],
        "n_seeds": 3,
        "max_iter": 100_000,
    },
    seed=0,
)
table = pd.concat([linear.table, two_layer.table], ignore_index=True)
print(table.groupby(["model", "d"])["iterations"].median().unstack("model"))

# %%
# Median iterations against d (a capped run has iterations -1 and is left out). The dashed line
# is the linear Batch Perceptron, which needs exactly 2d + 4 steps on R1.
labels = {"linear": "linear GD, step 1e3", "two_layer": "quadratic two-layer, perceptron form"}
fig, ax = plt.subplots(figsize=(6, 4))
for model, rows in table[table["iterations"] > 0].groupby("model"):
    median = rows.groupby("d")["iterations"].median()
    ax.loglog(median.index, median.values, "o-", label=labels[model])
bp = table.groupby("d")["linear_bp_iterations"].first()
ax.loglog(bp.index, bp.values, "k--", label="linear Batch Perceptron (2d + 4)")
ax.set_xlabel("dimension d")
ax.set_ylabel("iterations to separation (median)")
ax.set_title("R1 dataset")
ax.legend()
plt.show()
