"""The segmenter recipe, one command from nothing to ``models/segmenter.onnx``::

    nice -n 10 python -m models.segmenter.train --out models/segmenter.onnx --seed 0

1. render the train, validation and held-out splits into ``--cache`` (skipping photos already
   there; :mod:`models.segmenter.dataset`);
2. train :class:`~models.segmenter.net.Segmenter` from scratch for ``--steps`` steps of
   ``--batch`` random crops (flips, quarter turns, mild light changes), AdamW with a one-cycle
   learning rate, class-weighted cross-entropy, ``--threads`` torch threads;
3. export to ONNX and check onnxruntime against torch;
4. evaluate per-class IoU on the validation and held-out splits, by difficulty, and write them
   with the run's settings to ``<out>.metrics.json`` (the numbers of ``models/MODEL_CARD.md``).

Deterministic for a given seed and thread count: every random draw comes from the seed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
import torch
from torch.nn import functional as F

from models.segmenter.dataset import CLASS_NAMES, SPLITS, load_split, render_split
from models.segmenter.export import INPUT_NAME, OUTPUT_NAME, export_onnx
from models.segmenter.metrics import confusion, iou_report
from models.segmenter.net import Segmenter, parameter_count

CROP_PX = 224
MAX_CLASS_WEIGHT = 10.0


def class_weights(labels: np.ndarray) -> torch.Tensor:
    """Cross-entropy weights: inverse square root of each class's pixel share, normalised so
    that the table's weight is 1 and capped at :data:`MAX_CLASS_WEIGHT`."""
    counts = np.bincount(labels.ravel(), minlength=len(CLASS_NAMES)).astype(np.float64)
    share = np.maximum(counts / counts.sum(), 1e-6)
    weights = np.minimum((share / share.max()) ** -0.5, MAX_CLASS_WEIGHT)
    return torch.tensor(weights, dtype=torch.float32)


def augmented_batch(
    rng: np.random.Generator, images: np.ndarray, labels: np.ndarray, batch: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """``batch`` random square crops with random flips/quarter turns and a mild brightness,
    contrast and per-channel gain change: (B, 3, S, S) float 0..1 and (B, S, S) int64."""
    n, height, width = labels.shape
    xs, ys = [], []
    for _ in range(batch):
        k = int(rng.integers(n))
        top = int(rng.integers(height - CROP_PX + 1))
        left = int(rng.integers(width - CROP_PX + 1))
        image = images[k, top : top + CROP_PX, left : left + CROP_PX].astype(np.float32) / 255
        label = labels[k, top : top + CROP_PX, left : left + CROP_PX]
        turns = int(rng.integers(4))
        image, label = np.rot90(image, turns), np.rot90(label, turns)
        if rng.random() < 0.5:
            image, label = image[:, ::-1], label[:, ::-1]
        gain = rng.uniform(0.92, 1.08, size=3).astype(np.float32)
        contrast = np.float32(rng.uniform(0.8, 1.2))
        bright = np.float32(rng.uniform(-0.08, 0.08))
        image = np.clip((image - 0.5) * contrast + 0.5 + bright, 0, 1) * gain
        xs.append(np.clip(image, 0, 1).transpose(2, 0, 1))
        ys.append(label)
    return torch.from_numpy(np.ascontiguousarray(xs)), torch.from_numpy(
        np.ascontiguousarray(ys).astype(np.int64)
    )


def train(
    images: np.ndarray,
    labels: np.ndarray,
    *,
    seed: int,
    steps: int,
    batch: int,
    lr: float,
    snapshot: Path | None = None,
) -> Segmenter:
    """Train from scratch; every 100 steps the weights so far are saved to ``snapshot`` (a
    torch state dict, for looking at a long run before it ends) when it is given."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = Segmenter(len(CLASS_NAMES))
    weights = class_weights(labels)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=lr, total_steps=steps, pct_start=0.15
    )
    model.train()
    started, running = time.perf_counter(), 0.0
    for step in range(1, steps + 1):
        x, y = augmented_batch(rng, images, labels, batch)
        loss = F.cross_entropy(model.logits(x), y, weight=weights)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        schedule.step()
        running = loss.item() if step == 1 else 0.95 * running + 0.05 * loss.item()
        if step % 25 == 0 or step == steps:
            elapsed = time.perf_counter() - started
            print(f"step {step}/{steps} loss {running:.4f} {elapsed:.0f} s", flush=True)
        if snapshot is not None and step % 100 == 0:
            torch.save(model.state_dict(), snapshot)
    return model.eval()


def evaluate(
    session: ort.InferenceSession, folder: Path, n: int
) -> dict[str, dict[str, float | None]]:
    """Per-class IoU (all photos and per difficulty) of the ONNX model on the first ``n`` photos
    of a rendered split."""
    images, labels, difficulties = load_split(folder, n)
    matrices = []
    for image, label in zip(images, labels, strict=True):
        x = image.astype(np.float32).transpose(2, 0, 1)[None] / 255.0
        probabilities = session.run([OUTPUT_NAME], {INPUT_NAME: x})[0][0]
        matrices.append(confusion(probabilities.argmax(axis=0), label, len(CLASS_NAMES)))
    return iou_report(matrices, difficulties, CLASS_NAMES)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Train the segmenter and export it to ONNX.")
    parser.add_argument("--out", type=Path, default=Path("models/segmenter.onnx"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache", type=Path, default=Path("var/segmenter-cache"))
    parser.add_argument("--steps", type=int, default=4000)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--lr", type=float, default=4e-3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2, help="render processes")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    started = time.perf_counter()

    folders = {
        name: render_split(split, args.cache, args.workers) for name, split in SPLITS.items()
    }
    rendered_s = time.perf_counter() - started
    images, labels, _ = load_split(folders["train"], n=SPLITS["train"].n)
    print(f"training on {len(images)} photos of {images.shape[2]}x{images.shape[1]} px", flush=True)
    model = train(
        images,
        labels,
        seed=args.seed,
        steps=args.steps,
        batch=args.batch,
        lr=args.lr,
        snapshot=args.cache / "snapshot.pt",
    )
    trained_s = time.perf_counter() - started - rendered_s

    check, _, _ = load_split(folders["val"], n=2)
    error = export_onnx(model, args.out, check)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(str(args.out), options, providers=["CPUExecutionProvider"])
    report = {
        "recipe": vars(args) | {"out": str(args.out), "cache": str(args.cache)},
        "splits": {name: {"seed": s.seed, "n": s.n} for name, s in SPLITS.items()},
        "parameters": parameter_count(model),
        "onnx_bytes": args.out.stat().st_size,
        "onnx_vs_torch_max_abs": error,
        "render_s": round(rendered_s, 1),
        "train_s": round(trained_s, 1),
        "iou": {
            name: evaluate(session, folders[name], SPLITS[name].n) for name in ("val", "heldout")
        },
    }
    metrics_path = args.out.with_suffix(".metrics.json")
    metrics_path.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(report["iou"], indent=1))
    print(f"wrote {args.out} and {metrics_path} in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
