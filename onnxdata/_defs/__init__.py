"""onnx's operator schemas, as data (generated) and the API that reads them."""
