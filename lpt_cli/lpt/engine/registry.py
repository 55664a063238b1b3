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
    ("PullReshapeThroughDequantization", "prerequisites.pull_reshape_through_dequantization"),
    ("PullTransposeThroughDequantization", "prerequisites.pull_transpose_through_dequantization"),
    ("LinOpSequenceFusion", "prerequisites.lin_op_sequence_fusion"),
))

MAIN = Step("main", (
    ("AddTransformation", "eltwise.add"),
    ("AvgPoolTransformation", "movement.avg_pool"),
    ("BatchToSpaceTransformation", "movement.batch_to_space"),
    ("BroadcastTransformation", "movement.broadcast"),
    ("ClampTransformation", "movement.clamp"),
    ("ConcatTransformation", "movement.concat"),
    ("ConvolutionTransformation", "weightable.convolution"),
    ("ConvolutionBackpropDataTransformation", "weightable.convolution_backprop_data"),
    ("DepthToSpaceTransformation", "movement.depth_to_space"),
    ("FakeQuantizeDecompositionTransformation", "fake_quantize.fake_quantize_decomposition"),
    ("FakeQuantizeTransformation", "fake_quantize.fake_quantize"),
    ("InterpolateTransformation", "movement.interpolate"),
    ("GroupConvolutionTransformation", "weightable.group_convolution"),
    ("MatMulTransformation", "weightable.mat_mul"),
    ("MaxPoolTransformation", "movement.max_pool"),
    ("MultiplyPartialTransformation", "eltwise.multiply_partial"),
    ("MVNTransformation", "normalization.mvn"),
    ("NormalizeL2Transformation", "normalization.normalize_l2"),
    ("PadTransformation", "movement.pad"),
    ("PReluTransformation", "movement.prelu"),
    ("ReduceMaxTransformation", "reduce.reduce_max"),
    ("ReduceMeanTransformation", "reduce.reduce_mean"),
    ("ReduceMinTransformation", "reduce.reduce_min"),
    ("ReduceSumTransformation", "reduce.reduce_sum"),
    ("ReluTransformation", "movement.relu"),
    ("ReshapeTransformation", "movement.reshape"),
    ("SqueezeTransformation", "movement.squeeze"),
    ("ShuffleChannelsTransformation", "movement.shuffle_channels"),
    ("SpaceToBatchTransformation", "movement.space_to_batch"),
    ("SplitTransformation", "movement.split"),
    ("StridedSliceTransformation", "movement.strided_slice"),
    ("TransposeTransformation", "movement.transpose"),
    ("GatherTransformation", "movement.gather"),
    ("UnsqueezeTransformation", "movement.unsqueeze"),
    ("VariadicSplitTransformation", "movement.variadic_split"),
))

CLEANUP = Step("cleanup", (
    ("EliminateFakeQuantizeTransformation", "cleanup.eliminate_fake_quantize"),
    ("FoldConvertTransformation", "cleanup.fold_convert"),
    ("FuseConvertTransformation", "cleanup.fuse_convert"),
    ("FuseSubtractToFakeQuantizeTransformation", "cleanup.fuse_subtract_to_fake_quantize"),
    ("FuseMultiplyToFakeQuantizeTransformation", "cleanup.fuse_multiply_to_fake_quantize"),
    ("MultiplyToGroupConvolutionTransformation", "cleanup.multiply_to_group_convolution"),
))

FOLD_FAKE_QUANTIZE = Step("fold_fake_quantize", (("FoldFakeQuantizeTransformation", "fake_quantize.fold_fake_quantize"),))

# Not in OpenVINO's standard pipeline, but runnable by name (`transformations.only`):
# older pipelines registered MultiplyTransformation instead of MultiplyPartialTransformation,
# and plugins run ConvertSubtractConstant before LPT.
EXTRA = Step("extra", (
    ("MultiplyTransformation", "eltwise.multiply"),
    ("SubtractTransformation", "eltwise.subtract"),
    ("ConvertSubtractConstant", "weightable.convert_subtract_constant"),
))

STEPS = (PREREQUISITES, MAIN, CLEANUP, FOLD_FAKE_QUANTIZE)
KNOWN_NAMES = frozenset(name for step in (*STEPS, EXTRA) for name in step.names)
_MODULES = {name: module for step in (*STEPS, EXTRA) for name, module in step.passes}


def load(name: str) -> type[Transformation]:
    """The class implementing `name` (every known name has its module)."""
    module = importlib.import_module(f"{PACKAGE}.{_MODULES[name]}")
    cls: object = getattr(module, name, None)
    if not (isinstance(cls, type) and issubclass(cls, Transformation)):
        raise ImportError(f"{module.__name__} does not define the transformation {name}")
    return cls
