"""The CPU plugin's ISA rules (lpt_cli/isa.py): oneDNN's ISAs and cap, `cpu` resolution, and one
test per rule, each naming the OpenVINO or oneDNN source it is read from."""
from __future__ import annotations

import pytest

from lpt_cli import isa
from lpt_cli.ir import Graph
from lpt_cli.ir.eltypes import f32, i8, u8
from lpt_cli.lpt.engine.config import load_config
from lpt_cli.reports.kernels import kernel_refusal

HASWELL = "sse4_1 avx avx2"
SKYLAKE_SP = f"{HASWELL} avx512f avx512bw avx512vl avx512dq"
CASCADE_LAKE = f"{SKYLAKE_SP} avx512_vnni"
ZEN4 = f"{CASCADE_LAKE} avx512_bf16"
ALDER_LAKE = f"{HASWELL} avx_vnni"
ARROW_LAKE = f"{ALDER_LAKE} avx_vnni_int8 avx_ne_convert"
SAPPHIRE_RAPIDS = f"{ZEN4} avx_vnni avx512_fp16 amx_tile amx_int8 amx_bf16"


def resolve(flags: str, cap: str | None = None, *, permitted: bool = True) -> isa.Resolution:
    environ = {"ONEDNN_MAX_CPU_ISA": cap} if cap else {}
    return isa.resolve_cpu(f"processor : 0\nflags : {flags}\n", environ, lambda: permitted)


@pytest.mark.parametrize("flags, profile", [
    (HASWELL, "cpu-avx2"), (SKYLAKE_SP, "cpu-avx512"), (ALDER_LAKE, "cpu-avx2-vnni"), (CASCADE_LAKE, "cpu-vnni"),
    (ZEN4, "cpu-vnni"), (ARROW_LAKE, "cpu-avx2-vnni-2"), (SAPPHIRE_RAPIDS, "cpu-amx"), ("sse4_1 avx", "cpu-avx2"),
])
def test_cpu_resolves_to_the_profile_whose_isa_answers_every_rule_alike(flags: str, profile: str) -> None:
    assert resolve(flags).profile.name == profile


def test_each_profile_answers_the_decisive_rules_its_own_way() -> None:
    signatures = [isa.signature(isa.implied(p.isa)) for p in isa.CPU_PROFILES]
    assert len(set(signatures)) == len(isa.CPU_PROFILES)
    assert all(isa.profile_for(isa.implied(p.isa)) == p for p in isa.CPU_PROFILES)


def test_avx2_vnni_2_is_onednns_composite_of_three_flags() -> None:
    """oneDNN cpu_isa_traits.hpp, mayiuse(avx2_vnni_2): avx2_vnni, AVX-VNNI-INT8 and AVX-NE-CONVERT."""
    assert "avx2_vnni_2" in resolve(ARROW_LAKE).usable
    for missing in ("avx_vnni", "avx_vnni_int8", "avx_ne_convert"):
        assert "avx2_vnni_2" not in resolve(ARROW_LAKE.replace(missing, "")).usable, missing
    assert "avx2_vnni_2" not in resolve("sse4_1 avx avx2 avx2_vnni_2").usable  # not a /proc/cpuinfo flag


def test_amx_needs_int8_bf16_fp16_and_the_kernels_permission_for_tile_data() -> None:
    """oneDNN cpu_isa_traits.hpp, mayiuse(avx512_core_amx): amx_int8, amx_bf16 and avx512_core_fp16
    (which needs avx2_vnni too); cpu_isa_traits.cpp, amx::is_available: arch_prctl XCOMP_PERM."""
    assert resolve(SAPPHIRE_RAPIDS).profile.name == "cpu-amx"
    for missing in ("amx_int8", "amx_bf16", "avx512_fp16", "avx_vnni"):
        found = resolve(SAPPHIRE_RAPIDS.replace(f" {missing}", ""))
        assert found.profile.name == "cpu-vnni", missing
    refused = resolve(SAPPHIRE_RAPIDS, permitted=False)
    assert refused.profile.name == "cpu-vnni" and "does not allow AMX tile data" in refused.why
    only_tile = resolve(f"{ZEN4} amx_tile")  # what lpt once called AMX
    assert only_tile.profile.name == "cpu-vnni" and "without amx_int8, amx_bf16, avx512_fp16" in only_tile.why


