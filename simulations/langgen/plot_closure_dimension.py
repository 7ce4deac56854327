"""
Closure dimension of small language classes
===========================================

The closure dimension C(H) of a class of languages H is, roughly, the size of the largest finite
intersection of its members; it fixes how many samples generation in the limit needs. This example
computes it exactly for the counting classes H_m (words with at most m a's, words with at most m b's,
and all words), for the languages of DFAs with at most n states, and for the locally threshold testable
classes LTT(k, 1), and plots it against the size index.
"""

# %%
# One sweep per family (the size index means m, the number of states, or the window k).
import matplotlib.pyplot as plt
import pandas as pd

import toolkit

sizes = {"counting": [0, 1, 2, 3, 4, 5], "dfa": [1, 2, 3], "ltt": [1, 2, 3]}
tables = [
    toolkit.sweep("langgen.closure_dimension", grid={"n": ns}, seeds=[0], params={"family": family}).table
    for family, ns in sizes.items()
]
table = pd.concat(tables, ignore_index=True)
print(table[["family", "n", "closure_dimension", "status"]].to_string(index=False))

# %%
# C(H) against the size index; every value here is exact (``status``).
labels = {"counting": "counting H_m", "dfa": "DFA, <= n states", "ltt": "LTT(k, 1)"}
fig, ax = plt.subplots(figsize=(6, 4))
for family, rows in table.groupby("family"):
    ax.plot(rows["n"], rows["closure_dimension"], "o-", label=labels[family])
ax.set_yscale("symlog", linthresh=1)  # C(H) = 0 is a value here
ax.set_xlabel("size index (m, states n, window k)")
ax.set_ylabel("closure dimension C(H)")
ax.legend()
plt.show()
