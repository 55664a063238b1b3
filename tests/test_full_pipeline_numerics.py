"""Every reference input, run through the whole `cpu` pipeline, still computes what it did.

The reference cases each exercise one or two transformations; here all of them run
together (prerequisites, markup, main, cleanup, folding) under the CPU plugin's
restrictions, so interactions between passes are checked numerically on 470 graphs.
The few inputs where LPT itself is lossy by design are listed with OpenVINO's reason.
"""
from __future__ import annotations

import dataclasses

import pytest

from casekit.dsl import case_ids, load_case, load_input
from lpt_cli.lpt.engine.config import load_config
from lpt_cli.lpt.engine.pipeline import run_pipeline

_WEIGHTS_ZERO_POINT = ("weights interval [-1.27, 1.28] at 255 levels needs a zero point of -0.498, which "
                       "LPT rounds to an integer (optimizeSubtract), i.e. drops")
LOSSY_BY_DESIGN = {
    "eltwise/eliminate_fake_quantize_transformation::same_fq_eliminated": _WEIGHTS_ZERO_POINT,
    "eltwise/eliminate_fake_quantize_transformation::almost_same_fq_eliminated": _WEIGHTS_ZERO_POINT,
    "eltwise/eliminate_fake_quantize_transformation::different_fq_not_eliminated": _WEIGHTS_ZERO_POINT,
    "weightable/convolution_backprop_data_transformation::fq_i8_output_plus_dq_per_batch_not_transformed":
        "the input declares an i8 FakeQuantize with fractional output levels; FuseConvert makes it f32 "
        "and so drops the rounding to i8 that the declared type implies",
    "weightable/fake_quantize_transformation::u8i8_efficientnet_interval_i8":
        "asymmetric interval quantized as symmetric i8 (the case's own note: lossy by design)",
    "weightable/fake_quantize_transformation::u8i8_efficientnet_interval_i8_not_update_precisions":
        "asymmetric interval quantized as symmetric i8 (the case's own note: lossy by design)",
}
# The AssignAndReadValue inputs declare their stored FakeQuantize with a type other than u8 over
# the interval [0, 2.55] (the unit test's values): FuseConvert makes it f32 as above, and the
# variable carries the difference into the next inference's output.
LOSSY_BY_DESIGN.update({
    f"state/assign_and_read_value_transformation::{case}_{precision}_opset{opset}":
        f"the input declares a {precision} FakeQuantize with fractional output levels that feeds the state; "
        "FuseConvert makes it f32 and so drops the rounding, which the next step reads back"
    for case in ("fq_after_read_value", "no_fq_after_read_value", "non_zero_initial_value")
    for precision in ("i8", "u16", "i16", "u32", "i32") for opset in (3, 6)})
CPU = load_config("cpu")


def _params() -> list:
    params = []
    for case_id in case_ids():
        marks = [pytest.mark.slow]
        if case_id in LOSSY_BY_DESIGN:
            marks.append(pytest.mark.xfail(strict=True, reason=LOSSY_BY_DESIGN[case_id]))
        params.append(pytest.param(case_id, id=case_id, marks=marks))
    return params


@pytest.mark.parametrize("case_id", _params())
def test_full_cpu_pipeline_keeps_numerics(case_id: str) -> None:
    from casekit.numerics import compare_numerics  # imports openvino

    case = load_case(case_id)
    if case.numerics.get("skip"):
        pytest.skip(case.numerics["skip"])
    reference = load_input(case_id)
    config = dataclasses.replace(CPU, update_precisions=case.config.get("update_precisions", True))
    run_pipeline(case.input, config)
    assert compare_numerics(reference, case.input, shapes=case.numerics.get("shapes")) is None
