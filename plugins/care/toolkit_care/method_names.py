"""The names of the aggregators each of care's simulations runs (a light module: parameter models list them)."""

SYNTHETIC_METHODS = ("mean", "mv", "ds", "one_factor", "factor_1k", "care_svd", "care_faithful", "oracle")
ASSET_METHODS = (
    "mv", "avg", "ws", "uws", "care_svd_faithful", "care_svd_principled", "one_factor", "best_judge_oracle",
    "ols_oracle",
)  # fmt: skip
CIVIL_METHODS = (
    "mv", "avg", "ws", "uws", "ds", "care_svd_faithful", "care_svd_principled", "care_tensor_faithful",
    "care_tensor_principled", "factor3_oracle_prior",
)  # fmt: skip
BENCHMARK_METHODS = tuple(dict.fromkeys(ASSET_METHODS + CIVIL_METHODS))
