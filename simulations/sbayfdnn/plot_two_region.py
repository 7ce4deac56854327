"""
Region selection on the two-region design
=========================================

Scalar responses depend on functional covariates (curves) only through two planted regions of the
domain. The sparse Bayesian functional network selects B-spline basis functions with a spike-and-slab
prior, and so selects regions. This example fits it for two link functions of the design, u and u^2, and
plots the test RMSE relative to the oracle, and the true and false positive rates of the selected
regions on the grid. The settings are small so that it runs in seconds; the study settings are larger.
"""

# %%
# A sweep over the link function, one seed, 250 training curves and a short training run
# (a quarter of the default epochs, one restart).
import ast

import matplotlib.pyplot as plt

import toolkit

small = {
    "n_train": 250,
    "n_test": 400,
    "epochs": 800,
    "anneal_epochs": 200,
    "finetune_epochs": 150,
    "n_restarts": 1,
    "inner_cv": False,
}
result = toolkit.sweep("sbayfdnn.two_region", grid={"link": ["linear", "square"]}, seeds=[0], params=small)
table = result.table
print(table[["link", "rmse_ratio", "tpr", "fpr", "n_selected", "selected_regions"]].to_string(index=False))

# %%
# Left: test RMSE over the oracle's (1 is the noise level). Middle: region recovery on the grid.
# Right: the regions selected for each link (the planted ones are shaded).
fig, (left, middle, right) = plt.subplots(1, 3, figsize=(11, 3))
links = list(table["link"])
left.bar(links, table["rmse_ratio"])
left.axhline(1.0, color="k", lw=0.8)
left.set_ylabel("test RMSE / oracle")
width = 0.4
xs = range(len(links))
middle.bar([x - width / 2 for x in xs], table["tpr"], width, label="TPR")
middle.bar([x + width / 2 for x in xs], table["fpr"], width, label="FPR")
middle.set_xticks(list(xs), links)
middle.set_ylim(0, 1)
middle.legend()
for a, b in [(0.1, 0.3), (0.6, 0.8)]:  # the design's planted regions
    right.axvspan(a, b, color="grey", alpha=0.25)
for y, (link, regions) in enumerate(zip(links, table["selected_regions"])):
    for a, b in ast.literal_eval(regions):
        right.plot([a, b], [y, y], lw=6, solid_capstyle="butt", color="C0")
right.set_yticks(list(xs), links)
right.set_xlim(0, 1)
right.set_ylim(-0.5, len(links) - 0.5)
right.set_xlabel("selected regions of the domain [0, 1]")
fig.tight_layout()
plt.show()
