"""The API every command has (issue 21): `lpt_cli.verify` and `lpt_cli.benchmark` as functions,
`dir(lpt_cli)` listing them, and `transform_file` preparing its output before it works."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import lpt_cli
from lpt_cli.errors import LptError
from lpt_cli.runtime import FP32, ORIGINAL, TRANSFORMED

MODELS = Path(__file__).resolve().parents[2] / "fixtures" / "models"
RESNET = MODELS / "resnet.xml"


def test_dir_lists_the_api_without_loading_it() -> None:
    code = ("import sys, lpt_cli; print(' '.join(dir(lpt_cli))); "
            "sys.exit('lpt_cli.api' in sys.modules or 'numpy' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["__version__", "analysis", "benchmark", "diff", "report", "transform",
                                   "transform_file", "verify"]
    assert dir(lpt_cli) == sorted(lpt_cli.__all__)


def test_verify_is_what_lpt_verify_prints(tmp_path: Path, tiny_models) -> None:
    model = tiny_models.conv(tmp_path)
    done = lpt_cli.verify(model, "default", seed=3)
    assert done.passed and done.inputs == "random inputs, seed 3" and done.notes == ()
    assert [v.name for v in done.outputs] == ["probs"] and done.outputs[0].verdict == "same as the original"
    strict = lpt_cli.verify(model, "default", seed=3, atol=0.0, rtol=0.0)
    assert strict.outputs[0].within == (strict.outputs[0].error == 0.0)
    assert strict.passed  # beyond zero tolerance, still no further from the exact math than the plugin's LPT


def test_verify_names_the_defaults_it_chose_for_dynamic_dimensions(tmp_path: Path, tiny_models) -> None:
    model = tiny_models.dynamic_relu(tmp_path)
    assert lpt_cli.verify(model, "default").notes != ()
    assert lpt_cli.verify(model, "default", shape={"x": (2, 4)}).notes == ()


def test_benchmark_measures_every_model_it_was_given(tmp_path: Path, tiny_models) -> None:
    model = tiny_models.conv(tmp_path)
    fp32 = tiny_models.conv(tmp_path, fp32=True)
    ticks: list[float] = []
    done = lpt_cli.benchmark(model, fp32=fp32, seconds=0.1, tick=ticks.append)
    assert list(done.models) == [ORIGINAL, TRANSFORMED, FP32] and not done.interrupted
    assert all(t.stats.iterations > 0 and t.inference_precision == "f32" for t in done.models.values())
    assert done.models[FP32].int8_kernels == 0 and ticks[-1] == 1.0
    assert (done.api, done.hint, done.device) == ("sync", "latency", "CPU")
    with pytest.raises(LptError, match="--nireq: needs --api async"):
        lpt_cli.benchmark(model, nireq=2)


def test_transform_file_makes_the_output_folder(tmp_path: Path) -> None:
    out = tmp_path / "new" / "deeper" / "model.xml"
    done = lpt_cli.transform_file(RESNET, out)
    assert done.output == out and out.is_file() and out.with_suffix(".bin").is_file()


def test_transform_file_checks_the_output_before_reading_the_model(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import lpt_cli.api as api_module

    def never(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the model was read before the output path was checked")

    monkeypatch.setattr(api_module, "read_ir", never)
    (tmp_path / "afile").write_text("x")
    for output, said in ((tmp_path / "afile" / "m.xml", "is a file, so m.xml cannot be written inside it"),
                         (tmp_path / "m.txt", "the output must be an .xml path"),
                         (RESNET, "refusing to overwrite the input model")):
        with pytest.raises(LptError, match=said):
            lpt_cli.transform_file(RESNET, output)


def test_transform_file_that_fails_removes_the_folder_it_made(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*_args: object, **_kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("lpt_cli.api.run_pipeline", interrupted)
    kept = tmp_path / "kept"
    kept.mkdir()
    with pytest.raises(KeyboardInterrupt):
        lpt_cli.transform_file(RESNET, kept / "new" / "m.xml")
    assert list(tmp_path.iterdir()) == [kept] and list(kept.iterdir()) == []
