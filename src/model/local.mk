## src/model/ — the model: processes, call trees, views (model.h).
