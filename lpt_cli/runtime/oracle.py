"""The CPU plugin as an oracle, run in a child process.

A model the plugin mishandles can crash `compile_model` (a segfault takes the whole Python
process with it), so whoever must survive that — tests, the zoo parity check — compiles and
runs models here: a child process compiles the IR with INFERENCE_PRECISION_HINT f32, infers
the given inputs and hands back the outputs and the runtime model's per-op rt_info (a stateful
model runs two steps on the same inputs from its initial state, and hands back both steps'
outputs: the second reads what the first stored). A crash
is a result (`crashed`), not the end of the caller. `CompileChecker` keeps one child for many
compile-only checks (the fuzzer's outputs, every output the test suite writes), `PluginRunner`
one for many runs (the per-op tests).
"""
from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .layers import RuntimeLayer


@dataclass
class PluginRun:
    """What the plugin did with one model: its outputs and runtime ops, or how it failed."""

    outputs: list[np.ndarray] = field(default_factory=list)
    layers: list[RuntimeLayer] = field(default_factory=list)
    error: str | None = None  # compile/infer refused the model (one line)
    crashed: bool = False  # the child died (signal) instead of answering

    @property
    def ok(self) -> bool:
        return self.error is None and not self.crashed


def plugin_run(xml_path: str | Path, inputs: dict[str, np.ndarray], *, device: str = "CPU",
               timeout: float = 600.0, env: Mapping[str, str] | None = None) -> PluginRun:
    """Compiles and infers `xml_path` in a child process; `inputs` by input name; `env` adds to the
    child's environment (ONEDNN_MAX_CPU_ISA caps the plugin's ISA)."""
    with tempfile.TemporaryDirectory(prefix="lpt-oracle-") as tmp:
        folder = Path(tmp)
        # (numpy's stub types **kwds as if a key could be its `allow_pickle` flag)
        np.savez(folder / "inputs.npz", **inputs)  # type: ignore[arg-type]
        cmd = [sys.executable, "-m", "lpt_cli.runtime.oracle", str(xml_path), str(folder), device]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False,
                                  env=_child_env(**(env or {})))
        except subprocess.TimeoutExpired:
            return PluginRun(error=f"no answer within {timeout:.0f} s", crashed=True)
        if done.returncode == 3:
            return PluginRun(error=_last_line(done.stderr))
        if done.returncode != 0 or not (folder / "layers.json").exists():
            return PluginRun(error=f"child exited with {done.returncode}: {_last_line(done.stderr)}", crashed=True)
        layers = [RuntimeLayer(**{**row, "output_precisions": tuple(row["output_precisions"]),
                                  "original_names": tuple(row["original_names"])})
                  for row in json.loads((folder / "layers.json").read_text())]
        with np.load(folder / "outputs.npz") as data:
            outputs = [data[f"out{i}"] for i in range(len(data.files))]
        return PluginRun(outputs=outputs, layers=layers)


def _child_env(**extra: str) -> dict[str, str]:
    """The environment of a child: it imports this very lpt_cli (not another one installed, or
    one in the current folder), whose protocol the parent speaks."""
    root = str(Path(__file__).resolve().parents[2])
    return dict(os.environ, **extra, PYTHONPATH=os.pathsep.join(filter(None, (root, os.environ.get("PYTHONPATH")))))


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def _child(xml_path: str, folder: str, device: str) -> int:
    """The child's side: exit 3 with the reason on stderr when the plugin refuses the model."""
    import openvino as ov

    from .compile import openvino_message
    from .layers import runtime_layers

    out = Path(folder)
    try:
        compiled = ov.Core().compile_model(xml_path, device, {"INFERENCE_PRECISION_HINT": "f32"})
        with np.load(out / "inputs.npz") as data:
            feed = {name: data[name] for name in data.files}
        request = compiled.create_infer_request()
        steps = [request.infer(feed)]
        if request.query_state():  # a stateful model: the second step reads what the first stored
            steps.append(request.infer(feed))
    except Exception as exc:  # noqa: BLE001 - any refusal is the answer
        print(openvino_message(exc), file=sys.stderr)
        return 3
    found = [np.asarray(results[o]) for results in steps for o in compiled.outputs]
    outputs = {f"out{i}": value for i, value in enumerate(found)}
    np.savez(out / "outputs.npz", **outputs)  # type: ignore[arg-type]  # as for inputs.npz above
    rows = [layer.__dict__ for layer in runtime_layers(compiled)]
    (out / "layers.json").write_text(json.dumps(rows))
    return 0


class _ServedChild:
    """A persistent child answering one JSON line per request line (`python -m
    lpt_cli.runtime.oracle FLAG`): starting openvino costs about a second, a compile of a small
    model milliseconds. The child is restarted after a crash, a timeout, or `restart_every`
    requests (the plugin's caches grow)."""

    _flag = ""

    def __init__(self, *, timeout: float = 60.0, restart_every: int = 200) -> None:
        self.timeout = timeout
        self.restart_every = restart_every
        self._proc: subprocess.Popen[str] | None = None
        self._used = 0

    def _ask(self, request: str) -> dict[str, object] | str:
        """The child's answer to one request line, or why there is none (it crashed, timed out)."""
        if self._proc is None or self._proc.poll() is not None or self._used >= self.restart_every:
            self.stop()
            self._proc = subprocess.Popen([sys.executable, "-m", "lpt_cli.runtime.oracle", self._flag],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.DEVNULL, text=True, env=_child_env(OMP_NUM_THREADS="1"))
            self._used = 0
        self._used += 1
        proc = self._proc
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(f"{request}\n")
            proc.stdin.flush()
        except BrokenPipeError:
            self.stop()
            return "OpenVINO crashed (the child died)"
        ready, _, _ = select.select([proc.stdout], [], [], self.timeout)
        line = proc.stdout.readline() if ready else ""
        if not line:
            code = proc.poll()
            self.stop()
            return f"OpenVINO crashed (exit {code})" if code is not None else f"no answer within {self.timeout:.0f} s"
        answer: dict[str, object] = json.loads(line)
        return answer

    def stop(self) -> None:
        """Ends the child (a later request starts a new one)."""
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            for pipe in (self._proc.stdin, self._proc.stdout):
                if pipe is not None:
                    pipe.close()
            self._proc = None


