"""gd_perceptron: gradient descent on the logistic loss as a (generalized) perceptron.

A. Tyurin, "Gradient Descent as a Perceptron Algorithm: Understanding Dynamics and Implicit
Acceleration" (ICML 2026, arXiv 2512.11587) and its predecessor "From Logistic Regression to the
Perceptron Algorithm" (arXiv 2412.08424). Hook implementations only; see README.md.
"""

from toolkit import hookimpl

__version__ = "0.1.0"


@hookimpl
def toolkit_register_simulations():
    from toolkit_gd_perceptron.simulation import SIMULATIONS

    return SIMULATIONS


@hookimpl
def toolkit_register_bounds():
    from toolkit_gd_perceptron.bounds import BOUNDS

    return BOUNDS


@hookimpl
def toolkit_register_datasets():
    from toolkit_gd_perceptron.datasets import DATASETS

    return DATASETS


@hookimpl
def toolkit_register_experiments():
    from toolkit_gd_perceptron.experiments import EXPERIMENTS

    return EXPERIMENTS
