"""
Keeping LLM claims with a coverage guarantee
============================================

A language model answers with several claims, each with a confidence; a claim is kept when its
confidence exceeds the threshold q_t, and a round counts as an error when a false claim is kept.
Online conformal methods move q_t so that the error rate stays near alpha = 0.1 while the topics of
the questions change. This example runs ACI and PACE on a simulated stream of such rounds and plots
the fraction of claims kept and the error rate over a moving window of 100 rounds.
"""

# %%
# A sweep over the two methods on the same simulated stream (no model or data download is needed).
import matplotlib.pyplot as plt

import toolkit

result = toolkit.sweep(
    "pace.factuality",
    grid={"method": ["aci", "pace"]},
    seeds=[0],
    params={"T": 2000, "calibration_window": 200, "alpha": 0.1},
)
print(result.summary_table[["method", "miscoverage", "retained_fraction", "violation_rate"]])
table = result.table

# %%
# Top: the fraction of claims kept per round (moving average). Bottom: errors over 100 rounds.
fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
for method, rows in table.groupby("method"):
    top.plot(rows["t"], rows["retained"].rolling(100).mean(), lw=1, label=method)
    bottom.plot(rows["t"], rows["err"].rolling(100).mean(), lw=1, label=method)
top.set_ylabel("claims kept")
top.legend(fontsize=8)
bottom.axhline(0.1, color="k", ls="--", lw=0.8)
bottom.set_xlabel("round t")
bottom.set_ylabel("error rate (100 rounds)")
plt.show()
