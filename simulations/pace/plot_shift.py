"""
PACE and ACI after a change in the score distribution
=====================================================

Online conformal inference keeps a threshold q_t on a stream of nonconformity scores so that the
fraction of rounds where the score exceeds it stays near the target alpha = 0.1. On a stream whose
variance jumps, adaptive conformal inference (ACI) and PACE both raise their threshold after the
change; this example plots the scores with each method's threshold, and the miscoverage over a
moving window of 100 rounds. Every run is held against its long-run coverage bounds as it is stored.
"""

# %%
# A sweep over the two methods on the same synthetic stream (the seed draws the stream).
import matplotlib.pyplot as plt

import toolkit

result = toolkit.sweep(
    "pace.stream",
    grid={"method": ["aci", "pace"]},
    seeds=[0],
    params={"stream": "abrupt_variance", "T": 2000, "calibration_window": 200, "alpha": 0.1},
)
print(result.summary_table[["method", "miscoverage", "violation_rate", "recovery_total", "mean_width"]])
table = result.table

# %%
# Top: the scores and each method's threshold. Bottom: miscoverage over the last 100 rounds.
fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
first = table[table["method"] == "aci"]
top.plot(first["t"], first["score"], ",", color="grey", label="score")
for method, rows in table.groupby("method"):
    top.plot(rows["t"], rows["threshold"], lw=1, label=f"{method} threshold")
    local = rows["err"].rolling(100).mean()
    bottom.plot(rows["t"], local, lw=1, label=method)
top.set_ylabel("score")
top.legend(fontsize=8)
bottom.axhline(0.1, color="k", ls="--", lw=0.8)
bottom.set_xlabel("round t")
bottom.set_ylabel("miscoverage (100 rounds)")
bottom.legend(fontsize=8)
plt.show()
