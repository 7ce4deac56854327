"""Constants shared by the sbayfdnn tests (a uniquely named module: ``conftest`` is not importable
reliably when several test folders each have one)."""

SMALL_FIT = dict(
    n_basis=24, widths=(32, 16), epochs=800, anneal_epochs=200, finetune_epochs=100, n_restarts=2
)
