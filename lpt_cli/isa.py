"""The Intel CPU plugin's ISA rules, as one table: what changes with the instruction set.

The CPU plugin asks oneDNN's `mayiuse(isa)` in a few places, and each answer changes what runs
in INT8 or how it runs. Those branches are the rows of `RULES`; the CPU profiles
(`lpt/engine/config.py`), the report's kernel rules (`reports/kernels.py`) and the checks that
read a runtime model (`runtime/parity.py`) all read them here, and nowhere else.

`mayiuse` is modelled from oneDNN (src/cpu/x64/cpu_isa_traits.hpp, `cpu_isa_t` and `mayiuse`;
cpu_isa_traits.cpp, `init_max_cpu_isa` and `amx::is_available`): an ISA is a set of feature bits;
it is usable when the CPU has its flags (AMX also needs the kernel's permission to use tile
data) and `ONEDNN_MAX_CPU_ISA`, if set, holds all its bits. The cap only ever lowers: nothing
emulates an ISA the CPU lacks. Facts, not code, are taken from those files.
"""
from __future__ import annotations

import ctypes
import os
import platform
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

# ---------------------------------------------------------------------------------------------
# oneDNN's ISAs (cpu_isa_traits.hpp): feature bits, the AVX10 version, and what mayiuse checks.


@dataclass(frozen=True)
class Isa:
    """One oneDNN `cpu_isa_t`, under the name `ONEDNN_MAX_CPU_ISA` takes (lower case)."""

    name: str
    bits: frozenset[str]  # the feature bits of its cpu_isa_t value; a cap allows an ISA whose bits it holds
    avx10: int = 0  # the AVX10 version in the value; a cap allows only versions up to its own
    flags: tuple[str, ...] = ()  # /proc/cpuinfo flags mayiuse checks itself
    needs: tuple[str, ...] = ()  # ISAs mayiuse checks first (under the same cap)
    tile_permission: bool = False  # AMX tile data: the kernel must allow it (arch_prctl)
    detectable: bool = True  # False: accepted as a cap, never reported usable (lpt checks no AVX10.2)


def _bits(*names: str) -> frozenset[str]:
    return frozenset(names)


_SSE41 = _bits("xmm")
_AVX = _SSE41 | {"ymm"}
_AVX2 = _AVX | {"avx2"}
_AVX2_VNNI = _AVX2 | {"vex_vnni"}
_AVX512_CORE = _AVX2 | {"evex_core", "zmm"}
_AVX512_CORE_VNNI = _AVX512_CORE | {"evex_core_vnni"}
_AVX10 = _bits("avx2", "vex_vnni", "evex_core", "evex_core_vnni", "evex_core_bf16", "evex_core_fp16")
_AVX10_1_512 = _AVX10 | {"xmm", "ymm", "zmm"}
_AMX = _bits("amx_tile", "amx_int8", "amx_bf16")
_AVX10_2 = _AVX10 | {"vex_vnni_2", "xmm", "ymm", "zmm"}

