"""Adam, the optimiser both learned models are trained with, in numpy.

One copy of the update, so that the opponent model and the value network step their weights
the same way: the moment estimates, their bias correction, and (optionally) decoupled weight
decay on the weight matrices.
"""

from __future__ import annotations

import numpy as np

from kva.bots.weights import Array

BETA1 = 0.9
BETA2 = 0.999
EPS = 1e-8


class Adam:
    """Steps ``params`` in place along the gradients it is given."""

    def __init__(self, params: list[Array], rate: float, decay: float = 0.0) -> None:
        self.params = params
        self.rate = rate
        self.decay = decay
        self.steps = 0
        self._moments = [(np.zeros_like(p), np.zeros_like(p)) for p in params]

    def step(self, grads: list[Array]) -> None:
        """One update of every parameter by its gradient."""
        self.steps += 1
        rate = self.rate
        for param, grad, (m, v) in zip(self.params, grads, self._moments, strict=True):
            m *= BETA1
            m += (1.0 - BETA1) * grad
            v *= BETA2
            v += (1.0 - BETA2) * grad * grad
            m_hat = m / (1.0 - BETA1**self.steps)
            v_hat = v / (1.0 - BETA2**self.steps)
            param -= rate * m_hat / (np.sqrt(v_hat) + EPS)
            if self.decay and param.ndim == 2:
                param *= 1.0 - rate * self.decay
