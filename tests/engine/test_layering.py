"""The layers of docs/ARCHITECTURE.md, enforced on the source: the import graph of memvet.* built with ast.

- no import cycle among module-level imports (``if TYPE_CHECKING:`` imports included);
- no function-level import hides one: the graph with every lazy memvet import
  added is acyclic too, so each lazy import only defers start-up cost;
- function-level memvet imports only in the modules allow-listed below, with the reason;
- ``memvet.vocabulary`` imports nothing of memvet; rule modules import only the
  rule API, the text helpers and the vocabulary (never an engine stage);
- nobody outside the engine reaches into the engine's private names.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIRS = {"memvet": "validators", "memvet.rules": "rules", "memvet.extractor": "extractor",
                "memvet.schemas": "schemas", "memvet.store": "store", "memvet.demo": "examples/demo"}

#: What a rule module (memvet.rules.*) may import of memvet besides memvet.rules.* itself.
RULE_API = {
    "memvet.rule": "Rule, Finding, RuleOptions",
    "memvet.rule_context": "RuleContext (types)",
    "memvet.vocabulary": "types, actions, targets, kinds, statuses",
    "memvet.placement": "a record's task and namespace (W005/W006 reroutes)",
    "memvet.pointer": "JSON Pointer helpers",
    "memvet.secrets": "the secret set and string mapping the privacy rules fill",
    "memvet.hookspecs": "hookimpl (the built-in plugin registers like any other)",
    "memvet.parse": "the S rules look at the ParseResult",
    "memvet.contract": "S004 reports the contract's schema errors",
    "memvet.batchfacts": "what each message of the batch does (ctx.facts), the batch-level text layer",
    "memvet.needs": "Needs, the declaration of what check() needs (fields, word lists)",
}

#: Modules that may import memvet modules inside functions, and why (none of them hides a cycle:
#: test_no_function_level_import_hides_a_cycle proves it).
LAZY_ALLOWED = {
    "memvet.cli": "subcommands load the engine, selection and rule docs only when run (start-up cost)",
    "memvet.cli_check": "the store, Ray, SARIF/GitHub writers load only for the options that need them",
    "memvet.cli_audit": "memvet audit loads its readers and writers only when run",
    "memvet.cli_eval": "memvet eval loads the evaluator only when run",
    "memvet.cli_serve": "memvet serve loads Starlette/uvicorn (optional extra) only when run",
    "memvet.serve": "the server's worker processes build engines and stores on demand",
    "memvet.formats": "the SARIF/GitHub formatters load only when a CI format is asked for",
    "memvet.ci_formats": "the registry is read only when a rule's help URI is asked for",
    "memvet.evaluate": "the engine loads only when an evaluation runs",
    "memvet.audit": "readers (store, Ray) load only for the source kind given",
    "memvet.audit.clean": "the store loads only for --clean-out to a store",
    "memvet.integrations.ray": "runs inside Ray workers: engines and audits built there, on demand",
    "memvet.testing.cases": "plugin authors' test helpers: the engine loads when a case runs",
    "memvet.testing.docexamples": "the engine loads when a docstring example runs",
    "memvet.extractor.cli": "the OpenAI client (optional extra memvet[llm]) and judge load only when run",
    "memvet.extractor.client": "prompt templates are read only when a request is built",
    "memvet.extractor.demo": "the demo's engine and config load only when it runs",
    "memvet.extractor.judge": "the judge builds its own engine only when it judges",
    "memvet.extractor.stores": "memvet.store is guarded by ImportError for a stripped install",
    "memvet.store.cli": "the review page (Starlette) and the store load only for their command",
    "memvet.store.core": "PostgreSQL (psycopg, optional extra) loads only for a postgres:// URL",
}

#: The engine and its stages: plain layers, nothing deferred.
ENGINE_STAGES = ("memvet.engine", "memvet.pipeline", "memvet.walk", "memvet.findings", "memvet.working_copy",
                 "memvet.records", "memvet.verdict", "memvet.run_state", "memvet.binding", "memvet.rule_context",
                 "memvet.secret_scan", "memvet.paths", "memvet.routing", "memvet.vocabulary", "memvet.rule")


def _modules() -> dict[str, Path]:
    mods: dict[str, Path] = {}
    for package, folder in PACKAGE_DIRS.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            mods[".".join([package, *parts])] = path
    return mods


MODULES = _modules()


def _targets(module: str, is_package: bool, node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        assert isinstance(node, ast.ImportFrom)
        base = module if is_package else module.rsplit(".", 1)[0]
        if node.level:
            for _ in range(node.level - 1):
                base = base.rsplit(".", 1)[0]
            base = base + ("." + node.module if node.module else "")
        else:
            base = node.module or ""
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
    out = []
    for name in names:
        while name not in MODULES and "." in name:
            name = name.rsplit(".", 1)[0]
        if name in MODULES and name != module:
            out.append(name)
    return out


def _imports() -> tuple[dict[str, set[str]], list[tuple[str, str, int]]]:
    """Module-level edges (TYPE_CHECKING included) and function-level ``(module, target, line)``."""
    edges: dict[str, set[str]] = {m: set() for m in MODULES}
    lazy: list[tuple[str, str, int]] = []
    for module, path in MODULES.items():
        is_package = path.name == "__init__.py"

        def walk(node: ast.AST, in_function: bool) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    for target in _targets(module, is_package, child):
                        if in_function:
                            lazy.append((module, target, child.lineno))
                        else:
                            edges[module].add(target)
                else:
                    walk(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))

        walk(ast.parse(path.read_text("utf-8")), False)
    return edges, lazy


EDGES, LAZY = _imports()


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a path, or None (iterative DFS)."""
    state: dict[str, int] = {}
    for start in sorted(graph):
        if start in state:
            continue
        stack = [(start, iter(sorted(graph[start])))]
        state[start] = 1
        path = [start]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                state[node] = 2
            elif state.get(child) == 1:
                return path[path.index(child):] + [child]
            elif child not in state:
                state[child] = 1
                path.append(child)
                stack.append((child, iter(sorted(graph.get(child, ())))))
    return None


