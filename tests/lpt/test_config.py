"""Config schema validation and the built-in profiles."""
from __future__ import annotations

import pytest
import yaml

from lpt_cli.ir.eltypes import f16, i8, u8
from lpt_cli.lpt import PROFILE_NAMES
from lpt_cli.lpt.engine.config import (ConfigError, config_from_dict, cpu_variant, load_config, profile_text,
                                         resolve_profile)
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
        "params": {"support_3d_tensor_on_activations": False},
    })
    assert config.deq_precision == f16 and not config.update_precisions
    assert dict(config.precision_restrictions[0].ports) == {0: (u8,), 1: (i8,)}
    assert config.per_tensor_restrictions[0].ports == ()
    assert config.enabled("ConvolutionTransformation") and not config.enabled("AddTransformation")
    assert config.param("support_3d_tensor_on_activations", True) is False


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


def test_cpu_variant_follows_isa_flags():
    assert cpu_variant("flags\t: fpu avx512_vnni amx_tile\n")[0] == "cpu-amx"
    assert cpu_variant("flags\t: fpu avx2_vnni_2\n")[0] == "cpu-amx"
    name, why = cpu_variant("flags\t: fpu avx512_vnni\n")
    assert name == "cpu-vnni" and "avx512_vnni present, no AMX" in why


def test_profiles_differ_where_the_plugins_do():
    amx = resolve_profile("cpu", "flags : amx_tile\n")
    assert amx.name.startswith("cpu (resolved to cpu-amx")
    conv = {r.op: r for r in amx.precision_restrictions}["Convolution"]
    assert conv.ports[0] == (u8, i8)
    vnni = {r.op: r for r in load_config("cpu-vnni").precision_restrictions}
    assert vnni["Convolution"].ports[0] == (u8,)
    assert "MultiplyToGroupConvolutionTransformation" in load_config("cpu-vnni").disable
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
    assert [line.split()[0] for line in listed.output.splitlines()] == ["default", "cpu", "cpu-vnni", "cpu-amx", "gpu"]


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
