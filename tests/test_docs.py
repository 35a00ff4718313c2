"""The examples in the documents run: the README's and docs/api.md's Python examples and the
library's docstrings, as doctests (each file's examples share one namespace)."""

import doctest
from pathlib import Path

import pytest

import pegsat
from pegsat import api

ROOT = Path(__file__).resolve().parent.parent
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.mark.parametrize("name", ["README.md", "docs/api.md"])
def test_document_examples_run(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # examples that write files write them here
    text = (ROOT / name).read_text()
    assert ">>> " in text, f"{name} has no example"
    test = doctest.DocTestParser().get_doctest(text, {"pegsat": pegsat}, name, str(ROOT / name), 0)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test)
    assert runner.failures == 0, f"{runner.failures} of {runner.tries} examples in {name} failed"


@pytest.mark.parametrize("module", [pegsat, api])
def test_docstring_examples_run(module):
    result = doctest.testmod(module, extraglobs={"pegsat": pegsat}, optionflags=FLAGS)
    assert result.attempted > 0 and result.failed == 0
