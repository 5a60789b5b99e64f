"""The tunables of the ``hard`` search, one frozen value per named preset.

:class:`~kva.bots.hard.HardBot` plays with a :class:`HardConfig`; a decision is a pure function
of (view, seed, config). The defaults are production ``hard`` (:data:`HARD`); the learned
opponent-model variant is a fixed instance too (:mod:`kva.bots.opponent_model`), and so are the
measurement yardsticks ``hard-v1`` and ``hard-v2`` of the repository's ``tools/training``.
docs/bots.md tells how each value was chosen.
"""

from __future__ import annotations

from dataclasses import dataclass

from kva.bots.knowledge import BETA, UNIFORM_SHARE


@dataclass(frozen=True, slots=True)
class HardConfig:
    """Everything that shapes a ``hard`` decision; the defaults are production ``hard``."""

    #: Playouts per decision, shared among the legal moves.
    playouts: int = 1000
    #: Guesses sampled per guess kept (the surplus feeds the inference weighting).
    candidates: int = 2
    #: Safety cap in CPU seconds of this process (a worker thinks on its own core, so on the
    #: server that is the wall time; other load on the machine cannot trigger it): the search
    #: stops after the guess in progress once it is exceeded.
    max_seconds: float = 1.2
    #: Within this many points of the target, outcomes are valued by match-win chance.
    near: int = 90
    #: Randomness of the playout policy (see :func:`~kva.bots.playout.playout`).
    noise: float = 0.35
    #: Opponent model of the inference weighting (see :mod:`kva.bots.knowledge`).
    beta: float = BETA
    uniform_share: float = UNIFORM_SHARE
    #: Exact endgames: node budget of the alpha-beta search (0: off), weighted guesses it
    #: averages over, and the most tiles in both hands at which it is tried.
    exact_nodes: int = 30_000
    exact_guesses: int = 48
    exact_tiles: int = 10
    #: Playout policy: weight of the opponent's best immediate reply (0: the plain noisy greedy
    #: policy of ``hard-v1``) and for how many real choices of each playout it is looked at.
    threat: float = 0.7
    lookahead: int = 4
    #: Playout policy: bonus for a placement that leaves the opponent nothing to play.
    block: float = 0.0
    #: Guess weighting: scale of the learned opponent-hand model's log-odds added to each
    #: guess's log-weight (:mod:`kva.bots.opponent_model`); 0 leaves the model unused (and
    #: unloaded).
    opp_model: float = 0.0
    #: Leaf valuation: weight of the learned hand-value network (:mod:`kva.bots.value_net`)
    #: against the playouts' result, far from the target (``value_net``) and near it
    #: (``value_net_near``); 1 values every move by the network alone and plays no playouts.
    value_net: float = 0.0
    value_net_near: float = 0.0
    #: Where the network values: 0 at the state the move leaves; k > 0 at the state a playout
    #: from there reaches at its k-th real choice.
    value_cut: int = 0


#: Production ``hard``: the bot players meet.
HARD = HardConfig()