def test_the_tile_permission_is_asked_only_when_amx_could_be_used() -> None:
    asked = []
    isa.usable_isas(frozenset(CASCADE_LAKE.split()), None, lambda: asked.append(1) or True)
    isa.usable_isas(frozenset(SAPPHIRE_RAPIDS.split()), "avx512_core_vnni", lambda: asked.append(1) or True)
    assert not asked


@pytest.mark.parametrize("cap, profile", [
    ("AVX2", "cpu-avx2"), ("avx2_vnni", "cpu-avx2-vnni"), ("AVX512_CORE_VNNI", "cpu-vnni"),
    ("AVX512_CORE", "cpu-avx512"), ("AVX512_CORE_AMX", "cpu-amx"), ("avx10_1_512_amx", "cpu-amx"), ("ALL", "cpu-amx"),
])
def test_onednn_max_cpu_isa_caps_the_isas_as_onednn_does(cap: str, profile: str) -> None:
    """oneDNN cpu_isa_traits.cpp, init_max_cpu_isa (lower-cased, aliases) and cpu_isa_traits.hpp,
    mayiuse (an ISA whose bits the cap holds): AVX512_CORE_VNNI leaves out avx2_vnni, whose VEX
    VNNI bit it lacks, so attention still tokenizes there through avx512_core_vnni."""
    found = resolve(SAPPHIRE_RAPIDS, cap)
    assert found.profile.name == profile
    if profile != "cpu-amx":
        assert "ONEDNN_MAX_CPU_ISA=" in found.why and "this CPU has avx512_core_amx" in found.why


def test_a_cap_only_lowers_and_an_unknown_one_is_ignored() -> None:
    assert resolve(HASWELL, "AVX512_CORE_AMX").profile.name == "cpu-avx2"
    unknown = resolve(SAPPHIRE_RAPIDS, "AMX")
    assert unknown.profile.name == "cpu-amx" and "is no oneDNN ISA: ignored" in unknown.why
    assert isa.cap_from_env({"DNNL_MAX_CPU_ISA": "avx2"}) == ("avx2", "DNNL_MAX_CPU_ISA=avx2")
    assert isa.cap_from_env({"ONEDNN_MAX_CPU_ISA": "AVX2_VNNI", "DNNL_MAX_CPU_ISA": "avx2"})[0] == "avx2_vnni"


# --- one test per rule ------------------------------------------------------------------------

def test_every_rule_names_its_source_and_has_a_test_here() -> None:
    tests = [name for name in globals() if name.startswith("test_rule")]
    for rule in isa.RULES:
        assert ".cpp" in rule.source or ".hpp" in rule.source, rule.key
        assert any(rule.key in name for name in tests), f"no test_rule..._{rule.key} in {__name__}"


def test_rule_signed_conv_activations() -> None:
    """transformation_pipeline.cpp, Transformations::Lpt: Convolution and GroupConvolution take i8
    activations only with avx512_core_amx or avx2_vnni_2."""
    assert isa.RULE["signed_conv_activations"].any_of == ("avx512_core_amx", "avx2_vnni_2")
    for profile in isa.CPU_PROFILES:
        config = load_config(profile.name)
        signed = profile.isa in ("avx512_core_amx", "avx2_vnni_2")
        for op in ("Convolution", "GroupConvolution"):
            assert config.precision_restriction(op, 4).ports[0] == ((u8, i8) if signed else (u8,)), profile.name


def test_rule_signed_group_conv_5d() -> None:
    """transformation_pipeline.cpp, Transformations::Lpt: the GroupConvolution restriction is a
    function of the node; a static 5-D input takes u8 or i8 on every ISA."""
    assert isa.RULE["signed_group_conv_5d"].any_of == ()
    for profile in isa.CPU_PROFILES:
        assert load_config(profile.name).precision_restriction("GroupConvolution", 5).ports[0] == (u8, i8)


def test_rule_convert_subtract_constant() -> None:
    """transformation_pipeline.cpp, Transformations::PreLpt: ConvertSubtractConstant whenever LPT runs."""
    assert isa.holds("convert_subtract_constant", frozenset())
    assert all(load_config(p.name).enabled("ConvertSubtractConstant") for p in isa.CPU_PROFILES)


def _layer(op: str, data_shape: tuple[int, ...], weights_shape: tuple[int, ...], out_shape: tuple[int, ...] | None,
           strides: str) -> Graph:
    g = Graph("k")
    data = g.add_node("Parameter", outputs=[(u8, data_shape)]).output()
    weights = g.add_constant(0, i8, shape=weights_shape).output()
    g.add_node(op, [data, weights], outputs=[(f32, out_shape)], attrs={"strides": strides}, name="layer")
    return g


