"""The plugin's optimizations before LPT, as one named step (`common_optimizations`).

Inside a plugin LPT never sees the user's IR as written: each plugin first runs its own pre-LPT
passes (marks the dequantization subgraphs it keeps, converts the model to its inference
precision, runs CommonOptimizations with its callbacks, ...) and skips LPT altogether for a model
without a FakeQuantize of the levels it accepts. Exports from PyTorch, Hugging Face and ONNX need
exactly these steps, so lpt runs them first when the config names a plugin's list:
`common_optimizations: cpu` (the CPU plugin's, cpu.py), `gpu` or `gpu-xmx` (the GPU plugin's on a
GPU without / with XMX, gpu.py). The sub-passes are shared; what differs between plugins is their
order and the callbacks and arguments each plugin gives them, each read from that plugin's source.

Each sub-pass is a function `(graph) -> int` (how many nodes it changed), run in the
plugin's order; the counts appear in the pipeline result under the OpenVINO pass names.
"""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from ...ir import Graph
from ...ir.eltypes import f32
from .cpu import CPU
from .gpu import GPU, GPU_XMX
from .quantized import is_function_quantized
from .steps import Plugin, SubPass, SubPasses

if TYPE_CHECKING:
    from ..engine.config import Config

LISTS: dict[str, Plugin] = {plugin.name: plugin for plugin in (CPU, GPU, GPU_XMX)}
PASSES: SubPasses = CPU.passes(f32)  # the CPU plugin's list at f32, as the CPU profiles run it

__all__ = ["LISTS", "PASSES", "Plugin", "SubPass", "is_function_quantized", "plugin_runs_lpt",
           "run_common_optimizations"]


def _plugin(config: Config | None) -> Plugin:
    return LISTS[(config.common_optimizations if config is not None else None) or "cpu"]


def run_common_optimizations(graph: Graph, config: Config | None = None) -> Counter[str]:
    """Runs every sub-pass of the config's plugin list once (the CPU plugin's at f32 without a
    config), in the plugin's order; returns the passes that changed something."""
    plugin = _plugin(config)
    precision = config.inference_precision if config is not None else f32
    applied: Counter[str] = Counter()
    for name, run in plugin.passes(precision):
        changed = run(graph)
        if changed:
            applied[name] += changed
    return applied


def plugin_runs_lpt(graph: Graph, config: Config | None = None) -> bool:
    """isFunctionQuantized with the plugin's levels."""
    return is_function_quantized(graph, _plugin(config).levels)
