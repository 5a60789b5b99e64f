"""The profile's rating graph: a server-rendered SVG polyline, no script."""

from __future__ import annotations

import re

from kva.web.profiles import rating_graph


def _points(svg: str) -> list[tuple[float, float]]:
    found = re.search(r'<polyline class="line" fill="none" points="([^"]+)"', svg)
    assert found
    return [tuple(map(float, p.split(","))) for p in found.group(1).split()]  # type: ignore[misc]


def test_the_line_follows_the_ratings_left_to_right_higher_is_up() -> None:
    svg = str(rating_graph([1500, 1662, 1600, 1450], "Rating <history>"))
    assert svg.startswith("<svg") and "<script" not in svg
    assert 'data-points="4"' in svg
    pts = _points(svg)
    assert [x for x, _ in pts] == sorted(x for x, _ in pts) and len(set(pts)) == 4
    ys = [y for _, y in pts]
    assert ys[1] < ys[2] < ys[0] < ys[3]  # 1662 highest on screen, 1450 lowest
    assert all(0 <= y <= 160 for y in ys)
    assert "Rating &lt;history&gt;" in svg and "<history>" not in svg
    labels = re.findall(r'text-anchor="end">(\d+)</text>', svg)
    assert int(labels[0]) > 1662 and int(labels[1]) < 1450


def test_a_single_point_and_a_flat_line_are_drawn_and_nothing_is_empty() -> None:
    assert str(rating_graph([], "x")) == ""
    one = _points(str(rating_graph([1500], "x")))
    assert len(one) == 1
    flat = _points(str(rating_graph([1500, 1500, 1500], "x")))
    assert len({y for _, y in flat}) == 1
