"""The registry is OpenVINO's pipeline: its passes, in low_precision.cpp's order, all documented."""
from __future__ import annotations

from pathlib import Path

from lpt_cli.lpt.engine import registry

# LowPrecision::run_on_model, openvino 2026.4: the `common` GraphRewrite (FakeConvertDecomposition,
# registered only for float default precisions, left out).
OPENVINO_MAIN = (
    "Add", "AssignAndReadValue", "AvgPool", "BatchToSpace", "Broadcast", "Clamp", "Concat", "Convolution",
    "ConvolutionBackpropData", "DepthToSpace", "FakeQuantizeDecomposition", "FakeQuantize", "Interpolate",
    "GroupConvolution", "MatMul", "MaxPool", "MultiplyPartial", "MVN", "NormalizeL2", "Pad", "PRelu",
    "RecurrentCell", "ReduceMax", "ReduceMean", "ReduceMin", "ReduceSum", "Relu", "Reshape", "Squeeze",
    "ShuffleChannels", "Slice", "SpaceToBatch", "Split", "StridedSlice", "Transpose", "Gather", "Unsqueeze",
    "VariadicSplit",
)


def test_the_main_step_is_openvinos_in_its_order() -> None:
    assert registry.MAIN.names == tuple(f"{name}Transformation" for name in OPENVINO_MAIN)


def test_readme_names_every_transformation() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    missing = [name for name in registry.KNOWN_NAMES if name not in readme]
    assert not missing
