"""
The sparse network against functional baselines
===============================================

On the two-region design with the link u^2, a linear model of the curves cannot fit the response.
This example fits the sparse Bayesian functional network and the baselines it is compared with (the
functional linear model, group lasso, FPCA regression, a dense network, AdaFNN, and ``select_all``,
the FLM read as a region selector that keeps the whole domain) on one split, and plots each one's test RMSE relative to the oracle.
The settings are small so that it runs in seconds; the study settings are larger.
"""

# %%
# One run: every method on the same training and test curves.
import matplotlib.pyplot as plt

import toolkit

small = {
    "link": "square",
    "n_train": 250,
    "n_test": 400,
    "epochs": 800,
    "anneal_epochs": 200,
    "finetune_epochs": 150,
    "n_restarts": 1,
    "inner_cv": False,
    "baseline_epochs": 800,
}
result = toolkit.run("sbayfdnn.compare", small, seed=0)
table = result.table.sort_values("rmse_ratio")
print(table[["method", "rmse_ratio", "tpr", "fpr"]].to_string(index=False))

# %%
# Test RMSE over the oracle's (1 is the noise level), best first.
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.barh(table["method"], table["rmse_ratio"])
ax.axvline(1.0, color="k", lw=0.8)
ax.invert_yaxis()
ax.set_xlabel("test RMSE / oracle")
ax.set_title("two-region design, link u^2, n = 250")
fig.tight_layout()
plt.show()
