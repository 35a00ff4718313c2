"""The byte planes of sealed files (``_planes.c``): their signatures. ``words``: a C-contiguous
buffer of 8-byte items; ``planes``: of bytes, 8 for each word."""

from typing import Any

def split(words: Any, out: Any) -> None: ...
def join(planes: Any, out: Any) -> None: ...
