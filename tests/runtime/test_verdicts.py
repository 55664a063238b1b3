"""`lpt verify`'s verdict per output: errors relative to the output's range, and rounding of
the plugin's own size told from a changed model."""
from __future__ import annotations

import numpy as np

from lpt_cli.runtime.compare_outputs import CHANGED, PLUGIN_ROUNDING, SAME, output_verdicts


def _verdict(original, lpt, exact, atol=1e-2, rtol=1e-2):
    return output_verdicts(["y"], [np.asarray(original, np.float32)], [np.asarray(lpt, np.float32)],
                            [np.asarray(exact, np.float32)], atol, rtol)[0]


def test_an_output_near_zero_does_not_blow_up_the_error():
    """An ONNX QDQ mobilenet printed 2.5e+21 "ok": one element 1e-30 off by 2.5e-9. Relative to
    the output's range (its max 1.0) the error is 2.5e-9."""
    original = [1e-30, 0.5, 1.0]
    got = _verdict(original, [2.5e-9, 0.5, 1.0], original)
    assert got.error < 1e-8 and not got.absolute and got.verdict == SAME


def test_an_all_zero_output_compares_absolutely():
    got = _verdict([0.0, 0.0], [0.0, 3e-3], [0.0, 0.0], atol=0, rtol=0)
    assert got.absolute and got.error == np.float32(3e-3)


def test_rounding_as_large_as_the_plugins_own_is_not_a_change():
    """GPT-2 under --config gpu: lpt is 9.2e-03 of the range from the original, and both are
    9.3e-02 from the exact FakeQuantize math."""
    exact = np.linspace(-1, 1, 11)
    original = exact + 0.09 * np.sin(np.arange(11))
    lpt = original + 0.02 * np.cos(np.arange(11))
    got = _verdict(original, lpt, exact, atol=0, rtol=0)
    assert got.lpt_exact <= 2 * got.plugin_exact and got.verdict == PLUGIN_ROUNDING


def test_further_from_the_exact_math_than_twice_the_plugin_is_a_change():
    exact = np.linspace(-1, 1, 11)
    original = exact + 0.01
    got = _verdict(original, exact + 0.3, exact, atol=0, rtol=0)
    assert got.verdict == CHANGED
    shapes = output_verdicts(["y"], [np.zeros(3, np.float32)], [np.zeros(4, np.float32)], [np.zeros(3, np.float32)],
                             1.0, 1.0)[0]
    assert shapes.verdict == CHANGED and shapes.error == float("inf")