_AVX512_FLAGS = ("avx512f", "avx512bw", "avx512vl", "avx512dq")
ISAS: tuple[Isa, ...] = (
    Isa("sse41", _SSE41, flags=("sse4_1",)),
    Isa("avx", _AVX, flags=("avx",)),
    Isa("avx2", _AVX2, flags=("avx2",)),
    Isa("avx2_vnni", _AVX2_VNNI, flags=("avx_vnni",), needs=("avx2",)),
    # AVX2-VNNI-2 is oneDNN's composite: AVX-VNNI, AVX-VNNI-INT8 and AVX-NE-CONVERT.
    Isa("avx2_vnni_2", _AVX2_VNNI | {"vex_vnni_2"}, flags=("avx_vnni_int8", "avx_ne_convert"), needs=("avx2_vnni",)),
    Isa("avx512_core", _AVX512_CORE, flags=_AVX512_FLAGS),
    Isa("avx512_core_vnni", _AVX512_CORE_VNNI, flags=(*_AVX512_FLAGS, "avx512_vnni")),
    Isa("avx512_core_bf16", _AVX512_CORE_VNNI | {"evex_core_bf16"}, flags=("avx512_bf16",),
        needs=("avx512_core_vnni",)),
    Isa("avx512_core_fp16", _AVX10_1_512, avx10=1, flags=("avx512_fp16",), needs=("avx512_core_bf16", "avx2_vnni")),
    Isa("amx_tile", _bits("amx_tile"), flags=("amx_tile",), tile_permission=True),
    Isa("amx_int8", _bits("amx_tile", "amx_int8"), flags=("amx_int8",), needs=("amx_tile",)),
    Isa("amx_bf16", _bits("amx_tile", "amx_bf16"), flags=("amx_bf16",), needs=("amx_tile",)),
    Isa("avx512_core_amx", _AVX10_1_512 | _AMX, avx10=1, needs=("amx_int8", "amx_bf16", "avx512_core_fp16")),
    Isa("avx512_core_amx_fp16", _AVX10_1_512 | _AMX | {"amx_fp16"}, avx10=1, detectable=False),
    Isa("avx10_2", _AVX10_2, avx10=2, detectable=False),
    Isa("avx10_2_amx_2", _AVX10_2 | _AMX | {"amx_fp16", "amx_2"}, avx10=2, detectable=False),
)
BY_NAME: dict[str, Isa] = {isa.name: isa for isa in ISAS}
# The other spellings init_max_cpu_isa accepts for a cap.
_CAP_ALIASES = {"avx10_1_512": "avx512_core_fp16", "avx10_1_512_amx": "avx512_core_amx",
                "avx10_1_512_amx_fp16": "avx512_core_amx_fp16", "avx10_2_512": "avx10_2",
                "avx10_2_512_amx_2": "avx10_2_amx_2"}
CAP_VARIABLES = ("ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA")  # getenv_string_user: ONEDNN_ first, then DNNL_


def within(isa: str, cap: str | None) -> bool:
    """Whether the cap lets oneDNN use `isa` (mayiuse's mask test; no cap allows everything)."""
    if cap is None:
        return True
    inner, outer = BY_NAME[isa], BY_NAME[cap]
    return inner.bits <= outer.bits and inner.avx10 <= outer.avx10


def implied(isa: str) -> frozenset[str]:
    """The ISAs a CPU with every feature may use under cap `isa`: how a profile's ISA is read."""
    return frozenset(i.name for i in ISAS if i.detectable and within(i.name, isa))


def usable_isas(flags: Collection[str], cap: str | None = None,
                tile_permission: Callable[[], bool] | None = None) -> frozenset[str]:
    """The ISAs oneDNN may use on a CPU with these /proc/cpuinfo `flags` under `cap`; the AMX tile
    permission is asked only when an AMX ISA is otherwise usable (default: the kernel's answer)."""
    ask = tile_permission or amx_tile_permitted
    found: dict[str, bool] = {}

    def may(name: str) -> bool:
        if name not in found:
            isa = BY_NAME[name]
            found[name] = (isa.detectable and within(name, cap) and all(f in flags for f in isa.flags)
                           and all(may(n) for n in isa.needs) and (not isa.tile_permission or ask()))
        return found[name]

    return frozenset(isa.name for isa in ISAS if may(isa.name))


@lru_cache(maxsize=1)
def amx_tile_permitted() -> bool:
    """Whether Linux lets this process use AMX tile data, asked as oneDNN's amx::is_available
    does (arch_prctl ARCH_GET_XCOMP_PERM, then ARCH_REQ_XCOMP_PERM for XTILEDATA)."""
    if platform.system() != "Linux" or platform.machine() != "x86_64":
        return False
    sys_arch_prctl, get_perm, req_perm, xtiledata = 158, 0x1022, 0x1023, 18
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return False
    mask = ctypes.c_ulong(0)
    if libc.syscall(sys_arch_prctl, get_perm, ctypes.byref(mask)) != 0:
        return False
    if mask.value & (1 << xtiledata):
        return True
    if libc.syscall(sys_arch_prctl, req_perm, xtiledata) != 0:
        return False
    return libc.syscall(sys_arch_prctl, get_perm, ctypes.byref(mask)) == 0 and bool(mask.value & (1 << xtiledata))


