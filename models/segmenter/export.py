"""Export a trained :class:`~models.segmenter.net.Segmenter` to ONNX and check that
onnxruntime gives the same probabilities as torch (within :data:`TOLERANCE`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import torch

from models.segmenter.dataset import CLASS_NAMES
from models.segmenter.net import Segmenter

OPSET = 17
TOLERANCE = 1e-4
INPUT_NAME = "image"
OUTPUT_NAME = "probabilities"


def export_onnx(model: Segmenter, out_path: Path, check_images: np.ndarray) -> float:
    """Write ``model`` to ``out_path`` (dynamic batch, height and width; class names in the
    metadata) and return the largest |onnxruntime - torch| over ``check_images``
    ((N, H, W, 3) uint8 RGB); raises RuntimeError when it exceeds :data:`TOLERANCE`."""
    model = model.eval()
    dummy = torch.zeros(1, 3, check_images.shape[1], check_images.shape[2])
    out_path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        model,
        (dummy,),
        str(out_path),
        input_names=[INPUT_NAME],
        output_names=[OUTPUT_NAME],
        dynamic_axes={
            INPUT_NAME: {0: "batch", 2: "height", 3: "width"},
            OUTPUT_NAME: {0: "batch", 2: "height", 3: "width"},
        },
        opset_version=OPSET,
        dynamo=False,
    )
    proto = onnx.load(str(out_path))
    entry = proto.metadata_props.add()
    entry.key, entry.value = "class_names", json.dumps(list(CLASS_NAMES))
    entry = proto.metadata_props.add()
    entry.key, entry.value = "input", "RGB float32 0..1, NCHW, H and W multiples of 16"
    onnx.save(proto, str(out_path))

    session = ort.InferenceSession(str(out_path), providers=["CPUExecutionProvider"])
    batch = torch.from_numpy(check_images).permute(0, 3, 1, 2).float() / 255.0
    with torch.no_grad():
        expected = model(batch).numpy()
    got = session.run([OUTPUT_NAME], {INPUT_NAME: batch.numpy()})[0]
    error = float(np.abs(got - expected).max())
    if error > TOLERANCE:
        raise RuntimeError(f"onnxruntime differs from torch by {error:.2e} > {TOLERANCE:.0e}")
    return error
