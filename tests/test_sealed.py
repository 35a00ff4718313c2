"""The byte planes of ``zstd-planes`` files made by the compiled pass (``_planes.c``) and by
numpy's reference, exactly alike; files of either read by the other."""

import numpy as np
import pytest
import zstandard

from pegsat import _planes, sealed

RNG = np.random.default_rng(11)
ARRAYS = {
    "empty": np.zeros(0, np.uint64),
    **{f"{n} words": np.sort(RNG.integers(0, 1 << 50, n, dtype=np.uint64)) for n in (1, 7, 8, 9, 17)},
    "sorted": np.sort(RNG.integers(0, 1 << 45, 100_003, dtype=np.uint64)),
    "unsorted, every byte used": RNG.integers(0, 1 << 64, 1001, dtype=np.uint64),
    "the extremes": np.array([0, (1 << 64) - 1, 0, 1, (1 << 63), (1 << 64) - 1] * 3, np.uint64),
}


@pytest.mark.parametrize("name", ARRAYS)
def test_the_compiled_planes_are_the_references(name):
    words = ARRAYS[name]
    planes = np.full(8 * len(words), 7, np.uint8)
    _planes.split(words, planes)
    assert np.array_equal(planes, sealed._split_reference(words))
    back, ref = np.full(len(words), 3, np.uint64), np.full(len(words), 3, np.uint64)
    _planes.join(planes, back)
    sealed._join_reference(planes, ref)
    assert np.array_equal(back, words) and np.array_equal(ref, words)


def test_a_file_of_the_reference_planes_reads_as_written():
    """The format is the planes, not the code that made them: a body compressed from numpy's
    planes decodes to the words, and ``encode`` compresses the very planes numpy makes."""
    words = ARRAYS["sorted"]
    body = zstandard.ZstdCompressor(level=sealed.ZSTD_LEVEL).compress(sealed._split_reference(words).data)
    assert np.array_equal(sealed.decode(body, "zstd-planes", len(words)), words)
    made = zstandard.ZstdDecompressor().decompress(sealed.encode(words, "zstd-planes"))
    assert made == sealed._split_reference(words).tobytes()


def test_bad_buffers_are_refused_not_read():
    words = np.zeros(4, np.uint64)
    with pytest.raises(ValueError, match="8 bytes for each word"):
        _planes.split(words, np.zeros(31, np.uint8))
    with pytest.raises(ValueError, match="8 bytes for each word"):
        _planes.join(np.zeros(33, np.uint8), words)
    with pytest.raises(ValueError, match="items of 8 bytes"):
        _planes.split(np.zeros(4, np.uint32), np.zeros(16, np.uint8))
    with pytest.raises(ValueError, match="items of 1 bytes"):
        _planes.join(np.zeros(4, np.uint64), words)
    with pytest.raises((TypeError, BufferError, ValueError)):
        _planes.split(words, bytes(32))  # read-only
    with pytest.raises((TypeError, BufferError, ValueError)):
        _planes.split(words[::2], np.zeros(16, np.uint8))  # not contiguous
