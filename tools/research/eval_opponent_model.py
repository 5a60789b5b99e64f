"""How well ``hard``'s weighted guesses place the opponent's tiles, with and without the model.

    python -m tools.research.eval_opponent_model [--games 40] [--seed 900] [--scales 0,0.5,1]

Seeded matches between two ``hard:playouts=100`` bots (seeds apart from the training's,
``python -m tools.training opponent``); at every real choice the deciding player's view goes to
``HardBot._guesses`` (200 guesses kept, the production oversampling) for each ``opp_model``
scale, the share of guesses giving the opponent each unseen tile is that tile's predicted
chance, and the truth (read from the match by this script alone) scores it: mean log-loss and
Brier score per unseen tile, lower is better. The model's own probabilities are scored too, and
the CPU time the model adds per decision.
"""

from __future__ import annotations

import argparse
import math
import random
import time

from kva.bots.hard import HardBot
from kva.bots.knowledge import Knowledge
from kva.bots.opponent_model import default_model, guess_shares, tile_features
from kva.commands.tournament import build_bot
from kva.rules import TARGETS, Match, player_view
from kva.rules.engine import tiles_of


def main(games: int, seed: int, scales: list[float], guesses: int) -> None:
    rng = random.Random(f"eval/{seed}")
    model = default_model()
    bots = {s: HardBot.with_settings(opp_model=s) for s in scales}
    loss = dict.fromkeys(scales, 0.0)
    brier = dict.fromkeys(scales, 0.0)
    model_loss = 0.0
    tiles_scored = 0
    decisions = 0
    model_cpu = 0.0
    for _game in range(games):
        match = Match(rng.choice(TARGETS), "draw", random.Random(rng.getrandbits(32)))
        players = [build_bot("hard:playouts=100,exact_nodes=0") for _ in (0, 1)]
        play_rngs = [random.Random(rng.getrandbits(32)) for _ in (0, 1)]
        while not match.over:
            seat = match.turn
            assert seat is not None
            view = player_view(match, seat)
            if len(view.legal) > 1 and view.hand_counts[1 - seat]:
                truth = match.hand.hands[1 - seat]
                knowledge = Knowledge(view)
                unseen = tiles_of(knowledge.unseen)
                start = time.process_time()
                pool, logs = bots[scales[0]]._pool(knowledge, random.Random(decisions), 2 * guesses)
                tiles, rows = tile_features(view, knowledge, guess_shares(pool, logs))
                probs = model.probabilities(rows).tolist()
                model_cpu += time.process_time() - start
                for t, p in zip(tiles, probs, strict=True):
                    y = truth >> t & 1
                    model_loss -= math.log(max(1e-9, p if y else 1.0 - p))
                for s, bot in bots.items():
                    bot._view = view
                    drawn = bot._guesses(knowledge, random.Random(decisions), guesses)
                    for t in unseen:
                        share = sum(1 for hand, _rest in drawn if hand >> t & 1) / len(drawn)
                        p = (share * len(drawn) + 0.5) / (len(drawn) + 1.0)
                        y = truth >> t & 1
                        loss[s] -= math.log(p if y else 1.0 - p)
                        brier[s] += (p - y) ** 2
                tiles_scored += len(unseen)
                decisions += 1
            match.apply(players[seat].choose(view, play_rngs[seat]), player=seat)
    print(f"{decisions} decisions, {tiles_scored} unseen tiles scored")
    for s in scales:
        print(
            f"opp_model={s}: log-loss {loss[s] / tiles_scored:.4f}, "
            f"Brier {brier[s] / tiles_scored:.4f}"
        )
    print(f"model alone: log-loss {model_loss / tiles_scored:.4f}")
    print(f"guess pool, features, forward: {1000 * model_cpu / decisions:.2f} ms CPU per decision")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=900)
    parser.add_argument("--scales", default="0,0.5,1")
    parser.add_argument("--guesses", type=int, default=200)
    args = parser.parse_args()
    main(args.games, args.seed, [float(x) for x in args.scales.split(",")], args.guesses)
