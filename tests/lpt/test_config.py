"""Config schema validation and the built-in profiles."""
from __future__ import annotations

import pytest
import yaml

from lpt_cli.errors import LptWarning
from lpt_cli.ir.eltypes import f16, i8, u8
from lpt_cli.lpt import PROFILE_NAMES
from lpt_cli.lpt.engine.config import ConfigError, config_from_dict, load_config, profile_text, resolve_profile
from lpt_cli.lpt.engine.profile_yaml import read_profile


def test_empty_config_is_library_defaults():
    config = config_from_dict({})
    assert config.update_precisions and config.default_precisions == (u8, i8)
    assert config.precision_restrictions == () and config.only is None
    assert config.enabled("ConvolutionTransformation")
    assert not config.enabled("MultiplyTransformation")  # extra passes run only via `only`


def test_full_config_parses():
    config = config_from_dict({
        "update_precisions": False, "deq_precision": "f16",
        "restrictions": {"precisions": [{"op": "Convolution", "ports": {0: ["u8"], 1: ["i8"]}}],
                         "per_tensor": [{"op": "Convolution"}]},
        "transformations": {"only": ["ConvolutionTransformation"]},
        "params": {"support_3d_tensor_on_activations": True, "skip_bias_add": True},
    })
    assert config.deq_precision == f16 and not config.update_precisions
    assert dict(config.precision_restrictions[0].ports) == {0: (u8,), 1: (i8,)}
    assert config.per_tensor_restrictions[0].ports == ()
    assert config.enabled("ConvolutionTransformation") and not config.enabled("AddTransformation")
    assert config.param("skip_bias_add", False) is True


@pytest.mark.parametrize("doc, message", [
    ({"bogus": 1}, "config.yaml: bogus: unknown key"),
    ({"update_precisions": "yes"}, "config.yaml: update_precisions: expected true or false"),
    ({"deq_precision": "f33"}, "config.yaml: deq_precision"),
    ({"restrictions": {"precisions": [{"op": "Convolution", "ports": [0]}]}},
     "config.yaml: restrictions.precisions[0].ports: expected a mapping of port -> list of types"),
    ({"restrictions": {"precisions": [{"op": "Convolution", "ports": {0: ["x8"]}}]}},
     "restrictions.precisions[0].ports.0[0]"),
    ({"transformations": {"only": ["NoSuchTransformation"]}},
     "config.yaml: transformations.only[0]: unknown transformation 'NoSuchTransformation'"),
    ({"transformations": {"disable": "AddTransformation"}}, "transformations.disable: expected a list"),
    ({"params": {"skip_bias_add": "yes"}}, "config.yaml: params.skip_bias_add: expected true or false"),
])
def test_invalid_configs_name_the_key(doc, message):
    with pytest.raises(ConfigError) as err:
        config_from_dict(doc, name="config.yaml")
    assert message in str(err.value)


KNOWN_PARAMS = "reshape_ignore_per_tensor_quantization_check, skip_bias_add, support_3d_tensor_on_activations"


@pytest.mark.parametrize("params, message", [
    ({"frobnicate": 3}, f"c.yaml: params.frobnicate: unknown parameter (lpt knows {KNOWN_PARAMS})"),
    ({"skipBiasAdd": True}, "c.yaml: params.skipBiasAdd: unknown parameter; did you mean 'skip_bias_add'?"),
    ({"update_precisions": False},
     "c.yaml: params.update_precisions: a top-level key, not a parameter: write it outside params"),
    ({"updatePrecisions": False}, "c.yaml: params.updatePrecisions: unknown parameter; did you mean the top-level "
                                  "key 'update_precisions' (outside params)?"),
    ({"support_3d_tensor_on_activations": False},
     "c.yaml: params.support_3d_tensor_on_activations: only true is implemented (lpt always transforms MatMuls "
     "with 3D activations), got false"),
])
def test_params_lpt_does_not_know_are_errors(params, message):
    """A misspelt or foreign param used to be ignored: LPT then ran without what it asked for."""
    with pytest.raises(ConfigError) as err:
        config_from_dict({"params": params}, name="c.yaml")
    assert str(err.value) == message


@pytest.mark.parametrize("restrictions, message", [
    ({"precisions": [{"op": "Convolution", "ports": {7: ["i8"]}}]},
     "c.yaml: restrictions.precisions[0].ports.7: Convolution has no input port 7 (it takes 2 inputs, ports 0 to 1)"),
    ({"per_tensor": [{"op": "MatMul", "ports": [0, 2]}]},
     "c.yaml: restrictions.per_tensor[0].ports[1]: MatMul has no input port 2 (it takes 2 inputs, ports 0 to 1)"),
    ({"precisions": [{"op": "LSTMSequence", "ports": {7: ["u8"]}}]},
     "c.yaml: restrictions.precisions[0].ports.7: LSTMSequence has no input port 7 (it takes 7 inputs, ports 0 to 6)"),
])
def test_ports_beyond_the_op_inputs_are_errors(restrictions, message):
    with pytest.raises(ConfigError) as err:
        config_from_dict({"restrictions": restrictions}, name="c.yaml")
    assert str(err.value) == message


