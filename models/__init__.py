"""Learned models of tablescore: the training recipes (``models.segmenter``, needs the ``train``
extra) and the committed ONNX files they produce (package data, read by :mod:`vision`)."""
