"""Broken or hostile config files: one line on stderr naming the file (and the line or key),
exit 2, before the model is read; bounded in size, depth and message length."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from lpt_cli.cli.main import main
from lpt_cli.lpt.engine.config import MAX_CONFIG_BYTES

MISSING_MODEL = "never-read.xml"  # a bad config must fail before the model is looked at

CONFIGS = {
    "not_yaml": ("update_precisions: true\nrestrictions:\n  precisions: [{op: Convolution\n", ["line 4",
                                                                                           "not valid YAML"]),
    "bad_indent": ("a: b\n  c: [d\n", ["line 2", "not valid YAML"]),
    "python_tag": ("deq_precision: !!python/object:os.system f32\n", ["line 1", "YAML tags", "not allowed"]),
    "float_tag": ("deq_precision: !!float f32\n", ["line 1", "!!float"]),
    "custom_tag": ("restrictions: !mine {}\n", ["line 1", "!mine"]),
    "alias": ("default_precisions: &p [u8]\nrestrictions: {precisions: [{op: Convolution, ports: {0: *p}}]}\n",
              ["line 2", "aliases"]),
    "impossible_date": ("deq_precision: 2021-02-30\n", ["not valid YAML"]),
    "deep": ("params: " + "[" * 1000 + "]" * 1000 + "\n", ["nested deeper than"]),
    "deep_block": ("params:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 40)) + "  " * 40 + "v: 1\n",
                   ["nested deeper than"]),
    "nested_disable": ("transformations:\n  disable: [[x]]\n", ["transformations.disable[0]",
                                                                 "unknown transformation"]),
    "nf4_deq": ("deq_precision: nf4\n", ["deq_precision", "'nf4'", "f32, f16"]),
    "f64_default": ("default_precisions: [f64]\n", ["default_precisions[0]", "'f64'"]),
    "long_value": ("deq_precision: " + "x" * 100_000 + "\n", ["deq_precision", "..."]),
    "long_key": ("x" * 1000 + ": 1\n", ["unknown key", "..."]),
    "not_utf8": (b"deq_precision: \xff\xfe\n", ["not UTF-8"]),
}


def run(config: Path | str) -> tuple[int, list[str]]:
    result = CliRunner().invoke(main, ["transform", MISSING_MODEL, "-q", "--config", str(config)])
    return result.exit_code, result.stderr.strip().splitlines()


@pytest.mark.parametrize("case", sorted(CONFIGS))
def test_bad_config_is_one_line(tmp_path: Path, case: str) -> None:
    text, words = CONFIGS[case]
    config = tmp_path / "cfg.yaml"
    config.write_bytes(text if isinstance(text, bytes) else text.encode())
    code, lines = run(config)
    assert code == 2 and len(lines) == 1, lines
    assert lines[0].startswith(f"lpt: error: {config}: ")
    assert len(lines[0]) < len(str(config)) + 400  # echoed values are clipped, not 100 kB
    for word in words:
        assert word in lines[0]


def test_config_size_is_bounded(tmp_path: Path) -> None:
    """A huge YAML list would take minutes and gigabytes to parse: refused after reading 1 MiB."""
    config = tmp_path / "big.yaml"
    line = "- u8\n"
    config.write_text("default_precisions:\n" + line * (MAX_CONFIG_BYTES // len(line) + 1))
    code, lines = run(config)
    assert code == 2 and len(lines) == 1 and "larger than 1 MiB" in lines[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_config_that_is_not_a_file(tmp_path: Path) -> None:
    fifo = tmp_path / "cfg.yaml"
    os.mkfifo(fifo)  # reading it would block forever
    code, lines = run(fifo)
    assert code == 2 and len(lines) == 1 and "is a FIFO" in lines[0]
    code, lines = run(tmp_path)
    assert code == 2 and len(lines) == 1 and "is a folder" in lines[0]


def test_profiles_and_valid_configs_still_load(tmp_path: Path) -> None:
    from lpt_cli.lpt.engine.config import PROFILE_NAMES, load_config

    for name in PROFILE_NAMES:
        load_config(name)
    config = tmp_path / "ok.yaml"
    config.write_text("deq_precision: f16\ndefault_precisions: [u8]\ntransformations: {disable: [AddTransformation]}\n"
                      "restrictions: {precisions: [{op: Convolution, ports: {0: [u8], 1: [i8]}}]}\n")
    loaded = load_config(str(config))
    assert loaded.deq_precision.name == "f16" and loaded.disable == ("AddTransformation",)
