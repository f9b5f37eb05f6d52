"""Synthetic Beer & Pretzels table photos with exact ground truth.

Modules, in the order a photo is made:

* :mod:`~vision.synthetic.scene_sampler` - a round as it happens (loop from :mod:`loop`, tosses,
  5-player rule, stack heights), snacks lying on the game from :mod:`foreign`;
* :mod:`~vision.synthetic.style` - the look of the photo per difficulty;
* :mod:`~vision.synthetic.render` - the phone photo and its masks (:mod:`camera`,
  :mod:`textures`, :mod:`cord`, :mod:`art`, :mod:`distractors`, :mod:`effects`,
  :mod:`semantic`);
* :mod:`~vision.synthetic.labels` - the contract JSON from the scoring core's verdict;
* :mod:`~vision.synthetic.generate` - per-photo seeds, writing a set to disk;
  :mod:`recipes` (named sets in ``datasets/``) and :mod:`contact_sheet`.
"""
