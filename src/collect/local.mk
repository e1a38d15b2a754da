## src/collect/ — sources, tests and fuzz targets of the collect layer.
