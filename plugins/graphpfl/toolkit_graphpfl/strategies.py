"""Federated strategies behind one interface, with FRPA, FedProx and the empirical Fisher (torch only).

A :class:`Strategy` decides
- which model it trains (:meth:`Strategy.model_config`: e.g. the structure learner on),
- what is shared with the server vs kept local (:meth:`Strategy.is_shared`),
- where a client's local training starts (:meth:`Strategy.start_params`) and the extra penalty it
  optimises (:meth:`Strategy.penalty`),
- what a client uploads and how the server aggregates (:meth:`Strategy.aggregate`),
- which parameters a client is evaluated with (:meth:`Strategy.evaluation_mode`,
  :meth:`Strategy.eval_params`): its own ("personal"), the server's ("global"), or per client the one
  of the two with the better validation accuracy ("select").

Third-party plugins subclass :class:`Strategy` and return it from the
``toolkit_graphpfl_register_strategies`` hook (see ``plugins/graphpfl/toolkit_graphpfl/hookspecs.py``).

FRPA (reconstructed): with the normalised diagonal Fisher ``F̂`` of the client's last local model,
penalty ``(λ_F / 2) Σ_j w_j (θ_j − a_j)²``;
form A: start ``F̂ ⊙ θ_local + (1 − F̂) ⊙ θ_global``, anchor ``θ_local``, weight ``F̂``;
form B: start ``θ_global``, anchor ``θ_global``, weight ``1 − F̂``.
``w ≡ 1`` with anchor ``θ_global`` is FedProx; ``λ_F = 0`` switches FRPA off (FedAvg's update).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

import torch

from toolkit_graphpfl.model import GIN, ModelConfig

Params = dict[str, torch.Tensor]


@dataclass(frozen=True)
class FLConfig:
    """Hyper-parameters shared by every strategy (each uses the ones it needs)."""

    n_rounds: int = 50  # every algorithm runs them all (patience 0): the same budget for each
    local_epochs: int = 1
    batch_size: int = 32
    lr: float = 3e-3  # chosen on validation pilots (plugin README); the spec says 1e-3
    weight_decay: float = 5e-4
    client_fraction: float = 1.0
    prox_mu: float = 0.01
    lambda_fisher: float = 0.1
    frpa_form: str = "A"  # "A" (the reference default) or "B"; defaults chosen on validation, see README
    fisher_norm: str = "tensor"  # "tensor": F / max per tensor; "global": F / max over all
    fisher_source: str = "training"  # "training": gradients of the local epoch; "pass": an extra pass
    aggregation: str = "samples"  # "samples": sample-size weights; "fisher": Fisher-weighted
    lambda_ssl: float = 0.1
    beta_vib: float = 1e-3
    keep_local: str = "none"  # graphpfl: "none", "head", "head+structure"
    sl_topk: int = 8  # chosen on held-out pilots after the tie fix (plugin README); the spec says k ≈ 3-5
    sl_beta: float = 0.5
    sl_tau: float = 0.2
    sl_embed: str = "mlp"
    use_structure: bool = True
    use_msff: bool = False  # MSFF and VIB: off by default, chosen on pilot seeds (plugin README)
    use_vib: bool = False
    eval_every: int = 1
    evaluation: str = "auto"  # "auto" (the strategy's default), "personal", "global" or "select"
    # stop after this many evaluated rounds without a lower validation loss (0: run n_rounds). Off by
    # default: the rule stops fast-converging algorithms earlier, so compared runs get unequal budgets
    patience: int = 0
    selection: str = (
        "val_loss"  # reported round: lowest pooled validation loss ("val_loss") or best accuracy ("val_acc")
    )


EVALUATION_MODES = ("auto", "personal", "global", "select")


# -- maths pieces ---------------------------------------------------------------------------------


def fedprox_penalty(
    params: Mapping[str, torch.Tensor], global_params: Mapping[str, torch.Tensor], mu: float
) -> torch.Tensor:
    """FedProx proximal term (μ/2)‖θ − θ_global‖² over the names in ``global_params``."""
    names = [k for k in global_params if k in params]
    diff = torch.cat([(params[k] - global_params[k].detach()).reshape(-1) for k in names])
    return 0.5 * mu * diff.dot(diff)


def frpa_penalty(
    params: Mapping[str, torch.Tensor],
    anchor: Mapping[str, torch.Tensor],
    weight: Mapping[str, torch.Tensor],
    lam: float,
) -> torch.Tensor:
    """FRPA term (λ/2) Σ_j w_j (θ_j − a_j)² over the names in ``anchor``."""
    total = torch.zeros((), dtype=next(iter(params.values())).dtype)
    for k, a in anchor.items():
        if k not in params:  # buffers are not trained
            continue
        total = total + (weight[k].detach() * (params[k] - a.detach()).pow(2)).sum()
    return 0.5 * lam * total


class FisherAccumulator:
    """Diagonal empirical Fisher: the mean over *all* batches of the squared batch gradient."""

    def __init__(self, names: Iterable[str]) -> None:
        self.names = list(names)
        self.sums: Params = {}
        self.n_batches = 0

    def add(self, named_grads: Mapping[str, torch.Tensor | None]) -> None:
        for k in self.names:
            g = named_grads.get(k)
            if g is None:
                continue
            sq = g.detach().pow(2)
            self.sums[k] = self.sums[k] + sq if k in self.sums else sq.clone()
        self.n_batches += 1

    def value(self) -> Params:
        if self.n_batches == 0:
            raise ValueError("no batch was accumulated into the Fisher")
        return {k: v / self.n_batches for k, v in self.sums.items()}


def empirical_fisher(
    module: torch.nn.Module,
    batches: Sequence,
    loss_fn: Callable[[torch.nn.Module, object], torch.Tensor],
    names: Iterable[str] | None = None,
) -> Params:
    """Diagonal empirical Fisher of ``module`` at its current parameters, over all ``batches``."""
    params = dict(module.named_parameters())
    acc = FisherAccumulator(names if names is not None else params)
    for b in batches:
        module.zero_grad(set_to_none=True)
        loss_fn(module, b).backward()
        acc.add({k: p.grad for k, p in params.items()})
    module.zero_grad(set_to_none=True)
    return acc.value()


def normalise_fisher(fisher: Mapping[str, torch.Tensor], how: str = "tensor") -> Params:
    """Scale the Fisher into [0, 1]: per tensor (``"tensor"``) or by the overall max (``"global"``)."""
    if how == "tensor":
        return {k: v / v.max().clamp_min(1e-30) for k, v in fisher.items()}
    if how == "global":
        top = torch.stack([v.max() for v in fisher.values()]).max().clamp_min(1e-30)
        return {k: v / top for k, v in fisher.items()}
    raise ValueError(f"fisher_norm must be 'tensor' or 'global', got {how!r}")


def weighted_average(states: Sequence[Mapping[str, torch.Tensor]], weights: Sequence[float]) -> Params:
    """Σ_k w_k θ_k with w normalised to sum 1 (one client: its own parameters, bit for bit)."""
    w = torch.tensor(weights, dtype=torch.float64)
    w = (w / w.sum()).tolist()
    out = {}
    for name in states[0]:
        acc = states[0][name] * w[0]
        for s, wk in zip(states[1:], w[1:]):
            acc = acc + s[name] * wk
        out[name] = acc
    return out


def fisher_weighted_average(
    states: Sequence[Mapping[str, torch.Tensor]],
    fishers: Sequence[Mapping[str, torch.Tensor]],
    sizes: Sequence[float],
    eps: float = 1e-12,
) -> Params:
    """θ_j = Σ_k n_k F_kj θ_kj / Σ_k n_k F_kj (plain sample weights where all Fishers vanish)."""
    out = {}
    for name in states[0]:
        num = sum(n * f[name] * s[name] for s, f, n in zip(states, fishers, sizes))
        den = sum(n * f[name] for f, n in zip(fishers, sizes))
        plain = weighted_average([{name: s[name]} for s in states], sizes)[name]
        out[name] = torch.where(den > eps, num / den.clamp_min(eps), plain)
    return out


# -- client state and the strategy interface --------------------------------------------------------


@dataclass
class ClientState:
    """What a client keeps between rounds: its personalised parameters and its last Fisher."""

    params: Params
    fisher: Params | None = None  # normalised F̂ of the last local model
    raw_fisher: Params | None = None  # un-normalised F (uploaded by Fisher-using strategies)
    n_train: int = 0


class Strategy:
    """Base class = FedAvg. Override the pieces that differ. Instances must pickle (module-level classes)."""

    name: ClassVar[str] = "fedavg"
    description: ClassVar[str] = "FedAvg (McMahan et al. 2017): sample-weighted average of all parameters"
    default_evaluation: ClassVar[str] = "global"  # the evaluation mode that "auto" means for this strategy
    uploads_fisher: ClassVar[bool] = False
    downloads_fisher: ClassVar[bool] = False

    def __init__(self, cfg: FLConfig) -> None:
        self.cfg = cfg

    def model_config(self, base: ModelConfig) -> ModelConfig:
        return base

    def is_shared(self, name: str) -> bool:
        return True

    def shared_names(self, names: Iterable[str]) -> list[str]:
        return [k for k in names if self.is_shared(k)]

    def start_params(self, state: ClientState, global_shared: Params) -> Params:
        """The parameters local training starts from (default: the global ones where shared)."""
        return {
            k: global_shared[k].clone() if k in global_shared else v.clone() for k, v in state.params.items()
        }

    def penalty(
        self,
        params: Mapping[str, torch.Tensor],
        state: ClientState,
        global_shared: Params,
        server_extra: Mapping[str, Params],
    ) -> torch.Tensor | None:
        return None

    def needs_fisher(self) -> bool:
        return False

    def aggregate(
        self,
        global_shared: Params,
        uploads: Sequence[Params],
        sizes: Sequence[int],
        fishers: Sequence[Params | None],
    ) -> Params:
        if not global_shared:
            return global_shared
        return weighted_average(uploads, sizes)

    def server_extra(
        self, uploads: Sequence[Params], sizes: Sequence[int], fishers: Sequence[Params | None]
    ) -> dict[str, Params]:
        """Extra tensors the server sends next round (e.g. FedCurv's aggregated Fisher)."""
        return {}

    def evaluation_mode(self) -> str:
        """How clients are evaluated: ``cfg.evaluation``, or this strategy's default when it is "auto"."""
        mode = self.cfg.evaluation
        if mode not in EVALUATION_MODES:
            raise ValueError(f"evaluation must be one of {', '.join(EVALUATION_MODES)}, got {mode!r}")
        return self.default_evaluation if mode == "auto" else mode

    def eval_params(self, state: ClientState, global_shared: Params, which: str) -> Params:
        """The client's own parameters (``which="personal"``) or the server's shared ones completed by the
        client's local ones (``"global"``)."""
        if which == "personal":
            return state.params
        if which == "global":
            return {k: global_shared.get(k, v) for k, v in state.params.items()}
        raise ValueError(f"which must be 'personal' or 'global', got {which!r}")


class Local(Strategy):
    name = "local"
    description = "Local training only: nothing is shared"
    default_evaluation = "personal"

    def is_shared(self, name: str) -> bool:
        return False


class FedAvg(Strategy):
    pass


class FedProx(Strategy):
    name = "fedprox"
    description = "FedProx (Li et al. 2020): FedAvg plus (mu/2)||theta - theta_global||^2 locally"

    def penalty(self, params, state, global_shared, server_extra):
        if self.cfg.prox_mu == 0.0:
            return None
        return fedprox_penalty(params, global_shared, self.cfg.prox_mu)


class FedPer(Strategy):
    name = "fedper"
    description = "FedPer (Arivazhagan et al. 2019): share the body, keep the classifier head local"
    default_evaluation = "personal"

    def is_shared(self, name: str) -> bool:
        return not name.startswith(GIN.HEAD_PREFIX)


class FedCurv(Strategy):
    """FedCurv-style (Shoham et al. 2019): clients upload their Fisher; the server sends back the
    average Fisher F̄ of the others; locally (λ_F/2) Σ F̄_j (θ_j − θ_global,j)² (F̄ normalised)."""

    name = "fedcurv"
    description = "FedCurv-style: Fisher-weighted pull to the global model, server-averaged Fisher"
    uploads_fisher = True
    downloads_fisher = True

    def needs_fisher(self) -> bool:
        return True

    def server_extra(self, uploads, sizes, fishers):
        got = [(f, n) for f, n in zip(fishers, sizes) if f is not None]
        if not got:
            return {}
        mean = weighted_average([f for f, _ in got], [n for _, n in got])
        return {"fisher": normalise_fisher(mean, self.cfg.fisher_norm)}

    def penalty(self, params, state, global_shared, server_extra):
        fisher = server_extra.get("fisher")
        if fisher is None or self.cfg.lambda_fisher == 0.0:
            return None
        return frpa_penalty(params, global_shared, fisher, self.cfg.lambda_fisher)


class FRPA(Strategy):
    """FedAvg + Fisher-based elastic parameter alignment (forms A and B).

    Clients keep personalised parameters (FRPA's anchor and start point); by default each client is
    evaluated with the server model, which scored best on pilot seeds (``evaluation`` switches)."""

    name = "frpa"
    description = "FedAvg + FRPA (GraphP-FL's Fisher alignment alone, reconstructed)"
    default_evaluation = "global"  # chosen on pilot seeds over "select" and "personal" (plugin README)

    def needs_fisher(self) -> bool:
        return self.cfg.lambda_fisher != 0.0 or self.cfg.aggregation == "fisher"

    @property
    def uploads_fisher(self) -> bool:  # type: ignore[override]
        return self.cfg.aggregation == "fisher"

    def _active(self, state: ClientState) -> bool:
        return self.cfg.lambda_fisher != 0.0 and state.fisher is not None

    def start_params(self, state, global_shared):
        start = super().start_params(state, global_shared)
        if self._active(state) and self.cfg.frpa_form == "A":
            for k in global_shared:
                if k not in state.fisher:  # buffers (BatchNorm statistics) have no Fisher
                    continue
                f = state.fisher[k]
                start[k] = f * state.params[k] + (1.0 - f) * global_shared[k]
        return start

    def penalty(self, params, state, global_shared, server_extra):
        if not self._active(state):
            return None
        names = [k for k in global_shared if k in state.fisher]
        if self.cfg.frpa_form == "A":
            anchor = {k: state.params[k] for k in names}
            weight = {k: state.fisher[k] for k in names}
        elif self.cfg.frpa_form == "B":
            anchor = {k: global_shared[k] for k in names}
            weight = {k: 1.0 - state.fisher[k] for k in names}
        else:
            raise ValueError(f"frpa_form must be 'A' or 'B', got {self.cfg.frpa_form!r}")
        return frpa_penalty(params, anchor, weight, self.cfg.lambda_fisher)

    def aggregate(self, global_shared, uploads, sizes, fishers):
        if not global_shared:
            return global_shared
        if self.cfg.aggregation == "fisher" and all(f is not None for f in fishers):
            return fisher_weighted_average(uploads, fishers, sizes)
        return weighted_average(uploads, sizes)


class FedAvgStructure(Strategy):
    name = "fedavg_sl"
    description = "FedAvg + the structure learner (self-supervised topology refinement), global model"

    def model_config(self, base: ModelConfig) -> ModelConfig:
        c = self.cfg
        return replace(
            base,
            structure_learner=True,
            sl_topk=c.sl_topk,
            sl_beta=c.sl_beta,
            sl_tau=c.sl_tau,
            sl_embed=c.sl_embed,
        )


class GraphPFL(FRPA):
    """GraphP-FL (reconstructed): structure learner + SSL + MSFF + VIB + FRPA (evaluation as FRPA's)."""

    name = "graphpfl"
    description = "GraphP-FL (reconstructed): structure learner + SSL, MSFF, VIB, FRPA (form A/B)"

    def model_config(self, base: ModelConfig) -> ModelConfig:
        c = self.cfg
        return replace(
            base,
            structure_learner=c.use_structure,
            sl_topk=c.sl_topk,
            sl_beta=c.sl_beta,
            sl_tau=c.sl_tau,
            sl_embed=c.sl_embed,
            msff=c.use_msff,
            vib=c.use_vib,
        )

    def is_shared(self, name: str) -> bool:
        if self.cfg.keep_local == "none":
            return True
        if self.cfg.keep_local == "head":
            return not name.startswith(GIN.HEAD_PREFIX)
        if self.cfg.keep_local == "head+structure":
            return not (name.startswith(GIN.HEAD_PREFIX) or name.startswith(GIN.STRUCTURE_PREFIX))
        raise ValueError(
            f"keep_local must be 'none', 'head' or 'head+structure', got {self.cfg.keep_local!r}"
        )


BUILTIN_STRATEGIES: dict[str, type[Strategy]] = {
    cls.name: cls for cls in (Local, FedAvg, FedProx, FedPer, FedCurv, FRPA, FedAvgStructure, GraphPFL)
}
