## src/symbols/ — sources, tests and fuzz targets of the symbols layer.
