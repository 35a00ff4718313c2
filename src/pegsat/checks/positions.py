"""Files of positions: sorted 64-bit positions packed compactly (``save_positions``), read
back with every header checked before anything is decompressed (``load_positions``)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np


def save_positions(fh, positions: np.ndarray) -> None:
    """Write sorted 64-bit positions compactly (``numpy.savez_compressed``): the gaps between
    neighbours, as 8 byte planes (all lowest bytes, then all second bytes, ...), so the
    planes of high bytes, nearly all zero, compress to almost nothing (an English dead set of
    13.2 M positions: 106 MB as ``.npy``, 4.7 MB packed; 1.2 s to write, 0.25 s to read).
    The first "gap" is the first position."""
    from .. import _planes  # the byte planes of sealed files: numpy's passes are its reference

    words = np.ascontiguousarray(positions, dtype=np.uint64)
    planes = np.empty(8 * len(words), dtype=np.uint8)
    _planes.split(words, planes)
    np.savez_compressed(fh, planes=planes.reshape(8, len(words)))


def load_positions(path, count: int) -> np.ndarray:
    """The ``count`` positions of ``save_positions`` (or of a plain ``.npy`` array, as older
    certificates hold). Raises ValueError on anything else, and before any decompression when
    the file says it holds more than ``count`` positions: a small file that would expand to
    gigabytes (a decompression bomb) is refused by its headers, not by running out of memory."""
    limit = 8 * count + NPY_HEADER
    with open(path, "rb") as raw:
        if raw.read(6) == b"\x93NUMPY":  # a plain array: its size on disk is its size in memory
            raw.seek(0, 2)
            if raw.tell() > limit:
                raise ValueError(f"the array holds more than the {count} positions stated")
            raw.seek(0)
            return _array(raw, (count,), np.uint64)
    with zipfile.ZipFile(path) as zf:
        infos = zf.infolist()
        if [i.filename for i in infos] != ["planes.npy"]:
            raise ValueError("expected one array 'planes'")
        if infos[0].file_size > limit:
            raise ValueError(f"'planes' expands to {infos[0].file_size} bytes, more than {count} positions")
        with zf.open(infos[0]) as fh:  # reads at most the size its header states
            planes = _array(fh, (8, count), np.uint8)
    from .. import _planes

    out = np.empty(count, dtype=np.uint64)
    _planes.join(planes.reshape(-1), out)
    return out


NPY_HEADER = 4096  # bytes an .npy header may take


def _array(fh, shape: tuple[int, ...], dtype) -> np.ndarray:
    """An .npy array of exactly this shape and dtype from ``fh`` (never a pickle)."""
    version = np.lib.format.read_magic(fh)
    if version not in ((1, 0), (2, 0)):
        raise ValueError(f".npy version {version}")
    read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
    got, fortran, kind = read(fh, max_header_size=NPY_HEADER)
    if tuple(got) != shape or fortran or np.dtype(kind) != np.dtype(dtype).newbyteorder("<"):
        raise ValueError(f"expected {np.dtype(dtype).name} {shape}, the file holds {kind} {tuple(got)}")
    out = np.empty(shape, dtype=np.dtype(dtype).newbyteorder("<"))
    raw = out.reshape(-1).view(np.uint8)
    done = 0
    while done < len(raw):  # into the array a megabyte at a time: no copy of a part's hundreds of MB
        chunk = fh.read(min(len(raw) - done, 1 << 20))
        if not chunk:
            raise ValueError("the array is cut short")
        raw[done:done + len(chunk)] = np.frombuffer(chunk, dtype=np.uint8)
        done += len(chunk)
    return out.astype(dtype, copy=False)


def read_part(path: Path, count: int) -> np.ndarray:
    """The ``count`` positions of a file the evidence names (a task's loader: picklable), or
    ValueError saying why it is not such a file."""
    try:
        return load_positions(path, count)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, NotImplementedError) as exc:
        raise ValueError(f"{path} is not a file of {count} positions ({str(exc)[:80]})") from None
