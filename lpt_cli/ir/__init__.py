"""OpenVINO IR as lpt sees it: a graph, its reader and its writer. Knows no transformation."""
from .eltypes import ElementType, element_type
from .graph import Graph, GraphError, Input, Node, Output, Shape

__all__ = ["ElementType", "Graph", "GraphError", "Input", "Node", "Output", "Shape", "element_type"]
