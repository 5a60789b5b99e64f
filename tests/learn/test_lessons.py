"""The lesson's steps: real positions, checked by the engine, each with a right and a wrong
answer and an explanation in every language."""

from __future__ import annotations

import pytest

from kva.i18n import LOCALES, translations
from kva.learn.lessons import STEPS, check, instruction_args
from kva.learn.positions import action_text
from kva.rules import DRAW, PASS
from kva.rules.engine import OPEN_BASE, TILE_NAME


def _message(code: int) -> dict[str, object]:
    if code == DRAW:
        return {"type": "draw"}
    if code == PASS:
        return {"type": "pass"}
    if code >= OPEN_BASE:
        return {"type": "play", "tile": TILE_NAME[(code - OPEN_BASE) >> 1]}
    return {"type": "play", "tile": TILE_NAME[code >> 2], "end": "LRUD"[code & 3]}


def test_ten_to_fifteen_steps_in_order_of_discovery() -> None:
    slugs = [s.slug for s in STEPS]
    assert 10 <= len(slugs) + 1 <= 15  # + the closing "play your first match"
    assert slugs.index("match") < slugs.index("opener") < slugs.index("stavka") \
        < slugs.index("doubles") < slugs.index("draw") < slugs.index("pass") \
        < slugs.index("domino") < slugs.index("zero") < slugs.index("fish") \
        < slugs.index("target")


@pytest.mark.parametrize("step", STEPS, ids=lambda s: s.slug)
def test_each_step_has_a_right_answer_and_explains_wrong_ones(step) -> None:  # type: ignore[no-untyped-def]
    state = step.position.state()
    assert state.turn == 0 and not state.over
    legal = state.legal_codes()
    verdicts = {code: check(step, _message(code)) for code in legal}
    assert any(v.ok for v in verdicts.values()), step.slug
    for code, v in verdicts.items():
        assert v.legal and v.after is not None, action_text(code)
        if not v.ok:
            assert v.message, f"{step.slug}: {action_text(code)} needs an explanation"
    # Every illegal action is explained too: a tile that does not fit, a draw, a pass.
    illegal = [c for c in [DRAW, PASS] if c not in legal]
    hand = [t for t in range(28) if state.hands[0] >> t & 1]
    for t in hand:
        if all(c >> 2 != t for c in legal if c < OPEN_BASE) and state.placed:
            illegal.append(t << 2)
    assert illegal or step.slug == "opener"
    for code in illegal:
        v = check(step, _message(code))
        assert not v.ok and not v.legal and v.message
    for locale in LOCALES:
        _ = translations(locale).gettext
        assert _(step.instruction) % instruction_args(step)
        for v in [*verdicts.values(), *(check(step, _message(c)) for c in illegal)]:
            if v.message:
                assert _(v.message) % v.args


def test_the_steps_say_what_the_engine_does() -> None:
    by = {s.slug: s for s in STEPS}
    v = check(by["opener"], {"type": "play", "tile": "5-5"})
    assert v.ok and v.after is not None and v.after.points[0] == 10
    v = check(by["opener"], {"type": "play", "tile": "4-6"})
    assert not v.ok and v.legal and v.after is not None and v.after.points[0] == 0
    v = check(by["pass"], {"type": "draw"})
    assert not v.legal and "never drawn" in v.message
    v = check(by["domino"], {"type": "play", "tile": "6-6"})
    assert v.ok and v.after is not None and v.after.end == "domino"
    assert v.args["pips"] == 9 and v.args["end_points"] == 10
    v = check(by["zero"], {"type": "play", "tile": "1-1"})
    assert v.ok and v.args["end_points"] == 10
    v = check(by["fish"], {"type": "play", "tile": "1-3", "end": "R"})
    assert v.ok and v.after is not None and v.after.end == "fish" and v.args["end_points"] == 45
    v = check(by["fish"], {"type": "play", "tile": "1-3", "end": "L"})
    assert not v.ok and v.legal
    v = check(by["target"], {"type": "play", "tile": "0-5", "end": "L"})
    assert v.ok and v.args["total"] == 175 and v.after is not None and not v.after.over
    v = check(by["match"], {"type": "play", "tile": "0-0"})
    assert not v.legal and v.args == {"tile": "0-0", "a": 0}
