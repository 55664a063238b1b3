"""Shared fixtures: `ensure_model(name, size, fp32=False)` from fixtures/generate.py; every
output lpt writes during a test is checked to load (`written_outputs`)."""
from __future__ import annotations

import functools
import importlib.util
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

GENERATOR = Path(__file__).resolve().parents[1] / "fixtures" / "generate.py"


def load_module(path: Path, name: str) -> ModuleType:
    """A .py file as a module: fixtures/ and the test folders are not packages on sys.path."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_generator() -> ModuleType:
    """fixtures/generate.py as a module."""
    return load_module(GENERATOR, "lpt_fixture_generator")


@pytest.fixture(scope="session")
def ensure_model() -> Callable[..., Path]:
    """Path of a generated model IR (small ones are checked in; full ones are made on demand)."""
    return load_generator().ensure_model


@pytest.fixture(scope="session")
def tiny_models() -> ModuleType:
    """tests/runtime/tiny_models.py: the small openvino-built IRs the CLI tests run on."""
    return load_module(Path(__file__).parent / "runtime" / "tiny_models.py", "tiny_models")


class WrittenOutputs:
    """Every IR lpt writes while the tests run (CLI `transform`, the API, `write_ir` itself),
    checked the moment it is written, before a test can change it or a temporary folder goes
    away. A runtime-dialect output must be read and compiled by the CPU plugin in a child
    process (a crash there is a finding, not the end of the suite); a lowp output, which stock
    OpenVINO cannot load by design, must be read back by lpt's reader."""

    def __init__(self) -> None:
        from lpt_cli.runtime.oracle import CompileChecker

        self.checker = CompileChecker(timeout=600.0)
        self.found: list[str] = []  # why outputs written since the last `problems()` do not load
        self.checked: Counter[str] = Counter()  # outputs checked per dialect
        self.seconds = 0.0  # spent checking (printed at the end of the session)

    def record(self, xml_path: Path, dialect: str) -> None:
        from lpt_cli.errors import LptError
        from lpt_cli.ir.reader import read_ir

        start = time.perf_counter()
        self.checked[dialect] += 1
        if dialect == "lowp":
            try:
                read_ir(xml_path)
                why = None
            except LptError as exc:
                why = f"lpt's reader refuses it: {exc}"
        else:
            why = self.checker.check(xml_path)
        self.seconds += time.perf_counter() - start
        if why is not None:
            self.found.append(f"{xml_path} ({dialect} dialect): {why}")

    def problems(self) -> list[str]:
        """Why each output written since the last call does not load (empty: all do)."""
        found, self.found = self.found, []
        return found


WRITTEN = pytest.StashKey[WrittenOutputs]()


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """How many outputs the session checked, and what that cost."""
    outputs = config.stash.get(WRITTEN, None)
    if outputs is not None and outputs.checked:
        counts = ", ".join(f"{n} {dialect}" for dialect, n in sorted(outputs.checked.items()))
        terminalreporter.write_line(f"lpt outputs checked: {counts} in {outputs.seconds:.1f} s")


@pytest.fixture(scope="session", autouse=True)
def written_outputs(pytestconfig: pytest.Config) -> Iterator[WrittenOutputs]:
    """Records every write_ir call of the session: every module that bound the function is
    patched (the CLI and the API reach the writer through such bindings)."""
    import lpt_cli.api
    import lpt_cli.cli.main  # noqa: F401
    from lpt_cli.ir import writer

    outputs = WrittenOutputs()
    pytestconfig.stash[WRITTEN] = outputs
    write = writer.write_ir

    @functools.wraps(write)
    def write_and_record(graph: Any, xml_path: str | Path, *, dialect: str = "runtime", **kwargs: Any) -> int:
        written = write(graph, xml_path, dialect=dialect, **kwargs)
        # casekit writes OpenVINO's own LPT test graphs with dynamic shapes and stripped
        # FakeQuantizes, not loadable as written: it reshapes and compiles them its own way.
        if not sys._getframe(1).f_globals.get("__name__", "").startswith("casekit"):
            outputs.record(Path(xml_path), dialect)
        return written

    with pytest.MonkeyPatch.context() as patch:
        for module in list(sys.modules.values()):
            if vars(module).get("write_ir") is write:
                patch.setattr(module, "write_ir", write_and_record)
        yield outputs
    outputs.checker.stop()


@pytest.fixture(autouse=True)
def outputs_load(written_outputs: WrittenOutputs, request: pytest.FixtureRequest) -> Iterator[None]:
    """Fails the test (at teardown) that wrote an output OpenVINO or lpt cannot load back."""
    yield
    problems = written_outputs.problems()
    if problems:
        pytest.fail(f"{request.node.nodeid} wrote outputs that do not load:\n" + "\n".join(problems), pytrace=False)


@pytest.fixture
def break_pipeline(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    """Plants a bug at the end of lpt's pipeline as the API runs it (for `--check`, which must
    catch it): `break_pipeline("constant")` scales the first f32 constant an Add or Multiply
    takes (the output computes something else); `break_pipeline("op")` gives that Add or Multiply
    a type OpenVINO does not know (the output does not load)."""
    import lpt_cli.api as api

    real = api.run_pipeline

    def plant(bug: str) -> None:
        def run_with_bug(graph: Any, config: Any, **kwargs: Any) -> Any:
            result = real(graph, config, **kwargs)
            node = next(n for n in graph.topological_order() if n.type in ("Add", "Multiply")
                        and n.input_node(1).is_constant and n.input_value(1).element_type.name == "f32")
            if bug == "constant":
                node.set_input(1, graph.add_constant(node.input_node(1).value * 1.5 + 0.25, "f32").output(0))
            else:
                node.type = "NoSuchOp"
            return result

        monkeypatch.setattr(api, "run_pipeline", run_with_bug)

    return plant
