"""A recurrent sequence in the report: low precision exactly when the plugin will quantize the cell
(RecurrentCellTransformation kept X, H, W, R dequantized in front of it), else a reason that names
the input that stops it; an op LPT has no transformation for is named in the summary."""
from __future__ import annotations

from casekit.dsl import load_input

from lpt_cli.ir import Graph
from lpt_cli.ir.legalize import copy_graph
from lpt_cli.lpt.engine.config import config_from_dict
from lpt_cli.lpt.engine.pipeline import run_pipeline
from lpt_cli.reports.classify import build_report
from lpt_cli.reports.model import LayerRow, Report
from lpt_cli.reports.render import summary_lines

CASES = "recurrent/recurrent_cell_transformation::"


def _report(graph: Graph, **config) -> Report:
    before = copy_graph(graph)
    cfg = config_from_dict(config)
    return build_report("m.xml", before, graph, run_pipeline(graph, cfg), cfg, "")


def _gru(report: Report) -> LayerRow:
    return next(r for r in report.layers if r.type == "GRUSequence")


def test_a_cell_the_plugin_quantizes_is_low_precision_on_its_integers():
    row = _gru(_report(load_input(CASES + "gru_sequence_u8_activations_i8_weights")))
    assert row.status == "low-precision" and row.reason is None
    assert row.input_precisions == ("u8", "u8", "i8", "i8")  # X, H, W, R


def test_without_the_transformation_cleanup_breaks_the_pattern_and_the_report_says_so():
    row = _gru(_report(load_input(CASES + "gru_sequence_u8_activations_i8_weights"),
                       transformations={"disable": ["RecurrentCellTransformation"]}))
    assert row.status == "original-precision" and row.reason is not None
    assert row.reason.code == "transformation_disabled"


def test_i8_activations_are_refused_by_the_transformation_with_its_reason():
    row = _gru(_report(load_input(CASES + "gru_sequence_i8_activations_not_transformed")))
    assert row.status == "original-precision" and row.reason is not None
    assert row.reason.code == "precision_not_supported" and "input 0" in row.reason.detail


def test_float_weights_leave_the_cell_in_float_and_the_reason_names_them():
    graph = load_input(CASES + "gru_sequence_u8_activations_i8_weights")
    gru = next(n for n in graph if n.type == "GRUSequence")
    gru.set_input(3, gru.input_node(3).input_value(0))  # W: the float Constant, no FakeQuantize
    row = _gru(_report(graph))
    assert row.status == "original-precision" and row.reason is not None
    assert row.reason.code == "cell_not_quantized"
    assert row.reason.detail.startswith("W (input 3) is not an integer constant")


def test_the_summary_names_the_ops_lpt_has_no_transformation_for():
    graph = load_input(CASES + "gru_sequence_u8_activations_i8_weights")
    gru = next(n for n in graph if n.type == "GRUSequence")
    gru.type = "GRUCell"  # what LPT has no transformation for (the report reads the type only)
    report = _report(graph)
    row = _gru_cell(report)
    assert row.reason is not None and row.reason.code == "op_not_supported"
    assert row.reason.detail == "LPT has no transformation for GRUCell"
    assert any(line.startswith("reasons:") and "op_not_supported 1 (GRUCell)" in line
               for line in summary_lines(report.summary, report.layers))


def _gru_cell(report: Report) -> LayerRow:
    return next(r for r in report.layers if r.type == "GRUCell")
