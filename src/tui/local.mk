## src/tui/ — sources, tests and fuzz targets of the tui layer.