def cap_from_env(environ: Mapping[str, str] | None = None) -> tuple[str | None, str]:
    """The ISA `ONEDNN_MAX_CPU_ISA` (else `DNNL_MAX_CPU_ISA`) caps oneDNN at, and how it was set:
    lower-cased, aliases resolved, an unknown name ignored, as init_max_cpu_isa does."""
    env = os.environ if environ is None else environ
    for variable in CAP_VARIABLES:
        value = env.get(variable, "")
        if value:
            name = _CAP_ALIASES.get(value.lower(), value.lower())
            if name == "all":
                return None, f"{variable}={value} (no cap)"
            if name not in BY_NAME:
                return None, f"{variable}={value} is no oneDNN ISA: ignored, as oneDNN does"
            return name, f"{variable}={value}"
    return None, ""


def read_cpuinfo() -> str:
    try:
        return Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def cpu_flags(cpuinfo: str) -> frozenset[str]:
    """The `flags` of /proc/cpuinfo (every processor lists the same)."""
    flags: set[str] = set()
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            flags.update(value.split())
    return frozenset(flags)


# ---------------------------------------------------------------------------------------------
# The rules: each branch of the plugin on the ISA (or on nothing: the rules every ISA shares).


@dataclass(frozen=True)
class Rule:
    """One place the CPU plugin decides on the ISA; `any_of` empty: the same on every ISA."""

    key: str
    any_of: tuple[str, ...]
    holds: str  # what the plugin does when one of `any_of` is usable
    otherwise: str  # ... and when none is
    source: str  # OpenVINO or oneDNN file and function the rule is read from

    def on(self, isas: Collection[str]) -> bool:
        return not self.any_of or any(isa in isas for isa in self.any_of)


_PIPELINE = "src/plugins/intel_cpu/src/transformations/transformation_pipeline.cpp"
RULES: tuple[Rule, ...] = (
    Rule("signed_conv_activations", ("avx512_core_amx", "avx2_vnni_2"),
         "Convolution and GroupConvolution take u8 or i8 activations",
         "Convolution and GroupConvolution take u8 activations only",
         f"{_PIPELINE}, Transformations::Lpt (the Convolution and GroupConvolution PrecisionsRestriction)"),
    Rule("signed_group_conv_5d", (),
         "a GroupConvolution with a 5-D input takes u8 or i8 activations", "",
         f"{_PIPELINE}, Transformations::Lpt (the GroupConvolution restriction's rank-5 branch)"),
    Rule("convert_subtract_constant", (),
         "ConvertSubtractConstant turns a float weights zero point into u8/i8 before LPT, whenever LPT runs", "",
         f"{_PIPELINE}, Transformations::PreLpt"),
    Rule("int8_kernels", (),
         "Convolution, GroupConvolution, FullyConnected and MatMul kernels run INT8 when input 0 is u8/i8 "
         "and the weights i8", "",
         "src/plugins/intel_cpu/src/nodes/{conv,fullyconnected,matmul}.cpp, canBeExecutedInInt8"),
    Rule("snippets", ("avx2",),
         "snippets tokenize eltwise chains and f32 attention into Subgraphs",
         "no snippets Subgraphs",
         f"{_PIPELINE}, Transformations::MainSnippets (is_supported_isa, is_infer_prc_supported_by_MHA)"),
    Rule("int8_attention_subgraph", ("avx512_core_amx", "avx512_core_vnni", "avx2_vnni"),
         "an attention pattern (MatMul, [eltwise], Softmax, [eltwise], MatMul) whose MatMuls take i8 on "
         "input 0 becomes one snippets Subgraph, its MatMuls INT8 brgemms",
         "its MatMuls stay MatMul nodes, INT8 by matmul.cpp's canBeExecutedInInt8",
         f"{_PIPELINE}, Transformations::MainSnippets (is_supported_matmul, the TokenizeMHASnippets callback); "
         "src/common/snippets/src/pass/mha_tokenization.cpp, TokenizeMHASnippets"),
    Rule("int8_brgemm", ("avx512_core_vnni", "avx2_vnni_2", "avx2_vnni"),
         "a snippets brgemm on u8/i8 runs on VNNI (on AMX tiles with avx512_core_amx)",
         "a snippets brgemm on u8/i8 is refused (int8 needs a VNNI platform)",
         "src/plugins/intel_cpu/src/transformations/snippets/x64/op/brgemm_utils.cpp, "
         "get_primitive_isa and get_brgemm_type"),
    Rule("subgraph_precision", (),
         "a Subgraph reports its narrowest input precision: an i8 Subgraph may hold f32 MatMuls", "",
         "src/plugins/intel_cpu/src/nodes/subgraph.cpp, Subgraph::getRuntimePrecision; "
         "src/plugins/intel_cpu/src/utils/cpu_utils.hpp, getMaxPrecision (its comparator picks the smallest)"),
    Rule("deconvolution_avx512", ("avx512_core",),
         "a ConvolutionBackpropData runs INT8 whatever its output size; channel blocks of 16",
         "a ConvolutionBackpropData runs f32 when its output is dynamic or IC^2 x output spatial > 2^26, "
         "or a stride is above 3; channel blocks of 8",
         "src/plugins/intel_cpu/src/nodes/deconv.cpp, Deconvolution::canBeExecutedInInt8"),
)
RULE: dict[str, Rule] = {rule.key: rule for rule in RULES}


