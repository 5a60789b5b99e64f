"""``kva tournament``: measure one bot against another on duplicate deals.

Each deal (a seeded stream of hand deals) is played twice with the seats swapped, so luck of
the tiles cancels out between the two games. Every decision is timed. The result table gives
the match win rate with its Wilson 95% interval, hands won, mean points per hand with a 95%
interval, and milliseconds per decision (p50/p95/max, over decisions with a real choice) per
side. Same seed, same table: bots are seeded per game and budgeted in playouts, not time.

A bot is named with optional settings: ``hard``, ``hard:playouts=200`` (for ``hard`` and its
variants, fields of their :class:`~kva.bots.hard_config.HardConfig`). ``kva tournament`` plays
the shipped bots (:data:`~kva.bots.BOTS`); every function here takes the bots to choose from,
so the repository's tools/training extends them with its frozen yardsticks (``python -m
tools.training tournament``). A bot that is a :class:`~kva.bots.base.SeesOpponentHand`
(``seer``) is shown its opponent's hand before each of its decisions, here and nowhere else.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from kva.bots import BOTS, Bot, BotFactory, HardBot, SeesOpponentHand
from kva.commands.intervals import mean_interval, percentile, wilson
from kva.rules import TARGETS, Match, player_view

#: Where the bots that are not shipped are played from, for the message about an unknown name.
YARDSTICKS_HINT = ("the measurement yardsticks (hard-v1, hard-v2, seer) play from a checkout: "
                   "python -m tools.training tournament …")


def build_bot(spec: str, bots: Mapping[str, BotFactory] = BOTS) -> Bot:
    """A bot of ``bots`` from ``name`` or ``name:key=value,key=value`` (numeric settings: a
    ``hard`` bot's :class:`~kva.bots.hard_config.HardConfig` fields over its preset, another
    bot's constructor arguments). ValueError names an unknown bot; TypeError an unknown
    setting."""
    name, _, options = spec.partition(":")
    if name not in bots:
        hint = f" ({YARDSTICKS_HINT})" if bots is BOTS else ""
        raise ValueError(f"unknown bot {name!r}; known: {', '.join(sorted(bots))}{hint}")
    settings: dict[str, float] = {}
    for item in filter(None, options.split(",")):
        key, _, raw = item.partition("=")
        settings[key.strip()] = float(raw) if "." in raw else int(raw)
    bot: Bot = bots[name]()
    if not settings:
        return bot
    if isinstance(bot, HardBot):
        return type(bot).with_settings(**settings)
    configured: Bot = bots[name](**settings)
    return configured


@dataclass(slots=True)
class GameResult:
    """One match of a duplicate pair, from side A's point of view."""

    a_won: bool
    hands: list[tuple[int, int]] = field(default_factory=list)  # (A's points, B's points)
    hand_winners: list[int | None] = field(default_factory=list)  # 0 = A, 1 = B, None = draw
    ms: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))
    decisions: tuple[int, int] = (0, 0)


def play_game(
    specs: tuple[str, str],
    a_seat: int,
    target: int,
    pass_only: bool,
    seed: int,
    deal: int,
    clock: str = "wall",
    bots: Mapping[str, BotFactory] = BOTS,
) -> GameResult:
    """Play one match with side A in seat ``a_seat``; deals come from ``(seed, deal)`` only.

    ``clock`` times decisions by wall time (``wall``: what a waiting player feels) or by the
    process's CPU time (``cpu``: one core's work, unaffected by other load on the machine).
    """
    now = time.process_time if clock == "cpu" else time.perf_counter
    players = [build_bot(specs[0], bots), build_bot(specs[1], bots)]  # by side: A, B
    side_of_seat = (0, 1) if a_seat == 0 else (1, 0)
    rngs = [random.Random(f"{seed}/{deal}/{a_seat}/side{s}") for s in (0, 1)]
    match = Match(target, "pass-only" if pass_only else "draw", random.Random(f"{seed}/{deal}"))
    result = GameResult(a_won=False)
    counted = [0, 0]
    done_hands = 0
    while not match.over:
        seat = match.turn
        assert seat is not None
        side = side_of_seat[seat]
        bot = players[side]
        view = player_view(match, seat)
        if isinstance(bot, SeesOpponentHand):
            bot.reveal(match.hand.hands[1 - seat])
        start = now()
        code = bot.choose(view, rngs[side])
        elapsed = (now() - start) * 1000.0
        counted[side] += 1
        if len(view.legal) > 1:
            result.ms[side].append(elapsed)
        match.apply(code, player=seat)  # checked: an illegal bot move raises here
        while done_hands < len(match.hands) and match.hands[done_hands].result is not None:
            state = match.hands[done_hands].state
            pts = [state.points[0], state.points[1]]
            if state.winner is not None:
                pts[state.winner] += state.end_points
            a_pts, b_pts = (pts[0], pts[1]) if a_seat == 0 else (pts[1], pts[0])
            result.hands.append((a_pts, b_pts))
            winner = state.winner
            result.hand_winners.append(None if winner is None else side_of_seat[winner])
            done_hands += 1
    result.a_won = side_of_seat[match.winner if match.winner is not None else 0] == 0
    result.decisions = (counted[0], counted[1])
    return result


