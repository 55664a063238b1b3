"""Which transformations exist, which module implements each, and OpenVINO's step order.

The tables are explicit (name -> module, op types) and modules are imported lazily, so the
CLI starts fast, a name the config mentions can be validated without importing anything, and
a pass for an op type the model lacks is never imported.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .transformation import Transformation

PACKAGE = "lpt_cli.lpt.transformations"

# The plugins' pre-LPT steps a config may name (`common_optimizations`; lpt_cli/lpt/common_optimizations
# builds each list) and the plugins' callbacks on LPT's passes (`callbacks`; lpt_cli/lpt/callbacks).
# Names only: validating a config imports neither.
PRE_LPT_LISTS = ("cpu", "gpu", "gpu-xmx")
CALLBACK_SETS = ("gpu",)


@dataclass(frozen=True)
class Step:
    """One GraphRewrite of the pipeline: its passes in registration order."""

    name: str
    # (OpenVINO class name, module under transformations/, the class's op_types)
    passes: tuple[tuple[str, str, tuple[str, ...]], ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _, _ in self.passes)


# The CPU plugin's LPT pass before LPT proper (Transformations::PreLpt in
# src/plugins/intel_cpu/src/transformations/transformation_pipeline.cpp, whenever LPT runs): on demand,
# the CPU profiles enable it.
PRE_LPT = Step("pre_lpt", (
    ("ConvertSubtractConstant", "weightable.convert_subtract_constant", ("Multiply",)),
))

PREREQUISITES = Step("prerequisites", (
    ("PullReshapeThroughDequantization", "prerequisites.pull_reshape_through_dequantization", ("Reshape",)),
    ("PullTransposeThroughDequantization", "prerequisites.pull_transpose_through_dequantization", ("Transpose",)),
    ("LinOpSequenceFusion", "prerequisites.lin_op_sequence_fusion", ("Multiply", "Add")),
    ("MoveFakeQuantize", "prerequisites.move_fake_quantize", ("FakeQuantize",)),
))

MAIN = Step("main", (
    ("AddTransformation", "eltwise.add", ("Add",)),
    ("AssignAndReadValueTransformation", "state.assign_and_read_value", ("Assign",)),
    ("AvgPoolTransformation", "movement.avg_pool", ("AvgPool",)),
    ("BatchToSpaceTransformation", "movement.batch_to_space", ("BatchToSpace",)),
    ("BroadcastTransformation", "movement.broadcast", ("Broadcast",)),
    ("ClampTransformation", "movement.clamp", ("Clamp",)),
    ("ConcatTransformation", "movement.concat", ("Concat",)),
    ("ConvolutionTransformation", "weightable.convolution", ("Convolution",)),
    ("ConvolutionBackpropDataTransformation", "weightable.convolution_backprop_data", ("ConvolutionBackpropData",)),
    ("DepthToSpaceTransformation", "movement.depth_to_space", ("DepthToSpace",)),
    ("FakeQuantizeDecompositionTransformation", "fake_quantize.fake_quantize_decomposition", ("FakeQuantize",)),
    ("FakeQuantizeTransformation", "fake_quantize.fake_quantize", ("FakeQuantize",)),
    ("InterpolateTransformation", "movement.interpolate", ("Interpolate",)),
    ("GroupConvolutionTransformation", "weightable.group_convolution", ("GroupConvolution",)),
    ("MatMulTransformation", "weightable.mat_mul", ("MatMul",)),
    ("MaxPoolTransformation", "movement.max_pool", ("MaxPool",)),
    ("MultiplyPartialTransformation", "eltwise.multiply_partial", ("Multiply",)),
    ("MVNTransformation", "normalization.mvn", ("MVN",)),
    ("NormalizeL2Transformation", "normalization.normalize_l2", ("NormalizeL2",)),
    ("PadTransformation", "movement.pad", ("Pad",)),
    ("PReluTransformation", "movement.prelu", ("PRelu",)),
    ("RecurrentCellTransformation", "recurrent.recurrent_cell", ("LSTMSequence", "GRUSequence")),
    ("ReduceMaxTransformation", "reduce.reduce_max", ("ReduceMax",)),
    ("ReduceMeanTransformation", "reduce.reduce_mean", ("ReduceMean",)),
    ("ReduceMinTransformation", "reduce.reduce_min", ("ReduceMin",)),
    ("ReduceSumTransformation", "reduce.reduce_sum", ("ReduceSum",)),
    ("ReluTransformation", "movement.relu", ("Relu",)),
    ("ReshapeTransformation", "movement.reshape", ("Reshape",)),
    ("SqueezeTransformation", "movement.squeeze", ("Squeeze",)),
    ("ShuffleChannelsTransformation", "movement.shuffle_channels", ("ShuffleChannels",)),
    ("SliceTransformation", "movement.slice", ("Slice",)),
    ("SpaceToBatchTransformation", "movement.space_to_batch", ("SpaceToBatch",)),
    ("SplitTransformation", "movement.split", ("Split",)),
    ("StridedSliceTransformation", "movement.strided_slice", ("StridedSlice",)),
    ("TransposeTransformation", "movement.transpose", ("Transpose",)),
    ("GatherTransformation", "movement.gather", ("Gather",)),
    ("UnsqueezeTransformation", "movement.unsqueeze", ("Unsqueeze",)),
    ("VariadicSplitTransformation", "movement.variadic_split", ("VariadicSplit",)),
))

CLEANUP = Step("cleanup", (
    ("EliminateFakeQuantizeTransformation", "cleanup.eliminate_fake_quantize", ("FakeQuantize",)),
    ("FoldConvertTransformation", "cleanup.fold_convert", ("Subtract",)),
    ("FuseConvertTransformation", "cleanup.fuse_convert", ("Multiply", "Subtract", "Add", "FakeQuantize")),
    ("FuseSubtractToFakeQuantizeTransformation", "cleanup.fuse_subtract_to_fake_quantize", ("Subtract",)),
    ("FuseMultiplyToFakeQuantizeTransformation", "cleanup.fuse_multiply_to_fake_quantize", ("Multiply",)),
    ("MultiplyToGroupConvolutionTransformation", "cleanup.multiply_to_group_convolution", ("Multiply",)),
))

FOLD_FAKE_QUANTIZE = Step("fold_fake_quantize", (
    ("FoldFakeQuantizeTransformation", "fake_quantize.fold_fake_quantize", ("FakeQuantize",)),
))

# Not in OpenVINO's standard pipeline, but runnable by name (`transformations.only` or `enable`):
# older pipelines registered MultiplyTransformation instead of MultiplyPartialTransformation.
EXTRA = Step("extra", (
    ("MultiplyTransformation", "eltwise.multiply", ("Multiply",)),
    ("SubtractTransformation", "eltwise.subtract", ("Subtract",)),
))

STEPS = (PREREQUISITES, MAIN, CLEANUP, FOLD_FAKE_QUANTIZE)
ON_DEMAND = (*PRE_LPT.names, *EXTRA.names)  # run only when a config names them (`only` or `enable`)
_ALL = (PRE_LPT, *STEPS, EXTRA)
KNOWN_NAMES = frozenset(name for step in _ALL for name in step.names)
_MODULES = {name: module for step in _ALL for name, module, _ in step.passes}
_OP_TYPES = {name: op_types for step in _ALL for name, _, op_types in step.passes}


def op_types(name: str) -> tuple[str, ...]:
    """The op types the pass `name` roots on, without importing it: a step imports only the
    passes for types its graph holds (most models use a third of them)."""
    return _OP_TYPES[name]


def load_callbacks(name: str) -> Mapping[str, Callable[..., str | None]]:
    """The plugin callback set `name` (CALLBACK_SETS): pass name -> `(node, config) -> reason | None`."""
    module = importlib.import_module(f"lpt_cli.lpt.callbacks.{name.replace('-', '_')}")
    callbacks: Mapping[str, Callable[..., str | None]] = module.CALLBACKS
    return callbacks


def load(name: str) -> type[Transformation]:
    """The class implementing `name` (every known name has its module)."""
    module = importlib.import_module(f"{PACKAGE}.{_MODULES[name]}")
    cls: object = getattr(module, name, None)
    if not (isinstance(cls, type) and issubclass(cls, Transformation)):
        raise ImportError(f"{module.__name__} does not define the transformation {name}")
    return cls
