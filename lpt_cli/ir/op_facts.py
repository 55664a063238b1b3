"""What lpt knows about each op type, declared once: one row per op, one flag per fact.

LPT's markup, the dequantization mover, the reports and the runtime legalization each ask
a yes/no question about an op type; the answers used to live in one set per asker. They
live here, in ir/ (which every layer may import), so that adding an op is one row.

| fact                | who reads it                            | meaning                                       |
| ------------------- | --------------------------------------- | --------------------------------------------- |
| LPT                 | lpt/markup/precisions.py                | in LPT's op list: markup leaves its inputs    |
|                     |                                         | quantizable (OpenVINO's MarkupPrecisions)     |
| RESTRICTABLE        | lpt/engine/config.py                    | a config's precision restriction may name it  |
| PRECISION_PRESERVED | lpt/markup/precisions.py                | output keeps the input's precision (markup)   |
| TYPE_RELAXED        | lpt/surgery/moving.py                   | OpenVINO wraps it TypeRelaxed: its output type|
|                     |                                         | may differ from its input type                |
| WEIGHTED            | reports/, runtime/shapes.py             | a layer with weights on input 1               |
| KEEPS_QUANTIZED     | reports/topology.py                     | a quantized input stays quantized through it  |
|                     |                                         | (values are moved or selected)                |
| INTEGER_EXACT       | ir/legalize.py                          | its result on integers equals the float result|
|                     |                                         | on the same values (data movement, max/min)   |
| OUTSIDE_MARKUP      | tests (the registry's roots)            | a transformation roots on it although LPT's   |
|                     |                                         | markup leaves it out of its op list, and no   |
|                     |                                         | restriction may name it (Assign: its input is |
|                     |                                         | never quantizable, AssignAndReadValue moves a |
|                     |                                         | dequantization other transformations made)    |
| RECURRENT           | reports/                                | a recurrent sequence (X, H, ..., W, R, B): LPT|
|                     |                                         | keeps the dequantizations in front and the    |
|                     |                                         | plugin folds them into a quantized cell       |

The sets differ on purpose (they model different OpenVINO lists): Interpolate is
precision-preserved for LPT but not "keeps quantized" for the reports; Tile and SpaceToDepth
are the other way round; Maximum or Select are integer-exact but LPT has no rule for them.
"""
from __future__ import annotations

from enum import Flag, auto


class Fact(Flag):
    """One yes/no fact about an op type (see the module docstring for who reads which)."""

    NONE = 0
    LPT = auto()
    RESTRICTABLE = auto()
    PRECISION_PRESERVED = auto()
    TYPE_RELAXED = auto()
    WEIGHTED = auto()
    KEEPS_QUANTIZED = auto()
    INTEGER_EXACT = auto()
    RECURRENT = auto()
    OUTSIDE_MARKUP = auto()


LPT = Fact.LPT
RESTRICTABLE = Fact.RESTRICTABLE
PRECISION_PRESERVED = Fact.PRECISION_PRESERVED
TYPE_RELAXED = Fact.TYPE_RELAXED
WEIGHTED = Fact.WEIGHTED
KEEPS_QUANTIZED = Fact.KEEPS_QUANTIZED
INTEGER_EXACT = Fact.INTEGER_EXACT
RECURRENT = Fact.RECURRENT
OUTSIDE_MARKUP = Fact.OUTSIDE_MARKUP
# What most data-movement ops LPT moves a dequantization across share.
_MOVES_DATA = LPT | RESTRICTABLE | PRECISION_PRESERVED | KEEPS_QUANTIZED | INTEGER_EXACT

