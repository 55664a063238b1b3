"""The CPU plugin's own LPT, seen from outside: the model it hands to LPT and the one LPT gives
back, as IRs.

A release build of OpenVINO serializes the model after every pass of a compile when
OV_ENABLE_SERIALIZE_TRACING=1 is set (files `ModelN_IDX_PASS.xml` in the working directory). A
child process compiles the model so (INFERENCE_PRECISION_HINT f32; ONEDNN_MAX_CPU_ISA with a
cap) in a scratch folder, and two of those files are kept: the model before LPT's prerequisites
(after the plugin's own optimizations) and after `low_precision::LowPrecision`. What lpt shows
LPT and what it makes can then be held against the plugin's, op by op, where outputs and
kernels agree and so say nothing (`repros/plugin_lpt.py`).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from ..ir import Graph

_TRACED = re.compile(r"Model(?P<model>\d+)_(?P<index>\d+)_(?P<name>.+)\.xml")
_COMPILE = ("import sys, openvino as ov; core = ov.Core(); "
            "core.compile_model(core.read_model(sys.argv[1]), 'CPU', {'INFERENCE_PRECISION_HINT': 'f32'})")


class NoPluginLpt(Exception):
    """The plugin ran no LPT on the model (no FakeQuantize of LPT's levels)."""


def plugin_lpt_snapshots(model: Path, out: Path, isa_cap: str | None = None) -> tuple[Path, Path]:
    """`out/plugin_pre_lpt.xml` and `out/plugin_lpt.xml` (with their .bin files): the plugin's model
    before and after its LPT."""
    env = {**os.environ, "OV_ENABLE_SERIALIZE_TRACING": "1"}
    if isa_cap:
        env["ONEDNN_MAX_CPU_ISA"] = isa_cap
    with tempfile.TemporaryDirectory(prefix="lpt-plugin-trace-") as scratch:
        subprocess.run([sys.executable, "-c", _COMPILE, str(Path(model).resolve())], cwd=scratch, env=env,
                       check=True, capture_output=True)
        traced = sorted((m for m in map(_TRACED.fullmatch, os.listdir(scratch)) if m),
                        key=lambda m: (int(m["model"]), int(m["index"])))
        after = next((m for m in traced if m["name"].endswith("low_precision::LowPrecision")), None)
        if after is None:
            raise NoPluginLpt(f"the plugin ran no LPT on {model}")
        same_model = [m for m in traced if m["model"] == after["model"]]
        first_lpt = next(i for i, m in enumerate(same_model) if "low_precision::" in m["name"])
        # LPT's prerequisites run as a GraphRewrite just before its first named pass
        before = first_lpt - 2 if same_model[first_lpt - 1]["name"].endswith("GraphRewrite") else first_lpt - 1
        kept = []
        for match, name in ((same_model[before], "plugin_pre_lpt"), (after, "plugin_lpt")):
            source = Path(scratch) / match.group(0)
            shutil.copy(source, out / f"{name}.xml")
            shutil.copy(source.with_suffix(".bin"), out / f"{name}.bin")
            kept.append(out / f"{name}.xml")
    return kept[0], kept[1]


def differences(plugin: Graph, lpt: Graph) -> list[str]:
    """Op-type counts that differ, then the ops named in both whose type or output element types
    differ: one line each, empty when lpt's graph has the plugin's structure."""
    counts = Counter(n.type for n in plugin), Counter(n.type for n in lpt)
    lines = [f"count  {op_type}: plugin {counts[0][op_type]}, lpt {counts[1][op_type]}"
             for op_type in sorted(set(counts[0]) | set(counts[1])) if counts[0][op_type] != counts[1][op_type]]
    theirs = {n.name: n for n in lpt if n.type != "Constant"}
    for node in plugin.topological_order():
        other = theirs.get(node.name)
        if node.type == "Constant" or other is None:
            continue
        types = [str(o.element_type) for o in node.outputs], [str(o.element_type) for o in other.outputs]
        if types[0] != types[1] or node.type != other.type:
            lines.append(f"types  {node.name}: plugin {node.type} {types[0]}, lpt {other.type} {types[1]}")
    return lines
