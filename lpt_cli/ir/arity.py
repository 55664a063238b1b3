"""How many inputs and outputs the standard ops take, per opset version (OpenVINO's op specs).

The reader checks every layer of a standard opset against this table, so a layer with a
missing or extra port is one clear error instead of an IndexError deep inside a pass, or
an output that OpenVINO refuses. Ops not listed (and extension opsets) are not checked.
"""
from __future__ import annotations

Arity = tuple[int, int | None, int, int | None]  # inputs min, max; outputs min, max (None: any)

_UNARY: Arity = (1, 1, 1, 1)
_BINARY: Arity = (2, 2, 1, 1)

_BY_TYPE: dict[str, Arity] = {
    "Parameter": (0, 0, 1, 1), "Constant": (0, 0, 1, 1), "Result": (1, 1, 0, 0),
    **dict.fromkeys((
        "Relu", "Sigmoid", "Tanh", "Exp", "Sqrt", "Abs", "Gelu", "HSwish", "HSigmoid", "Mish", "Floor",
        "Ceiling", "Negative", "Log", "Erf", "Sin", "Cos", "SoftPlus", "Elu", "Convert", "Clamp", "Softmax",
        "LogSoftmax", "ShapeOf", "DepthToSpace", "SpaceToDepth", "ShuffleChannels", "AvgPool", "Sign",
        "LogicalNot"), _UNARY),
    **dict.fromkeys((
        "Add", "Subtract", "Multiply", "Divide", "Maximum", "Minimum", "Power", "SquaredDifference",
        "FloorMod", "Mod", "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd",
        "LogicalOr", "LogicalXor", "PRelu", "MatMul", "Convolution", "GroupConvolution", "Reshape",
        "Unsqueeze", "Transpose", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceSum", "ReduceProd",
        "ReduceL1", "ReduceL2", "NormalizeL2", "Tile", "ConvertLike"), _BINARY),
    "Swish": (1, 2, 1, 1),
    "FakeQuantize": (5, 5, 1, 1),
    "ConvolutionBackpropData": (2, 3, 1, 1), "GroupConvolutionBackpropData": (2, 3, 1, 1),
    "Concat": (1, None, 1, 1),
    "Squeeze": (1, 2, 1, 1),
    "StridedSlice": (3, 4, 1, 1),
    "Split": (2, 2, 1, None), "VariadicSplit": (3, 3, 1, None),
    "Gather": (3, 3, 1, 1),
    "Pad": (3, 4, 1, 1),
    "Broadcast": (2, 3, 1, 1),
    "BatchToSpace": (4, 4, 1, 1), "SpaceToBatch": (4, 4, 1, 1),
    "Select": (3, 3, 1, 1),
    "MaxPool": (1, 1, 1, 2),  # opset8 and later: values and indices (unused indices may be left out)
    "Interpolate": (2, 3, 1, 1),  # opset11
    "MVN": (2, 2, 1, 1),  # opset6
}

_BY_VERSION: dict[tuple[str, str], Arity] = {
    ("MaxPool", "opset1"): (1, 1, 1, 1),
    ("Interpolate", "opset1"): (2, 2, 1, 1),
    ("Interpolate", "opset4"): (3, 4, 1, 1),
    ("MVN", "opset1"): (1, 1, 1, 1),
    ("MVN", "opset2"): (1, 1, 1, 1),  # MVN-0, introduced in opset2 and written so
    ("Squeeze", "opset15"): (1, 2, 1, 1),
}


def expected_arity(op_type: str, version: str) -> Arity | None:
    """The port counts of `op_type` in a standard opset (None: not checked)."""
    if not version.startswith("opset"):
        return None
    return _BY_VERSION.get((op_type, version)) or _BY_TYPE.get(op_type)


# Inputs of the recurrent ops a config may restrict (the reader does not check their layers):
# LSTMCell-4 X, H, C, W, R, B; LSTMSequence-5 adds sequence_lengths; GRU and RNN have no C.
_RECURRENT_INPUTS = {"LSTMCell": 6, "LSTMSequence": 7, "GRUCell": 5, "GRUSequence": 6, "RNNCell": 5,
                     "RNNSequence": 6}


def max_inputs(op_type: str) -> int | None:
    """The most inputs `op_type` takes in any opset (None: unbounded, as Concat, or not known)."""
    if op_type in _RECURRENT_INPUTS:
        return _RECURRENT_INPUTS[op_type]
    arities = [arity for (name, _), arity in _BY_VERSION.items() if name == op_type]
    if op_type in _BY_TYPE:
        arities.append(_BY_TYPE[op_type])
    if not arities or any(arity[1] is None for arity in arities):
        return None
    return max(arity[1] for arity in arities if arity[1] is not None)


def describe(low: int, high: int | None, what: str) -> str:
    if high == low:
        return f"{low} {what}{'s' if low != 1 else ''}"
    return f"at least {low} {what}s" if high is None else f"{low} to {high} {what}s"
