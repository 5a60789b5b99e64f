"""``kva tournament``: measure one bot against another on duplicate deals.

Each deal (a seeded stream of hand deals) is played twice with the seats swapped, so luck of
the tiles cancels out between the two games. Every decision is timed. The result table gives
the match win rate with its Wilson 95% interval, hands won, mean points per hand with a 95%
interval, and milliseconds per decision (p50/p95/max, over decisions with a real choice) per
side. Same seed, same table: bots are seeded per game and budgeted in playouts, not time.

A bot is named with optional settings: ``hard``, ``hard:playouts=200`` (for ``hard`` and its
measurement variants, fields of their :class:`~kva.bots.hard_config.HardConfig`). ``seer``
(measurement only) is shown its opponent's hand through ``SeerBot.reveal`` before each of its
decisions, here and nowhere else.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import statistics
import sys
import time
from dataclasses import dataclass, field

from kva.bots import BOTS, MEASUREMENT_BOTS, Bot, HardBot
from kva.bots.hard_v1 import SeerBot
from kva.rules import TARGETS, Match, player_view


def build_bot(spec: str) -> Bot:
    """A bot from ``name`` or ``name:key=value,key=value`` (numeric settings: a ``hard`` bot's
    :class:`~kva.bots.hard_config.HardConfig` fields over its preset, another bot's constructor
    arguments). ValueError names an unknown bot; TypeError an unknown setting."""
    name, _, options = spec.partition(":")
    factories = {**BOTS, **MEASUREMENT_BOTS}
    if name not in factories:
        raise ValueError(f"unknown bot {name!r}; known: {', '.join(sorted(factories))}")
    settings: dict[str, float] = {}
    for item in filter(None, options.split(",")):
        key, _, raw = item.partition("=")
        settings[key.strip()] = float(raw) if "." in raw else int(raw)
    bot = factories[name]()
    if not settings:
        return bot
    if isinstance(bot, HardBot):
        return type(bot).with_settings(**settings)
    return factories[name](**settings)


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
) -> GameResult:
    """Play one match with side A in seat ``a_seat``; deals come from ``(seed, deal)`` only.

    ``clock`` times decisions by wall time (``wall``: what a waiting player feels) or by the
    process's CPU time (``cpu``: one core's work, unaffected by other load on the machine).
    """
    now = time.process_time if clock == "cpu" else time.perf_counter
    bots = [build_bot(specs[0]), build_bot(specs[1])]  # by side: A, B
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
        bot = bots[side]
        view = player_view(match, seat)
        if isinstance(bot, SeerBot):
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


Job = tuple[tuple[str, str], int, bool, int, int, str]


def _play_pair(job: Job) -> tuple[GameResult, GameResult]:
    specs, target, pass_only, seed, deal, clock = job
    return (
        play_game(specs, 0, target, pass_only, seed, deal, clock),
        play_game(specs, 1, target, pass_only, seed, deal, clock),
    )


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a proportion (robust near 0 and 1, unlike p ± z·se)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(values: list[float], z: float = 1.96) -> tuple[float, float, float]:
    """Mean with a normal-approximation 95% interval."""
    if not values:
        return 0.0, 0.0, 0.0
    m = statistics.fmean(values)
    if len(values) < 2:
        return m, m, m
    half = z * statistics.stdev(values) / math.sqrt(len(values))
    return m, m - half, m + half


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) by nearest rank; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[k]


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
) -> Summary:
    """Play ``matches`` matches (``matches // 2`` duplicate deals) and summarize them.

    ``progress`` prints a running tally to stderr after each deal (deals finish in order), so
    a long run that has to be stopped still tells what its first deals gave.
    """
    build_bot(a)
    build_bot(b)  # fail fast on a bad name, before any worker starts
    jobs_list: list[Job] = [
        ((a, b), target, pass_only, seed, i, clock) for i in range(matches // 2)
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


def run(args: argparse.Namespace) -> int:
    """Parse the options, play, print the table."""
    if args.matches < 2 or args.matches % 2:
        print("--matches must be an even number (each deal is played twice)", file=sys.stderr)
        return 2
    try:
        build_bot(args.a)
        build_bot(args.b)
    except (ValueError, TypeError) as exc:
        print(str(exc), file=sys.stderr)
        return 2
    summary = run_tournament(
        args.a, args.b, args.matches, args.target, args.seed, args.jobs, args.pass_only,
        args.clock, args.progress,
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
    parser.add_argument("--a", required=True, help="side A, e.g. hard or hard:playouts=200")
    parser.add_argument("--b", required=True, help="side B")
    parser.add_argument("--matches", type=int, default=400, help="even: each deal twice")
    parser.add_argument("--target", type=int, choices=TARGETS, default=175)
    parser.add_argument("--seed", type=int, default=1, help="same seed, same table")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (cores)")
    parser.add_argument("--pass-only", action="store_true", help="house rule: nobody draws")
    parser.add_argument(
        "--clock", choices=("wall", "cpu"), default="wall",
        help="time decisions by wall clock (default) or by CPU time of one core",
    )
    parser.add_argument(
        "--progress", action="store_true",
        help="print a running tally to stderr after each deal",
    )
    parser.set_defaults(func=run)
