"""
What topology noise does to a graph
===================================

Topology noise with level p keeps exactly round((1 - p) m) of a graph's m edges, chosen at random,
and adds round(p m) new edges drawn from the node pairs that were not edges, so a graph keeps about
as many edges as it had. This example applies three noise levels to a synthetic set of 200 graphs,
checks every graph against the two bounds that pin the kept count, and plots the kept edges against
the original count.
"""

# %%
# A sweep over the noise level; every row (one per graph) is held against the bounds
# ``graphpfl.kept_edges_exact_upper`` and ``graphpfl.kept_edges_exact_lower``.
import matplotlib.pyplot as plt

import toolkit

levels = [0.1, 0.3, 0.5]
result = toolkit.sweep("graphpfl.kept_edges", grid={"noise_p": levels}, seeds=[0], params={"n_graphs": 200})
table = result.table
print(table.groupby("noise_p")[["n_edges", "kept_edges", "added_edges"]].mean())

# %%
# Kept edges (dots) against the original count, with the line (1 - p) m (m = the original edge count) for each level.
fig, ax = plt.subplots(figsize=(6, 4))
for k, p in enumerate(levels):
    rows = table[table["noise_p"] == p]
    ax.scatter(rows["n_edges"], rows["kept_edges"], s=8, color=f"C{k}", label=f"p = {p:g}")
    edges = sorted(rows["n_edges"].unique())
    ax.plot(edges, [(1 - p) * e for e in edges], color=f"C{k}", lw=0.8)
ax.set_xlabel("edges of the original graph |E|")
ax.set_ylabel("edges kept")
ax.legend()
plt.show()
