"""Multi-process match routing: which process makes each change to a live match.

* :mod:`~.base`: :class:`MatchRouter`, which routes each :mod:`command
  <kva.service.play.commands>`, and the :class:`LocalOperations` a router runs them with;
* :mod:`~.local`: :class:`LocalRouter`, a process alone (the in-memory broker);
* :mod:`~.leases`: :class:`LeaseRouter`, processes sharing Redis, one lease owner per match;
* :mod:`~.handoff`: a socket's ``hello`` moves the lease to where the match's sockets are;
* :mod:`~.watching`: the remote watches that send an owner's states to the other processes.
"""

from __future__ import annotations

from kva.service.cluster.broker import Broker
from kva.service.play.commit import Committer
from kva.service.play.live import LiveStore
from kva.service.play.owners import Owners
from kva.service.play.routing.base import LocalOperations, MatchRouter
from kva.service.play.routing.leases import LeaseRouter
from kva.service.play.routing.local import LocalRouter
from kva.service.play.watchers import Watchers


def owners_for(broker: Broker) -> Owners | None:
    """The match owners of a process on ``broker``: with processes sharing Redis, each live
    match has one owner process at a time (its lease in that Redis); alone, none."""
    url = broker.url
    return Owners(url, broker) if url is not None else None


def make_router(
    owners: Owners | None, store: LiveStore, watchers: Watchers, committer: Committer,
    local: LocalOperations,
) -> MatchRouter:
    """The router of a process with these ``owners`` (None: alone, every change made here)."""
    if owners is None:
        return LocalRouter(store, local)
    return LeaseRouter(owners, store, watchers, committer, local)


__all__ = ["LeaseRouter", "LocalOperations", "LocalRouter", "MatchRouter", "make_router",
           "owners_for"]
