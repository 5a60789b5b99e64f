"""``kva selfplay``: play a whole match between built-in players and write its record.

``--game kozel`` plays Kozel matches of random legal play instead, one ``kozel/1`` record per
match in the ``--out`` folder (:mod:`kva.commands.kozel_play`)."""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Any

from kva.bots import BOTS, make_bot
from kva.commands import kozel_play
from kva.rules import TARGETS, Match, dumps_record, player_view, write_record


def play_match(
    seed: int, target: int, pass_only: bool, players: list[str]
) -> tuple[Match, dict[str, Any]]:
    """Play one match: deals from ``Random(seed)``, each bot its own RNG derived from the seed.
    Same arguments, same match."""
    bots = [make_bot(name) for name in players]
    deal_rng = random.Random(seed)
    bot_rngs = [random.Random(f"{seed}/bot/{p}") for p in (0, 1)]
    match = Match(target, "pass-only" if pass_only else "draw", deal_rng)
    while not match.over:
        p = match.turn
        assert p is not None
        view = player_view(match, p)
        match.apply(bots[p].choose(view, bot_rngs[p]), player=p)
    doc = write_record(
        match,
        players=[{"name": f"bot:{name}"} for name in players],
        meta={"generator": "kva selfplay", "seed": seed},
    )
    return match, doc


def run(args: argparse.Namespace) -> int:
    """Parse the options, play, write the record (Kozel: one record per match)."""
    if args.game == "kozel":
        return kozel_play.run_selfplay(args)
    players = [name.strip() for name in args.players.split(",")]
    if len(players) != 2:
        print("--players needs two names, like random,random", file=sys.stderr)
        return 2
    unknown = [name for name in players if name not in BOTS]
    if unknown:
        print(f"unknown player {unknown[0]!r}; known: {', '.join(sorted(BOTS))}", file=sys.stderr)
        return 2
    match, doc = play_match(args.seed, args.target, args.pass_only, players)
    text = dumps_record(doc) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        Path(args.out).write_text(text, encoding="utf-8")
        print(
            f"wrote {args.out}: {len(match.hands)} hands, score {match.scores[0]}-"
            f"{match.scores[1]}, winner player {match.winner}"
        )
    return 0


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``kva selfplay``."""
    parser = subparsers.add_parser("selfplay", help="play a whole match between bots")
    parser.add_argument("--seed", type=int, required=True, help="same seed, same record")
    parser.add_argument("--target", type=int, choices=TARGETS, default=175)
    parser.add_argument("--pass-only", action="store_true", help="house rule: nobody draws")
    parser.add_argument("--players", default="random,random", help="two bot names, a,b")
    parser.add_argument("--out", required=True,
                        help="record file to write ('-' for stdout); for kozel, a folder")
    parser.add_argument("--game", choices=("georgian", "kozel"), default="georgian")
    kozel = parser.add_argument_group("kozel", "with --game kozel (random legal play)")
    kozel.add_argument("--seats", type=int, default=4, help="2, 3 or 4 players")
    kozel.add_argument("--matches", type=int, default=1, help="how many matches (files)")
    kozel.add_argument("--fish", choices=("all", "one"), default="all", help="the fish rule")
    kozel.add_argument("--pairs", action="store_true", help="the pair game (four seats)")
    kozel.add_argument("--random-options", action="store_true",
                       help="draw the fish rule and the pair game for each match")
    parser.set_defaults(func=run)
