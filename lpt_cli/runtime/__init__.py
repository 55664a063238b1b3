"""The OpenVINO adapter: the only package of lpt that imports openvino."""
