"""The LPT configuration ("restrictions file"): schema, strict validation, built-in profiles.

The schema is FORMAT.md's "Config" section, plus the keys the plugins need: `isa` (the oneDNN
ISA of a CPU profile, lpt_cli/isa.py), `rank` on a precision restriction (the CPU plugin's
GroupConvolution restriction depends on the input's rank), `transformations.enable` (an
on-demand pass, ConvertSubtractConstant for the CPU plugin), which plugin's pre-LPT step runs
(`common_optimizations: cpu | gpu | gpu-xmx`), the inference precision it converts the model to
before LPT (`inference_precision`) and the plugin's callbacks on LPT's passes (`callbacks: gpu`).
Validation is strict so that a typo in a
config (an unknown key, a misspelt transformation) fails loudly instead of silently
running LPT with defaults; every error names the file and the key path.
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ... import isa as cpu_isa
from ...errors import LptError, LptWarning, clip
from ...ir.arity import describe, max_inputs
from ...ir.eltypes import LOW_PRECISION, ElementType, UnknownElementType, element_type, f16, f32, i8, u8
from ...ir.op_facts import Fact, ops_with
from ...ir.reader import regular_file_problem
from .. import PROFILE_NAMES
from . import registry
from .profile_yaml import read_profile

if TYPE_CHECKING:  # PyYAML loads only for a user's config file: a built-in profile needs none of it
    import yaml

PROFILES_DIR = Path(__file__).with_name("profiles")

_TOP_KEYS = frozenset({
    "update_precisions", "deq_precision", "default_precisions", "asymmetric_quantization",
    "asymmetric_weights", "restrictions", "transformations", "params", "common_optimizations", "isa",
    "inference_precision", "callbacks",
})

# Op types a restriction may name: those LPT's transformations root on (tests keep this in
# sync with the registry) and the recurrent ops OpenVINO's plugins restrict. A misspelt op
# would otherwise match nothing and silently change the result.
KNOWN_OPS = ops_with(Fact.RESTRICTABLE)

# `params`, checked like every other key: a misspelt one (`skipBiasAdd`) would otherwise be
# ignored and LPT run without it. Booleans lpt implements (default false), and why:
#   skip_bias_add      AddTransformation leaves Adds marked as a bias alone (CPU plugin callback)
#   reshape_ignore_per_tensor_quantization_check  LayerTransformation::Params of the same name
BOOL_PARAMS = frozenset({"skip_bias_add", "reshape_ignore_per_tensor_quantization_check"})
# OpenVINO params lpt does not implement, accepted only at the value that is lpt's behaviour
# (FORMAT.md names the first as an example), with what any other value would have asked for.
FIXED_PARAMS = {"support_3d_tensor_on_activations": (True, "lpt always transforms MatMuls with 3D activations")}

# Bounds that keep a hostile or broken file from costing minutes and gigabytes: a real config
# is a few kB and a few levels deep.
MAX_CONFIG_BYTES = 1 << 20
MAX_CONFIG_DEPTH = 16
DEQ_PRECISIONS = (f32, f16)  # FORMAT.md: dequantization math runs in f32 or f16
INFERENCE_PRECISIONS = (f32, f16)  # the plugin's INFERENCE_PRECISION_HINT as its pre-LPT step applies it


class ConfigError(LptError):
    """A config file or profile is malformed; the message names the key path."""


@dataclass(frozen=True)
class PrecisionRestriction:
    """PrecisionsRestriction: the precisions each input port of `op` may take; with `rank`, only
    for an `op` whose input 0 has that static rank (the CPU plugin's GroupConvolution restriction
    is a function of the node: 5-D inputs take i8 activations on every ISA)."""

    op: str
    ports: Mapping[int, tuple[ElementType, ...]]
    rank: int | None = None


@dataclass(frozen=True)
class PerTensorRestriction:
    """QuantizationGranularityRestriction: per-tensor only on `ports` (empty = all ports)."""

    op: str
    ports: tuple[int, ...] = ()


@dataclass(frozen=True)
class Config:
    """LayerTransformation::Params plus the plugin's restrictions and pass selection."""

    name: str = "default"
    update_precisions: bool = True
    deq_precision: ElementType = f32
    default_precisions: tuple[ElementType, ...] = (u8, i8)
    asymmetric_quantization: bool = True
    asymmetric_weights: bool = True
    precision_restrictions: tuple[PrecisionRestriction, ...] = ()
    per_tensor_restrictions: tuple[PerTensorRestriction, ...] = ()
    only: tuple[str, ...] | None = None
    disable: tuple[str, ...] = ()
    enable: tuple[str, ...] = ()  # on-demand passes (registry.ON_DEMAND) run besides the standard ones
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    # Whose optimizations run before LPT (lpt_cli/lpt/common_optimizations, registry.PRE_LPT_LISTS:
    # cpu, gpu, gpu-xmx): set in the plugin profiles; None for LPT alone (OpenVINO's LPT unit
    # tests, the reference cases). A config file's `true` is the CPU plugin's (what it always was).
    common_optimizations: str | None = None
    # The precision the plugin converts the model's f32 values to before LPT (ConvertPrecision in
    # its pre-LPT step): f16 for the GPU plugin by default, f32 for the CPU plugin unless an f16
    # INFERENCE_PRECISION_HINT asks otherwise.
    inference_precision: ElementType = f32
    # The plugin's callbacks on LPT's own passes (registry.CALLBACK_SETS: gpu), None: no callbacks.
    callbacks: str | None = None
    # The oneDNN ISA the CPU plugin runs with (lpt_cli/isa.py): the report applies the plugin's
    # kernel rules for it. None: not a CPU plugin config, no kernel rules.
    isa: str | None = None

    def enabled(self, name: str) -> bool:
        """Whether the transformation `name` runs under this config."""
        if self.only is not None:
            return name in self.only
        if name in self.disable:
            return False
        return name not in registry.ON_DEMAND or name in self.enable

    def precision_restriction(self, op: str, rank: int | None) -> PrecisionRestriction | None:
        """The restriction for an `op` whose input 0 has static rank `rank` (None: dynamic): one
        written for that rank wins over one for any rank; among equals the last written wins."""
        matching = [r for r in self.precision_restrictions if r.op == op and r.rank in (None, rank)]
        for_rank = [r for r in matching if r.rank is not None]
        return (for_rank or matching)[-1] if matching else None

    def param(self, name: str, default: Any = None) -> Any:
        return self.params.get(name, default)


