"""diff_reports: which layer changes count as lost, gained or changed."""
from __future__ import annotations

from lpt_cli.reports.diff import CHANGED, GAINED, LOST, ONLY_A, ONLY_B, diff_reports, render_diff
from lpt_cli.reports.model import LOW, NOT_QUANTIZED, ORIGINAL, LayerRow, Reason, Report, Summary


def _summary() -> Summary:
    return Summary("p", "isa", 0, {}, 0, 0, 0, 0, 0.0, 0, 0, {})


def _report(*rows: LayerRow) -> Report:
    return Report("m.xml", rows, _summary())


def _row(name: str, status: str, code: str | None = None, detail: str = "why", inputs: tuple[str, ...] = ("u8", "i8"),
         transformed: str | None = None) -> LayerRow:
    reason = Reason(code, detail) if code else None
    return LayerRow(name, "Convolution", inputs, "f32", status, reason, 10, transformed or name)


def test_kinds_of_change():
    a = _report(_row("lost", LOW), _row("gained", ORIGINAL, "precision_restriction"),
                _row("reason", ORIGINAL, "precision_restriction"), _row("same", LOW), _row("gone", LOW))
    b = _report(_row("lost", ORIGINAL, "per_tensor_restriction"), _row("gained", LOW),
                _row("reason", ORIGINAL, "per_tensor_restriction"), _row("same", LOW), _row("new", NOT_QUANTIZED))
    found = diff_reports(a, b, "A", "B")
    assert [(c.name, c.change) for c in found.layers] == [
        ("lost", LOST), ("gained", GAINED), ("reason", CHANGED), ("gone", ONLY_A), ("new", ONLY_B)]
    assert [c.name for c in found.lost] == ["lost"]
    assert found.to_dict()["counts"] == {LOST: 1, GAINED: 1, CHANGED: 1, ONLY_A: 1, ONLY_B: 1}


def test_precisions_count_but_names_and_wording_do_not():
    a = _report(_row("u8", LOW), _row("words", ORIGINAL, "x", "one wording"), _row("renamed", LOW))
    b = _report(_row("u8", LOW, inputs=("i8", "i8")), _row("words", ORIGINAL, "x", "another"),
                _row("renamed", LOW, transformed="renamed_original"))
    assert [(c.name, c.change) for c in diff_reports(a, b, "A", "B").layers] == [("u8", CHANGED)]


def test_json_sides_carry_the_rows_and_reasons():
    a, b = _report(_row("c", LOW)), _report(_row("c", ORIGINAL, "precision_restriction", "port 0 gets u8"))
    entry = diff_reports(a, b, "cpu", "gpu").to_dict()["layers"][0]
    assert entry["change"] == LOST and entry["a"]["status"] == LOW and entry["a"]["reason"] is None
    assert entry["b"]["reason"] == {"code": "precision_restriction", "detail": "port 0 gets u8", "transformation": None}


def test_table_shows_bracketed_precisions_verbatim():
    a, b = _report(_row("c[0]", LOW)), _report(_row("c[0]", ORIGINAL, "precision_restriction"))
    text = render_diff(diff_reports(a, b, "A", "B"), "table")
    assert "c[0]" in text and "[u8 i8 -> f32]" in text and "precision_restriction" in text


def test_generated_names_pair_by_type_in_order():
    a = _report(_row("Multiply_10", LOW), _row("Multiply_20", LOW), _row("conv_user", LOW))
    b = _report(_row("Multiply_11", LOW), _row("Multiply_21", ORIGINAL, "precision_restriction"),
                _row("conv_renamed", LOW))
    found = diff_reports(a, b, "A", "B")
    assert [(c.label, c.change) for c in found.layers] == [
        ("Multiply_20 ~ Multiply_21", LOST), ("conv_user", ONLY_A), ("conv_renamed", ONLY_B)]


def test_generated_names_stay_unpaired_when_counts_differ():
    a = _report(_row("Multiply_10", LOW), _row("Multiply_20", LOW))
    b = _report(_row("Multiply_11", LOW))
    assert [c.change for c in diff_reports(a, b, "A", "B").layers] == [ONLY_A, ONLY_A, ONLY_B]