def holds(key: str, isas: Collection[str]) -> bool:
    """Whether rule `key` holds for a plugin that may use `isas`."""
    return RULE[key].on(isas)


# The rules whose answer tells CPUs apart for lpt: INT8 activations on Convolution, where
# attention MatMuls run, and the Deconvolution kernel limits.
DECISIVE = ("signed_conv_activations", "int8_attention_subgraph", "deconvolution_avx512")


def deconvolution_refusal(isas: Collection[str], *, rank: int, in_channels: int, strides: tuple[int, ...],
                          kernel: tuple[int, ...], output_shape: tuple[int, ...] | None) -> str | None:
    """Why the plugin's Deconvolution kernel runs an ungrouped ConvolutionBackpropData with u8/i8
    activations and i8 constant weights in f32 (None: it runs INT8). `output_shape` None or with
    -1: dynamic. deconv.cpp, Deconvolution::canBeExecutedInInt8."""
    if rank not in (3, 4, 5):
        return f"its input is {rank}-D (the INT8 kernel takes 3-D to 5-D)"
    if strides and strides[-1] > 3:
        return f"its last stride is {strides[-1]} (above 3)"
    if not holds("deconvolution_avx512", isas):
        if output_shape is None or any(d < 0 for d in output_shape):
            return "its output has dynamic dimensions (without AVX-512 the INT8 kernel needs a static output)"
        work = in_channels * in_channels
        for dim in output_shape[2:]:
            work *= dim
        if work > 1 << 26:
            return f"IC^2 x output spatial is {work} (without AVX-512 the INT8 kernel takes at most 2^26)"
    small = [i for i, (k, s) in enumerate(zip(kernel, strides)) if k < s]
    if small:
        return f"its kernel is smaller than its stride on axis {small[0]}"
    return None


# ---------------------------------------------------------------------------------------------
# CPU profiles: one per answer to the decisive rules, named after the ISA that gives it.


@dataclass(frozen=True)
class CpuProfile:
    name: str
    isa: str  # the oneDNN ISA it models (what ONEDNN_MAX_CPU_ISA=<isa> gives on a CPU with everything)
    cpus: str  # which CPUs, for `lpt config list`


CPU_PROFILES: tuple[CpuProfile, ...] = (
    CpuProfile("cpu-avx2", "avx2", "AVX2 without VNNI or AVX-512 (Intel up to Comet Lake, AMD Zen 1 to 3)"),
    CpuProfile("cpu-avx512", "avx512_core", "AVX-512 without VNNI (Skylake-SP)"),
    CpuProfile("cpu-avx2-vnni", "avx2_vnni", "AVX-VNNI without AVX-512 (Alder Lake, Raptor Lake)"),
    CpuProfile("cpu-vnni", "avx512_core_vnni", "AVX-512 VNNI without AMX (Cascade Lake, Ice Lake, AMD Zen 4 and 5)"),
    CpuProfile("cpu-avx2-vnni-2", "avx2_vnni_2", "AVX2-VNNI-2 (Arrow Lake, Lunar Lake, Sierra Forest)"),
    CpuProfile("cpu-amx", "avx512_core_amx", "AMX (Xeon from Sapphire Rapids on)"),
)
CPU_PROFILE: dict[str, CpuProfile] = {p.name: p for p in CPU_PROFILES}


def signature(isas: Collection[str]) -> tuple[bool, ...]:
    return tuple(holds(key, isas) for key in DECISIVE)


