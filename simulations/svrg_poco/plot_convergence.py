"""
SGD, SVRG and posterior correction on least squares
===================================================

Suboptimality against gradient evaluations for SGD, SVRG and the two posterior-correction methods
(isotropic PoCo and Newton-like VON-PoCo) on a least-squares problem with condition number 10.
SGD slows down at a noise floor, SVRG (and PoCo, which is SVRG for an isotropic posterior) converges
linearly, and VON-PoCo, which uses the Hessian, reaches
the optimum in a few epochs. Every SVRG run is held against Johnson and Zhang's rate as it is stored.
"""

# %%
# One sweep over the methods, one seed. The results are stored in the run store
# (``TOOLKIT_STORE``): running the script again serves them from the store.
import matplotlib.pyplot as plt

import toolkit

methods = ["sgd", "svrg", "poco_iso", "von_poco"]
result = toolkit.sweep(
    "svrg_poco.convergence",
    grid={"method": methods},
    seeds=[0],
    params={"problem": "least_squares", "kappa": 10.0, "n": 1000, "n_epochs": 40.0},
)
print(result.summary_table[["method", "final_rel_suboptimality", "epochs_run"]])

# %%
# The relative suboptimality :math:`(P - P^*)/(P(0) - P^*)` per gradient evaluation / N.
table = result.table
fig, ax = plt.subplots(figsize=(6, 4))
for method in methods:
    rows = table[table["method"] == method]
    ax.semilogy(rows["epoch"], rows["rel_suboptimality"].clip(lower=1e-16), label=method)
ax.set_xlabel("gradient evaluations / N")
ax.set_ylabel("(P - P*) / (P(0) - P*)")
ax.set_title("least squares, kappa = 10")
ax.legend()
plt.show()
