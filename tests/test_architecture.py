"""The layers of ``pegsat/__init__.py``: every import, lazy ones included, points down."""

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "pegsat"

#: bottom to top; a module may import from its own layer and the layers before it
LAYERS = [
    {"errors", "deadline", "files", "process", "limits", "sealed", "_planes", "progress"},
    {"model"},
    {"engine"},
    {"analysis"},
    {"formats"},
    {"encoding"},
    {"planners"},
    {"checks"},
    {"proofs"},
    {"apps"},
    {"api"},
    {"cli"},
]


def layer_of(module: str) -> int:
    top = module.split(".")[1] if module.count(".") else ""
    for i, names in enumerate(LAYERS):
        if top in names:
            return i
    raise AssertionError(f"{module} is in no layer: add it to LAYERS and to pegsat/__init__.py")


def modules() -> dict[str, Path]:
    out = {}
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports(name: str, path: Path) -> list[tuple[str, int]]:
    """(imported pegsat module, line) for every import in the file, at any depth."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out.append((target, node.lineno))
            out += [(f"{target}.{a.name}", node.lineno) for a in node.names]
    return out


MODULES = modules()


#: the compiled modules (a C source each: ``engine._core``, ``checks._check``, ``_planes``),
#: whose imports are held to the layers like the others'
COMPILED = {".".join(p.relative_to(SRC.parent).with_suffix("").parts) for p in SRC.rglob("*.c")}


def pegsat_imports(name: str) -> list[tuple[str, int]]:
    return [(t, line) for t, line in imports(name, MODULES[name])
            if (t in MODULES or t in COMPILED) and t != name]


@pytest.mark.parametrize("name", sorted(m for m in MODULES if m != "pegsat"))
def test_imports_point_down(name):
    mine = layer_of(name)
    for target, line in pegsat_imports(name):
        if target == "pegsat":
            continue
        assert layer_of(target) <= mine, f"{name}:{line} imports {target}, a layer above it"


def test_no_import_cycles():
    graph = {m: {t for t, _ in pegsat_imports(m)
                 if t in MODULES and t != "pegsat" and MODULES[t].name != "__init__.py"} for m in MODULES}
    state: dict[str, int] = {}

    def visit(m, trail):
        state[m] = 1
        for t in graph[m]:
            if state.get(t) == 1:
                raise AssertionError("import cycle: " + " -> ".join(trail + [m, t]))
            if t not in state:
                visit(t, trail + [m])
        state[m] = 2

    for m in graph:
        if m not in state:
            visit(m, [])


@pytest.mark.parametrize("name", sorted(m for m in MODULES if m.startswith("pegsat.encoding")))
def test_the_encoder_imports_no_solver(name):
    for target, line in imports(name, MODULES[name]):
        assert not target.startswith(("pysat.solvers", "ortools")), f"{name}:{line} imports {target}"


def test_every_subpackage_says_what_lives_there_and_what_it_may_import():
    for init in SRC.glob("*/__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        assert "May import" in doc, f"{init.parent.name}/__init__.py: say what it may import"


def test_a_back_edge_is_caught(tmp_path):
    """The checker itself: an engine module importing a planner is reported."""
    bad = tmp_path / "bad.py"
    bad.write_text("from ..planners import auto\n")
    found = imports("pegsat.engine.bad", bad)
    assert ("pegsat.planners.auto", 1) in found
    assert layer_of("pegsat.planners.auto") > layer_of("pegsat.engine.bad")


def test_every_public_function_says_what_it_does():
    """Module-level functions and methods of public classes whose names do not start with an
    underscore carry a docstring (properties and click's ``convert`` aside)."""
    missing = []

    def visit(body, path, cls=""):
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                props = any(isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list)
                if node.name.startswith("_") or props or (cls and node.name == "convert"):
                    continue
                if not ast.get_docstring(node):
                    missing.append(f"{path.relative_to(SRC.parent)}:{node.lineno} {cls}{node.name}")
            elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                visit(node.body, path, f"{node.name}.")

    for path in MODULES.values():
        visit(ast.parse(path.read_text()).body, path)
    assert not missing, "no docstring: " + ", ".join(missing)


#: what the independent checker may import beside itself: the foundation, the board model, the
#: mathematics of proofs, the verifier's jump rule and the CNF encoding (the ``sat`` kind
#: re-encodes its problem); of the search, only what the exhaustive kind's route 1 re-runs
CHECKER_MAY_IMPORT = {"errors", "deadline", "files", "process", "limits", "sealed", "_planes", "model",
                      "analysis", "engine.bitboard", "encoding.dimacs", "checks"}
ROUTE_ONE = {"pegsat.checks.exhaustive": {"planners.layers"}}


@pytest.mark.parametrize("name", sorted(m for m in MODULES if m.startswith("pegsat.checks")))
def test_the_checker_shares_no_search_code(name):
    allowed = {f"pegsat.{m}" for m in CHECKER_MAY_IMPORT | ROUTE_ONE.get(name, set())}
    for target, line in pegsat_imports(name):
        if target == "pegsat":  # ``from .. import sealed``: the module itself is checked next
            continue
        assert any(target == a or target.startswith(a + ".") for a in allowed), \
            f"{name}:{line} imports {target}: the checker shares no search code"


LONGEST = 150  # lines a function may take


def test_no_function_is_longer_than_about_150_lines():
    long = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > LONGEST:
                    long.append(f"{name}.{node.name}: {lines} lines")
    assert not long, long
