"""Errors and signals (issue 21): click's usage errors, config errors and warnings are one line
each; --debug works wherever it is typed; Ctrl-C is exit 130, one line, nothing left behind; an
output folder that takes no files says why."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from lpt_cli.lpt import PROFILE_NAMES
from click.testing import CliRunner

from lpt_cli.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "fixtures" / "models"


def run(*args: object):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def resnet(tmp_path: Path) -> Path:
    for suffix in (".xml", ".bin"):
        shutil.copy(MODELS / f"resnet{suffix}", tmp_path / f"resnet{suffix}")
    return tmp_path / "resnet.xml"


def files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


# --- click's usage errors: one line, like every other error ---------------------------------

@pytest.mark.parametrize(("args", "line"), [
    (["verify", "a.xml", "b.xml"], "lpt: error: got unexpected extra argument (b.xml); see 'lpt verify --help'"),
    (["transform", "m.xml", "--dialect", "fp8"],
     "lpt: error: invalid value for '--dialect': 'fp8' is not one of 'runtime', 'lowp'; see 'lpt transform --help'"),
    (["report", "m.xml", "--frob"], "lpt: error: no such option '--frob'; see 'lpt report --help'"),
    (["config", "show", "nope"], "lpt: error: invalid value for 'NAME': 'nope' is not one of "
                                 f"{', '.join(repr(name) for name in PROFILE_NAMES)}; see 'lpt config show --help'"),
    (["transfrom", "m.xml"], "lpt: error: no such command 'transfrom' (did you mean 'transform'?); see 'lpt --help'"),
    (["transform", "m.xml", "--formt", "json"],
     "lpt: error: no such option '--formt' (did you mean '--format'?); see 'lpt transform --help'"),
    (["report", "m.xml", "--che"],
     "lpt: error: no such option '--che' (did you mean one of: '--help', '--shape'?); see 'lpt report --help'"),
    (["--frob"], "lpt: error: no such option '--frob'; see 'lpt --help'"),
    (["verify"], "lpt: error: missing argument 'MODEL'; see 'lpt verify --help'"),
])
def test_usage_errors_are_one_error_line_exit_2(args: list[str], line: str) -> None:
    result = run(*args)
    assert result.exit_code == 2
    assert result.stderr == line + "\n"
    assert result.stdout == ""


# --- restrictions files, as the CLI says them ------------------------------------------------

@pytest.mark.parametrize(("text", "said"), [
    ("params: {frobnicate: 3}\n", "params.frobnicate: unknown parameter (lpt knows "),
    ("restrictions: {precisions: [{op: Convolution, ports: {7: [i8]}}]}\n",
     "restrictions.precisions[0].ports.7: Convolution has no input port 7"),
    ("transformations: {only: [ConvolutionTransformation], disable: [AddTransformation]}\n",
     "transformations: give only or disable, not both"),
    ("# nothing but a comment\n", "the config is empty"),
])
def test_a_config_lpt_would_misread_is_one_line_before_the_work(resnet: Path, text: str, said: str) -> None:
    config = resnet.parent / "c.yaml"
    config.write_text(text)
    result = run("transform", resnet, "--config", config, "-o", resnet.parent / "out" / "o.xml")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"lpt: error: {config}: {said}") and result.stderr.count("\n") == 1
    assert not (resnet.parent / "out").exists()


def test_a_config_that_runs_nothing_is_a_warning_line(resnet: Path) -> None:
    config = resnet.parent / "c.yaml"
    config.write_text("transformations: {only: []}\n")
    result = run("transform", resnet, "--config", config, "-o", resnet.parent / "o.xml", "-q")
    assert result.exit_code == 0, result.output
    assert result.stderr == (f"lpt: warning: {config}: transformations.only is empty: LPT runs no transformation "
                             "(markup only)\n")


# --- --debug anywhere ------------------------------------------------------------------------

@pytest.mark.parametrize("where", ["group", "after the command", "at the end"])
def test_debug_is_taken_wherever_it_is_typed(resnet: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    import lpt_cli.api as api_module

    def explode(_path: Path) -> None:
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(api_module, "read_ir", explode)
    args = {"group": ["--debug", "transform", resnet], "after the command": ["transform", "--debug", resnet],
            "at the end": ["transform", resnet, "-o", resnet.parent / "o.xml", "--debug"]}[where]
    result = run(*args)
    assert result.exit_code == 1
    assert "Traceback (most recent call last)" in result.stderr and "ZeroDivisionError: boom" in result.stderr
    assert result.stderr.splitlines()[-1] == ("lpt: internal error: ZeroDivisionError: boom "
                                              "(run with --debug for the traceback)")


@pytest.mark.parametrize("command", [["report"], ["verify"], ["benchmark"], ["diff"], ["config", "list"]])
def test_every_command_takes_debug(command: list[str]) -> None:
    assert "--debug" in run(*command, "--help").stdout


# --- Ctrl-C: exit 130, one line, nothing left behind -------------------------------------------

def test_ctrl_c_in_transform_leaves_nothing(resnet: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Interrupted in the pipeline, after the output folder and two trace steps were written."""

    def interrupted_after_two_steps(graph: object, config: object, progress: object = None, on_step=None) -> None:
        on_step("common_optimizations", graph)
        on_step("prerequisites", graph)
        raise KeyboardInterrupt

    monkeypatch.setattr("lpt_cli.api.run_pipeline", interrupted_after_two_steps)
    before = files_under(resnet.parent)
    result = run("transform", resnet, "-o", resnet.parent / "out" / "deeper" / "o.xml",
                 "--trace", resnet.parent / "trace")
    assert result.exit_code == 130
    assert result.stderr == "lpt: interrupted\n"
    assert "Aborted" not in result.output
    assert files_under(resnet.parent) == before  # no output folder, no trace folder, no trace file


