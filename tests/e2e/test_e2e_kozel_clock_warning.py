"""The last seconds of a Kozel player's own clock, as at the Georgian table: their clock turns
red, and with sound on they hear a beep each second and feel a vibration at ten. The others'
clocks, not running, stay as they are."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.e2e_helpers import tid
from tests.e2e.kozel_help import start_kozel

pytestmark = pytest.mark.browser

#: Every oscillator started (its wave and frequency) and every vibration asked for, kept.
SPY = """
window.__tones = [];
window.__buzz = [];
const start = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...args) {
  window.__tones.push(`${this.type} ${this.frequency.value}`);
  return start.apply(this, args);
};
Object.defineProperty(Navigator.prototype, "vibrate", {
  configurable: true, value: (pattern) => { window.__buzz.push(pattern); return true; },
});
"""

#: The warning's tone in the last ten seconds (sound.js, "warn"; no other sound is this one).
WARN_TONE = "square 880"


def _own_time_nearly_out(route: Any) -> None:
    """Every state reaches the page as if the player's own time ran, 10.4 s left in all."""
    server = route.connect_to_server()

    def to_page(message: str | bytes) -> None:
        msg = json.loads(message)
        if msg.get("type") == "state" and msg.get("you") is not None and msg.get("clock"):
            seats = len(msg["clock"]["left"])
            msg["clock"] = {**msg["clock"], "seat": msg["you"], "running_ms": 10_400,
                            "move_ms": 0, "left": [0] * seats, "flagged": None}
            message = json.dumps(msg)
        route.send(message)

    server.on_message(to_page)


def test_a_players_last_seconds_turn_their_clock_red_with_a_beep_and_a_buzz(
        new_context: Callable[..., Any], server: Any) -> None:
    context = new_context()
    context.add_init_script(SPY)
    page = context.new_page()
    page.route_web_socket(re.compile(r"/ws/m/"), _own_time_nearly_out)
    start_kozel(page, clock="blitz")
    sound = page.locator(tid("clock-sound"))
    sound.click()  # sound on, and the gesture a browser wants before it plays any
    assert sound.get_attribute("aria-pressed") == "true"
    page.wait_for_function(
        f"() => window.__tones.includes({json.dumps(WARN_TONE)}) && window.__buzz.length > 0",
        timeout=10_000)
    assert set(page.evaluate("window.__buzz")) == {200}
    mine = page.locator(f'{tid("kozel-me")} {tid("kozel-clock")}')
    assert "k-low" in (mine.get_attribute("class") or "").split()
    others = page.locator(f'{tid("kozel-others")} {tid("kozel-clock")}')
    assert others.count() >= 1
    for clock in others.all():
        assert "k-low" not in (clock.get_attribute("class") or "").split()
