"""
Variance of the SVRG gradient estimator
=======================================

SVRG corrects each stochastic gradient with the gradient at a snapshot, so the variance of its
estimator falls toward zero as the iterates and the snapshot approach the optimum, and ends below the
variance of plain SGD's estimator at the same points. This example
records both variances along one SVRG run on least squares, and Johnson and Zhang's lemma, which
bounds the SVRG estimator's second moment by 4L [P(w) - P* + P(w~) - P*]; every recorded point is
held against that bound as the run is stored.
"""

# %%
# One run; ``checks`` holds the variance lemma's verdict for every recorded point.
import matplotlib.pyplot as plt

import toolkit

result = toolkit.run("svrg_poco.variance", {"problem": "least_squares", "n": 500, "n_epochs": 30.0}, seed=0)
table = result.table
print(result.checks.groupby("bound")["holds"].agg(["sum", "count"]))

# %%
# Left: the two estimators' variances per epoch. Right: the lemma's left side over its right side
# (at most 1 where the lemma holds).
fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
left.semilogy(table["epoch"], table["var_svrg"], label="SVRG estimator")
left.semilogy(table["epoch"], table["var_sgd"], label="SGD estimator")
left.set_xlabel("gradient evaluations / N")
left.set_ylabel("variance")
left.legend()
right.plot(table["epoch"], table["lemma_ratio"], "o-")
right.axhline(1.0, color="k", ls="--", lw=0.8)
right.set_ylim(0, 1.1)
right.set_xlabel("gradient evaluations / N")
right.set_ylabel("lemma: left side / right side")
fig.tight_layout()
plt.show()
