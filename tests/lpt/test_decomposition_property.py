"""Property: a decomposed FakeQuantize computes what the original computed.

For any output interval, FQ'(x) -> (q - shift) * scale must reproduce FQ(x) up to float
rounding, for both an unsigned target with a zero point and a signed one without. And the
precision an interval maps to is decided as OpenVINO's loop over its channels decides it.
"""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lpt_cli.ir import Graph
from lpt_cli.ir.eltypes import f32, i8, i32, u8
from lpt_cli.lpt.dequantization.fake_quantize_math import (_clamp_scale, _dequantization_values,
                                                         _one_value_dequantization, decompose_fake_quantize,
                                                         evaluate_fake_quantize)
from lpt_cli.lpt.dequantization.precision import PrecisionDetails, _precision_for, get_precision_details

_bound = st.floats(min_value=-50.0, max_value=50.0, allow_nan=False, width=32)


def _fq_graph(il: float, ih: float, ol: float, oh: float) -> tuple[Graph, object]:
    graph = Graph()
    data = graph.add_node("Parameter", outputs=[(f32, (1, 64))], attrs={"shape": "1,64", "element_type": "f32"})
    bounds = [graph.add_constant(np.float32(v), f32).output() for v in (il, ih, ol, oh)]
    fq = graph.add_node("FakeQuantize", [data.output(), *bounds], outputs=[(f32, (1, 64))],
                        attrs={"levels": "256", "auto_broadcast": "numpy"})
    graph.add_node("Result", [fq.output()])
    return graph, fq


def _check(il: float, ih: float, ol: float, oh: float, precision, low: float, high: float,
           zero_point: bool) -> None:
    _, fq = _fq_graph(il, ih, ol, oh)
    x = np.linspace(il - 1.0, ih + 1.0, 64, dtype=np.float32).reshape(1, 64)
    expected = evaluate_fake_quantize(x, il, ih, ol, oh, 256)
    parts = decompose_fake_quantize(fq, precision, low, high, zero_point, True)
    assert parts is not None and parts.quantize.output().element_type == precision
    new_low, new_high = (parts.quantize.input_node(i).value for i in (3, 4))
    q = evaluate_fake_quantize(x, il, ih, new_low, new_high, 256)
    assert np.array_equal(q, np.round(q)) and q.min() >= low and q.max() <= high
    shift = parts.subtract.input_node(1).value if parts.subtract is not None else np.float32(0)
    actual = (q - shift) * parts.multiply.input_node(1).value
    scale = abs(oh - ol) / 255
    assert np.allclose(actual, expected, rtol=1e-5, atol=1e-4 * max(1.0, abs(ol), abs(oh)) + 1e-3 * scale)


@settings(max_examples=60, deadline=None)
@given(il=_bound, width=st.floats(0.1, 20.0), ol=_bound, span=st.floats(0.05, 40.0))
def test_unsigned_with_zero_point(il: float, width: float, ol: float, span: float) -> None:
    _check(il, il + width, ol, ol + span, u8, 0.0, 255.0, True)


@settings(max_examples=60, deadline=None)
@given(il=_bound, width=st.floats(0.1, 20.0), half=st.floats(0.05, 20.0))
def test_signed_symmetric(il: float, width: float, half: float) -> None:
    _check(il, il + width, -half * 128 / 127, half, i8, -128.0, 127.0, False)


_any_bound = st.floats(-2.0**64, 2.0**64, width=32)  # the pipeline refuses wider FakeQuantize bounds


@settings(max_examples=200, deadline=None)
@given(low=_any_bound, high=_any_bound, precision=st.sampled_from([u8, i8, i32]))
def test_one_value_interval_matches_the_per_channel_arithmetic(low: float, high: float, precision) -> None:
    """The scalar path of a per-tensor interval yields the bits of the array path: scale
    (clamped), shift, new low and high, all float32."""
    mn, mx = (0.0, 255.0) if precision == u8 else (-128.0, 127.0)
    arrays = _dequantization_values(np.array([low], np.float32), np.array([high], np.float32), precision, mn, mx)
    expected = (_clamp_scale(arrays[0]), *arrays[1:])
    actual = _one_value_dequantization(np.float32(low), np.float32(high), precision, mn, mx)
    for want, got in zip(expected, actual):
        assert isinstance(got, np.float32)
        assert want.reshape(()).tobytes() == got.tobytes()


def _precision_details_channel_by_channel(levels: int, low: np.ndarray, high: np.ndarray) -> PrecisionDetails:
    """getPrecisionDetails as OpenVINO writes it, one channel after another in float32."""
    side_ratio = np.float32(-np.float32(levels) / (np.float32(levels) - np.float32(2)))
    signed = unsigned = True
    has_negative = has_zp = any_normal = False
    for ol, oh in zip(low, high):
        if abs(ol) < 1e-6 and abs(oh) < 1e-6:
            continue
        any_normal = True
        if bool(np.signbit(ol)) != bool(np.signbit(oh)) and abs(ol) >= 1e-6:
            unsigned, has_negative = False, True
            if oh != 0.0:
                expected = side_ratio if levels in (16, 256, 65536, 4294967296) else np.float32(-1.0)
                actual = ol / oh
                has_zp |= bool(abs((actual - expected) / min(actual, expected)) > np.float32(0.002))
            else:
                has_zp = True
        else:
            signed = False
            has_zp |= bool(abs(ol) >= 1e-6)
    if not any_normal:
        signed = bool(np.any(low < 0))
        unsigned = not signed
    precision = _precision_for(levels, signed) if not has_zp and signed != unsigned else None
    return PrecisionDetails(precision, has_negative, has_zp)


_edge = st.sampled_from([0.0, -0.0, 1e-7, -1e-7, 1e-6, -1e-6, 1.0, -1.0, 1.27, -1.28, -128 / 127, 2.5, -2.5, 1e30])
_channel = st.one_of(_edge, st.floats(-10.0, 10.0, width=32), st.floats(allow_nan=True, width=32))


@settings(max_examples=300, deadline=None)
@given(levels=st.sampled_from([16, 15, 256, 255, 65536, 4294967295]),
       channels=st.lists(st.tuples(_channel, _channel), min_size=1, max_size=12),
       ratio=st.sampled_from([None, -1.0, -256 / 254, -1.001]))
def test_precision_details_of_all_channels_at_once_match_openvino_channel_by_channel(
        levels: int, channels: list[tuple[float, float]], ratio: float | None) -> None:
    """The vectorized getPrecisionDetails decides as OpenVINO's loop does, thresholds and NaN
    included (a `ratio` makes every high the low times it, near the asymmetry threshold)."""
    low = np.array([c[0] for c in channels], np.float32)
    high = np.array([c[1] for c in channels], np.float32) if ratio is None else (low / np.float32(ratio))
    with np.errstate(all="ignore"):
        expected = _precision_details_channel_by_channel(levels, low, high)
        assert get_precision_details(levels, low, high) == expected
