"""Which transformations exist, which module implements each, and OpenVINO's step order.

The tables are explicit (name -> module) and modules are imported lazily, so the CLI
starts fast and a name the config mentions can be validated without importing anything.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass

from .transformation import Transformation

PACKAGE = "lpt_cli.lpt.transformations"


@dataclass(frozen=True)
class Step:
    """One GraphRewrite of the pipeline: its passes in registration order."""

    name: str
    passes: tuple[tuple[str, str], ...]  # (OpenVINO class name, module under transformations/)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.passes)


PREREQUISITES = Step("prerequisites", (
    ("PullReshapeThroughDequantization", "pull_reshape_through_dequantization"),
    ("PullTransposeThroughDequantization", "pull_transpose_through_dequantization"),
    ("LinOpSequenceFusion", "lin_op_sequence_fusion"),
))

MAIN = Step("main", (
    ("AddTransformation", "add"),
    ("AvgPoolTransformation", "avg_pool"),
    ("BatchToSpaceTransformation", "batch_to_space"),
    ("BroadcastTransformation", "broadcast"),
    ("ClampTransformation", "clamp"),
    ("ConcatTransformation", "concat"),
    ("ConvolutionTransformation", "convolution"),
    ("ConvolutionBackpropDataTransformation", "convolution_backprop_data"),
    ("DepthToSpaceTransformation", "depth_to_space"),
    ("FakeQuantizeDecompositionTransformation", "fake_quantize_decomposition"),
    ("FakeQuantizeTransformation", "fake_quantize"),
    ("InterpolateTransformation", "interpolate"),
    ("GroupConvolutionTransformation", "group_convolution"),
    ("MatMulTransformation", "mat_mul"),
    ("MaxPoolTransformation", "max_pool"),
    ("MultiplyPartialTransformation", "multiply_partial"),
    ("MVNTransformation", "mvn"),
    ("NormalizeL2Transformation", "normalize_l2"),
    ("PadTransformation", "pad"),
    ("PReluTransformation", "prelu"),
    ("ReduceMaxTransformation", "reduce_max"),
    ("ReduceMeanTransformation", "reduce_mean"),
    ("ReduceMinTransformation", "reduce_min"),
    ("ReduceSumTransformation", "reduce_sum"),
    ("ReluTransformation", "relu"),
    ("ReshapeTransformation", "reshape"),
    ("SqueezeTransformation", "squeeze"),
    ("ShuffleChannelsTransformation", "shuffle_channels"),
    ("SpaceToBatchTransformation", "space_to_batch"),
    ("SplitTransformation", "split"),
    ("StridedSliceTransformation", "strided_slice"),
    ("TransposeTransformation", "transpose"),
    ("GatherTransformation", "gather"),
    ("UnsqueezeTransformation", "unsqueeze"),
    ("VariadicSplitTransformation", "variadic_split"),
))

CLEANUP = Step("cleanup", (
    ("EliminateFakeQuantizeTransformation", "eliminate_fake_quantize"),
    ("FoldConvertTransformation", "fold_convert"),
    ("FuseConvertTransformation", "fuse_convert"),
    ("FuseSubtractToFakeQuantizeTransformation", "fuse_subtract_to_fake_quantize"),
    ("FuseMultiplyToFakeQuantizeTransformation", "fuse_multiply_to_fake_quantize"),
    ("MultiplyToGroupConvolutionTransformation", "multiply_to_group_convolution"),
))

FOLD_FAKE_QUANTIZE = Step("fold_fake_quantize", (("FoldFakeQuantizeTransformation", "fold_fake_quantize"),))

# Not in OpenVINO's standard pipeline, but runnable by name (`transformations.only`):
# older pipelines registered MultiplyTransformation instead of MultiplyPartialTransformation,
# and plugins run ConvertSubtractConstant before LPT.
EXTRA = Step("extra", (
    ("MultiplyTransformation", "multiply"),
    ("SubtractTransformation", "subtract"),
    ("ConvertSubtractConstant", "convert_subtract_constant"),
))

STEPS = (PREREQUISITES, MAIN, CLEANUP, FOLD_FAKE_QUANTIZE)
KNOWN_NAMES = frozenset(name for step in (*STEPS, EXTRA) for name in step.names)
_MODULES = {name: module for step in (*STEPS, EXTRA) for name, module in step.passes}


def load(name: str) -> type[Transformation] | None:
    """The class implementing `name`, or None while lpt does not implement it yet."""
    try:
        module = importlib.import_module(f"{PACKAGE}.{_MODULES[name]}")
    except ModuleNotFoundError as err:
        if err.name == f"{PACKAGE}.{_MODULES[name]}":
            return None
        raise
    cls: object = getattr(module, name, None)
    if not (isinstance(cls, type) and issubclass(cls, Transformation)):
        raise ImportError(f"{module.__name__} does not define the transformation {name}")
    return cls


def implemented() -> list[str]:
    """Names of the known transformations whose module exists."""
    return [name for name in sorted(KNOWN_NAMES) if load(name) is not None]
