## src/report/ — sources, tests and fuzz targets of the report layer.