def config_from_dict(d: Any, *, name: str = "config") -> Config:
    """Validates a parsed config document; `name` prefixes error messages (a file name)."""
    if d is None:
        d = {}
    _check_mapping(d, name, "")
    unknown = sorted(set(map(str, d)) - _TOP_KEYS)
    if unknown:
        hint = _did_you_mean(unknown[0], _TOP_KEYS) or f" (expected one of {', '.join(sorted(_TOP_KEYS))})"
        raise ConfigError(f"{name}: {clip(unknown[0])}: unknown key{hint}")
    restrictions = _restrictions(d.get("restrictions"), name)
    only, disable, enable = _transformations(d.get("transformations"), name)
    params = d.get("params") or {}
    _check_params(params, name)
    config = Config(
        name=name,
        update_precisions=_bool(d, "update_precisions", True, name),
        deq_precision=_type(d.get("deq_precision", "f32"), name, "deq_precision", DEQ_PRECISIONS),
        default_precisions=_types(d.get("default_precisions", ["u8", "i8"]), name, "default_precisions"),
        asymmetric_quantization=_bool(d, "asymmetric_quantization", True, name),
        asymmetric_weights=_bool(d, "asymmetric_weights", True, name),
        precision_restrictions=restrictions[0],
        per_tensor_restrictions=restrictions[1],
        only=only,
        disable=disable,
        enable=enable,
        params=MappingProxyType(dict(params)),
        common_optimizations=_pre_lpt(d.get("common_optimizations", False), name),
        isa=_isa(d.get("isa"), name),
        inference_precision=_inference_precision(d, name),
        callbacks=_named(d.get("callbacks"), name, "callbacks", registry.CALLBACK_SETS),
    )
    if only == ():  # said once the whole config is valid: a warning never precedes an error
        warnings.warn(f"{name}: transformations.only is empty: LPT runs no transformation (markup only)",
                      LptWarning, stacklevel=2)
    return config


