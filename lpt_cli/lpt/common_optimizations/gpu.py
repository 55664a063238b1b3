"""The GPU plugin's pre-LPT step (src/plugins/intel_gpu/src/plugin/transformations_pipeline.cpp,
TransformationsPipeline::apply, the "Plugin:GPU" pass manager up to `enableInt8`; OpenVINO 2025.x as
read), as lpt models it, each sub-pass with the GPU plugin's callbacks. Two lists: `gpu` for a GPU
without XMX and `gpu-xmx` for one with it (`device_info.supports_immad`), which differ in
MarkDequantization's zero points, the SDPA head-size rule and ConvertAvgPoolingToReduce.

The plugin's passes lpt does not model (README, "GPU plugin"): EinsumDecomposition, SoftmaxFusion,
MVNFusion, GroupNormalizationFusion, BroadcastElementwiseFusion, BroadcastTransition,
KeepConstantsPrecisionAndAddConverts, GroupNormComposition, KeepConstPrecision, RMSFusion, and of
what follows CommonOptimizations the op conversions, ConvertReduceToPooling / ToReshape,
DecomposeReduceForFalseKeepDims, NormalizeL2Decomposition and SoftmaxDecomposition.
"""
from __future__ import annotations

from functools import partial

from ...ir import Node
from ...ir.eltypes import ElementType, element_type
from .batch_norm import decompose_batch_norm
from .constant_folding import fold_constants
from .conv_multiply import fuse_convolution_multiply
from .convert_precision import convert_precision
from .interpolate import convert_interpolate_11
from .fq_fusions import fuse_fake_quantizes
from .lin_op_sequence import fuse_lin_op_sequences
from .mark_dequantization import mark_dequantization
from .matmul_multiply import fuse_matmul_multiply
from .mvn import gpu_runs_mvn, mark_mvn_decomposition
from .nop_elimination import eliminate_eltwise
from .pooling import convert_avg_pool_14, convert_avg_pool_to_reduce, convert_max_pool_8, convert_max_pool_14
from .quantized import ALL_LEVELS
from .sdpa import decompose_sdpa, gpu_keeps_sdpa
from .shape_folding import fold_shape_subgraphs
from .shared_ops import share_equal_ops
from .steps import Plugin, SubPasses
from .transpose_matmul import fuse_transpose_matmul

# The weights types MarkDequantization marks on GPU (supported_woq_types and its first call).
DECOMPRESSION_TYPES = frozenset(element_type(n) for n in ("u8", "i8", "u4", "i4"))
_TARGETS = ("MatMul", "Gather", "Convolution", "ConvolutionBackpropData", "GroupConvolution")
_CONVOLUTIONS = ("Convolution", "ConvolutionBackpropData", "GroupConvolution")


def _target(node: Node) -> bool | None:
    """A consumer the plugin compresses weights for: True, False (a convolution with a dynamic
    input shape), or None (not such a consumer)."""
    if node.type not in _TARGETS or (node.type == "Gather" and node.version != "opset8"):
        return None
    if node.type in _CONVOLUTIONS:
        shape = node.input_value(0).shape
        return shape is not None and all(d >= 0 for d in shape)
    return True


def _multiply_from_decompression(node: Node) -> bool:
    if node.type != "Multiply":
        return False
    for child in node.consumers():
        target = _target(child)
        if target is not None:
            return target
    return False


def _converts_from_decompression(consumers: list[Node]) -> bool:
    if not all(c.type == "Convert" for c in consumers):
        return False
    for convert in consumers:
        for child in convert.consumers():
            target = _target(child)
            if target is not None:
                return target
            if _multiply_from_decompression(child):
                continue
            return False
    return True


def is_decompression_multiply(multiply: Node) -> bool:
    """transformations_pipeline.cpp, `is_decompression_multiply`: the Multiply feeds a MatMul,
    Gather-8 or convolution (directly, through Reshapes, or through Converts and Multiplies); the
    callback of MarkDequantization (and of FoldConvert / FuseConvert in LPT) on GPU."""
    consumers = multiply.consumers()
    for consumer in consumers:
        target = _target(consumer)
        if target is not None:
            return target
    if all(c.type == "Reshape" for c in consumers):
        for reshape in consumers:
            children = reshape.consumers()
            for child in children:
                target = _target(child)
                if target is not None:
                    return target
                if _converts_from_decompression(children):
                    return True
    return _converts_from_decompression(consumers)


def passes(inference_precision: ElementType, *, xmx: bool) -> SubPasses:
    """The GPU plugin's pre-LPT sub-passes in its order."""
    return (
        ("MarkDequantization", partial(mark_dequantization, precisions=DECOMPRESSION_TYPES, fold_zero_point=not xmx,
                                       marks=is_decompression_multiply)),
        # before ConvertPrecision, "so that they will be marked as precision sensitive"
        ("MVN6Decomposition", partial(mark_mvn_decomposition, runs=gpu_runs_mvn)),
        ("ConvertPrecision", partial(convert_precision, to=inference_precision)),
        # CommonOptimizations: no callback on the pooling downgrades or the FakeQuantize fusions
        ("ConvertMaxPool14ToMaxPool8", partial(convert_max_pool_14, keep_torch_rounding=False)),
        ("ConvertMaxPool8ToMaxPool1", convert_max_pool_8),
        ("ConvertAvgPool14ToAvgPool1", partial(convert_avg_pool_14, keep_torch_rounding=False)),
        ("ShapeOfConstantFolding", fold_shape_subgraphs),
        ("ConstantFolding", partial(fold_constants, keep_integer_converts=False)),
        ("SharedOpOptimization", share_equal_ops),
        ("EliminateEltwise", eliminate_eltwise),
        ("ScaledDotProductAttentionDecomposition", partial(decompose_sdpa, keeps=partial(gpu_keeps_sdpa, xmx=xmx))),
        ("BatchNormDecomposition", decompose_batch_norm),
        ("LinOpSequenceFusion", fuse_lin_op_sequences),
        ("ConvolutionMultiplyFusion", fuse_convolution_multiply),
        ("MatMulMultiplyFusion", fuse_matmul_multiply),
        ("ShapeOfConstantFolding", fold_shape_subgraphs),
        ("ConstantFolding", partial(fold_constants, keep_integer_converts=False)),
        ("FakeQuantizeFusions", partial(fuse_fake_quantizes, runs=None)),
        ("SharedOpOptimization", share_equal_ops),
        ("ConvertInterpolate11ToInterpolate4", convert_interpolate_11),
        # after CommonOptimizations
        ("TransposeMatMul", fuse_transpose_matmul),
        *((("ConvertAvgPoolingToReduce", convert_avg_pool_to_reduce),) if xmx else ()),
    )


_SOURCE = "the GPU plugin (TransformationsPipeline::apply)"
GPU = Plugin("gpu", f"{_SOURCE}, a GPU without XMX", levels=ALL_LEVELS, quantized_before=True,
             passes=partial(passes, xmx=False))
GPU_XMX = Plugin("gpu-xmx", f"{_SOURCE}, a GPU with XMX", levels=ALL_LEVELS, quantized_before=True,
                 passes=partial(passes, xmx=True))