def test_ctrl_c_keeps_a_trace_folder_that_was_there(resnet: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    trace = resnet.parent / "trace"
    trace.mkdir()
    (trace / "notes.txt").write_text("mine")

    def interrupted(graph: object, config: object, progress: object = None, on_step=None) -> None:
        on_step("prerequisites", graph)
        raise KeyboardInterrupt

    monkeypatch.setattr("lpt_cli.api.run_pipeline", interrupted)
    result = run("transform", resnet, "--config", "default", "-o", resnet.parent / "o.xml", "--trace", trace)
    assert result.exit_code == 130
    assert files_under(trace) == ["notes.txt"]


def test_ctrl_c_in_report_and_verify(resnet: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*_args: object, **_kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("lpt_cli.reports.analyze.analyze", interrupted)
    before = files_under(resnet.parent)
    for args in (["report", resnet, "--html", resnet.parent / "page.html"], ["verify", resnet]):
        result = run(*args)
        assert result.exit_code == 130, result.output
        assert result.stderr == "lpt: interrupted\n" and result.stdout == ""
    assert files_under(resnet.parent) == before


# A real SIGINT to a real `lpt transform` process: the child waits in the pipeline until the
# parent has read that it got there, so the signal always lands mid-run.
_SLOW_PIPELINE = """
import sys, time
import lpt_cli.api
from lpt_cli.cli.main import run

def slow(*args, **kwargs):
    print("in the pipeline", file=sys.stderr, flush=True)
    time.sleep(120)

lpt_cli.api.run_pipeline = slow
sys.argv = ["lpt", *sys.argv[1:]]
run()
"""


def test_sigint_to_the_process_exits_130_and_removes_the_output_folder(resnet: Path) -> None:
    out = resnet.parent / "new" / "o.xml"
    child = subprocess.Popen([sys.executable, "-c", _SLOW_PIPELINE, "transform", str(resnet), "-o", str(out)],
                             cwd=ROOT, stderr=subprocess.PIPE, text=True)
    assert child.stderr is not None
    try:
        assert child.stderr.readline() == "in the pipeline\n"
        assert out.parent.is_dir()  # made before the model was read
        child.send_signal(signal.SIGINT)
        rest = child.stderr.read()
        assert (child.wait(timeout=60), rest) == (130, "lpt: interrupted\n")
    finally:
        child.kill()
    assert not out.parent.exists()


# --- an output folder that takes no files says why ------------------------------------------

@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
@pytest.mark.parametrize(("output", "line"), [
    ("/proc/x.xml", "lpt: error: /proc: cannot write into the output folder: it is on a proc file system, "
                    "which does not take new files or folders"),
    ("/proc/lpt-nope/x.xml", "lpt: error: /proc/lpt-nope: cannot create the output folder: /proc is on a proc "
                             "file system, which does not take new files or folders"),
])
def test_an_output_under_proc_says_why(resnet: Path, output: str, line: str) -> None:
    result = run("transform", resnet, "-o", output)
    assert result.exit_code == 2
    assert result.stderr == line + "\n"
    assert "No such file or directory" not in result.stderr