def load_config(spec: str) -> Config:
    """A config from a YAML file path, or a built-in profile name (`cpu` is resolved for this CPU)."""
    if spec in PROFILE_NAMES:
        return resolve_profile(spec)
    path = Path(spec)
    if path.is_dir():
        raise ConfigError(f"{clip(spec)}: is a folder, expected a YAML config file or a built-in profile "
                          f"({', '.join(PROFILE_NAMES)})")
    problem = regular_file_problem(path)
    if problem == "does not exist":
        raise ConfigError(f"{clip(spec)}: no such config file (built-in profiles: {', '.join(PROFILE_NAMES)})")
    if problem is not None:
        raise ConfigError(f"{clip(spec)}: the config {problem}")
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_CONFIG_BYTES + 1)
        text = raw.decode("utf-8")
    except OSError as err:
        raise ConfigError(f"{clip(spec)}: cannot read config: {err.strerror or clip(err)}") from None
    except UnicodeDecodeError as err:
        raise ConfigError(f"{clip(spec)}: not UTF-8 text (byte {err.start})") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{clip(spec)}: larger than {MAX_CONFIG_BYTES >> 20} MiB; a config is a few kB")
    document = parse_yaml(text, clip(spec))
    if document is None:  # an empty file is a wrong file more often than a wish for the defaults
        raise ConfigError(f"{clip(spec)}: the config is empty (for LPT's library defaults: --config default, "
                          "or `{}` in the file)")
    return config_from_dict(document, name=str(spec))


def _line(event: yaml.Event) -> int:
    """The 1-based line of a parser event (PyYAML's parser marks every event)."""
    return event.start_mark.line + 1 if event.start_mark is not None else 0


def parse_yaml(text: str, name: str) -> Any:
    """safe_load, after an event scan that bounds nesting and refuses aliases (no recursion,
    no exponential expansion); any YAML error becomes one line with its line number."""
    import yaml

    try:
        depth = 0
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent):
                raise ConfigError(f"{name}: line {_line(event)}: YAML aliases (*name) "
                                  "are not allowed in a config")
            tag = getattr(event, "tag", None)
            if tag is not None and tag != "!":  # the parser reports only explicit tags
                raise ConfigError(f"{name}: line {_line(event)}: YAML tags ({clip(tag.replace('tag:yaml.org,2002:', '!!'), 40)}) "
                                  "are not allowed in a config")
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_CONFIG_DEPTH:
                    raise ConfigError(f"{name}: line {_line(event)}: nested deeper than "
                                      f"{MAX_CONFIG_DEPTH} levels")
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
        return yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise ConfigError(f"{name}: {_yaml_problem(err)}") from None
    except ValueError as err:  # a plain scalar that resolves to a type and fails to build (2021-02-30)
        raise ConfigError(f"{name}: not valid YAML ({clip(err)})") from None


def _yaml_problem(err: yaml.YAMLError) -> str:
    """`line N: not valid YAML (problem)` on one line, whatever the parser's message."""
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    where = f"line {mark.line + 1}: " if mark is not None else ""
    problem = getattr(err, "problem", None) or getattr(err, "context", None) or str(err)
    return f"{where}not valid YAML ({clip(problem)})"


def resolve_profile(name: str, cpuinfo: str | None = None, environ: Mapping[str, str] | None = None) -> Config:
    """A built-in profile; `cpu` becomes the CPU profile for this machine as the plugin sees it:
    its CPU flags and the `ONEDNN_MAX_CPU_ISA` cap in `environ` (default: this process's)."""
    if name not in PROFILE_NAMES:
        raise ConfigError(f"{name}: unknown profile (built-in profiles: {', '.join(PROFILE_NAMES)})")
    label = name
    if name == "cpu":
        resolution = cpu_isa.resolve_cpu(cpu_isa.read_cpuinfo() if cpuinfo is None else cpuinfo, environ)
        name = resolution.profile.name
        label = f"cpu (resolved to {name}: {resolution.why})"
    return config_from_dict(read_profile(profile_text(name)), name=label)


_CPU_TEMPLATE = "cpu-plugin.yaml"
_GPU_TEMPLATE = "gpu-plugin.yaml"

# The GPU profiles: the GPU plugin's template for a GPU without XMX (`gpu`) and with XMX
# (`gpu-xmx`, device_info.supports_immad). A GPU cannot be detected here (no OpenCL or Level Zero
# query), so there is no `gpu` resolving the way `cpu` does.
_GPU_PROFILES = {
    "gpu": {
        "device": "without XMX (supports_immad false: DP4A/IMAD only)", "pre_lpt": "gpu", "pre_lpt_why": "",
        "reshape_ignore": "false", "reshape_ignore_why": "LayerTransformation::Params' default on GPUs without XMX"},
    "gpu-xmx": {
        "device": "with XMX (supports_immad: oneDNN kernels)", "pre_lpt": "gpu-xmx",
        "pre_lpt_why": ": AvgPool over the whole spatial extent becomes ReduceMean, weights zero points stay u8/i8",
        "reshape_ignore": "true",
        "reshape_ignore_why": "reshapeIgnorePerTensorQuantizationCheck, set when device_info.supports_immad"},
}