class CompileChecker(_ServedChild):
    """A persistent child that reads and compiles models on the CPU plugin, one at a time (a
    model with an input of dynamic rank, which the plugin never compiles, is only read)."""

    _flag = "--serve"

    def check(self, xml_path: str | Path) -> str | None:
        """None when the plugin reads and compiles `xml_path`; else why not (one line)."""
        answer = self._ask(str(Path(xml_path).resolve()))
        if isinstance(answer, str):
            return answer
        return None if answer["ok"] else str(answer["error"])


class PluginRunner(_ServedChild):
    """`plugin_run` for many models in one persistent child (INFERENCE_PRECISION_HINT f32 too; no
    runtime layers): a test that runs hundreds of tiny models pays openvino's start once. The
    child runs one thread and one stream, as the compile checks: compare runs of this runner with
    each other, not with `plugin_run`'s."""

    _flag = "--serve-runs"

    def run(self, xml_path: str | Path, inputs: dict[str, np.ndarray]) -> PluginRun:
        """Compiles and infers `xml_path`; `inputs` by input name."""
        with tempfile.TemporaryDirectory(prefix="lpt-oracle-") as tmp:
            folder = Path(tmp)
            np.savez(folder / "inputs.npz", **inputs)  # type: ignore[arg-type]  # as in plugin_run
            answer = self._ask(json.dumps({"xml": str(Path(xml_path).resolve()), "folder": str(folder)}))
            if isinstance(answer, str):
                return PluginRun(error=answer, crashed=True)
            if not answer["ok"]:
                return PluginRun(error=str(answer["error"]))
            with np.load(folder / "outputs.npz") as data:
                return PluginRun(outputs=[data[f"out{i}"] for i in range(len(data.files))])

    def read(self, xml_path: str | Path) -> str | None:
        """None when `core.read_model` accepts `xml_path` (nothing compiled); else why not."""
        answer = self._ask(json.dumps({"xml": str(Path(xml_path).resolve()), "folder": None}))
        if isinstance(answer, str):
            return answer
        return None if answer["ok"] else str(answer["error"])


def _serve() -> int:
    """The checker's child: a model path per stdin line, one JSON answer per line."""
    import warnings

    warnings.simplefilter("ignore")
    import openvino as ov

    core = ov.Core()
    core.set_property("CPU", {"INFERENCE_NUM_THREADS": 1, "NUM_STREAMS": 1})
    for line in sys.stdin:
        try:
            model = core.read_model(line.strip())
            if all(p.get_partial_shape().rank.is_static for p in model.get_parameters()):
                core.compile_model(model, "CPU")  # the plugin compiles no input of dynamic rank
            answer: dict[str, object] = {"ok": True}
        except Exception as exc:  # noqa: BLE001 - any refusal is the answer
            text = [t for t in str(exc).splitlines() if t.strip() and not t.startswith("Exception from")]
            answer = {"ok": False, "error": (text[-1] if text else type(exc).__name__)[:300]}
        print(json.dumps(answer), flush=True)
    return 0


def _serve_runs() -> int:
    """The runner's child: a JSON request per stdin line (`xml`, and `folder` with inputs.npz to
    infer, or null to only read), one JSON answer per line; outputs go to folder/outputs.npz."""
    import warnings

    warnings.simplefilter("ignore")
    import openvino as ov

    from .compile import openvino_message

    core = ov.Core()
    core.set_property("CPU", {"INFERENCE_NUM_THREADS": 1, "NUM_STREAMS": 1})
    for line in sys.stdin:
        request = json.loads(line)
        try:
            model = core.read_model(request["xml"])
            if request["folder"] is not None:
                out = Path(request["folder"])
                compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
                with np.load(out / "inputs.npz") as data:
                    feed = {name: data[name] for name in data.files}
                results = compiled.create_infer_request().infer(feed)
                outputs = {f"out{i}": np.asarray(results[o]) for i, o in enumerate(compiled.outputs)}
                np.savez(out / "outputs.npz", **outputs)  # type: ignore[arg-type]  # as in _child
            answer: dict[str, object] = {"ok": True}
        except Exception as exc:  # noqa: BLE001 - any refusal is the answer
            answer = {"ok": False, "error": openvino_message(exc)[:300]}
        print(json.dumps(answer), flush=True)
    return 0


_SERVERS = {"--serve": _serve, "--serve-runs": _serve_runs}

if __name__ == "__main__":
    sys.exit(_SERVERS[sys.argv[1]]() if sys.argv[1] in _SERVERS else _child(*sys.argv[1:4]))
