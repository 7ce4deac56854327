"""
Loss and mistake-set oscillations of gradient descent
=====================================================

With a large step, gradient descent on the logistic loss is not monotone: the loss divided by the
step follows the perceptron loss, and the set of misclassified points changes from step to step
(on some datasets it cycles) until the data are separated. This example records linear GD with step
1e4 on three small datasets and plots both losses and the number of misclassified points per step.
"""

# %%
# A sweep over the datasets; each summary counts the steps where the loss went up and the period
# of the mistake-set sequence (0: none found).
import matplotlib.pyplot as plt

import toolkit

datasets = ["r1", "thm41", "thm51"]
result = toolkit.sweep(
    "gd_perceptron.dynamics",
    grid={"dataset": datasets},
    seeds=[0],
    params={"model": "linear", "gamma": 1e4, "d": 16, "n": 1000, "T": 150},
)
print(result.summary_table[["dataset", "iterations", "non_monotone_steps", "mistake_period"]])
table = result.table

# %%
# Top row: the loss divided by the step, beside the perceptron loss. Bottom row: misclassified points.
fig, axes = plt.subplots(2, len(datasets), sharex="col", figsize=(10, 5), squeeze=False)
for k, name in enumerate(datasets):
    rows = table[table["dataset"] == name]
    top, bottom = axes[0, k], axes[1, k]
    top.plot(rows["t"], rows["loss_over_gamma"], label="f / gamma")
    top.plot(rows["t"], rows["perceptron_loss"], "--", label="perceptron loss")
    top.set_title(name)
    top.legend(fontsize=7)
    bottom.step(rows["t"], rows["n_mistakes"], where="post")
    bottom.set_xlabel("step t")
axes[1, 0].set_ylabel("misclassified points")
fig.tight_layout()
plt.show()