def profile_text(name: str) -> str:
    """The YAML of a built-in profile as shipped (`cpu` is not a file: it resolves at load time).
    A CPU profile is the CPU plugin's template with the ISA rules' answers for its ISA, a GPU
    profile the GPU plugin's template for a GPU without or with XMX."""
    if name in _GPU_PROFILES:
        return Template((PROFILES_DIR / _GPU_TEMPLATE).read_text(encoding="utf-8")).substitute(_GPU_PROFILES[name])
    profile = cpu_isa.CPU_PROFILE.get(name)
    if profile is None:
        return (PROFILES_DIR / f"{name}.yaml").read_text(encoding="utf-8")
    isas = cpu_isa.implied(profile.isa)
    template = Template((PROFILES_DIR / _CPU_TEMPLATE).read_text(encoding="utf-8"))
    return template.substitute(
        isa=profile.isa, cpus=profile.cpus,
        activations=_activations("signed_conv_activations", isas),
        activations_why=_rule_note("signed_conv_activations", isas),
        activations_5d=_activations("signed_group_conv_5d", isas),
        activations_5d_why=_rule_note("signed_group_conv_5d", isas))


def _activations(rule: str, isas: frozenset[str]) -> str:
    return "[u8, i8]" if cpu_isa.holds(rule, isas) else "[u8]"


def _rule_note(rule: str, isas: frozenset[str]) -> str:
    found = cpu_isa.RULE[rule]
    return found.holds if found.on(isas) else found.otherwise


def profile_summary(name: str) -> str:
    """What a built-in profile is, in one line (`lpt config list`)."""
    profile = cpu_isa.CPU_PROFILE.get(name)
    if profile is not None:
        return (f"the CPU plugin on {profile.cpus}, oneDNN {profile.isa}: "
                f"{cpu_isa.rule_summary(cpu_isa.implied(profile.isa))}")
    return _SUMMARIES[name]


_SUMMARIES = {
    "default": "LPT's library defaults: u8/i8 everywhere, no restrictions, no plugin optimizations",
    "cpu": "the Intel CPU plugin on this machine: the CPU profile its flags and ONEDNN_MAX_CPU_ISA give",
    "gpu": ("the Intel GPU plugin on a GPU without XMX (DP4A only: Iris Xe, UHD of Tiger Lake and later, "
            "Meteor Lake's Arc iGPU): its pre-LPT step in f16, its LPT callbacks; from its source, untested on hardware"),
    "gpu-xmx": ("the Intel GPU plugin on a GPU with XMX (oneDNN, supports_immad: Arc A/B discrete, Lunar Lake, "
                "Data Center Max): as gpu, plus AvgPool -> ReduceMean, zero points kept, Reshape ignores per-tensor "
                "checks; from its source, untested on hardware"),
}


def _closest(word: str, known: frozenset[str]) -> str | None:
    """The known name closest to `word` (case and underscores aside), if any is close."""
    import difflib  # only a bad config needs it

    by_plain = {k.lower().replace("_", ""): k for k in known}
    close = difflib.get_close_matches(word.lower().replace("_", ""), list(by_plain), n=1, cutoff=0.6)
    return by_plain[close[0]] if close else None


def _did_you_mean(word: str, known: frozenset[str]) -> str:
    """`; did you mean 'X'?` for the closest known name, else ``."""
    close = _closest(word, known)
    return f"; did you mean {close!r}?" if close else ""