def test_ports_an_op_has_in_some_opset_are_accepted():
    """Interpolate-4 has a 4th input, ConvolutionBackpropData an output shape, Concat any number."""
    config = config_from_dict({"restrictions": {"precisions": [
        {"op": "Interpolate", "ports": {3: ["u8"]}}, {"op": "ConvolutionBackpropData", "ports": {2: ["u8"]}},
        {"op": "Concat", "ports": {9: ["u8"]}}, {"op": "LSTMSequence", "ports": {6: ["u8"]}}]}})
    assert [sorted(r.ports) for r in config.precision_restrictions] == [[3], [2], [9], [6]]


def test_only_and_disable_together_are_an_error():
    with pytest.raises(ConfigError) as err:
        config_from_dict({"transformations": {"only": ["ConvolutionTransformation"],
                                              "disable": ["AddTransformation"]}}, name="c.yaml")
    assert str(err.value) == ("c.yaml: transformations: give only or disable, not both (only runs just the "
                              "transformations it lists, so disable would be ignored)")


def test_an_only_list_that_runs_nothing_warns():
    with pytest.warns(LptWarning, match=r"^c.yaml: transformations.only is empty: LPT runs no transformation "
                                        r"\(markup only\)$"):
        config = config_from_dict({"transformations": {"only": []}}, name="c.yaml")
    assert not config.enabled("ConvolutionTransformation")


def test_an_invalid_config_is_an_error_without_a_warning():
    """One line for a bad config: the warning of an empty `only` waits until the rest is valid."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ConfigError, match="update_precisions: expected true or false"):
            config_from_dict({"transformations": {"only": []}, "update_precisions": "tru`e"}, name="c.yaml")


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n", "---\n"])
def test_an_empty_config_file_is_an_error(tmp_path, text):
    """An empty file is more often the wrong file than a wish for the library defaults."""
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(str(path))
    assert str(err.value) == (f"{path}: the config is empty (for LPT's library defaults: --config default, "
                              "or `{}` in the file)")
    path.write_text("{}\n")  # said explicitly: the defaults
    assert load_config(str(path)).precision_restrictions == ()


def test_load_config_from_file(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("default_precisions: [u8]\n")
    assert load_config(str(path)).default_precisions == (u8,)
    path.write_text("restrictions: {per_tensor: [{op: Convolution, ports: [-1]}]}\n")
    with pytest.raises(ConfigError, match="per_tensor"):
        load_config(str(path))


def test_missing_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="no such config file"):
        load_config(str(tmp_path / "missing.yaml"))


AVX2 = "flags : fpu sse4_1 avx avx2\n"


def test_profiles_differ_where_the_plugins_do():
    avx2 = resolve_profile("cpu", AVX2, environ={})
    assert avx2.name.startswith("cpu (resolved to cpu-avx2: ") and avx2.isa == "avx2"
    assert avx2.precision_restriction("Convolution", 4).ports[0] == (u8,)
    amx = load_config("cpu-amx")
    assert amx.isa == "avx512_core_amx" and amx.precision_restriction("Convolution", 4).ports[0] == (u8, i8)
    assert amx.precision_restriction("GroupConvolution", 4).ports[0] == (u8, i8)
    vnni = load_config("cpu-vnni")
    assert vnni.precision_restriction("Convolution", 4).ports[0] == (u8,)
    assert "MultiplyToGroupConvolutionTransformation" in vnni.disable
    gpu = {r.op: r for r in load_config("gpu").precision_restrictions}
    assert "MatMul" not in gpu and dict(gpu["LSTMSequence"].ports) == {}
    assert load_config("default").precision_restrictions == ()


def test_config_show_prints_a_profile_that_loads_back(tmp_path):
    from click.testing import CliRunner

    from lpt_cli.cli.config_cmd import config_group

    shown = CliRunner().invoke(config_group, ["show", "cpu-amx"])
    assert shown.exit_code == 0
    path = tmp_path / "amx.yaml"
    path.write_text(shown.output)
    assert load_config(str(path)).precision_restrictions == load_config("cpu-amx").precision_restrictions
    listed = CliRunner().invoke(config_group, ["list"])
    assert [line.split()[0] for line in listed.output.splitlines()] == list(PROFILE_NAMES)


def test_known_ops_cover_every_transformation_root():
    from lpt_cli.lpt.engine import registry
    from lpt_cli.lpt.engine.config import KNOWN_OPS

    from lpt_cli.ir.op_facts import Fact, ops_with

    roots = {op for name in registry.KNOWN_NAMES for op in registry.op_types(name)}
    assert roots - ops_with(Fact.OUTSIDE_MARKUP) <= KNOWN_OPS


@pytest.mark.parametrize("name", sorted(set(PROFILE_NAMES) - {"cpu"}))
def test_built_in_profiles_read_as_yaml_reads_them(name):
    text = profile_text(name)
    assert read_profile(text) == yaml.safe_load(text)


@pytest.mark.parametrize("text", [
    "a: yes", "a: TRUE", "a: ~", "a: 1.5", "a: 012", "a: 0x10", "a: 1_000", "a: -1", "a: x.y",  # typed scalars
    "a: b c", "a:b", "a: {b:1}", "a: 'x'", "a: &x 1", "a: !!str 1", "a: |\n  x", "a: [1, 2\n  , 3]",
    "a:\n- b", "a: b\n  c", "a: [b: c]", "a: {b}", "? a", "---\na: 1", "- - a",
])
def test_profile_reader_refuses_yaml_beyond_its_subset(text):
    """What the reader does not know it refuses: a profile edit cannot be read otherwise than YAML reads it."""
    yaml.safe_load(text)  # each is valid YAML
    with pytest.raises(ValueError, match="profile line"):
        read_profile(text)


def test_cpu_profiles_give_5d_group_convolution_signed_activations_on_every_isa():
    """transformation_pipeline.cpp, Transformations::Lpt: the GroupConvolution restriction's rank-5 branch."""
    for name in PROFILE_NAMES:
        if name.startswith("cpu-"):
            config = load_config(name)
            assert config.precision_restriction("GroupConvolution", 5).ports[0] == (u8, i8), name
            assert config.precision_restriction("GroupConvolution", None).rank is None


