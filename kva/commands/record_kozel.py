"""``kva record show`` for a ``kozel/1`` record: the match in text, move by move."""

from __future__ import annotations

from typing import Any

from kva.kozel import Match, moves_to_record
from kva.rules.engine import TILE_NAME


def kozel_names(doc: dict[str, Any], seats: int) -> list[str]:
    """Each seat's name from ``players`` (``seat N`` where missing), made distinct."""
    players = doc.get("players")
    names = []
    for p in range(seats):
        entry = players[p] if isinstance(players, list) and p < len(players) else None
        name = entry.get("name") if isinstance(entry, dict) else None
        names.append(str(name) if name else f"seat {p}")
    if len(set(names)) < seats:
        names = [f"{name} #{p}" for p, name in enumerate(names)]
    return names


def _sides_text(match: Match, names: list[str]) -> list[str]:
    return [" & ".join(names[p] for p in side) for side in match.sides]


def render_kozel(match: Match, names: list[str]) -> str:
    """The whole match: deals (the voided ones too), every move as dealt and drawn, each hand's
    counts and scores, and the козёл. A finished match is public, so drawn tiles are shown."""
    sides = _sides_text(match, names)
    pairs = ", pairs" if match.options.pairs else ""
    lines = [f"Kozel to {match.options.limit}, fish for {match.options.fish}{pairs}: "
             + ", ".join(f"{name} ({p})" for p, name in enumerate(names))]
    for played in match.hands:
        lines.append("")
        for v in played.voided:
            lines.append(f"Hand {played.number + 1}: deal voided ({v.why}, {names[v.seat]})")
        lines.append(f"Hand {played.number + 1}: {names[played.opener]} opens")
        for p, hand in enumerate(played.deal.hands):
            lines.append(f"  {names[p]} holds {' '.join(TILE_NAME[t] for t in hand)}")
        if played.deal.bazaar:
            lines.append("  bazaar " + " ".join(TILE_NAME[t] for t in played.deal.bazaar))
        for i, move in enumerate(moves_to_record(played.state.log)):
            who = names[move["p"]]
            if "draw" in move:
                text = f"{who} draws {move['draw']}"
            elif "knock" in move:
                text = f"{who} knocks"
            elif "end" not in move:
                text = f"{who} opens {move['play']}"
            else:
                text = f"{who} plays {move['play']} on {move['end']}"
            lines.append(f"  {i:>3}. {text}")
        result = played.result
        if result is None:
            lines.append("  (hand in progress)")
            continue
        head = {"out": f"{names[result.by]} goes out", "fish": f"fish by {names[result.by]}",
                "drawn-fish": f"fish by {names[result.by]}, tied: carried +{result.carry}",
                "forfeit": f"{names[result.by]} forfeits ({result.reason})"}[result.end]
        table = "; ".join(f"{sides[s]}: count {result.counts[s]}, score {played.score[s]}"
                          + (f" +{played.remembered[s]}" if played.remembered[s] else "")
                          for s in range(len(sides)))
        lines.append(f"  => {head}; {table}")
    lines.append("")
    if match.over:
        goats = ", ".join(sides[s] for s in match.losers)
        lines.append(f"козёл: {goats}; final " + ", ".join(
            f"{sides[s]} {match.score[s]}" for s in range(len(sides))))
    else:
        lines.append("match in progress")
    return "\n".join(lines)
