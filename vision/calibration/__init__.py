"""Calibration for a player's own printed set, light and camera (used by ``notebooks/``).

Modules, in the order a person calibrates:

* :mod:`~vision.calibration.art_frame` - the art convention: side squares at 10 px/mm, shape
  alpha, mm <-> art px;
* :mod:`~vision.calibration.rectify` - find one item lying alone in a photo and warp it to a
  fronto-parallel art square;
* :mod:`~vision.calibration.outlines` - propose icon outlines (closed black contours) on a face;
* :mod:`~vision.calibration.coaster_set` - photos of every side -> art, confirmation table,
  ``components.json`` (a catalogue folder the scorer loads with ``--components PATH``);
* :mod:`~vision.calibration.colours` - per-colour appearance under one table's light, written
  into a catalogue copy;
* :mod:`~vision.calibration.accuracy` - scorer vs ground truth: per-photo results, confusions;
* :mod:`~vision.calibration.variant` - a re-coloured, re-drawn set generated from the default
  one (for tests and benchmarks);
* :mod:`~vision.calibration.lone_photos` - synthetic photos of single items lying flat.
"""
