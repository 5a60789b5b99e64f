"""``kva analyse RECORD.json [--player N]``: the post-game analysis in the terminal.

The same analysis the replay page shows (:mod:`kva.analysis.match`): every decision with a
real choice, each legal action's value from the deciding player's view only, the best action,
the loss of the action played and its mark, then a summary per player.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from kva.analysis.engine import ANALYSIS_PLAYOUTS
from kva.analysis.match import THRESHOLDS, analyse
from kva.rules import RecordError, load_record_text


def _unit(unit: str) -> str:
    return "pts" if unit == "points" else "% win"


def print_analysis(doc: Any, analysis: dict[str, Any], out: Any = None) -> None:
    """Print ``analysis`` of ``doc`` to ``out`` (standard output as it is when called: a default
    bound at import would keep a stream that a test runner has since closed)."""
    if out is None:
        out = sys.stdout
    names = [str((p or {}).get("name") or f"player {i}")
             for i, p in enumerate(doc.get("players") or [{}, {}])]
    for row in analysis["decisions"]:
        mark = f"  {row['mark'].upper()}" if row["mark"] else ""
        same = row["played"] == row["best"]
        best = "" if same else f"  best {row['best_text']}"
        print(f"hand {row['hand']} move {row['move'] + 1:>2}  P{row['player']}  "
              f"played {row['played_text']}{best}  loss {row['loss']:.1f} "
              f"{_unit(row['unit'])}{mark}", file=out)
        values = ", ".join(f"{v['text']} {v['value']:+.1f}" for v in row["values"])
        print(f"    {values}", file=out)
    print("", file=out)
    for s in analysis["summary"]:
        p = s["player"]
        name = names[p] if p < len(names) else f"player {p}"
        print(f"P{p} {name}: {s['decisions']} decisions, accuracy {s['accuracy']:.1f}%, "
              f"{s['points_lost_per_decision']:.2f} points lost per decision, "
              f"{s['win_lost_per_decision']:.2f}% win chance lost per decision near the target; "
              f"{s['inaccuracy']} inaccuracies, {s['mistake']} mistakes, "
              f"{s['blunder']} blunders", file=out)
    pts, win = THRESHOLDS["points"], THRESHOLDS["win%"]
    print(f"marks: loss >= {pts[0]:g}/{pts[1]:g}/{pts[2]:g} points or "
          f"{win[0]:g}/{win[1]:g}/{win[2]:g}% win chance: inaccuracy/mistake/blunder", file=out)


def run(args: argparse.Namespace) -> int:
    try:
        doc = load_record_text(Path(args.record).read_text(encoding="utf-8"))
    except OSError as exc:
        print(f"cannot read {args.record}: {exc}", file=sys.stderr)
        return 2
    except RecordError as exc:
        print(f"{args.record}: {exc}", file=sys.stderr)
        return 1
    players = (args.player,) if args.player is not None else (0, 1)
    started = time.process_time()
    try:
        analysis = analyse(doc, players, playouts=args.playouts)
    except (RecordError, ValueError) as exc:
        print(f"{args.record}: {exc}", file=sys.stderr)
        return 1
    print_analysis(doc, analysis)
    if args.time:
        print(f"cpu {time.process_time() - started:.1f} s for "
              f"{len(analysis['decisions'])} decisions", file=sys.stderr)
    return 0


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "analyse", help="analyse a finished match's record, decision by decision",
        description="Every decision with a real choice valued by the hard bot's search from the "
                    "deciding player's view only; marks and a per-player summary.")
    p.add_argument("record", help="a georgian-domino/1 record (JSON)")
    p.add_argument("--player", type=int, choices=(0, 1), default=None,
                   help="only this player's decisions")
    p.add_argument("--playouts", type=int, default=ANALYSIS_PLAYOUTS,
                   help=f"playouts per decision (default {ANALYSIS_PLAYOUTS})")
    p.add_argument("--time", action="store_true", help="print the CPU time used")
    p.set_defaults(func=run)
