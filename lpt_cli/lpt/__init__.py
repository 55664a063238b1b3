"""Low Precision Transformations over lpt's graph: numpy only, never openvino."""

from ..isa import CPU_PROFILES

# The built-in configs (lpt/engine/config.py): one CPU profile per answer to the CPU plugin's ISA rules,
# and the GPU plugin on GPUs without XMX (`gpu`) and with XMX (`gpu-xmx`).
PROFILE_NAMES = ("default", "cpu", *(profile.name for profile in CPU_PROFILES), "gpu", "gpu-xmx")
