"""The lesson on a phone, upright and sideways: after an answer the verdict and its Next
button are on the screen, at every step, without the player scrolling."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kva.learn.lessons import STEPS
from tests.e2e.e2e_helpers import tid
from tests.e2e.test_e2e_learn import _play, _right

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/ui-words-shots")
IN_VIEW = """(ids) => ids.every((id) => {
  const r = document.getElementById(id).getBoundingClientRect();
  return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;
})"""


@pytest.mark.parametrize(("width", "height", "lang"), [
    (375, 667, "ka"), (667, 375, "ka"), (375, 667, "ru"), (667, 375, "ru")])
def test_the_verdict_and_next_are_on_screen_after_every_answer(
    new_context: Callable[..., Any], width: int, height: int, lang: str
) -> None:
    page = new_context(locale=lang, viewport={"width": width, "height": height},
                       reduced_motion="reduce", has_touch=True, is_mobile=True).new_page()
    page.goto("/learn")
    for n, step in enumerate(STEPS, start=1):
        page.wait_for_function("n => document.getElementById('learn').dataset.step === n",
                               arg=str(n))
        page.wait_for_selector('[data-testid="learn-tile"], [data-testid="learn-draw"]')
        _play(page, _right(step))
        page.wait_for_function(
            "() => document.querySelector('[data-testid=learn-feedback]').dataset.state === 'ok'")
        page.wait_for_function(IN_VIEW, arg=["learn-feedback", "learn-next"], timeout=3000)
        if n in (1, len(STEPS)):
            SHOTS.mkdir(exist_ok=True)
            page.screenshot(path=str(SHOTS / f"learn-{lang}-{width}x{height}-step{n}.png"))
        page.locator(tid("learn-next")).click()
    page.locator(tid("learn-done")).wait_for(state="visible")