def profile_for(isas: Collection[str]) -> CpuProfile:
    """The profile whose ISA answers every decisive rule as `isas` do (cpu-avx2 below AVX2)."""
    wanted = signature(isas)
    return next((p for p in CPU_PROFILES if signature(implied(p.isa)) == wanted), CPU_PROFILES[0])


def rule_summary(isas: Collection[str]) -> str:
    """The decisive rules' answers, short: what a profile means for INT8."""
    conv = "u8 or i8" if holds("signed_conv_activations", isas) else "u8-only"
    attention = ("i8 attention in snippets Subgraphs" if holds("int8_attention_subgraph", isas)
                 else "attention MatMuls as MatMul nodes")
    deconv = "" if holds("deconvolution_avx512", isas) else ", AVX2 limits on INT8 Deconvolution"
    return f"{conv} activations on Convolution, {attention}{deconv}"


@dataclass(frozen=True)
class Resolution:
    """What `cpu` is on this machine, and why."""

    profile: CpuProfile
    usable: frozenset[str]
    why: str


SHOWN = ("avx512_core_amx", "avx2_vnni_2", "avx512_core_vnni", "avx2_vnni", "avx512_core", "avx2")


def resolve_cpu(cpuinfo: str, environ: Mapping[str, str] | None = None,
                tile_permission: Callable[[], bool] | None = None) -> Resolution:
    """The CPU profile for this CPU as the plugin will see it: its flags, the AMX tile
    permission, and the `ONEDNN_MAX_CPU_ISA` cap the plugin honours."""
    flags = cpu_flags(cpuinfo)
    cap, cap_note = cap_from_env(environ)
    usable = usable_isas(flags, cap, tile_permission)
    profile = profile_for(usable)
    top = next((isa for isa in SHOWN if isa in usable), None)
    why = f"oneDNN may use {top}" if top else "no AVX2 (lpt's CPU rules assume it)"
    if cap is not None or cap_note:
        native = usable_isas(flags, None, tile_permission)
        native_top = next((isa for isa in SHOWN if isa in native), None)
        why += f" ({cap_note}" + (f"; this CPU has {native_top})" if native_top != top else ")")
    why += _missing(flags, usable, cap)
    return Resolution(profile, usable, f"{why}: {rule_summary(usable)}")


def _missing(flags: Collection[str], usable: Collection[str], cap: str | None) -> str:
    """Why the ISAs above the one in use are not usable, when the flags tell."""
    notes = []
    if "avx512_core_amx" not in usable and "amx_tile" in flags and within("avx512_core_amx", cap):
        lacking = [f for f in ("amx_int8", "amx_bf16", "avx512_fp16") if f not in flags]
        notes.append(f"AMX flags without {', '.join(lacking)}" if lacking
                     else "AMX flags, but the kernel does not allow AMX tile data")
    client = "avx_vnni" in flags and "avx512f" not in flags  # where AVX2-VNNI-2 would change the profile
    if client and "avx2_vnni_2" not in usable and within("avx2_vnni_2", cap):
        notes.append("no avx_vnni_int8/avx_ne_convert flags, so no AVX2-VNNI-2 (some Linux kernels do not "
                     "list them: on an Arrow Lake, Lunar Lake or Sierra Forest give --config cpu-avx2-vnni-2)")
    return f"; {'; '.join(notes)}" if notes else ""


# The ONEDNN_MAX_CPU_ISA levels below a native AMX CPU that lpt's profiles tell apart.
LOWER_CAPS = ("AVX2", "AVX2_VNNI", "AVX512_CORE_VNNI")


def isa_levels(cpuinfo: str) -> list[tuple[str, str | None]]:
    """(profile, cap) for each ISA level this CPU can run the plugin at, lowest first: each cap of
    LOWER_CAPS that resolves to a profile of its own, then the CPU as it is (cap None). The plugin
    honours a cap only downward, so an AVX2 CPU has one level."""
    native = resolve_cpu(cpuinfo, environ={}).profile.name
    levels: dict[str, str | None] = {}
    for cap in LOWER_CAPS:
        profile = resolve_cpu(cpuinfo, environ={CAP_VARIABLES[0]: cap}).profile.name
        if profile != native:
            levels.setdefault(profile, cap)
    levels[native] = None
    return list(levels.items())