def test_rule_int8_kernels() -> None:
    """nodes/conv.cpp, fullyconnected.cpp, matmul.cpp canBeExecutedInInt8: u8/i8 data and i8
    weights, on every ISA: no kernel rule beyond LPT's precisions."""
    conv = _layer("Convolution", (1, 64, 8, 8), (64, 64, 3, 3), None, "1, 1").find("layer")
    for profile in isa.CPU_PROFILES:
        assert kernel_refusal(conv, load_config(profile.name)) is None


@pytest.mark.parametrize("key, on", [
    ("snippets", {"avx2"}),
    ("int8_attention_subgraph", {"avx512_core_amx", "avx512_core_vnni", "avx2_vnni"}),
    ("int8_brgemm", {"avx512_core_vnni", "avx2_vnni_2", "avx2_vnni"}),
])
def test_rules_snippets_int8_attention_subgraph_int8_brgemm(key: str, on: set[str]) -> None:
    """transformation_pipeline.cpp, Transformations::MainSnippets (is_supported_isa; is_supported_matmul
    for TokenizeMHASnippets: an i8 MatMul needs AMX or VNNI); snippets/x64/op/brgemm_utils.cpp,
    get_primitive_isa (an int8 brgemm needs a VNNI ISA)."""
    rule = isa.RULE[key]
    assert set(rule.any_of) == on
    holding = {p.name for p in isa.CPU_PROFILES if rule.on(isa.implied(p.isa))}
    expected = {"snippets": {p.name for p in isa.CPU_PROFILES},
                "int8_attention_subgraph": {"cpu-avx2-vnni", "cpu-vnni", "cpu-avx2-vnni-2", "cpu-amx"},
                "int8_brgemm": {"cpu-avx2-vnni", "cpu-vnni", "cpu-avx2-vnni-2", "cpu-amx"}}[key]
    assert holding == expected


def test_rule_subgraph_precision() -> None:
    """nodes/subgraph.cpp Subgraph::getRuntimePrecision, utils/cpu_utils.hpp getMaxPrecision: the
    narrowest input's precision; read by runtime/parity.py (tests/runtime/test_parity.py has the cases)."""
    from lpt_cli.runtime import parity
    from lpt_cli.runtime.layers import RuntimeLayer

    mixed = RuntimeLayer("s", "Subgraph", "i8", (), "jit_avx512_i8", ("mm_f32",))
    assert parity.read_int8([mixed], {"mm_f32"}).opaque == {"mm_f32"}
    assert isa.holds("subgraph_precision", frozenset())


@pytest.mark.parametrize("out_shape, strides, refused_on_avx2, refused_everywhere", [
    ((1, 8, 64, 64), "2, 2", None, None),
    ((1, 8, -1, -1), "2, 2", "dynamic dimensions", None),
    ((1, 8, 130, 130), "2, 2", "IC^2 x output spatial is 69222400", None),
    ((1, 8, 128, 128), "4, 4", "last stride is 4", "last stride is 4"),
    ((1, 8, 64, 64), "1, 3", "kernel is smaller than its stride on axis 1", "kernel is smaller"),
])
def test_rule_deconvolution_avx512(out_shape: tuple[int, ...], strides: str, refused_on_avx2: str | None,
                                   refused_everywhere: str | None) -> None:
    """nodes/deconv.cpp, Deconvolution::canBeExecutedInInt8: without avx512_core a dynamic output, or
    IC^2 x output spatial above 2^26, runs f32; a stride above 3 or a kernel smaller than its stride
    always does."""
    node = _layer("ConvolutionBackpropData", (1, 64, 32, 32), (64, 8, 2, 2), out_shape, strides).find("layer")
    for profile in isa.CPU_PROFILES:
        refusal = kernel_refusal(node, load_config(profile.name))
        expected = refused_on_avx2 if not isa.holds("deconvolution_avx512", isa.implied(profile.isa)) \
            else refused_everywhere
        assert (refusal is None) == (expected is None), profile.name
        assert expected is None or (expected in refusal and "deconv.cpp" in refusal)
    assert kernel_refusal(node, load_config("gpu")) is None  # no CPU ISA, no CPU kernel rules