def _check_params(params: Any, name: str) -> None:
    """Every key of `params` is one lpt knows, with a value it implements."""
    _check_mapping(params, name, "params")
    known = BOOL_PARAMS | FIXED_PARAMS.keys()
    for key, value in params.items():
        if not isinstance(key, str):
            raise ConfigError(f"{name}: params.{clip(key)}: parameter names must be strings")
        where = f"{name}: params.{clip(key)}"
        if key in BOOL_PARAMS:
            if not isinstance(value, bool):
                raise ConfigError(f"{where}: expected true or false, got {clip(repr(value))}")
        elif key in FIXED_PARAMS:
            accepted, why = FIXED_PARAMS[key]
            if value is not accepted:
                got = str(value).lower() if isinstance(value, bool) else clip(repr(value))
                raise ConfigError(f"{where}: only {str(accepted).lower()} is implemented ({why}), got {got}")
        elif key in _TOP_KEYS:
            raise ConfigError(f"{where}: a top-level key, not a parameter: write it outside params")
        else:
            close = _closest(key, known)
            top = _closest(key, _TOP_KEYS) if close is None else None
            hint = (f"; did you mean {close!r}?" if close else
                    f"; did you mean the top-level key {top!r} (outside params)?" if top else
                    f" (lpt knows {', '.join(sorted(known))})")
            raise ConfigError(f"{where}: unknown parameter{hint}")


def _check_mapping(value: Any, name: str, key: str) -> None:
    if not isinstance(value, Mapping):
        where = f"{key}: " if key else ""
        raise ConfigError(f"{name}: {where}expected a mapping, got {type(value).__name__}")


def _bool(d: Mapping[str, Any], key: str, default: bool, name: str) -> bool:
    value = d.get(key, default)
    if not isinstance(value, bool):
        raise ConfigError(f"{name}: {key}: expected true or false, got {clip(repr(value))}")
    return value


# Activation and weight precisions LPT quantizes to (restrictions, default_precisions).
QUANTIZED_PRECISIONS = tuple(sorted(LOW_PRECISION, key=lambda t: (t.bits, t.name)))


def _type(value: Any, name: str, key: str,
          allowed: tuple[ElementType, ...] = QUANTIZED_PRECISIONS) -> ElementType:
    if not isinstance(value, str):
        raise ConfigError(f"{name}: {key}: expected an element type name, got {clip(repr(value))}")
    try:
        etype = element_type(value)
    except UnknownElementType:
        etype = None
    if etype not in allowed:
        raise ConfigError(f"{name}: {key}: {clip(repr(value))} is not allowed here "
                          f"(expected one of {', '.join(t.name for t in allowed)})")
    return etype


def _types(value: Any, name: str, key: str) -> tuple[ElementType, ...]:
    if not isinstance(value, list):
        raise ConfigError(f"{name}: {key}: expected a list of element types, got {clip(repr(value))}")
    return tuple(_type(v, name, f"{key}[{i}]") for i, v in enumerate(value))


