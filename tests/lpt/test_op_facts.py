"""The op-facts table (lpt_cli/ir/op_facts.py) agrees with the transformations that use it."""
from lpt_cli.ir.op_facts import Fact, ops_with
from lpt_cli.lpt.engine import registry


def test_every_main_transformation_root_is_in_lpts_op_list() -> None:
    # Markup marks input 0 of an op outside LPT's list as not quantizable, so a transformation
    # rooted on such an op could never fire.
    roots = {op for name in registry.MAIN.names for op in registry.op_types(name)}
    assert roots - ops_with(Fact.OUTSIDE_MARKUP) <= ops_with(Fact.LPT | Fact.RESTRICTABLE)


def test_ops_outside_the_markup_are_neither_quantizable_nor_restrictable() -> None:
    # OpenVINO's MarkupPrecisions marks an Assign's input not quantizable and throws when a
    # restriction names it; AssignAndReadValueTransformation roots on it all the same.
    assert ops_with(Fact.OUTSIDE_MARKUP) == {"Assign"}
    assert not ops_with(Fact.OUTSIDE_MARKUP) & (ops_with(Fact.LPT) | ops_with(Fact.RESTRICTABLE))


def test_ops_a_report_walks_through_compute_exactly_on_integers() -> None:
    # The report calls a tensor quantized behind such an op; legalization must then be able
    # to keep that op in integers.
    assert ops_with(Fact.KEEPS_QUANTIZED) <= ops_with(Fact.INTEGER_EXACT)

