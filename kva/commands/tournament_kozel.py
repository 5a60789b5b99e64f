"""``kva tournament --game kozel``: one Kozel bot against N−1 copies of another, duplicate deals.

Each deal sequence (a seeded stream of shuffles, one per hand and redeal) is played once for
every seat bot A can take, the other seats held by bot B, so the luck of the tiles is shared out
evenly between A and B. A's goat rate (the share of matches in which A's side reached the limit,
kozel.md §5.7) comes with its Wilson 95% interval and A's mean final score with a normal 95%
interval; every decision is timed, and p50/p95/max milliseconds over decisions with a real
choice are shown per bot. An equal bot is the goat in about 1/N of the matches (a little more:
two sides can pass the limit in the same hand). Same seed, same table: deals and bots are seeded
per match, and the search bot is budgeted in playouts, not time.

Bots are named like ``hard`` or ``hard:playouts=600`` (settings of
:class:`~kva.bots.kozel.HardSettings`).
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from dataclasses import dataclass, field

from kva.bots.kozel import KOZEL_BOTS, HardBot, KozelBot
from kva.commands.intervals import mean_interval, percentile, wilson
from kva.kozel import Deal, Match, Options, seat_view


def build_kozel_bot(spec: str) -> KozelBot:
    """A Kozel bot from ``name`` or ``name:key=value,…`` (``hard``'s settings). ValueError names
    an unknown bot; TypeError an unknown setting or a bot that takes none."""
    name, _, options = spec.partition(":")
    if name not in KOZEL_BOTS:
        raise ValueError(f"unknown Kozel bot {name!r}; known: {', '.join(sorted(KOZEL_BOTS))}")
    settings: dict[str, float] = {}
    for item in filter(None, options.split(",")):
        key, _, raw = item.partition("=")
        try:
            settings[key.strip()] = float(raw)
        except ValueError:
            raise ValueError(f"setting {key.strip()!r} needs a number, not {raw!r}") from None
    if not settings:
        return KOZEL_BOTS[name]()
    if name != "hard":
        raise TypeError(f"the Kozel bot {name!r} has no settings")
    return HardBot.with_settings(**settings)


def seatings(seats: int) -> list[int]:
    """The seats bot A takes over one deal sequence: every one, in order."""
    return list(range(seats))


@dataclass(slots=True)
class KozelGame:
    """One match from bot A's point of view: A's seat, the first hand's deal, whether A's side
    was the goat, its final score, how many of B's sides were goats, and each bot's decision
    times (ms, decisions with a real choice) and decision count."""

    a_seat: int
    first_deal: Deal
    a_goat: bool
    a_score: int
    b_goats: int
    b_sides: int
    ms: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))
    decisions: tuple[int, int] = (0, 0)


@dataclass(frozen=True, slots=True)
class KozelSetup:
    """What every match of a tournament shares."""

    a: str
    b: str
    seats: int
    fish: str
    pairs: bool
    seed: int
    clock: str = "wall"


def play_kozel_game(setup: KozelSetup, deal: int, a_seat: int) -> KozelGame:
    """Play deal sequence ``deal`` to the end with bot A in ``a_seat`` and B in every other.

    Decisions are timed by wall time (``setup.clock == "wall"``: what a waiting player feels)
    or by the process's CPU time (``cpu``: one core's work, whatever else the machine runs).
    """
    now = time.process_time if setup.clock == "cpu" else time.perf_counter
    options = Options(fish=setup.fish, pairs=setup.pairs)
    match = Match(setup.seats, options, rng=random.Random(f"kozel/{setup.seed}/{deal}"))
    bots = [build_kozel_bot(setup.a if p == a_seat else setup.b) for p in range(setup.seats)]
    # A seat's random stream does not depend on which bot sits there: a bot against copies of
    # itself then plays the very same match in every seating.
    rngs = [random.Random(f"kozel/{setup.seed}/{deal}/seat{p}") for p in range(setup.seats)]
    ms: tuple[list[float], list[float]] = ([], [])
    counted = [0, 0]
    while not match.over:
        seat = match.turn
        assert seat is not None
        view = seat_view(match, seat)
        who = 0 if seat == a_seat else 1
        start = now()
        code = bots[seat].choose(view, rngs[seat])
        elapsed = (now() - start) * 1000.0
        counted[who] += 1
        if len(view.legal) > 1:
            ms[who].append(elapsed)
        match.apply(code, seat)  # checked: an illegal bot move raises here
    a_side = match.side_of[a_seat]
    b_sides = [s for s in range(len(match.sides)) if s != a_side]
    return KozelGame(
        a_seat=a_seat, first_deal=match.hands[0].deal, a_goat=a_side in match.losers,
        a_score=match.score[a_side],
        b_goats=sum(1 for s in b_sides if s in match.losers), b_sides=len(b_sides),
        ms=ms, decisions=(counted[0], counted[1]),
    )


def _play_deal(job: tuple[KozelSetup, int]) -> list[KozelGame]:
    setup, deal = job
    return [play_kozel_game(setup, deal, seat) for seat in seatings(setup.seats)]


@dataclass(frozen=True, slots=True)
class KozelSummary:
    """A tournament's numbers: A's goats and final scores, B's goats over its sides, times."""

    setup: KozelSetup
    matches: int
    a_goats: int
    a_scores: tuple[float, float, float]
    b_goats: int
    b_sides: int
    ms: tuple[list[float], list[float]]
    decisions: tuple[int, int]


