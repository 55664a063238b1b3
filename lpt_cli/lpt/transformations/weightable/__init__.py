"""Layers with weights (Convolution, GroupConvolution, ConvolutionBackpropData, MatMul) and the weights zero-point step before LPT."""
