"""The CPU plugin's pre-LPT step (src/plugins/intel_cpu/src/transformations/transformation_pipeline.cpp,
Transformations::PreLpt and the CommonOptimizations it runs), as lpt models it, each sub-pass with
the CPU plugin's callbacks."""
from __future__ import annotations

from functools import partial

from ...ir.eltypes import ElementType, f32
from .arithmetic import convert_divide, convert_subtract
from .batch_norm import decompose_batch_norm
from .constant_folding import fold_constants
from .conv_multiply import fuse_convolution_multiply
from .convert_precision import convert_precision
from .fq_fusions import cpu_runs_fake_quantize, fuse_fake_quantizes
from .interpolate import convert_interpolate_11
from .lin_op_sequence import fuse_lin_op_sequences
from .mark_dequantization import mark_dequantization
from .matmul_multiply import fuse_matmul_multiply
from .mvn import cpu_runs_mvn, decompose_marked_mvns, mark_mvn_decomposition
from .nop_elimination import eliminate_eltwise, squeezes_to_reshapes
from .pooling import convert_avg_pool_14, convert_max_pool_8, convert_max_pool_14
from .quantized import SUPPORTED_LEVELS
from .sdpa import cpu_decompose_sdpa
from .shape_folding import fold_shape_subgraphs
from .shared_ops import share_equal_ops
from .steps import Plugin, SubPasses


def passes(inference_precision: ElementType = f32) -> SubPasses:
    """The sub-passes in the plugin's order; an f16 inference precision converts the model right
    after MarkDequantization (PreLpt's ConvertPrecision when config.inferencePrecision is f16)."""
    f16_hint: SubPasses = () if inference_precision == f32 else (
        ("ConvertPrecision", partial(convert_precision, to=inference_precision)),)
    return (
        ("MarkDequantization", mark_dequantization),
        *f16_hint,
        # PreLpt's callbacks keep a `ceil_torch` MaxPool-14 / AvgPool-14 as they are
        ("ConvertMaxPool14ToMaxPool8", partial(convert_max_pool_14, keep_torch_rounding=True)),
        ("ConvertMaxPool8ToMaxPool1", convert_max_pool_8),
        ("ConvertAvgPool14ToAvgPool1", partial(convert_avg_pool_14, keep_torch_rounding=True)),
        # MOC: its first ConstantFolding (f16 constants of older IRs become f32 ones) comes before
        # the eliminations, the decompositions and the multiply fusions, which match on Constants.
        ("ShapeOfConstantFolding", fold_shape_subgraphs),
        ("ConstantFolding", fold_constants),
        ("SharedOpOptimization", share_equal_ops),
        ("EliminateEltwise", eliminate_eltwise),
        ("EliminateSqueeze", squeezes_to_reshapes),
        ("SharedOpOptimization", share_equal_ops),  # MOC runs it again near its end
        ("MarkMVN6Decomposition", partial(mark_mvn_decomposition, runs=cpu_runs_mvn)),
        ("ScaledDotProductAttentionDecomposition", cpu_decompose_sdpa),
        ("BatchNormDecomposition", decompose_batch_norm),
        ("ConvertSubtract", convert_subtract),
        ("ConvertDivide", convert_divide),
        ("MVN6Decomposition", decompose_marked_mvns),  # after ConvertDivide: its Divide stays
        # NopElimination after CommonDecompositions: an SDPA's scale of 1 and zero mask leave
        ("EliminateEltwise", eliminate_eltwise),
        ("LinOpSequenceFusion", fuse_lin_op_sequences),
        ("ConvolutionMultiplyFusion", fuse_convolution_multiply),
        ("MatMulMultiplyFusion", fuse_matmul_multiply),
        ("ShapeOfConstantFolding", fold_shape_subgraphs),
        ("ConstantFolding", fold_constants),
        ("FakeQuantizeFusions", partial(fuse_fake_quantizes, runs=cpu_runs_fake_quantize)),
        # CommonOptimizations' opset conversions, after MOC
        ("ConvertInterpolate11ToInterpolate4", convert_interpolate_11),
    )


CPU = Plugin("cpu", "the CPU plugin (Transformations::PreLpt)", levels=SUPPORTED_LEVELS, quantized_before=False,
             passes=passes)
