"""The certificates shipped in ``instances/certificates/``: each the evidence of a result of the
README's tables, checked from the file alone (``check --rebuild``: the levels it names are
not shipped)."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from pegsat.checks import certificate
from pegsat.cli import main

SHIPPED = Path(__file__).resolve().parent.parent / "instances" / "certificates"
FILES = sorted(SHIPPED.glob("*.json"))


def test_every_shipped_certificate_is_one_of_a_readme_result():
    readme = (SHIPPED.parent.parent / "README.md").read_text()
    assert FILES
    for path in FILES:
        data = certificate.load(path)
        board, v, s = path.stem.split("-")
        p = data["problem"]
        assert p["board"]["name"] == board and data["kind"] in ("moves", "levels"), path
        assert f"instances/certificates/{path.name}" in readme, f"{path.name} is linked from the README"
        if data["kind"] == "moves":  # a fewest-moves row
            assert data["evidence"]["moves"] <= data["evidence"]["upper"]
        else:  # "unsolvable": the levels of an exhausted search by jumps, the last mirrored
            assert data["evidence"]["mirror"] and len(data["evidence"]["levels"]) > 1


def test_the_files_alone_are_refused_without_their_levels_and_the_claim_is_checked():
    """Read as they are, their level files are missing (a check of the files needs the search's
    directory); an edited claim is refused before any level is built."""
    path = SHIPPED / "german-d4-d4.json"
    r = CliRunner().invoke(main, ["check", str(path)])
    assert r.exit_code == 1 and "is missing" in r.output and "check --rebuild checks it" in r.output, r.output
    assert certificate.named(certificate.load(path)) and not any(
        (SHIPPED / name).exists() for name in certificate.named(certificate.load(path)))
    data = json.loads(path.read_text())
    data["evidence"]["upper"] = data["evidence"]["moves"] - 1
    v = certificate.check(data, SHIPPED, rebuild=True)
    assert not v.ok and v.finished and "more than the bound" in v.message


@pytest.mark.slow  # half a minute: 30.9 million positions rebuilt, 310 million moves walked
def test_german_d4_d4_checks_from_its_file_alone():
    r = CliRunner().invoke(main, ["check", str(SHIPPED / "german-d4-d4.json"), "--rebuild"])
    assert r.exit_code == 0 and "every plan has at least 20 moves" in r.output, r.output
