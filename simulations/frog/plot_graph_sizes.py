"""
Graph sizes of a link table, held against their bound
=====================================================

A link table whose rows each reference k other rows can become a graph in two ways: Row2Node makes
every row a node joined to the rows it references (2k directed edges per row), Row2Edge joins the
referenced rows directly (a hyperedge, k(k - 1) directed edges per row). This example counts both for random
link tables with 2 to 5 keys, with and without missing keys, holds every Row2Edge count against the
bound n k (k - 1) (equality when no key is missing), and plots the counts per row.
"""

# %%
# A sweep over the number of keys and the probability that a key is missing. The sweep's
# ``checks`` holds one row per result row and bound: the measured count, the bound and the margin.
import matplotlib.pyplot as plt

import toolkit

result = toolkit.sweep(
    "frog.graph_sizes",
    grid={"n_keys": [2, 3, 4, 5], "missing": [0.0, 0.2]},
    seeds=[0],
    params={"n_rows": 1000, "n_entities": 100},
)
table = result.table
checks = result.checks
print(checks[["bound", "measured", "bound_value", "margin", "holds"]].to_string(index=False))

# %%
# Edges per link-table row against k. The dotted line is the bound k(k - 1) per row.
fig, ax = plt.subplots(figsize=(6, 4))
for k, (missing, rows) in enumerate(table.groupby("missing")):
    per_row = rows.set_index("n_keys")
    label = f"missing keys {missing:g}"
    ax.plot(
        per_row.index,
        per_row["n_row2edge_edges"] / per_row["n_rows"],
        "o-",
        color=f"C{k}",
        label=f"Row2Edge, {label}",
    )
    ax.plot(
        per_row.index,
        per_row["n_row2node_edges"] / per_row["n_rows"],
        "s--",
        color=f"C{k}",
        label=f"Row2Node, {label}",
    )
keys = sorted(table["n_keys"].unique())
ax.plot(keys, [k * (k - 1) for k in keys], "k:", label="bound k(k - 1)")
ax.set_xlabel("keys per row k")
ax.set_ylabel("edges per link-table row")
ax.legend(fontsize=8)
plt.show()