Job = tuple[tuple[str, str], int, bool, int, int, str, Mapping[str, BotFactory]]


def _play_pair(job: Job) -> tuple[GameResult, GameResult]:
    specs, target, pass_only, seed, deal, clock, bots = job
    return (
        play_game(specs, 0, target, pass_only, seed, deal, clock, bots),
        play_game(specs, 1, target, pass_only, seed, deal, clock, bots),
    )


@dataclass(slots=True)
class Summary:
    """Aggregated results of a tournament, side A against side B."""

    names: tuple[str, str]
    matches: int
    a_wins: int
    hands_won: tuple[int, int]
    hands_drawn: int
    hands: int
    points: tuple[tuple[float, float, float], tuple[float, float, float]]
    diff: tuple[float, float, float]
    ms: tuple[list[float], list[float]]
    decisions: tuple[int, int]


def summarize(names: tuple[str, str], games: list[GameResult]) -> Summary:
    """Pool the games into the numbers of the table."""
    a_pts = [float(a) for g in games for a, _b in g.hands]
    b_pts = [float(b) for g in games for _a, b in g.hands]
    diffs = [a - b for a, b in zip(a_pts, b_pts, strict=True)]
    winners = [w for g in games for w in g.hand_winners]
    return Summary(
        names=names,
        matches=len(games),
        a_wins=sum(1 for g in games if g.a_won),
        hands_won=(winners.count(0), winners.count(1)),
        hands_drawn=winners.count(None),
        hands=len(winners),
        points=(mean_interval(a_pts), mean_interval(b_pts)),
        diff=mean_interval(diffs),
        ms=([t for g in games for t in g.ms[0]], [t for g in games for t in g.ms[1]]),
        decisions=(sum(g.decisions[0] for g in games), sum(g.decisions[1] for g in games)),
    )


def render(s: Summary, target: int, seed: int) -> str:
    """The result table and the one-line verdict (the last line)."""
    a, b = s.names
    lo, hi = wilson(s.a_wins, s.matches)
    rows = [
        f"{s.matches} matches to {target} ({s.matches // 2} duplicate deals), seed {seed}",
        "",
        "| side | matches won | win rate [95% CI] | hands won | points/hand [95% CI] | "
        "ms/choice p50 / p95 / max | choices / decisions |",
        "|---|---|---|---|---|---|---|",
    ]
    for side, name in enumerate((a, b)):
        won = s.a_wins if side == 0 else s.matches - s.a_wins
        wlo, whi = (lo, hi) if side == 0 else (1 - hi, 1 - lo)
        m, plo, phi = s.points[side]
        ms = s.ms[side]
        rows.append(
            f"| {name} | {won} | {100 * won / s.matches:.1f}% [{100 * wlo:.1f}-{100 * whi:.1f}]"
            f" | {s.hands_won[side]} of {s.hands} | {m:.1f} [{plo:.1f}-{phi:.1f}] | "
            f"{percentile(ms, 0.5):.1f} / {percentile(ms, 0.95):.1f} / {max(ms, default=0.0):.1f}"
            f" | {len(ms)} / {s.decisions[side]} |"
        )
    d, dlo, dhi = s.diff
    rows.append("")
    rows.append(
        f"drawn hands: {s.hands_drawn}; points/hand difference ({a} - {b}): "
        f"{d:+.1f} [{dlo:+.1f} to {dhi:+.1f}]"
    )
    rows.append(
        f"tournament: {a} vs {b}: {100 * s.a_wins / s.matches:.1f}% of {s.matches} matches "
        f"[{100 * lo:.1f}-{100 * hi:.1f}], {a} p95 {percentile(s.ms[0], 0.95):.0f} ms"
    )
    return "\n".join(rows)


