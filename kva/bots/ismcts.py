"""Information-set Monte Carlo tree search for ``hard`` (a trial setting, off by default).

The flat search of :mod:`kva.bots.hard` plays every legal move out in every guess, so each
guess is searched as if it were the truth. This search grows one tree for the decision instead,
whose nodes are what I would observe (single-observer ISMCTS, Cowling, Powley and Whitehouse,
2012):

* an edge is an action as I see it: a placement, an opening or a pass by its code; the
  opponent's draw as one edge (I do not see the tile); my own draw by the tile drawn (I do);
* each iteration takes the next weighted guess (a determinization), walks down from the root
  choosing at every real choice among the actions legal in that guess, by UCB counted on
  availability (an action's exploration term uses the iterations in which it was legal, not
  its parent's visits) and scaled by the spread of the values seen, adds one node, plays the
  hand out with ``hard``'s playout policy and adds the hand's value to every node on the path;
* my nodes choose the action best for me, the opponent's the action worst for me, both from the
  statistics pooled over every guess that reached the node, so neither player's choices in the
  tree read the guessed hands (the playouts below the tree still do);
* at the root the most visited move is played.

Or (``paired``) the root is searched flat, every guess played after each of my moves with one
playout seed, and the tree grows below each move: the moves are compared on the same guesses,
as in the flat search, whose common random numbers an unpaired tree gives up.

Forced actions (one legal action) get nodes too, so that what follows a draw of mine is told
apart by the tile drawn, but no choice is made at them. The budget is counted in iterations, so
a decision is a pure function of (view, seed).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterator

from kva.rules import DRAW
from kva.rules.engine import HandState

#: Edge keys of my own draws: this plus the tile drawn (every action code is below it).
MY_DRAW = 1000


class Node:
    """One observed history: its children by edge key, and the values backed up through it."""

    __slots__ = ("avail", "children", "total", "visits")

    def __init__(self) -> None:
        self.children: dict[int, Node] = {}
        #: Iterations that went through this node, and the sum of their values (mine).
        self.visits = 0
        self.total = 0.0
        #: Iterations in which this node's action was legal at its parent.
        self.avail = 1


def edge_key(state: HandState, code: int, me: int) -> int:
    """How player ``me`` observes ``code`` played in ``state``: its own draws by the tile."""
    if code == DRAW and state.turn == me:
        return MY_DRAW + state.bazaar[state.draw_pos]
    return code


class Tree:
    """The search's tree and what its iterations share: whose values they are, how a hand is
    valued and played out, and the running spread of the values that scales exploration."""

    def __init__(
        self, me: int, value: Callable[[HandState], float],
        run: Callable[[HandState, int], None], rng: random.Random, explore: float,
    ) -> None:
        self.root = Node()
        self.me = me
        self.value = value
        self.run = run
        self.rng = rng
        self.explore = explore
        self.count = 0
        self.total = 0.0
        self.squares = 0.0
        #: The UCB constant now: ``explore`` standard deviations of the values seen so far.
        self.scale = 0.0

    def iterate(
        self, state: HandState, node: Node, path: list[Node], seed: int | None = None
    ) -> None:
        """One iteration on ``state`` (a guess to play on) from ``node`` (whose history the
        state has reached; ``path`` holds the nodes above it that share the value): walk
        down, add one node, play the hand out from ``seed`` (None: a fresh one) and back its
        value up."""
        me = self.me
        rng = self.rng
        scale = self.scale
        log = math.log
        sqrt = math.sqrt
        while not state.over:
            codes = state.legal_codes()
            children = node.children
            if len(codes) == 1:
                code = codes[0]
                key = edge_key(state, code, me)
                child = children.get(key)
                if child is None:
                    child = children[key] = Node()
                state.apply_unchecked(code)
                node = child
                path.append(child)
                continue
            untried = []
            for code in codes:
                child = children.get(code)
                if child is None:
                    untried.append(code)
                else:
                    child.avail += 1
            if untried:
                code = untried[int(rng.random() * len(untried))]
                child = children[code] = Node()
                state.apply_unchecked(code)
                path.append(child)
                break
            sign = 1.0 if state.turn == me else -1.0
            best_code = codes[0]
            best_child = children[best_code]
            best_score = -1e300
            for code in codes:
                child = children[code]
                visits = child.visits
                score = sign * child.total / visits + scale * sqrt(log(child.avail) / visits)
                if score > best_score:
                    best_score = score
                    best_code = code
                    best_child = child
            state.apply_unchecked(best_code)
            node = best_child
            path.append(best_child)
        if not state.over:
            self.run(state, rng.getrandbits(32) if seed is None else seed)
        outcome = self.value(state)
        for visited in path:
            visited.visits += 1
            visited.total += outcome
        self.count += 1
        self.total += outcome
        self.squares += outcome * outcome
        mean = self.total / self.count
        self.scale = self.explore * sqrt(max(self.squares / self.count - mean * mean, 0.0))


def tree_search(
    states: Iterator[HandState],
    legal: list[int],
    me: int,
    value: Callable[[HandState], float],
    run: Callable[[HandState, int], None],
    rng: random.Random,
    iterations: int,
    explore: float,
    deadline: float = 1e300,
    paired: bool = False,
) -> list[Node]:
    """The root's node for each of ``legal`` (my moves) after ``iterations`` iterations, each
    on the next state of ``states`` (a fresh guess to play on); ``value`` scores a finished
    hand for me, ``run`` plays a state to the end of the hand from a seed. ``explore`` is the
    UCB constant in standard deviations of the values seen so far (a hand's points and a
    match-win chance spread ten times apart: one constant serves both).

    ``paired``: the root is searched flat, as :mod:`kva.bots.hard` does, and the tree grows
    below each move: every guess is played after each of my moves, from one playout seed
    (common random numbers), so the moves are compared on the same guesses; an iteration is
    one move's descent, so a guess costs as many iterations as there are moves.

    Past the safety ``deadline`` (CPU seconds) it stops after the guess in progress."""
    tree = Tree(me, value, run, rng, explore)
    root = tree.root
    if paired:
        movers = [root.children.setdefault(code, Node()) for code in legal]
        for _ in range(max(1, iterations // len(legal))):
            state = next(states)
            seed = rng.getrandbits(32)
            for code, node in zip(legal, movers, strict=True):
                after = state.copy()
                after.apply_unchecked(code)
                tree.iterate(after, node, [node], seed)
            if time.process_time() > deadline:
                break
        return movers
    for _ in range(iterations):
        tree.iterate(next(states), root, [])
        if time.process_time() > deadline:
            break
    return [root.children.get(code) or Node() for code in legal]


def most_visited(legal: list[int], nodes: list[Node]) -> int:
    """The move with the most visits, the best mean among those (the first one on ties)."""
    best = 0
    for i in range(1, len(legal)):
        a, b = nodes[i], nodes[best]
        if a.visits > b.visits or (
            a.visits == b.visits and a.visits and a.total / a.visits > b.total / b.visits
        ):
            best = i
    return legal[best]