OP_FACTS: dict[str, Fact] = {
    "Add":                     LPT | RESTRICTABLE | TYPE_RELAXED,
    "Assign":                  OUTSIDE_MARKUP,
    "AvgPool":                 LPT | RESTRICTABLE | TYPE_RELAXED,
    "BatchToSpace":            _MOVES_DATA,
    "Broadcast":               _MOVES_DATA,
    "Clamp":                   LPT | RESTRICTABLE | TYPE_RELAXED,
    "Concat":                  _MOVES_DATA,
    "Convert":                 LPT,
    "Convolution":             LPT | RESTRICTABLE | TYPE_RELAXED | WEIGHTED,
    "ConvolutionBackpropData": LPT | RESTRICTABLE | TYPE_RELAXED | WEIGHTED,
    "DepthToSpace":            _MOVES_DATA | TYPE_RELAXED,
    "FakeQuantize":            LPT | RESTRICTABLE | TYPE_RELAXED,
    "Gather":                  _MOVES_DATA,
    "GatherElements":          INTEGER_EXACT,
    "GatherND":                INTEGER_EXACT,
    "GroupConvolution":        LPT | RESTRICTABLE | TYPE_RELAXED | WEIGHTED,
    "GRUCell":                 RESTRICTABLE,
    "GRUSequence":             LPT | RESTRICTABLE | RECURRENT,
    "Identity":                INTEGER_EXACT,
    "Interpolate":             LPT | RESTRICTABLE | PRECISION_PRESERVED | TYPE_RELAXED,
    "LSTMCell":                RESTRICTABLE,
    "LSTMSequence":            LPT | RESTRICTABLE | RECURRENT,
    "MatMul":                  LPT | RESTRICTABLE | WEIGHTED,
    "Maximum":                 INTEGER_EXACT,
    "MaxPool":                 _MOVES_DATA,
    "Minimum":                 INTEGER_EXACT,
    "Multiply":                LPT | RESTRICTABLE | TYPE_RELAXED,
    "MVN":                     LPT | RESTRICTABLE | TYPE_RELAXED,
    "NormalizeL2":             LPT | RESTRICTABLE | TYPE_RELAXED,
    "Pad":                     _MOVES_DATA,
    "PRelu":                   LPT | RESTRICTABLE | TYPE_RELAXED,
    "ReduceMax":               _MOVES_DATA,
    "ReduceMean":              LPT | RESTRICTABLE | TYPE_RELAXED,
    "ReduceMin":               _MOVES_DATA,
    "ReduceSum":               LPT | RESTRICTABLE | TYPE_RELAXED,
    "Relu":                    _MOVES_DATA,
    "Reshape":                 _MOVES_DATA,
    "Result":                  LPT,
    "ReverseSequence":         INTEGER_EXACT,
    "RNNCell":                 RESTRICTABLE,
    "RNNSequence":             RESTRICTABLE,
    "Roll":                    INTEGER_EXACT,
    "ScatterElementsUpdate":   INTEGER_EXACT,
    "ScatterNDUpdate":         INTEGER_EXACT,
    "ScatterUpdate":           INTEGER_EXACT,
    "Select":                  INTEGER_EXACT,
    "ShuffleChannels":         _MOVES_DATA,
    "Slice":                   _MOVES_DATA,
    "SpaceToBatch":            _MOVES_DATA,
    "SpaceToDepth":            KEEPS_QUANTIZED | INTEGER_EXACT,
    "Split":                   _MOVES_DATA,
    "Squeeze":                 _MOVES_DATA,
    "StridedSlice":            _MOVES_DATA,
    "Subtract":                LPT | RESTRICTABLE | TYPE_RELAXED,
    "Tile":                    KEEPS_QUANTIZED | INTEGER_EXACT,
    "Transpose":               _MOVES_DATA,
    "Unsqueeze":               _MOVES_DATA,
    "VariadicSplit":           _MOVES_DATA,
}


def ops_with(fact: Fact) -> frozenset[str]:
    """The op types that have every flag of `fact`."""
    return frozenset(op for op, facts in OP_FACTS.items() if fact in facts)


# The inputs whose *values* an op's shape inference reads (a target shape, split lengths, axes,
# pads, slice bounds, ...): OpenVINO evaluates their bounds while it validates the op and keeps
# them on the tensors upstream, and ConstantFolding folds exactly the values whose bounds are
# equal (ov::pass::ConstantFolding::pre_calculated_values_folding). A shape value that reaches
# none of these inputs (`ShapeOf -> Gather -> Convert -> Power`, an attention scale) is computed
# at run time, however static the dimension it reads.
SHAPE_VALUE_INPUTS: dict[str, tuple[int, ...]] = {
    "AdaptiveAvgPool": (1,), "AdaptiveMaxPool": (1,), "BatchToSpace": (1, 2, 3), "Broadcast": (1, 2),
    "Col2Im": (1, 2), "ConvolutionBackpropData": (2,), "DFT": (1, 2), "Eye": (0, 1, 2, 3),
    "Gather": (2,), "GroupConvolutionBackpropData": (2,), "IDFT": (1, 2), "IRDFT": (1, 2),
    "Interpolate": (1, 2, 3), "MVN": (1,), "Multinomial": (1,), "NormalizeL2": (1,), "OneHot": (1,),
    "Pad": (1, 2), "PriorBox": (0, 1), "PriorBoxClustered": (0, 1), "RDFT": (1, 2), "RandomUniform": (0,),
    "Range": (0, 1, 2), "ReduceL1": (1,), "ReduceL2": (1,), "ReduceLogicalAnd": (1,), "ReduceLogicalOr": (1,),
    "ReduceMax": (1,), "ReduceMean": (1,), "ReduceMin": (1,), "ReduceProd": (1,), "ReduceSum": (1,),
    "Reshape": (1,), "Slice": (1, 2, 3, 4), "SliceScatter": (2, 3, 4, 5), "SpaceToBatch": (1, 2, 3),
    "Split": (1,), "Squeeze": (1,), "StridedSlice": (1, 2, 3), "Tile": (1,), "TopK": (1,), "Transpose": (1,),
    "Unique": (1,), "Unsqueeze": (1,), "VariadicSplit": (1, 2),
}
