"""The pace README's figures: local coverage around the shifts, and recovery times per stream.

    .venv/bin/python plugins/pace/studies/pace_figures.py

Writes docs/plugins/pace/figures/local_coverage.png (abrupt variance and LLM streams, seed 100: miscoverage over
the next 100 rounds for ACI, PACE, DtACI, with PACE's step gamma_t) and docs/plugins/pace/figures/recovery.png
(mean total recovery over seeds 100..104 per stream, gamma_0 = .005 and .01, DtACI beside).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from toolkit_pace.experiments import SHIFT_STREAMS, evaluate
from toolkit_pace.metrics import forward_local

import toolkit

OUT = Path(__file__).resolve().parents[3] / "docs" / "plugins" / "pace" / "figures"


def local_coverage(path: Path) -> None:
    fig, axes = plt.subplots(2, 2, figsize=(11, 6), sharex="col", gridspec_kw={"height_ratios": [3, 1]})
    for col, stream in enumerate(("abrupt_variance", "llm_factuality")):
        ax, ax_g = axes[0, col], axes[1, col]
        for method, color in (("aci", "tab:blue"), ("pace", "tab:red"), ("dtaci", "tab:green")):
            res = toolkit.run("pace.stream", {"method": method, "stream": stream, "gamma0": 0.005}, seed=100)
            t = res.table
            local = forward_local(t.err.to_numpy(), 100)
            ax.plot(t.t.to_numpy()[: local.size], local, lw=0.9, color=color, label=method)
            if method == "pace":
                ax_g.semilogy(t.t, t.gamma_t, color=color, lw=0.8)
        cps = {"abrupt_variance": (1500, 2500), "llm_factuality": (1000, 2000, 3000)}[stream]
        for a in (ax, ax_g):
            for c in cps:
                a.axvline(c, color="grey", ls=":", lw=0.8)
        ax.axhline(0.1, color="k", ls="--", lw=0.8)
        ax.fill_between([100, 4000], 0.05, 0.15, color="grey", alpha=0.1)
        ax.set_title(f"{stream} (seed 100, gamma_0 = 0.005)")
        ax.set_ylabel("miscoverage, next 100 rounds")
        ax_g.set_ylabel("PACE gamma_t")
        ax_g.set_xlabel("round t")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def recovery(path: Path, seeds=range(100, 105)) -> None:
    fig, ax = plt.subplots(figsize=(9, 4))
    labels = [("aci", 0.005), ("pace", 0.005), ("aci", 0.01), ("pace", 0.01), ("dtaci", 0.005)]
    width = 0.16
    for i, (method, g0) in enumerate(labels):
        means = [
            np.mean([evaluate(method, s, g0, seed)["recovery_total"] for seed in seeds])
            for s in SHIFT_STREAMS
        ]
        name = method if method == "dtaci" else f"{method}, gamma_0={g0}"
        ax.bar(np.arange(len(SHIFT_STREAMS)) + (i - 2) * width, means, width, label=name)
    ax.set_xticks(range(len(SHIFT_STREAMS)), SHIFT_STREAMS)
    ax.set_ylabel(f"total recovery (rounds), mean of seeds {seeds.start}..{seeds.stop - 1}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    local_coverage(OUT / "local_coverage.png")
    recovery(OUT / "recovery.png")
    print(f"wrote {OUT / 'local_coverage.png'} and {OUT / 'recovery.png'}")


if __name__ == "__main__":
    main()
