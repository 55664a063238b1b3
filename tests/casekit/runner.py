"""One reference case through the pipeline, checked as the judge checks it.

Shared by tests/test_reference_cases.py and tests/update_known_failures.py so that the
list of known failures is computed by exactly the code the tests run.
"""
from __future__ import annotations

from pathlib import Path

from lpt_cli.ir.graph import Graph
from lpt_cli.lpt.engine.config import config_from_dict
from lpt_cli.lpt.engine.pipeline import run_pipeline

from .compare import compare
from .dsl import Case, case_numerics, load_case, load_input

KNOWN_FAILURES = Path(__file__).resolve().parents[1] / "known_failing_cases.txt"
KINDS = ("structure", "numerics")


def transformed(case: Case) -> Graph:
    """The case's input graph after LPT under the case's config (the input is consumed)."""
    run_pipeline(case.input, config_from_dict(case.config, name=case.id))
    return case.input


def check_structure(case_id: str) -> str | None:
    case = load_case(case_id)
    return compare(transformed(case), case.expected)


def skip_reason(case_id: str) -> str | None:
    """Why the case's numerics are not checked (its `numerics: skip`), else None."""
    return case_numerics(case_id).get("skip")


def check_numerics(case_id: str) -> str | None:
    from .numerics import compare_numerics  # imports openvino and the writer

    case = load_case(case_id)
    reference = load_input(case_id)
    return compare_numerics(reference, transformed(case), shapes=case.numerics.get("shapes"))


def read_known_failures(path: Path = KNOWN_FAILURES) -> set[tuple[str, str]]:
    """(kind, case id) pairs listed as failing; `#` starts a comment."""
    found: set[tuple[str, str]] = set()
    if not path.exists():
        return found
    for line in path.read_text(encoding="utf-8").splitlines():
        text = line.split("#", 1)[0].strip()
        if text:
            kind, _, case_id = text.partition(" ")
            if kind not in KINDS:
                raise ValueError(f"{path}: {line!r} does not start with one of {KINDS}")
            found.add((kind, case_id.strip()))
    return found