def run_tournament(
    a: str,
    b: str,
    matches: int,
    target: int,
    seed: int,
    jobs: int = 1,
    pass_only: bool = False,
    clock: str = "wall",
    progress: bool = False,
    bots: Mapping[str, BotFactory] = BOTS,
) -> Summary:
    """Play ``matches`` matches (``matches // 2`` duplicate deals) and summarize them.

    ``progress`` prints a running tally to stderr after each deal (deals finish in order), so
    a long run that has to be stopped still tells what its first deals gave.
    """
    build_bot(a, bots)
    build_bot(b, bots)  # fail fast on a bad name, before any worker starts
    jobs_list: list[Job] = [
        ((a, b), target, pass_only, seed, i, clock, bots) for i in range(matches // 2)
    ]
    games: list[GameResult] = []
    if jobs > 1:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for pair in pool.imap(_play_pair, jobs_list, chunksize=1):
                games.extend(pair)
                if progress:
                    _tally(games, len(jobs_list))
    else:
        for job in jobs_list:
            games.extend(_play_pair(job))
            if progress:
                _tally(games, len(jobs_list))
    return summarize((a, b), games)


def _tally(games: list[GameResult], deals: int) -> None:
    wins = sum(1 for g in games if g.a_won)
    lo, hi = wilson(wins, len(games))
    d, dlo, dhi = mean_interval([float(a - b) for g in games for a, b in g.hands])
    print(
        f"deal {len(games) // 2}/{deals}: A won {wins} of {len(games)} "
        f"({100 * wins / len(games):.1f}% [{100 * lo:.1f}-{100 * hi:.1f}]), "
        f"points/hand A-B {d:+.1f} [{dlo:+.1f} to {dhi:+.1f}]",
        file=sys.stderr, flush=True,
    )


#: The Georgian match target when ``--target`` is not given.
DEFAULT_TARGET = 175


def run(args: argparse.Namespace, bots: Mapping[str, BotFactory] = BOTS) -> int:
    """Play the tournament the options ask for among ``bots``, print the table."""
    if args.game == "kozel":
        from kva.commands.tournament_kozel import run_kozel

        return run_kozel(args)
    if args.seats is not None or args.fish is not None or args.pairs:
        print("--seats, --fish and --pairs are Kozel's: add --game kozel", file=sys.stderr)
        return 2
    if args.target is None:
        args.target = DEFAULT_TARGET
    if args.matches < 2 or args.matches % 2:
        print("--matches must be an even number (each deal is played twice)", file=sys.stderr)
        return 2
    try:
        build_bot(args.a, bots)
        build_bot(args.b, bots)
    except (ValueError, TypeError) as exc:
        print(str(exc), file=sys.stderr)
        return 2
    summary = run_tournament(
        args.a, args.b, args.matches, args.target, args.seed, args.jobs, args.pass_only,
        args.clock, args.progress, bots,
    )
    if args.clock == "cpu":
        print("decision times below are CPU time of one core")
    print(f"tournament {args.a} vs {args.b}: " + render(summary, args.target, args.seed))
    return 0


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``kva tournament``."""
    parser = subparsers.add_parser(
        "tournament", help="measure one bot against another on duplicate deals"
    )
    add_arguments(parser)
    parser.set_defaults(func=run)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of a tournament (``kva tournament``'s, and the training tools' own)."""
    parser.add_argument(
        "--game", choices=("georgian", "kozel"), default="georgian",
        help="georgian (two players) or kozel (A against --seats minus one copies of B)",
    )
    parser.add_argument("--a", required=True, help="side A, e.g. hard or hard:playouts=200")
    parser.add_argument("--b", required=True, help="side B")
    parser.add_argument("--matches", type=int, default=400, help="even: each deal twice")
    parser.add_argument("--target", type=int, choices=TARGETS, default=None,
                        help=f"georgian: the match target (default {DEFAULT_TARGET})")
    parser.add_argument("--seed", type=int, default=1, help="same seed, same table")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (cores)")
    parser.add_argument("--pass-only", action="store_true", help="house rule: nobody draws")
    parser.add_argument("--seats", type=int, default=None,
                        help="kozel: players at the table, 2 to 4 (default 4)")
    parser.add_argument("--fish", choices=("all", "one"), default=None,
                        help="kozel: fish for all (default) or fish for one")
    parser.add_argument("--pairs", action="store_true", help="kozel: the pair game at four")
    parser.add_argument(
        "--clock", choices=("wall", "cpu"), default="wall",
        help="time decisions by wall clock (default) or by CPU time of one core",
    )
    parser.add_argument(
        "--progress", action="store_true",
        help="print a running tally to stderr after each deal",
    )
