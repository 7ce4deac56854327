"""
How many samples before a generator is right for good
=====================================================

A generator sees distinct words of an unknown target language, one at a time, and must output new
words of the target. On the counting classes H_m, every generator needs more than C(H_m) samples on
its worst target (C is the closure dimension), and the closure generator is always correct from
C(H_m) + 1 samples on. This example races three generators against an adversary that presents the
largest finite intersection first, and plots the worst-case sample count against m beside C(H_m) + 1.
"""

# %%
# A sweep over the class size m and the generator. Each point is held against the two
# bounds it names (the lower bound for every generator, the upper bound for the closure one).
import matplotlib.pyplot as plt

import toolkit

result = toolkit.sweep(
    "langgen.generator_race",
    grid={"m": [0, 1, 2, 3], "generator": ["closure", "km", "greedy"]},
    seeds=[0],
    params={"language_class": "counting", "adversary": "intersection_first"},
)
table = result.table
print(table[["m", "generator", "closure_dimension", "worst_first_correct"]])

# %%
# Worst-case first permanently-correct sample count against m.
fig, ax = plt.subplots(figsize=(6, 4))
for generator, rows in table.groupby("generator"):
    rows = rows.sort_values("m")
    ax.plot(rows["m"], rows["worst_first_correct"], "o-", label=generator)
dims = table.groupby("m")["closure_dimension"].first()
ax.plot(dims.index, dims.values + 1, "k--", label="C(H_m) + 1")
ax.set_yscale("log")
ax.set_xlabel("counting threshold m")
ax.set_ylabel("samples until correct (worst target)")
ax.legend()
plt.show()
