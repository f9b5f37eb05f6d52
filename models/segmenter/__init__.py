"""The semantic segmenter: a tiny depthwise-separable UNet trained from scratch on synthetic
photos (:mod:`vision.synthetic`), exported to ``models/segmenter.onnx``.

* :mod:`~models.segmenter.dataset` - rendering the training/validation images and their
  class masks at the working resolution, cached as ``.npz`` files;
* :mod:`~models.segmenter.net` - the network;
* :mod:`~models.segmenter.train` - the one-command recipe (render, train, export, evaluate);
* :mod:`~models.segmenter.export` - ONNX export and its check against torch;
* :mod:`~models.segmenter.metrics` - per-class IoU.

Only :mod:`~models.segmenter.dataset` and :mod:`~models.segmenter.metrics` work without torch.
"""
