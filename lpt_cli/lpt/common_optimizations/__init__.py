"""The plugin's optimizations before LPT, as one named step (`common_optimizations`).

Inside a plugin LPT never sees the user's IR as written: the CPU plugin's PreLpt
(src/plugins/intel_cpu/src/transformations/transformation_pipeline.cpp) first marks the
dequantization subgraphs it keeps, runs CommonOptimizations (opset conversions such as
MaxPool-14 -> MaxPool-8 -> MaxPool-1) and ConstantFolding (f16 constants of older IRs,
shape subgraphs on static dimensions), and skips LPT altogether for a model without a
FakeQuantize. Exports from PyTorch, Hugging Face and ONNX need exactly these steps, so
lpt runs them first when the config says `common_optimizations: true` (the plugin profiles).

Each sub-pass is a function `(graph) -> int` (how many nodes it changed), run in the
plugin's order; the counts appear in the pipeline result under the OpenVINO pass names.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from ...ir import Graph
from .batch_norm import decompose_batch_norm
from .constant_folding import fold_constants
from .conv_multiply import fuse_convolution_multiply
from .fq_fusions import fuse_fake_quantizes
from .lin_op_sequence import fuse_lin_op_sequences
from .mark_dequantization import mark_dequantization
from .matmul_multiply import fuse_matmul_multiply
from .mvn import mark_mvn_decomposition
from .nop_elimination import eliminate_eltwise
from .pooling import convert_avg_pool_14, convert_max_pool_8, convert_max_pool_14
from .quantized import is_function_quantized
from .shape_folding import fold_shape_subgraphs

SubPass = Callable[[Graph], int]

PASSES: tuple[tuple[str, SubPass], ...] = (
    ("MarkDequantization", mark_dequantization),
    ("ConvertMaxPool14ToMaxPool8", convert_max_pool_14),
    ("ConvertMaxPool8ToMaxPool1", convert_max_pool_8),
    ("ConvertAvgPool14ToAvgPool1", convert_avg_pool_14),
    # MOC: its first ConstantFolding (f16 constants of older IRs become f32 ones) comes before
    # the eliminations, the decompositions and the multiply fusions, which match on Constants.
    ("ShapeOfConstantFolding", fold_shape_subgraphs),
    ("ConstantFolding", fold_constants),
    ("EliminateEltwise", eliminate_eltwise),
    ("MVN6Decomposition", mark_mvn_decomposition),
    ("BatchNormDecomposition", decompose_batch_norm),
    ("LinOpSequenceFusion", fuse_lin_op_sequences),
    ("ConvolutionMultiplyFusion", fuse_convolution_multiply),
    ("MatMulMultiplyFusion", fuse_matmul_multiply),
    ("ShapeOfConstantFolding", fold_shape_subgraphs),
    ("ConstantFolding", fold_constants),
    ("FakeQuantizeFusions", fuse_fake_quantizes),
)

__all__ = ["PASSES", "is_function_quantized", "run_common_optimizations"]


def run_common_optimizations(graph: Graph) -> Counter[str]:
    """Runs every sub-pass once, in the plugin's order; returns the passes that changed something."""
    applied: Counter[str] = Counter()
    for name, run in PASSES:
        changed = run(graph)
        if changed:
            applied[name] += changed
    return applied
