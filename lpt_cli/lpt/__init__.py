"""Low Precision Transformations over lpt's graph: numpy only, never openvino."""

PROFILE_NAMES = ("default", "cpu", "cpu-vnni", "cpu-amx", "gpu")  # built-in configs (lpt/engine/config.py)
