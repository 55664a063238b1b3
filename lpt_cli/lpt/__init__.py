"""Low Precision Transformations over lpt's graph: numpy only, never openvino."""
