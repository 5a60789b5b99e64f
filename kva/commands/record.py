"""``kva record verify FILE...`` and ``kva record show FILE``: check and replay match records.

Both games' records are read: a ``kozel/1`` record (by its ``format``) goes to :mod:`kva.kozel`,
anything else to the Georgian game's reader, which says what is wrong with it."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from kva import kozel
from kva.commands.record_kozel import kozel_names, render_kozel
from kva.rules import (
    FORMAT,
    Match,
    PublicMove,
    RecordError,
    hand_moves,
    load_record_text,
    tile_name,
    verify_record,
)
from kva.rules.engine import TILE_NAME

_PATH = re.compile(r"^hands\[(\d+)\](?:\.moves\[(\d+)\])?")


def describe_place(where: str) -> str:
    """``hands[1].moves[14].points`` -> ``hand 2, move 14 (hands[1].moves[14].points)``."""
    found = _PATH.match(where)
    if not found:
        return where or "document"
    hand, move = found.groups()
    place = f"hand {int(hand) + 1}" + (f", move {move}" if move is not None else "")
    return f"{place} ({where})"


def load(path: str) -> Any:
    """Read and parse one record file; a RecordError says what is wrong."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecordError("", "no such file") from None
    except IsADirectoryError:
        raise RecordError("", "is a directory, not a record file") from None
    except UnicodeDecodeError:
        raise RecordError("", "not UTF-8 text") from None
    except OSError as exc:
        raise RecordError("", f"cannot read: {exc.strerror}") from None
    return load_record_text(text)


def is_kozel(doc: Any) -> bool:
    """Whether a record is a Kozel one: the two formats differ by ``format``."""
    return isinstance(doc, dict) and doc.get("format") == kozel.FORMAT


def verify_any(doc: Any) -> None:
    """Verify a record of either game, told apart by its ``format``."""
    if is_kozel(doc):
        kozel.verify_record(doc)
    else:
        verify_record(doc)


def run_verify(args: argparse.Namespace) -> int:
    """Verify each file; print ``ok FILE`` or ``FILE: <place>: <problem>``."""
    bad = 0
    for path in args.files:
        try:
            verify_any(load(path))
        except RecordError as exc:
            bad += 1
            print(f"{path}: {describe_place(exc.where)}: {exc.problem}")
        else:
            print(f"ok {path}")
    return 1 if bad else 0


def _names(doc: dict[str, Any]) -> list[str]:
    players = doc.get("players")
    names = []
    for p in (0, 1):
        name = None
        if isinstance(players, list) and len(players) == 2 and isinstance(players[p], dict):
            name = players[p].get("name")
        names.append(str(name) if name else f"player {p}")
    if names[0] == names[1]:
        names = [f"{names[0]} #0", f"{names[1]} #1"]
    return names


def _move_text(move: PublicMove, names: list[str], score: list[int]) -> str:
    who = names[move.player]
    if move.kind == "draw":
        assert move.tile is not None
        return f"{who} draws {TILE_NAME[move.tile]}"
    if move.kind == "pass":
        return f"{who} passes"
    assert move.tile is not None
    tile = tile_name(move.tile, move.first)
    text = f"{who} opens {tile}" if move.kind == "open" else f"{who} plays {tile} on {move.end}"
    text = f"{text:<32} sum {move.ends_sum:>2}"
    if move.points:
        score[move.player] += move.points
        text += f"   +{move.points}  ({score[0]}-{score[1]})"
    return text


def render_match(match: Match, names: list[str]) -> str:
    """The whole match in text, move by move, with hand results and the running score."""
    bazaar = "pass only" if match.pass_only else "standard bazaar"
    lines = [f"Match to {match.target}, {bazaar}: {names[0]} (0) vs {names[1]} (1)"]
    score = [0, 0]
    for number, played in enumerate(match.hands, start=1):
        lines.append("")
        lines.append(f"Hand {number}: {names[played.opener]} opens")
        for p in (0, 1):
            tiles = " ".join(TILE_NAME[t] for t in played.deal.hands[p])
            lines.append(f"  {names[p]} holds {tiles}")
        lines.append("  bazaar " + " ".join(TILE_NAME[t] for t in played.deal.bazaar))
        # A finished match is public: every drawn tile is shown.
        for i, move in enumerate(hand_moves(played, None, reveal_draws=True)):
            lines.append(f"  {i:>3}. {_move_text(move, names, score)}")
        result = played.result
        if result is None:
            lines.append("  (hand in progress)")
            continue
        assert played.score_after is not None
        score = list(played.score_after)
        if result.end == "forfeit":
            text = (
                f"{names[1 - result.winner] if result.winner is not None else '?'} "
                f"forfeits ({result.reason}); {names[result.winner or 0]} wins the match"
            )
        elif result.winner is None:
            text = "fish, equal totals: a draw, nobody scores"
        else:
            kind = "domino" if result.end == "domino" else "fish"
            text = f"{kind}: {names[result.winner]} wins the hand and scores {result.points}"
        lines.append(f"  => {text}; score {score[0]}-{score[1]}")
    lines.append("")
    if match.winner is not None:
        lines.append(f"{names[match.winner]} wins the match {match.scores[0]}-{match.scores[1]}")
    else:
        lines.append(f"match in progress: {match.scores[0]}-{match.scores[1]}")
    return "\n".join(lines)


def run_show(args: argparse.Namespace) -> int:
    """Verify and print one record, move by move."""
    try:
        doc = load(args.file)
        if is_kozel(doc):
            played = kozel.verify_record(doc)
            print(render_kozel(played, kozel_names(doc, played.seats)))
            return 0
        match = verify_record(doc)
    except RecordError as exc:
        print(f"{args.file}: {describe_place(exc.where)}: {exc.problem}", file=sys.stderr)
        return 1
    print(render_match(match, _names(doc)))
    return 0


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``kva record verify`` and ``kva record show``."""
    record = subparsers.add_parser(
        "record", help=f"check and replay match records ({FORMAT}, {kozel.FORMAT})"
    )
    actions = record.add_subparsers(dest="record_command", metavar="ACTION")
    actions.required = True
    verify = actions.add_parser("verify", help="check records against every rule")
    verify.add_argument("files", nargs="+", metavar="FILE")
    verify.set_defaults(func=run_verify)
    show = actions.add_parser("show", help="replay a record in text, move by move")
    show.add_argument("file", metavar="FILE")
    show.set_defaults(func=run_show)
