"""The OpenVINO adapter: the only package of lpt that imports openvino.

Its modules import openvino at load time (about a second), so the CLI imports them
inside commands; what option declarations need lives here, free of openvino.
"""

PRECISION_HINTS = ("f32", "bf16", "f16")  # values of --precision-hint (INFERENCE_PRECISION_HINT)
BENCH_APIS = ("sync", "async")  # values of benchmark --api (benchmark_app's -api)
SLICE_SECONDS = 0.25  # one model's turn in benchmark's round robin
# benchmark's rows: the model as given, lpt's output, the float model it was quantized from
ORIGINAL, TRANSFORMED, FP32 = "original (FakeQuantize)", "lpt-transformed", "fp32 reference"
