"""lpt: OpenVINO Low Precision Transformations, offline, on IR files."""
__version__ = "0.1.0"