def test_the_graph_sees_the_whole_package():
    assert {"memvet.engine", "memvet.rules.write", "memvet.vocabulary", "memvet.store.cli"} <= set(MODULES)
    assert EDGES["memvet.engine"] >= {"memvet.pipeline", "memvet.verdict", "memvet.binding"}


def test_no_import_cycle_among_module_level_imports():
    assert _cycle(EDGES) is None


def test_no_function_level_import_hides_a_cycle():
    graph = {m: set(t) for m, t in EDGES.items()}
    for module, target, _ in LAZY:
        graph[module].add(target)
    assert _cycle(graph) is None


def test_function_level_memvet_imports_only_where_allowed():
    unexpected = sorted({f"{m} -> {t} (line {n})" for m, t, n in LAZY if m not in LAZY_ALLOWED})
    assert not unexpected
    stale = sorted(set(LAZY_ALLOWED) - {m for m, _, _ in LAZY})
    assert not stale, f"allow-listed without a lazy import any more: {stale}"


def test_the_engine_stages_defer_no_import():
    assert not [entry for entry in LAZY if entry[0] in ENGINE_STAGES]


def test_the_vocabulary_is_a_leaf():
    assert EDGES["memvet.vocabulary"] == set()


def test_rules_import_only_the_rule_api_text_helpers_and_vocabulary():
    bad = {f"{m} -> {t}" for m, targets in EDGES.items() if m.startswith("memvet.rules")
           for t in targets if not t.startswith("memvet.rules") and t not in RULE_API}
    bad |= {f"{m} -> {t}" for m, t, _ in LAZY if m.startswith("memvet.rules") and not t.startswith("memvet.rules")}
    assert not bad


def test_the_rule_api_never_imports_the_engine():
    for module in ("memvet.rule", "memvet.rule_context", "memvet.placement", "memvet.vocabulary"):
        leaves = set(RULE_API) | {"memvet.paths"}  # paths: pointer helpers, a leaf
        assert not {t for t in EDGES[module] if t in ENGINE_STAGES and t not in leaves}, module


def test_no_module_reaches_into_private_engine_names():
    private = re.compile(r"\bengine\._[a-z]\w*\(|from memvet\.engine import _|from \.engine import _")
    hits = [f"{path.relative_to(ROOT)}" for module, path in MODULES.items()
            if module != "memvet.engine" and private.search(path.read_text("utf-8"))]
    assert not hits


def test_no_rule_module_shares_a_name_with_an_engine_module():
    rule_names = {m.rsplit(".", 1)[1] for m in MODULES if m.startswith("memvet.rules.")}
    engine_names = {m.rsplit(".", 1)[1] for m in MODULES if m.count(".") == 1 and not m.startswith("memvet.rules")}
    assert not rule_names & engine_names
