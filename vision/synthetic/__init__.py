"""Synthetic Beer & Pretzels table photos with exact ground truth.

Modules, in the order a photo is made:

* :mod:`~vision.synthetic.scene_sampler` - a round as it happens (loop, tosses, 5-player rule);
* :mod:`~vision.synthetic.style` - the look of the photo per difficulty;
* :mod:`~vision.synthetic.render` - the phone photo and its semantic/instance masks
  (with :mod:`camera`, :mod:`textures`, :mod:`cord`, :mod:`art`, :mod:`distractors`,
  :mod:`effects`);
* :mod:`~vision.synthetic.labels` - the contract JSON from the scoring core's verdict;
* :mod:`~vision.synthetic.generate` - seeds, recipes and writing a set to disk.
"""