def _isa(value: Any, name: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or value not in cpu_isa.BY_NAME:
        raise ConfigError(f"{name}: isa: {clip(repr(value))} is not a oneDNN ISA "
                          f"(expected one of {', '.join(cpu_isa.BY_NAME)})")
    return value


def _named(value: Any, name: str, key: str, known: tuple[str, ...]) -> str | None:
    """One of `known` names, or None when the key is absent."""
    if value is None:
        return None
    if not isinstance(value, str) or value not in known:
        raise ConfigError(f"{name}: {key}: {clip(repr(value))} is not known (expected one of {', '.join(known)})")
    return value


def _pre_lpt(value: Any, name: str) -> str | None:
    """`common_optimizations`: a plugin's pre-LPT list by name; `true` is the CPU plugin's, `false` none."""
    if isinstance(value, bool):
        return "cpu" if value else None
    return _named(value, name, "common_optimizations", registry.PRE_LPT_LISTS)


def _inference_precision(d: Mapping[str, Any], name: str) -> ElementType:
    precision = _type(d.get("inference_precision", "f32"), name, "inference_precision", INFERENCE_PRECISIONS)
    if precision != f32 and not _pre_lpt(d.get("common_optimizations", False), name):
        raise ConfigError(f"{name}: inference_precision: {precision.name} is applied by the plugin's pre-LPT step: "
                          "it needs common_optimizations (cpu, gpu or gpu-xmx)")
    return precision


def _op_entries(value: Any, name: str, key: str, keys: tuple[str, ...] = ("op", "ports")) -> list[Mapping[str, Any]]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ConfigError(f"{name}: {key}: expected a list of {{{', '.join(keys)}}} entries")
    for i, entry in enumerate(value):
        where = f"{key}[{i}]"
        _check_mapping(entry, name, where)
        extra = sorted(set(map(str, entry)) - set(keys))
        if extra:
            raise ConfigError(f"{name}: {where}.{clip(extra[0])}: unknown key (expected {', '.join(keys)})")
        if not isinstance(entry.get("op"), str) or not entry["op"]:
            raise ConfigError(f"{name}: {where}.op: expected an operation type name")
        if entry["op"] not in KNOWN_OPS:
            raise ConfigError(f"{name}: {where}.op: unknown operation type {clip(repr(entry['op']))}"
                              f"{_did_you_mean(entry['op'], KNOWN_OPS)}")
    return value


def _port(value: Any, name: str, key: str, op: str) -> int:
    """An input port of `op`: a restriction on a port the op does not have would match nothing."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"{name}: {key}: expected a port number (integer >= 0), got {clip(repr(value))}")
    limit = max_inputs(op)
    if limit is not None and value >= limit:
        raise ConfigError(f"{name}: {key}: {op} has no input port {value} "
                          f"(it takes {describe(limit, limit, 'input')}, ports 0 to {limit - 1})")
    return value


def _restrictions(value: Any, name: str) -> tuple[tuple[PrecisionRestriction, ...], tuple[PerTensorRestriction, ...]]:
    if value is None:
        return (), ()
    _check_mapping(value, name, "restrictions")
    extra = sorted(set(map(str, value)) - {"precisions", "per_tensor"})
    if extra:
        raise ConfigError(f"{name}: restrictions.{clip(extra[0])}: unknown key (expected precisions, per_tensor)")
    precisions = []
    entries = _op_entries(value.get("precisions"), name, "restrictions.precisions", ("op", "ports", "rank"))
    for i, entry in enumerate(entries):
        where = f"restrictions.precisions[{i}].ports"
        ports = entry.get("ports")
        if not isinstance(ports, Mapping):
            raise ConfigError(f"{name}: {where}: expected a mapping of port -> list of types")
        parsed = {_port(p, name, f"{where}.{clip(p)}", entry["op"]): _types(t, name, f"{where}.{p}")
                  for p, t in ports.items()}
        rank = entry.get("rank")
        if rank is not None and (isinstance(rank, bool) or not isinstance(rank, int) or rank < 0):
            raise ConfigError(f"{name}: restrictions.precisions[{i}].rank: expected the rank of input 0 "
                              f"(an integer >= 0), got {clip(repr(rank))}")
        precisions.append(PrecisionRestriction(entry["op"], MappingProxyType(parsed), rank))
    per_tensor = []
    for i, entry in enumerate(_op_entries(value.get("per_tensor"), name, "restrictions.per_tensor")):
        where = f"restrictions.per_tensor[{i}].ports"
        ports = entry.get("ports") or []
        if not isinstance(ports, list):
            raise ConfigError(f"{name}: {where}: expected a list of ports")
        per_tensor.append(PerTensorRestriction(entry["op"], tuple(_port(p, name, f"{where}[{j}]", entry["op"])
                                                                  for j, p in enumerate(ports))))
    return tuple(precisions), tuple(per_tensor)


def _names(value: Any, name: str, key: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise ConfigError(f"{name}: {key}: expected a list of transformation names, got {clip(repr(value))}")
    for i, item in enumerate(value):
        if not isinstance(item, str) or item not in registry.KNOWN_NAMES:
            hint = _did_you_mean(item, registry.KNOWN_NAMES) if isinstance(item, str) else ""
            raise ConfigError(f"{name}: {key}[{i}]: unknown transformation {clip(repr(item))}{hint}")
    return tuple(value)


def _transformations(value: Any, name: str) -> tuple[tuple[str, ...] | None, tuple[str, ...], tuple[str, ...]]:
    if value is None:
        return None, (), ()
    _check_mapping(value, name, "transformations")
    extra = sorted(set(map(str, value)) - {"only", "disable", "enable"})
    if extra:
        raise ConfigError(f"{name}: transformations.{clip(extra[0])}: unknown key (expected only, disable, enable)")
    only, disable = value.get("only"), value.get("disable")
    if only is not None and disable is not None:
        raise ConfigError(f"{name}: transformations: give only or disable, not both (only runs just the "
                          "transformations it lists, so disable would be ignored)")
    enable = () if value.get("enable") is None else _names(value["enable"], name, "transformations.enable")
    for i, item in enumerate(enable):
        if item not in registry.ON_DEMAND:
            raise ConfigError(f"{name}: transformations.enable[{i}]: {item} runs in the standard pipeline; "
                              f"`enable` takes the passes that run only on demand ({', '.join(registry.ON_DEMAND)})")
    if only is None:
        return None, () if disable is None else _names(disable, name, "transformations.disable"), enable
    return _names(only, name, "transformations.only"), (), enable
