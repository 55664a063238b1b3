"""One call from an IR file to (original snapshot, transformed graph, report).

The pipeline rewrites the graph in place, so the original is copied first: the report
decides per original layer what happened, and `verify`/`benchmark` need both models.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..ir import Graph
from ..ir.provenance import require_not_transformed
from ..ir.legalize import copy_graph
from ..ir.reader import read_ir
from ..ir.writer import write_ir
from ..lpt.engine.config import Config
from ..lpt.engine.pipeline import PipelineResult, run_pipeline

if TYPE_CHECKING:  # classify loads in analyze()
    from .macs import LayerShapes
    from .model import Report


@dataclass
class Analysis:
    before: Graph
    after: Graph
    result: PipelineResult
    report: Report


def analyze(xml_path: str | Path, config: Config, shapes: Mapping[str, LayerShapes] | None = None) -> Analysis:
    """Reads `xml_path`, runs LPT under `config` in memory, and reports per original layer
    (`shapes`: static shapes of weightable layers for their MACs)."""
    from .classify import build_report

    after = read_ir(xml_path)
    require_not_transformed(after, Path(xml_path))
    before = copy_graph(after)
    result = run_pipeline(after, config)
    report = build_report(str(xml_path), before, after, result, config, shapes)
    return Analysis(before, after, result, report)




def write_runtime_model(analysis: Analysis, folder: str | Path, source: str | Path) -> Path:
    """Writes the transformed graph in the runtime dialect into `folder`; returns the .xml."""
    xml = Path(folder) / f"{Path(source).stem}.lpt.xml"
    write_ir(analysis.after, xml, dialect="runtime", protect=(Path(source),))
    return xml
