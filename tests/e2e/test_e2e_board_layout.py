"""The board's line stays readable on a phone: over every position of long replayed matches
its tiles are at least 24 px on their short side at 375 x 667 (the line winds at the felt's
edges, each arm of the stavka in its own quarter), no tile lies on another, and nothing leaves
the felt."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.board_help import REPLAY_SURVEY_JS, phone_context, stored_matches
from tests.e2e.e2e_helpers import shot

pytestmark = pytest.mark.browser

#: Random legal play from these seeds: matches of many hands, long lines and four-armed stavkas.
SEEDS = [3, 11, 19, 27, 35, 43]
READABLE_PX = 24


def _survey(new_context: Callable[..., Any], server: Any, size: str,
            board_size: str = "") -> list[dict[str, Any]]:
    page = phone_context(new_context, server, size, "ka").new_page()
    if board_size:  # chosen on the settings page, as a player does
        page.goto("/settings")
        page.locator(f'[data-testid="pref-board-{board_size}"]').check()
        page.wait_for_function("s => document.documentElement.dataset.prefBoard === s",
                               arg=board_size)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    results = []
    for match_id in stored_matches(server, SEEDS):
        page.goto(f"/m/{match_id}/replay")
        page.locator("#replay[data-position]").wait_for(state="attached")
        results.append(page.evaluate(REPLAY_SURVEY_JS))
    page.evaluate("document.dispatchEvent(new CustomEvent('kva:replay-go', { detail: 1e9 }))")
    shot(page, f"board-layout-{size}-{board_size or 'normal'}-last")
    assert errors == []
    return results


def test_board_tiles_stay_readable_on_a_phone(
    new_context: Callable[..., Any], server: Any
) -> None:
    results = _survey(new_context, server, "phone")
    assert sum(r["positions"] for r in results) > 300
    smallest = min(r["smallest"] for r in results)
    print(f"smallest board tile at 375 x 667: {smallest:.1f} px")
    assert smallest >= READABLE_PX, [(r["smallest"], r["smallestAt"]) for r in results]
    assert [r["outside"] for r in results if r["outside"]] == []


@pytest.mark.parametrize("size", ["phone", "landscape", "desktop"])
def test_no_board_tile_lies_on_another(
    new_context: Callable[..., Any], server: Any, size: str
) -> None:
    results = _survey(new_context, server, size)
    assert [r["overlaps"][:5] for r in results if r["overlaps"]] == []
    assert [r["outside"][:5] for r in results if r["outside"]] == []


def test_the_small_board_size_shows_the_whole_line_on_the_felt(
    new_context: Callable[..., Any], server: Any
) -> None:
    normal = _survey(new_context, server, "phone")
    small = _survey(new_context, server, "phone", "small")
    assert sum(r["grows"] for r in normal) > 0  # long lines outgrow the felt at readable size
    assert [r["grows"] for r in small] == [0] * len(SEEDS)
    assert [r["outside"] for r in small if r["outside"]] == []


def test_the_large_board_size_draws_bigger_tiles(
    new_context: Callable[..., Any], server: Any
) -> None:
    normal = [r["smallest"] for r in _survey(new_context, server, "phone")]
    large = _survey(new_context, server, "phone", "large")
    sizes = [r["smallest"] for r in large]
    print(f"smallest board tiles at 375 x 667, normal: {normal}, large: {sizes}")
    # A four-armed line on a narrow phone may need the normal size, never less.
    assert all(b >= a - 0.5 for a, b in zip(normal, sizes, strict=True)), (normal, sizes)
    assert max(sizes) >= 1.2 * max(normal)
    assert [r["overlaps"][:5] for r in large if r["overlaps"]] == []
