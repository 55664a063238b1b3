"""A model's FakeQuantize math in plain float ops (no FakeQuantize: the plugin runs no LPT on it).

    python repros/fq_reference.py MODEL.xml OUT.xml

Each FakeQuantize becomes min/max clamping, Round(half to even) on the level grid and the
output interval's affine map (lpt_cli.runtime.reference, what `lpt verify` compares with), so
`plugin_run(OUT.xml)` is a reference for both the plugin's own LPT and lpt's output of
MODEL.xml: which of the two left the FakeQuantize semantics.
"""
from __future__ import annotations

import sys

import openvino as ov

from lpt_cli.runtime.reference import exact_fake_quantize

if __name__ == "__main__":
    ov.save_model(exact_fake_quantize(ov.Core().read_model(sys.argv[1])), sys.argv[2], compress_to_fp16=False)
