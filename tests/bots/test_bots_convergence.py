"""The budget-regret measurement (tools/research/convergence.py) scores picks by the reference
values."""

from tools.research.convergence import measure, sample_positions


def test_regret_is_never_negative_and_zero_exactly_when_the_pick_is_the_reference_best() -> None:
    views = sample_positions(4)
    assert len(views) == 4 and all(len(v.legal) > 1 for v in views)
    result = measure(views, reference=60, budgets=[6, 30], seeds=2)
    for regrets in result.values():
        for unit, agree in regrets.agree.items():
            regret = regrets.regret[unit]
            assert len(agree) == len(regret) > 0
            for same, loss in zip(agree, regret, strict=True):
                assert loss >= 0.0
                assert same == (loss == 0.0)
