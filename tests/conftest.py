"""Shared fixtures: `ensure_model(name, size, fp32=False)` from fixtures/generate.py."""
from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

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