def test_a_rank_restriction_applies_to_that_rank_only_and_wins_over_any_rank():
    config = config_from_dict({"restrictions": {"precisions": [
        {"op": "GroupConvolution", "rank": 5, "ports": {0: ["u8", "i8"]}},
        {"op": "GroupConvolution", "ports": {0: ["u8"]}}]}})
    assert config.precision_restriction("GroupConvolution", 5).ports[0] == (u8, i8)
    assert config.precision_restriction("GroupConvolution", 4).ports[0] == (u8,)
    assert config.precision_restriction("GroupConvolution", None).ports[0] == (u8,)  # dynamic rank
    assert config.precision_restriction("Convolution", 5) is None


@pytest.mark.parametrize("rank", [-1, "5", True, 2.0])
def test_a_bad_rank_names_the_entry(rank):
    with pytest.raises(ConfigError, match=r"restrictions.precisions\[0\].rank: expected the rank of input 0"):
        config_from_dict({"restrictions": {"precisions": [{"op": "GroupConvolution", "rank": rank, "ports": {}}]}})


def test_rank_is_a_precision_restriction_key_only():
    with pytest.raises(ConfigError, match=r"per_tensor\[0\].rank: unknown key"):
        config_from_dict({"restrictions": {"per_tensor": [{"op": "Convolution", "rank": 4}]}})


def test_enable_runs_an_on_demand_pass_beside_the_standard_ones():
    config = config_from_dict({"transformations": {"enable": ["ConvertSubtractConstant"]}})
    assert config.enabled("ConvertSubtractConstant") and config.enabled("ConvolutionTransformation")
    assert not config_from_dict({}).enabled("ConvertSubtractConstant")
    both = config_from_dict({"transformations": {"enable": ["ConvertSubtractConstant"],
                                                 "disable": ["ConvertSubtractConstant"]}})
    assert not both.enabled("ConvertSubtractConstant")
    with pytest.raises(ConfigError, match="runs in the standard pipeline"):
        config_from_dict({"transformations": {"enable": ["ConvolutionTransformation"]}})


def test_cpu_profiles_enable_convert_subtract_constant_as_the_plugins_pre_lpt():
    """transformation_pipeline.cpp, Transformations::PreLpt: ConvertSubtractConstant whenever LPT runs."""
    for name in PROFILE_NAMES:
        config = load_config(name)
        assert config.enabled("ConvertSubtractConstant") == name.startswith("cpu"), name


def test_isa_is_a_onednn_isa():
    assert config_from_dict({"isa": "avx2_vnni"}).isa == "avx2_vnni"
    with pytest.raises(ConfigError, match="isa: 'amx' is not a oneDNN ISA"):
        config_from_dict({"isa": "amx"})
