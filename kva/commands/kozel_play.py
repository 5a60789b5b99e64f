"""Random Kozel self-play for the command line: ``kva selfplay --game kozel`` and
``kva bench engine --game kozel``.

Random legal play is all these need: it exercises every rule (deals, redeals, draws, knocks,
both fish rules, pairs) and the engine's speed; the bots play elsewhere.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Any

from kva.kozel import FISH_RULES, Match, Options, dumps_record, write_record


def draw_options(rng: random.Random, seats: int) -> Options:
    """A fish rule and, at four seats, the pair game, drawn from ``rng``."""
    fish = rng.choice(FISH_RULES)
    return Options(fish=fish, pairs=seats == 4 and rng.random() < 0.5)


def random_match(seats: int, options: Options, seed: str) -> Match:
    """One whole match of uniformly random legal play; the same seed gives the same match."""
    match = Match(seats, options, rng=random.Random(f"{seed}/deal"))
    chooser = random.Random(f"{seed}/play").random
    state = match.state
    while True:
        codes = state.legal_codes()
        match.apply_unchecked(codes[int(chooser() * len(codes))])
        if state.over:
            if match.over:
                return match
            state = match.state


def run_selfplay(args: argparse.Namespace) -> int:
    """Play ``--matches`` matches and write one kozel/1 file each into ``--out``."""
    if args.seats not in (2, 3, 4):
        print("--seats must be 2, 3 or 4", file=sys.stderr)
        return 2
    if args.pairs and args.seats != 4:
        print("--pairs needs --seats 4", file=sys.stderr)
        return 2
    if args.matches < 1:
        print("--matches must be at least 1", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    chooser = random.Random(f"{args.seed}/options")
    hands = 0
    for i in range(args.matches):
        options = (draw_options(chooser, args.seats) if args.random_options
                   else Options(fish=args.fish, pairs=args.pairs))
        seed = f"{args.seed}/{i}"
        match = random_match(args.seats, options, seed)
        meta: dict[str, Any] = {"generator": "kva selfplay", "seed": seed}
        players = [{"name": f"random {p}"} for p in range(args.seats)]
        path = out / f"kozel-{args.seed}-{i:04d}.json"
        path.write_text(dumps_record(write_record(match, players, meta)) + "\n", encoding="utf-8")
        hands += len(match.hands)
    print(f"wrote {args.matches} kozel/1 records ({hands} hands) to {out}")
    return 0


def random_hands(hands: int, seed: int) -> int:
    """Play exactly ``hands`` four-seat hands of random play (whole matches: deals, redeals,
    scoring); return the number of actions taken. What ``kva bench engine --game kozel``
    times."""
    rng = random.Random(seed)
    draw = rng.random
    played = actions = 0
    options = Options()
    while True:
        match = Match(4, options, rng=rng)
        state = match.state
        while True:
            codes = state.legal_codes()
            match.apply_unchecked(codes[int(draw() * len(codes))])
            if state.over:
                played += 1
                actions += len(state.log)
                if played == hands:
                    return actions
                if match.over:
                    break
                state = match.state
