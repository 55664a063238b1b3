"""OpenVINO's LPT unit tests as data (fixtures/lpt-cases): our pipeline must reproduce them.

Each case is checked twice: the structure of the transformed graph against the expected
graph, and (marked slow: it compiles with OpenVINO) its numerics against the input graph.
Cases that do not pass yet are listed in known_failing_cases.txt and xfail strictly, so a
case that starts passing fails until the list is regenerated with update_known_failures.py.
"""
from __future__ import annotations

import pytest

from casekit.dsl import case_ids
from casekit.runner import check_numerics, check_structure, read_known_failures, skip_reason

KNOWN = read_known_failures()
CASE_IDS = case_ids()


def _params(kind: str) -> list:
    reason = f"listed in known_failing_cases.txt ({kind}); regenerate with tests/update_known_failures.py"
    return [pytest.param(case_id, id=case_id,
                         marks=[pytest.mark.xfail(strict=True, reason=reason)] if (kind, case_id) in KNOWN else [])
            for case_id in CASE_IDS]


def test_known_failures_name_real_cases() -> None:
    stale = sorted(case_id for _, case_id in KNOWN if case_id not in set(CASE_IDS))
    assert not stale, f"known_failing_cases.txt names cases that do not exist: {stale}"


@pytest.mark.parametrize("case_id", _params("structure"))
def test_case_structure(case_id: str) -> None:
    mismatch = check_structure(case_id)
    assert mismatch is None, mismatch


@pytest.mark.slow
@pytest.mark.parametrize("case_id", _params("numerics"))
def test_case_numerics(case_id: str) -> None:
    reason = skip_reason(case_id)
    if reason is not None:
        pytest.skip(f"numerics: skip ({reason})")
    mismatch = check_numerics(case_id)
    assert mismatch is None, mismatch
