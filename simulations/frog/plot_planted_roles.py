"""
Learned table roles on a planted database
=========================================

A synthetic shop database (customers, products, reviews, votes, purchases) carries a signal planted
through the review table, which links a customer to a product. Row2Node makes every review row a
node, Row2Edge makes it an edge between its customer and its product, and FROG learns the role
pi_review of the table (0 = nodes, 1 = edges) while it trains. This example trains the three models
on a small database and plots their test AUROC per epoch and the role FROG learns.
"""

# %%
# A sweep over the three models, one seed, on a database small enough to train in seconds.
import matplotlib.pyplot as plt

import toolkit

result = toolkit.sweep(
    "frog.planted",
    grid={"model": ["row2node", "row2edge", "frog"]},
    seeds=[0],
    params={"kind": "edge_easy", "n_customers": 300, "n_products": 30, "epochs": 6, "channels": 16},
)
print(result.summary_table[["model", "test_auroc", "pi_review"]])
table = result.table

# %%
# Left: test AUROC per epoch. Right: FROG's role of the review table.
fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
for model, rows in table.groupby("model"):
    left.plot(rows["epoch"], rows["test_auroc"], "o-", label=model)
left.axhline(0.5, color="grey", lw=0.8, ls=":")
left.set_xlabel("epoch")
left.set_ylabel("test AUROC")
left.legend()
frog = table[table["model"] == "frog"]
right.plot(frog["epoch"], frog["pi_review"], "o-", color="C2")
right.set_ylim(0, 1)
right.set_xlabel("epoch")
right.set_ylabel("pi_review (0 = nodes, 1 = edges)")
fig.tight_layout()
plt.show()
