"""The weights file of a learned bot model: named arrays, their training settings, a digest.

A weights file is JSON: the format name, the feature names the model was trained on, the
training settings (and measured losses), the arrays (little-endian float64, base64) and a SHA-256
digest of all of it. :func:`read_weights` checks every part and raises :class:`ModelError`
naming the file when it is missing, unreadable, corrupt, of another format or trained on other
features, so a server never plays with weights that are not what was trained.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]


class ModelError(ValueError):
    """A weights file that is missing, unreadable or does not match its digest."""


def _payload(
    fmt: str, features: Sequence[str], arrays: dict[str, Array], settings: dict[str, Any]
) -> dict[str, Any]:
    return {
        "format": fmt,
        "features": list(features),
        "settings": settings,
        "arrays": {
            name: {
                "shape": list(array.shape),
                "data": base64.b64encode(np.ascontiguousarray(array, dtype="<f8").tobytes()).decode(
                    "ascii"
                ),
            }
            for name, array in arrays.items()
        },
    }


def _digest_of(payload: dict[str, Any]) -> str:
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def write_weights(
    path: Path,
    fmt: str,
    features: Sequence[str],
    arrays: dict[str, Array],
    settings: dict[str, Any],
) -> str:
    """Write the weights with their settings and digest; returns the digest."""
    payload = _payload(fmt, features, arrays, settings)
    digest = _digest_of(payload)
    path.write_text(json.dumps({**payload, "sha256": digest}, indent=1) + "\n", encoding="utf-8")
    return digest


def read_weights(
    path: Path, fmt: str, features: Sequence[str], names: Sequence[str], what: str, command: str
) -> tuple[dict[str, Array], dict[str, Any], str]:
    """The arrays ``names``, the settings and the digest of the ``fmt`` file at ``path``;
    :class:`ModelError` naming ``what`` and the file (and the ``command`` that writes it when it
    is missing) if anything does not match."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelError(f"{what} {path}: missing (`{command}` writes it)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelError(f"{what} {path}: unreadable ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != fmt:
        raise ModelError(f"{what} {path}: not a {fmt} file")
    digest = doc.pop("sha256", None)
    if digest != _digest_of(doc):
        raise ModelError(f"{what} {path}: digest mismatch, the file is corrupt")
    if doc.get("features") != list(features):
        raise ModelError(f"{what} {path}: trained on other features")
    arrays: dict[str, Array] = {}
    try:
        for name, spec in doc["arrays"].items():
            raw = base64.b64decode(spec["data"], validate=True)
            arrays[name] = np.frombuffer(raw, dtype="<f8").reshape(spec["shape"]).astype(np.float64)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ModelError(f"{what} {path}: bad arrays ({exc})") from None
    missing = [n for n in names if n not in arrays]
    if missing:
        raise ModelError(f"{what} {path}: lacks {', '.join(missing)}")
    settings = doc.get("settings", {})
    return arrays, dict(settings) if isinstance(settings, dict) else {}, str(digest)