def summarize_kozel(setup: KozelSetup, games: list[KozelGame]) -> KozelSummary:
    """Pool the matches into the numbers of the table."""
    return KozelSummary(
        setup=setup, matches=len(games), a_goats=sum(g.a_goat for g in games),
        a_scores=mean_interval([float(g.a_score) for g in games]),
        b_goats=sum(g.b_goats for g in games), b_sides=sum(g.b_sides for g in games),
        ms=([t for g in games for t in g.ms[0]], [t for g in games for t in g.ms[1]]),
        decisions=(sum(g.decisions[0] for g in games), sum(g.decisions[1] for g in games)),
    )


def run_kozel_tournament(setup: KozelSetup, matches: int, jobs: int = 1,
                         progress: bool = False) -> KozelSummary:
    """Play ``matches`` matches (``matches // seats`` deal sequences, each in every seating)."""
    build_kozel_bot(setup.a)
    build_kozel_bot(setup.b)  # fail fast on a bad name, before any worker starts
    work = [(setup, deal) for deal in range(matches // setup.seats)]
    games: list[KozelGame] = []
    if jobs > 1:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for played in pool.imap(_play_deal, work, chunksize=1):
                games.extend(played)
                if progress:
                    _tally(games, len(work), setup.seats)
    else:
        for job in work:
            games.extend(_play_deal(job))
            if progress:
                _tally(games, len(work), setup.seats)
    return summarize_kozel(setup, games)


def _tally(games: list[KozelGame], deals: int, seats: int) -> None:
    goats = sum(g.a_goat for g in games)
    lo, hi = wilson(goats, len(games))
    print(f"deal {len(games) // seats}/{deals}: A goat in {goats} of {len(games)} "
          f"({100 * goats / len(games):.1f}% [{100 * lo:.1f}-{100 * hi:.1f}])",
          file=sys.stderr, flush=True)


def render_kozel(s: KozelSummary) -> str:
    """The result table and the one-line verdict (the last line)."""
    setup = s.setup
    n = setup.seats
    rule = f"fish {setup.fish}" + (", pairs" if setup.pairs else "")
    lo, hi = wilson(s.a_goats, s.matches)
    blo, bhi = wilson(s.b_goats, s.b_sides)
    m, mlo, mhi = s.a_scores
    rows = [
        f"Kozel, {n} seats, {rule}: {s.matches} matches ({s.matches // n} deal sequences, "
        f"each with A in every seat), seed {setup.seed}",
        "",
        "| bot | goat rate [95% CI] | ms/choice p50 / p95 / max | choices / decisions |",
        "|---|---|---|---|",
    ]
    for who, name, goats, total, (glo, ghi) in (
        (0, f"A {setup.a}", s.a_goats, s.matches, (lo, hi)),
        (1, f"B {setup.b} (per side)", s.b_goats, s.b_sides, (blo, bhi)),
    ):
        ms = s.ms[who]
        rows.append(
            f"| {name} | {100 * goats / max(1, total):.1f}% [{100 * glo:.1f}-{100 * ghi:.1f}] | "
            f"{percentile(ms, 0.5):.1f} / {percentile(ms, 0.95):.1f} / "
            f"{max(ms, default=0.0):.1f} | {len(ms)} / {s.decisions[who]} |"
        )
    rows.append("")
    rows.append(f"A's mean final score: {m:.1f} [{mlo:.1f}-{mhi:.1f}]; an equal bot is the goat "
                f"in about {100 / len(_sides(setup)):.0f}% of the matches")
    rows.append(
        f"tournament: {setup.a} vs {n - 1} x {setup.b}: A goat {100 * s.a_goats / s.matches:.1f}%"
        f" of {s.matches} matches [{100 * lo:.1f}-{100 * hi:.1f}], mean score {m:.1f} "
        f"[{mlo:.1f}-{mhi:.1f}], p95 {setup.a} {percentile(s.ms[0], 0.95):.0f} ms, "
        f"{setup.b} {percentile(s.ms[1], 0.95):.0f} ms"
    )
    return "\n".join(rows)


def _sides(setup: KozelSetup) -> tuple[tuple[int, ...], ...]:
    return Options(fish=setup.fish, pairs=setup.pairs).sides(setup.seats)


def run_kozel(args: argparse.Namespace) -> int:
    """``kva tournament --game kozel``: check the options, play, print the table."""
    if args.target is not None or args.pass_only:
        print("--target and --pass-only are Georgian rules: Kozel plays to 101",
              file=sys.stderr)
        return 2
    seats = 4 if args.seats is None else args.seats
    fish = "all" if args.fish is None else args.fish
    if seats not in (2, 3, 4):
        print("--seats must be 2, 3 or 4", file=sys.stderr)
        return 2
    if args.pairs and seats != 4:
        print("--pairs needs --seats 4", file=sys.stderr)
        return 2
    if args.matches < seats or args.matches % seats:
        print(f"--matches must be a multiple of --seats ({seats}): each deal sequence is "
              "played once with A in every seat", file=sys.stderr)
        return 2
    try:
        build_kozel_bot(args.a)
        build_kozel_bot(args.b)
    except (ValueError, TypeError) as exc:
        print(str(exc), file=sys.stderr)
        return 2
    setup = KozelSetup(args.a, args.b, seats, fish, args.pairs, args.seed, args.clock)
    summary = run_kozel_tournament(setup, args.matches, args.jobs, args.progress)
    if args.clock == "cpu":
        print("decision times below are CPU time of one core")
    print(f"tournament {args.a} vs {args.b}: " + render_kozel(summary))
    return 0
