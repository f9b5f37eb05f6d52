"""Correlations of one canvas with many large kernels, each image and kernel transformed once.

``cv2.filter2D`` correlates an image with a large kernel through the DFT and transforms the
image again on every call; the outline search correlates the same canvas-sized images with
dozens of outline bands, turns and blobs. A :class:`Correlator` fixes a padded DFT size for
images of one shape and kernels up to a given size; :meth:`Correlator.image` and
:meth:`Correlator.kernel` transform each once, and :meth:`Correlator.correlate` multiplies two
spectra and transforms back. The result is ``cv2.filter2D(image, cv2.CV_32F, kernel,
borderType=cv2.BORDER_CONSTANT)`` (zero beyond the image, the kernel anchored at its centre
pixel) up to float32 rounding. Frames: the image's pixels; every result has the image's shape.
"""

from __future__ import annotations

import cv2
import numpy as np


class Correlator:
    """DFT correlations of (H, W) images with kernels of at most ``max_kernel_px`` rows and
    columns."""

    def __init__(self, image_shape: tuple[int, int], max_kernel_px: int) -> None:
        h, w = image_shape[:2]
        self.image_shape = (h, w)
        self.max_kernel_px = max_kernel_px
        # the kernel's reach on either side of its anchor must fall on the zero padding
        reach = max_kernel_px // 2 + 1
        self.padded_shape = (cv2.getOptimalDFTSize(h + reach), cv2.getOptimalDFTSize(w + reach))

    def image(self, image: np.ndarray) -> np.ndarray:
        """The spectrum of ``image`` ((H, W), any real dtype), zero-padded."""
        if image.shape[:2] != self.image_shape:
            raise ValueError(f"image of shape {image.shape[:2]}, expected {self.image_shape}")
        h, w = self.image_shape
        padded = np.zeros(self.padded_shape, np.float32)
        padded[:h, :w] = image
        return cv2.dft(padded, nonzeroRows=h)

    def kernel(self, kernel: np.ndarray) -> np.ndarray:
        """The spectrum of ``kernel`` ((kh, kw), any real dtype), its anchor (the pixel
        ``(kh // 2, kw // 2)``, as ``cv2.filter2D``'s default) moved to the origin."""
        kh, kw = kernel.shape[:2]
        if max(kh, kw) > self.max_kernel_px:
            raise ValueError(f"kernel of shape {kernel.shape[:2]}, at most {self.max_kernel_px}")
        padded = np.zeros(self.padded_shape, np.float32)
        padded[:kh, :kw] = kernel
        return cv2.dft(np.roll(padded, (-(kh // 2), -(kw // 2)), axis=(0, 1)))

    def correlate(self, image_spectrum: np.ndarray, kernel_spectrum: np.ndarray) -> np.ndarray:
        """(H, W) float32: per pixel, the sum of the image weighted by the kernel anchored
        there (zero beyond the image)."""
        product = cv2.mulSpectrums(image_spectrum, kernel_spectrum, 0, conjB=True)
        h, w = self.image_shape
        rows = cv2.idft(product, flags=cv2.DFT_SCALE | cv2.DFT_REAL_OUTPUT)
        return rows[:h, :w]
