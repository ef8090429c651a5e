"""The memvet benchmark: memvet beside what a user would otherwise run, in one run.

    python benchmarks/run.py                  # the full suite (a few minutes)
    python benchmarks/run.py --quick          # toy sizes, seconds
    python benchmarks/run.py --only throughput,latency --json out.json --markdown out.md

What is measured (same documents for every competitor, interleaved rounds,
best of the rounds -- other processes only ever add time, so the fastest
round is the closest to the code's own cost, as ``timeit`` advises; ratios
are what to compare across noisy machines):

* **memvet** -- ``memvet.validate(raw_text, context_dict)`` per answer with
  every built-in rule (default config): the raw LLM text is parsed, the
  context validated and indexed, the contract checked, every rule run,
  records routed and the report built. "Memories per second" is the number
  of memories in the answers divided by that time.
* **jsonschema** -- ``Draft202012Validator(schema).iter_errors(doc)`` over
  the already parsed answers, contract schema only (pure-Python jsonschema;
  its ``referencing`` is pure Python, ``rpds`` is a compiled extension).
* **pydantic** -- ``memvet.models.Output.validate_json(raw_text)``: parsing
  and typing only (also ``validate_python`` over the parsed answers).
* **json.loads** -- the floor.
* **memvet without family X** -- the default config with ``ignore = [X]``,
  for every family, so each family's cost is visible.

Then per-stage and per-rule timings (an instrumented engine), the latency of
one typical answer (3 scenes, 20 memories), in-process scaling (1x, 10x,
100x memories per answer) and, through ``memvet check`` as a subprocess,
JSONL files of 1 to 10,000 answers, 200,000 streamed lines (peak resident
memory) and ``--jobs 1`` against ``--jobs 2``.

Needs nothing beyond memvet's own dependencies.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import itertools
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

if __package__ in (None, ""):  # run as a script: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import instructions  # noqa: E402
from benchmarks.generate import Answer, make_answer, make_answers  # noqa: E402

FAMILIES = "SPITQLGMW"
SECTIONS = ("throughput", "stages", "latency", "scaling", "cli", "streaming", "jobs", "instructions", "serve", "ray")

# Targets of the issue (one core, same run).
TARGET_VALID_MPS = 30_000
TARGET_FAULTY_MPS = 15_000  # issue 10: >= 15,000 on all-faulty answers
TARGET_VS_JSONSCHEMA = 0.5
TARGET_VS_PYDANTIC = 15.0
TARGET_P50_MS = 2.0
TARGET_SCALING = 110.0
TARGET_STREAM_MB = 150.0
TARGET_JOBS_SPEEDUP = 1.7


@dataclass
class Sizes:
    answers: int = 300          # typical answers per set (throughput, stages)
    rounds: int = 5             # interleaved rounds; the best is reported
    latency_calls: int = 2000
    scaling: tuple[int, ...] = (1, 10, 100)
    scaling_memories: int = 20
    cli_answers: tuple[int, ...] = (1, 10, 100, 1000, 10_000)
    stream_lines: int = 200_000
    stream_probe: int = 10_000  # a shorter stream, to show that memory stays flat
    jobs_answers: int = 3000
    serve_requests: int = 600   # per concurrency level (1, 8, 64 clients)
    ray_answers: int = 1500

    @classmethod
    def quick(cls) -> "Sizes":
        return cls(answers=12, rounds=1, latency_calls=30, scaling=(1, 10), scaling_memories=4,
                   cli_answers=(1, 5), stream_lines=300, stream_probe=50, jobs_answers=40,
                   serve_requests=40, ray_answers=40)


@dataclass
class Results:
    machine: dict[str, Any] = field(default_factory=dict)
    sections: dict[str, Any] = field(default_factory=dict)
    targets: list[dict[str, Any]] = field(default_factory=list)

    def target(self, name: str, value: float | None, goal: float, *, at_most: bool, unit: str = "") -> None:
        met = None if value is None else (value <= goal if at_most else value >= goal)
        self.targets.append({"target": name, "value": value, "goal": goal, "at_most": at_most, "unit": unit,
                             "met": met})


# --- machine ------------------------------------------------------------------------

def machine_info() -> dict[str, Any]:
    import pydantic
    import pydantic_core

    import memvet

    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    rpds = importlib.util.find_spec("rpds.rpds")
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             cwd=Path(__file__).resolve().parents[1], timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        rev = ""
    return {
        "cpu": cpu, "cores": os.cpu_count(), "usable_cores": usable,
        "platform": platform.platform(), "python": f"{platform.python_implementation()} {platform.python_version()}",
        "memvet": memvet.__version__ + (f" ({rev}{' + working tree' if rev else ''})" if rev else ""),
        "pydantic": f"{pydantic.VERSION} (core {pydantic_core.__version__})",
        "jsonschema": f"{_dist('jsonschema')} (pure Python)",
        "referencing": f"{_dist('referencing')} (pure Python)",
        "rpds": f"{_dist('rpds-py')} ({'compiled extension' if rpds and str(rpds.origin).endswith(('.so', '.pyd')) else 'pure Python'})",
        "rules": _rule_count(),
        "load average": _load(),
    }


def _load() -> str:
    """Other processes compete for the cores: say how busy the machine was."""
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg()) + " (1, 5, 15 min)"
    except OSError:
        return "?"


def _dist(name: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "?"


def _rule_count() -> str:
    from memvet.engine import engine_for

    engine = engine_for(None)
    families: dict[str, int] = {}
    for bound_list in engine.by_target.values():
        for b in bound_list:
            families[b.code[0]] = families.get(b.code[0], 0) + 1
    total = sum(families.values())
    return f"{total} enabled ({', '.join(f'{k} {v}' for k, v in sorted(families.items(), key=lambda kv: FAMILIES.find(kv[0])))})"


# --- timing helpers -------------------------------------------------------------------

def interleaved(competitors: dict[str, Callable[[], Any]], rounds: int) -> dict[str, float]:
    """Best seconds per competitor; every round runs each competitor once, in turn.

    The minimum, not the median: on a shared machine other processes only
    ever add time, so the fastest round is the best estimate of the code's
    own cost. As ``timeit`` does, the garbage collector is off while a
    competitor runs (it is collected before): otherwise a collection that
    the previous competitor's garbage triggers is billed to the next one.
    """
    for fn in competitors.values():  # warm-up: imports, caches, compiled patterns
        fn()
    times: dict[str, list[float]] = {name: [] for name in competitors}
    for _ in range(rounds):
        for name, fn in competitors.items():
            gc.collect()
            gc.disable()
            try:
                t0 = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t0)
            finally:
                gc.enable()
    return {name: min(ts) for name, ts in times.items()}


def _memories(answers: list[Answer]) -> int:
    return sum(a.memories for a in answers)


# --- throughput ---------------------------------------------------------------------------

def competitors_for(answers: list[Answer], *, families: Iterable[str] = FAMILIES) -> dict[str, Callable[[], Any]]:
    from jsonschema import Draft202012Validator

    from memvet import validate
    from memvet.config import Config
    from memvet.engine import Engine
    from memvet.models import Output, OutputDicts
    from memvet.schemas import OUTPUT, load

    raws = [a.raw for a in answers]
    pairs = [(a.raw, a.context) for a in answers]
    docs = [json.loads(r) for r in raws]
    schema_validator = Draft202012Validator(load(OUTPUT))
    out: dict[str, Callable[[], Any]] = {
        "memvet (all rules)": partial(_validate_all, validate, pairs),
        "jsonschema (schema only)": partial(_each, lambda d: list(schema_validator.iter_errors(d)), docs),
        "pydantic validate_json": partial(_each, partial(_pydantic_json, Output), raws),
        "pydantic validate_python": partial(_each, partial(_pydantic_python, Output), docs),
        # What memvet's contract stage runs (the models' TypedDict twins): shown, not the headline.
        "pydantic validate_json (TypedDict)": partial(_each, partial(_pydantic_json, OutputDicts), raws),
        "json.loads": partial(_each, json.loads, raws),
    }
    for fam in families:
        out[f"memvet without {fam}"] = _run_all(Engine(Config(ignore=[fam])), pairs)
    return out


def _run_all(engine: Any, pairs: list[tuple[str, Any]]) -> Callable[[], Any]:
    return partial(_validate_all, engine.validate, pairs)


def _each(fn: Callable[[Any], Any], items: list[Any]) -> None:
    """Call ``fn`` on every item, keeping nothing (no result list to grow)."""
    for item in items:
        fn(item)


def _pydantic_json(adapter: Any, raw: str) -> Any:
    try:
        return adapter.validate_json(raw)
    except Exception:  # a faulty answer: pydantic's answer is "invalid"
        return None


def _pydantic_python(adapter: Any, doc: Any) -> Any:
    try:
        return adapter.validate_python(doc)
    except Exception:
        return None


def throughput(answers: list[Answer], rounds: int) -> dict[str, Any]:
    from memvet.engine import engine_for

    present = {b.code[0] for bl in engine_for(None).by_target.values() for b in bl}
    families = [f for f in FAMILIES if f in present]
    best = interleaved(competitors_for(answers, families=families), rounds)
    memories = _memories(answers)
    full = best["memvet (all rules)"]
    rows = []
    for name, seconds in best.items():
        row = {"name": name, "seconds": seconds, "memories_per_s": memories / seconds,
               "us_per_answer": seconds / len(answers) * 1e6, "x_memvet": seconds / full}
        if name.startswith("memvet without "):
            # What switching the family off saves; negative when the family's
            # fixes and drops spare later rules more work than it costs itself.
            row["family_cost_share"] = (full - seconds) / full
        rows.append(row)
    return {"answers": len(answers), "memories": memories, "rows": rows,
            "memvet_mps": memories / full,
            "vs_jsonschema": full / best["jsonschema (schema only)"],
            "vs_pydantic": full / best["pydantic validate_json"],
            "vs_pydantic_python": full / best["pydantic validate_python"]}


def verdicts(answers: list[Answer]) -> dict[str, Any]:
    """What the default rules said about a set: rejected answers, codes, faulty memories caught."""
    from memvet import validate

    from benchmarks.generate import FAULTS

    codes: dict[str, int] = {}
    by_fault: dict[str, dict[str, int]] = {}
    rejected = caught = faulty = 0
    for a in answers:
        report = validate(a.raw, a.context)
        rejected += not report.ok
        for v in report.violations:
            codes[v.code] = codes.get(v.code, 0) + 1
        for pointer, name in a.faults:
            faulty += 1
            here = [v.code for v in report.violations if v.path == pointer or v.path.startswith(pointer + "/")]
            caught += bool(here)
            stat = by_fault.setdefault(name, {"memories": 0, "caught": 0, "aimed_code": 0})
            stat["memories"] += 1
            stat["caught"] += bool(here)
            stat["aimed_code"] += FAULTS[name][0] in here
    return {"answers": len(answers), "rejected": rejected, "faulty_memories": faulty,
            "faulty_memories_caught": caught, "codes": dict(sorted(codes.items())),
            "by_fault": {k: {"code": FAULTS[k][0], **v} for k, v in sorted(by_fault.items())}}


# --- stages and rules -------------------------------------------------------------------

class _TimedRule:
    """Stands in for a rule: same findings, plus the time its check() took."""

    __slots__ = ("rule", "ns", "calls")

    def __init__(self, rule: Any):
        self.rule, self.ns, self.calls = rule, 0, 0

    def check(self, target: Any, ctx: Any) -> list[Any]:
        t0 = time.perf_counter_ns()
        try:
            return list(self.rule.check(target, ctx))
        finally:
            self.ns += time.perf_counter_ns() - t0
            self.calls += 1

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rule, name)


def stages(answers: list[Answer]) -> dict[str, Any]:
    """Where one validate() spends its time: stages, rule targets, families, the hottest rules."""
    from memvet.config import Config
    from memvet.context import load_context
    from memvet.engine import Engine
    from memvet.models import accepts
    from memvet.parse import parse_output

    engine = Engine(Config())
    timed: list[tuple[str, str, _TimedRule]] = []
    for target, bound_list in _bound_lists(engine):
        for bound in bound_list:
            if not isinstance(bound.rule, _TimedRule):
                bound.rule = _TimedRule(bound.rule)
            timed.append((target, bound.code, bound.rule))
    pairs = [(a.raw, a.context) for a in answers]
    for r, c in pairs[:3]:
        engine.validate(r, c)
    for _, _, t in timed:
        t.ns = t.calls = 0

    def clock(fn: Callable[[], Any]) -> float:
        gc.collect()
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0

    parsed = [parse_output(r).value for r, _ in pairs]
    total = clock(lambda: [engine.validate(r, c) for r, c in pairs])
    # The stand-in's own cost (two clock reads, a list) would land in the engine's share: take it out.
    overhead = _timer_overhead() * sum(t.calls for _, _, t in timed)
    total -= overhead
    n = len(answers)
    stage = {
        "parse (raw text -> JSON)": clock(lambda: [parse_output(r) for r, _ in pairs]),
        "context (validate + index)": clock(lambda: [load_context(c) for _, c in pairs]),
        "contract fast path (pydantic, part of S004)": clock(lambda: [accepts(v) for v in parsed]),
    }
    by_target: dict[str, float] = {}
    by_family: dict[str, float] = {}
    rules = []
    for target, code, t in timed:
        seconds = t.ns / 1e9
        by_target[target] = by_target.get(target, 0.0) + seconds
        by_family[code[0]] = by_family.get(code[0], 0.0) + seconds
        rules.append({"code": code, "target": target, "us_per_answer": seconds / n * 1e6,
                      "calls_per_answer": t.calls / n, "us_per_call": (t.ns / 1e3 / t.calls) if t.calls else 0.0,
                      "share": seconds / total})
    rules.sort(key=lambda r: -r["us_per_answer"])
    rule_total = sum(by_target.values())
    # S004 runs the contract inside the parse-target rules; do not count it twice.
    rest = total - rule_total - stage["parse (raw text -> JSON)"] - stage["context (validate + index)"]
    stage_rows = [{"stage": k, "us_per_answer": v / n * 1e6, "share": v / total} for k, v in stage.items()]
    stage_rows += [{"stage": f"rules: {k} target", "us_per_answer": v / n * 1e6, "share": v / total}
                   for k, v in by_target.items()]
    stage_rows.append({"stage": "engine (dispatch, fixes, records, routing, report)",
                       "us_per_answer": max(rest, 0.0) / n * 1e6, "share": max(rest, 0.0) / total})
    return {"answers": n, "total_us_per_answer": total / n * 1e6, "stages": stage_rows,
            "instrumentation_us_removed": overhead / n * 1e6,
            "families": {k: {"us_per_answer": v / n * 1e6, "share": v / total} for k, v in
                         sorted(by_family.items(), key=lambda kv: -kv[1])},
            "rules": rules}


def _timer_overhead(calls: int = 20_000) -> float:
    """Seconds a :class:`_TimedRule` adds to one call, outside its own clock."""
    class Quiet:
        def check(self, target: Any, ctx: Any) -> Any:
            return iter(())
    plain, timed = Quiet(), _TimedRule(Quiet())
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(calls):
            list(plain.check(None, None))
        t1 = time.perf_counter()
        for _ in range(calls):
            list(timed.check(None, None))
        t2 = time.perf_counter()
        best = min(best, ((t2 - t1) - (t1 - t0)) / calls)
    return max(best, 0.0)


def _bound_lists(engine: Any) -> Iterable[tuple[str, list[Any]]]:
    """The engine's bound rules per target (its per-type lists hold the same objects)."""
    return engine.by_target.items()


# --- latency --------------------------------------------------------------------------

def latency(calls: int) -> dict[str, Any]:
    from memvet import validate

    answers = make_answers(min(calls, 200), seed=7, scenes=3, memories=20, fault_rate=0.2)
    for a in answers[:20]:
        validate(a.raw, a.context)
    samples = []
    gc.collect()
    for a in itertools.islice(itertools.cycle(answers), calls):
        t0 = time.perf_counter_ns()
        validate(a.raw, a.context)
        samples.append(time.perf_counter_ns() - t0)
    samples.sort()
    def pct(p: float) -> float:
        return samples[min(len(samples) - 1, int(p * len(samples)))] / 1e6
    return {"calls": calls, "answer": "3 scenes, 20 memories, 20 % faulty", "p50_ms": pct(0.50),
            "p95_ms": pct(0.95), "p99_ms": pct(0.99), "max_ms": samples[-1] / 1e6}


# --- scaling in process ---------------------------------------------------------------------

def _validate_all(validate: Callable[..., Any], pairs: list[tuple[str, Any]]) -> None:
    for raw, context in pairs:
        validate(raw, context)


def scaling(factors: tuple[int, ...], base_memories: int, rounds: int) -> dict[str, Any]:
    """Time of one answer with 1x, 10x, 100x memories (scenes and messages grow with it)."""
    from memvet import validate

    rows = []
    for fault_rate in (0.0, 0.2):
        base = None
        for f in factors:
            memories = base_memories * f
            count = max(2, 40 // f)
            answers = make_answers(count, seed=11 + f, scenes=max(1, 3 * f), memories=memories,
                                   fault_rate=fault_rate)
            pairs = [(a.raw, a.context) for a in answers]
            seconds = interleaved({"x": partial(_validate_all, validate, pairs)}, max(1, rounds // 2 + 1))["x"] / count
            base = base or seconds
            rows.append({"fault_rate": fault_rate, "factor": f, "memories_per_answer": memories,
                         "ms_per_answer": seconds * 1e3, "memories_per_s": memories / seconds,
                         "time_ratio": seconds / base})
    worst = max((r["time_ratio"] for r in rows if r["factor"] == factors[-1]), default=None)
    return {"rows": rows, "worst_ratio_at_max": worst, "max_factor": factors[-1]}


# --- memvet check as a subprocess ----------------------------------------------------------------

#: The CPUs this process may use before ``--cpu`` pins it; children get them all back.
ALL_CPUS = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
# The child writes its own peak resident memory (VmHWM of its process image) to a
# file: the rusage of a forked child also counts the parent's pages at fork time.
_CHECK_MAIN = """
import os, sys
from memvet.cli import main
try:
    code = main()
finally:
    out = os.environ.get("MEMVET_BENCH_HWM")
    if out and os.path.exists("/proc/self/status"):
        with open("/proc/self/status") as status:
            kb = next((line.split()[1] for line in status if line.startswith("VmHWM:")), "")
        with open(out, "w") as fh:
            fh.write(kb)
sys.exit(code)
"""
CHECK_CMD = [sys.executable, "-c", _CHECK_MAIN, "check"]
# The child runs as an installed memvet does: with its bytecode cached. (Some sandboxes set
# PYTHONDONTWRITEBYTECODE, which makes every start compile every module again.)
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _run_check(args: list[str], *, stdin: Iterable[str] | None = None, cwd: str | None = None) -> dict[str, Any]:
    """Run ``memvet check``; wall time, exit code and the child's peak resident memory."""
    hwm = tempfile.NamedTemporaryFile(prefix="memvet-hwm-", delete=False)
    hwm.close()
    pinned = ALL_CPUS is not None and os.sched_getaffinity(0) != ALL_CPUS
    t0 = time.perf_counter()
    proc = subprocess.Popen([*CHECK_CMD, *args], stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd,
                            env=CHILD_ENV | {"MEMVET_BENCH_HWM": hwm.name},
                            preexec_fn=_unpin if pinned else None)
    err: list[bytes] = []
    reader = threading.Thread(target=lambda: err.append(proc.stderr.read()), daemon=True)
    reader.start()
    if stdin is not None:
        try:
            for chunk in stdin:
                proc.stdin.write(chunk.encode("utf-8"))
            proc.stdin.close()
        except BrokenPipeError:
            pass
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - t0
    reader.join(timeout=5)
    try:
        kb = float(Path(hwm.name).read_text() or "nan")
    except (OSError, ValueError):
        kb = float("nan")
    finally:
        os.unlink(hwm.name)
    if math.isnan(kb):  # not Linux: the child's rusage (an upper bound: it includes the parent at fork)
        kb = usage.ru_maxrss
    return {"seconds": seconds, "exit": proc.returncode, "max_rss_mb": kb / 1024,
            "stderr": b"".join(err).decode("utf-8", "replace")[-400:]}


def _unpin() -> None:
    os.sched_setaffinity(0, ALL_CPUS)


def cli_scaling(counts: tuple[int, ...], workdir: str) -> dict[str, Any]:
    from benchmarks.generate import write_jsonl

    rows = []
    for n in counts:
        path = os.path.join(workdir, f"answers-{n}.jsonl")
        memories = write_jsonl(path, n, seed=3, scenes=3, memories=20, fault_rate=0.2)
        run = _run_check([path, "--exit-zero"], cwd=workdir)
        rows.append({"answers": n, "memories": memories, **run, "memories_per_s": memories / run["seconds"]})
    startup = rows[0]["seconds"] if rows else 0.0
    for r in rows:
        body = r["seconds"] - startup
        r["memories_per_s_after_startup"] = (r["memories"] - rows[0]["memories"]) / body if body > 0 else None
    return {"rows": rows, "startup_s": startup}


def streaming(lines: int, probe: int) -> dict[str, Any]:
    """Stream JSONL answers into ``memvet check -`` through a pipe; peak RSS for a short and a long stream."""
    memories_per_line = 1

    def distinct(n: int) -> Iterator[str]:
        # Every line differs (ids, sessions, texts), so no cache inside memvet can hide growth.
        for k in range(n):
            yield make_answer(50_000 + k, scenes=1, memories=memories_per_line, fault_rate=0.2).jsonl() + "\n"

    rows = []
    with tempfile.TemporaryDirectory() as cwd:
        for n in (probe, lines):
            run = _run_check(["-", "--exit-zero"], stdin=distinct(n), cwd=cwd)
            rows.append({"lines": n, **run, "memories_per_s": n * memories_per_line / run["seconds"]})
    return {"rows": rows, "answer": "1 scene, 1 memory per line, 20 % faulty, every line distinct",
            "max_rss_mb": rows[-1]["max_rss_mb"], "rss_growth_mb": rows[-1]["max_rss_mb"] - rows[0]["max_rss_mb"]}


def jobs_supported() -> bool:
    out = subprocess.run([*CHECK_CMD, "--help"], capture_output=True, text=True, timeout=60).stdout
    return "--jobs" in out


def jobs(answers: int, workdir: str) -> dict[str, Any]:
    from benchmarks.generate import write_jsonl

    if not jobs_supported():
        return {"supported": False}
    path = os.path.join(workdir, "jobs.jsonl")
    memories = write_jsonl(path, answers, seed=5, scenes=3, memories=20, fault_rate=0.2)
    rows = []
    for n in (1, 2, 1, 2):  # twice each, interleaved
        run = _run_check([path, "--exit-zero", "--jobs", str(n)], cwd=workdir)
        rows.append({"jobs": n, **run, "memories_per_s": memories / run["seconds"]})
    best = {n: min(r["seconds"] for r in rows if r["jobs"] == n) for n in (1, 2)}
    return {"supported": True, "answers": answers, "memories": memories, "rows": rows,
            "speedup": best[1] / best[2], "usable_cores": machine_info()["usable_cores"], "load": _load()}


# --- the run --------------------------------------------------------------------------------------

def run(sizes: Sizes, only: tuple[str, ...] = SECTIONS, log: Callable[[str], None] = print) -> Results:
    res = Results(machine=machine_info())
    log(_machine_text(res.machine))
    sets = {}
    if "throughput" in only or "stages" in only:
        sets = {"valid": make_answers(sizes.answers, seed=1, fault_rate=0.0),
                "faulty": make_answers(sizes.answers, seed=2, fault_rate=1.0)}
    if "throughput" in only:
        for name, answers in sets.items():
            log(f"\n## throughput: {name} answers ({len(answers)} answers, 3 scenes, 20 memories each)")
            section = throughput(answers, sizes.rounds)
            section["verdicts"] = verdicts(answers)
            res.sections[f"throughput_{name}"] = section
            log(_throughput_text(section))
        v, f = res.sections["throughput_valid"], res.sections["throughput_faulty"]
        res.target("valid answers, memories/s", v["memvet_mps"], TARGET_VALID_MPS, at_most=False)
        res.target("faulty answers, memories/s", f["memvet_mps"], TARGET_FAULTY_MPS, at_most=False)
        for name, s in (("valid", v), ("faulty", f)):
            res.target(f"time vs jsonschema ({name})", s["vs_jsonschema"], TARGET_VS_JSONSCHEMA, at_most=True, unit="x")
            res.target(f"time vs pydantic validate_json ({name})", s["vs_pydantic"], TARGET_VS_PYDANTIC,
                       at_most=True, unit="x")
    if "stages" in only:
        for name, answers in sets.items():
            log(f"\n## stages: {name} answers")
            res.sections[f"stages_{name}"] = section = stages(answers)
            log(_stages_text(section))
    if "latency" in only:
        log("\n## latency of validate(), typical answer")
        res.sections["latency"] = section = latency(sizes.latency_calls)
        log(f"{section['calls']} calls, {section['answer']}: p50 {section['p50_ms']:.3f} ms, "
            f"p95 {section['p95_ms']:.3f} ms, p99 {section['p99_ms']:.3f} ms, max {section['max_ms']:.3f} ms")
        res.target("p50 latency, 20-memory answer", section["p50_ms"], TARGET_P50_MS, at_most=True, unit="ms")
    if "scaling" in only:
        log("\n## scaling in process: memories per answer")
        res.sections["scaling"] = section = scaling(sizes.scaling, sizes.scaling_memories, sizes.rounds)
        for r in section["rows"]:
            log(f"fault rate {r['fault_rate']:.0%}  {r['factor']:>4}x  {r['memories_per_answer']:>6} memories/answer  "
                f"{r['ms_per_answer']:9.2f} ms/answer  {r['memories_per_s']:>9,.0f} memories/s  "
                f"time {r['time_ratio']:7.1f}x")
        res.target(f"{section['max_factor']}x input: time ratio", section["worst_ratio_at_max"],
                   TARGET_SCALING * section["max_factor"] / 100, at_most=True, unit="x")
    if "instructions" in only:
        log("\n## instructions per answer (valgrind; independent of the machine's load)")
        res.sections["instructions"] = section = instructions.measure()
        log(instructions.text(section))
    with tempfile.TemporaryDirectory(prefix="memvet-bench-") as workdir:
        if "cli" in only:
            log("\n## memvet check on JSONL files (subprocess; 3 scenes, 20 memories per answer)")
            res.sections["cli"] = section = cli_scaling(sizes.cli_answers, workdir)
            for r in section["rows"]:
                after = r["memories_per_s_after_startup"]
                log(f"{r['answers']:>6} answers  {r['seconds']:8.2f} s  exit {r['exit']}  "
                    f"{r['memories_per_s']:>9,.0f} memories/s  "
                    f"{'%9s' % format(after, ',.0f') if after else '        -'} after startup  "
                    f"peak RSS {r['max_rss_mb']:6.1f} MB" + (f"  stderr: {r['stderr']!r}" if r["exit"] == 2 else ""))
        if "streaming" in only:
            log(f"\n## streaming {sizes.stream_lines:,} JSONL lines into `memvet check -`")
            res.sections["streaming"] = section = streaming(sizes.stream_lines, sizes.stream_probe)
            for r in section["rows"]:
                log(f"{r['lines']:>8,} lines  {r['seconds']:8.2f} s  exit {r['exit']}  "
                    f"{r['memories_per_s']:>9,.0f} memories/s  peak RSS {r['max_rss_mb']:6.1f} MB"
                    + (f"  stderr: {r['stderr']!r}" if r["exit"] == 2 else ""))
            res.target(f"peak RSS streaming {sizes.stream_lines:,} lines", section["max_rss_mb"], TARGET_STREAM_MB,
                       at_most=True, unit="MB")
        if "jobs" in only:
            log("\n## memvet check --jobs")
            res.sections["jobs"] = section = jobs(sizes.jobs_answers, workdir)
            if not section["supported"]:
                log("`memvet check --jobs` is not available in this build")
                res.target("--jobs 2 speedup over --jobs 1", None, TARGET_JOBS_SPEEDUP, at_most=False, unit="x")
            else:
                for r in section["rows"]:
                    log(f"--jobs {r['jobs']}  {r['seconds']:8.2f} s  exit {r['exit']}  "
                        f"{r['memories_per_s']:>9,.0f} memories/s  peak RSS {r['max_rss_mb']:6.1f} MB")
                log(f"speedup --jobs 2 over --jobs 1: {section['speedup']:.2f}x "
                    f"({section['usable_cores']} usable cores; load average {section['load']})")
                res.target("--jobs 2 speedup over --jobs 1", section["speedup"], TARGET_JOBS_SPEEDUP,
                           at_most=False, unit="x")
    if "serve" in only or "ray" in only:  # issue 14: the HTTP service and Ray Data (benchmarks/pipe.py)
        from benchmarks import pipe

        if "serve" in only:
            log("\n## memvet serve: POST /v1/validate on loopback")
            res.sections["serve"] = section = pipe.serve_load(requests=sizes.serve_requests)
            log(pipe.serve_text(section))
        if "ray" in only:
            log("\n## memvet check --engine ray: 1 and 2 workers on a local Ray (2 CPUs)")
            res.sections["ray"] = section = pipe.ray_throughput(sizes.ray_answers)
            log(pipe.ray_text(section))
    res.machine["load average at the end"] = _load()
    log(f"\nload average at the end: {res.machine['load average at the end']}")
    log("\n## targets")
    log(_targets_text(res.targets))
    return res


# --- text --------------------------------------------------------------------------------------------

def _machine_text(m: dict[str, Any]) -> str:
    return "## machine\n" + "\n".join(f"{k:12} {v}" for k, v in m.items())


def _throughput_text(s: dict[str, Any]) -> str:
    lines = [f"{'':28} {'memories/s':>12} {'us/answer':>10} {'x memvet':>9} {'saved when off':>14}"]
    for r in s["rows"]:
        share = f"{r['family_cost_share']:+.0%}" if "family_cost_share" in r else ""
        lines.append(f"{r['name']:28} {r['memories_per_s']:>12,.0f} {r['us_per_answer']:>10,.0f} "
                     f"{r['x_memvet']:>9.2f} {share:>14}")
    v = s["verdicts"]
    lines.append(f"memvet time / jsonschema time = {s['vs_jsonschema']:.2f}x; / pydantic validate_json = "
                 f"{s['vs_pydantic']:.2f}x; / pydantic validate_python = {s['vs_pydantic_python']:.2f}x")
    lines.append(f"verdicts: {v['rejected']}/{v['answers']} answers rejected; faulty memories caught "
                 f"{v['faulty_memories_caught']}/{v['faulty_memories']}; codes {v['codes']}")
    missed = {k: f"{f['caught']}/{f['memories']} caught, {f['aimed_code']} by {f['code']}"
              for k, f in v["by_fault"].items() if f["caught"] < f["memories"] or f["aimed_code"] < f["memories"]}
    if missed:
        lines.append(f"faults not always caught by their aimed code: {missed}")
    return "\n".join(lines)


def _stages_text(s: dict[str, Any], top: int = 12) -> str:
    lines = [f"instrumented validate(): {s['total_us_per_answer']:,.0f} us/answer "
             f"(timer overhead of {s['instrumentation_us_removed']:,.0f} us removed)"]
    for r in s["stages"]:
        lines.append(f"  {r['stage']:52} {r['us_per_answer']:>8,.0f} us  {r['share']:>5.0%}")
    lines.append("  families: " + ", ".join(f"{k} {v['us_per_answer']:,.0f} us ({v['share']:.0%})"
                                           for k, v in s["families"].items()))
    lines.append(f"  hottest rules: {'code':6} {'target':7} {'us/answer':>9} {'calls':>6} {'us/call':>8}")
    for r in s["rules"][:top]:
        lines.append(f"                 {r['code']:6} {r['target']:7} {r['us_per_answer']:>9,.1f} "
                     f"{r['calls_per_answer']:>6.1f} {r['us_per_call']:>8.2f}")
    return "\n".join(lines)


def _targets_text(targets: list[dict[str, Any]]) -> str:
    lines = []
    for t in targets:
        value = "n/a" if t["value"] is None else f"{t['value']:,.2f}{t['unit']}"
        goal = f"{'<=' if t['at_most'] else '>='} {t['goal']:,.2f}{t['unit']}"
        verdict = {True: "MET", False: "MISSED", None: "NOT MEASURED"}[t["met"]]
        lines.append(f"{verdict:13} {t['target']:45} {value:>14}  (target {goal})")
    return "\n".join(lines)


def markdown(res: Results, command: str) -> str:
    """The figures of a run as Markdown (for docs/performance.md)."""
    out = [f"Command: `{command}`", "", "| machine | |", "|---|---|"]
    out += [f"| {k} | {v} |" for k, v in res.machine.items()]
    out += ["", "| target | measured | goal | |", "|---|---:|---:|---|"]
    for t in res.targets:
        value = "n/a" if t["value"] is None else f"{t['value']:,.2f}{t['unit']}"
        out.append(f"| {t['target']} | {value} | {'≤' if t['at_most'] else '≥'} {t['goal']:,.2f}{t['unit']} | "
                   f"{ {True: 'met', False: 'missed', None: 'not measured'}[t['met']]} |")
    for name in ("throughput_valid", "throughput_faulty"):
        s = res.sections.get(name)
        if not s:
            continue
        out += ["", f"**{name.replace('_', ': ')}** ({s['answers']} answers, {s['memories']:,} memories)", "",
                "| | memories/s | µs/answer | × memvet time | saved when off |", "|---|---:|---:|---:|---:|"]
        for r in s["rows"]:
            share = f"{r['family_cost_share']:+.0%}" if "family_cost_share" in r else ""
            out.append(f"| {r['name']} | {r['memories_per_s']:,.0f} | {r['us_per_answer']:,.0f} | "
                       f"{r['x_memvet']:.2f} | {share} |")
    for name in ("stages_valid", "stages_faulty"):
        s = res.sections.get(name)
        if not s:
            continue
        out += ["", f"**{name.replace('_', ': ')}** (instrumented, {s['total_us_per_answer']:,.0f} µs/answer)", "",
                "| stage | µs/answer | share |", "|---|---:|---:|"]
        out += [f"| {r['stage']} | {r['us_per_answer']:,.0f} | {r['share']:.0%} |" for r in s["stages"]]
        out += ["", "| rule | target | µs/answer | calls/answer | µs/call |", "|---|---|---:|---:|---:|"]
        out += [f"| {r['code']} | {r['target']} | {r['us_per_answer']:,.1f} | {r['calls_per_answer']:.1f} | "
                f"{r['us_per_call']:.2f} |" for r in s["rules"][:12]]
    if "latency" in res.sections:
        s = res.sections["latency"]
        out += ["", f"**latency** ({s['calls']} calls, {s['answer']}): p50 {s['p50_ms']:.3f} ms, "
                f"p95 {s['p95_ms']:.3f} ms, p99 {s['p99_ms']:.3f} ms"]
    if "scaling" in res.sections:
        out += ["", "**scaling in process**", "", "| fault rate | factor | memories/answer | ms/answer | memories/s | "
                "time × |", "|---:|---:|---:|---:|---:|---:|"]
        out += [f"| {r['fault_rate']:.0%} | {r['factor']}× | {r['memories_per_answer']:,} | {r['ms_per_answer']:.2f} | "
                f"{r['memories_per_s']:,.0f} | {r['time_ratio']:.1f} |" for r in res.sections["scaling"]["rows"]]
    if "cli" in res.sections:
        out += ["", "**memvet check on JSONL files**", "", "| answers | memories | s | memories/s | after startup | "
                "peak RSS MB |", "|---:|---:|---:|---:|---:|---:|"]
        for r in res.sections["cli"]["rows"]:
            after = r["memories_per_s_after_startup"]
            out.append(f"| {r['answers']:,} | {r['memories']:,} | {r['seconds']:.2f} | {r['memories_per_s']:,.0f} | "
                       f"{format(after, ',.0f') if after else '–'} | {r['max_rss_mb']:.1f} |")
    if "streaming" in res.sections:
        s = res.sections["streaming"]
        out += ["", f"**streaming** ({s['answer']})", "", "| lines | s | memories/s | peak RSS MB |",
                "|---:|---:|---:|---:|"]
        out += [f"| {r['lines']:,} | {r['seconds']:.2f} | {r['memories_per_s']:,.0f} | {r['max_rss_mb']:.1f} |"
                for r in s["rows"]]
    s = res.sections.get("instructions")
    if s and s.get("available"):
        out += ["", "**instructions per answer** (valgrind cachegrind, 3 scenes x 20 memories; setup subtracted)", "",
                "| answers | memvet | jsonschema | pydantic validate_json | memvet / jsonschema | memvet / pydantic |",
                "|---|---:|---:|---:|---:|---:|"]
        out += [f"| {r['answers']} | {r['memvet_per_answer'] / 1e6:.2f} M | {r['jsonschema_per_answer'] / 1e6:.2f} M | "
                f"{r['pydantic_per_answer'] / 1e6:.2f} M | {r['vs_jsonschema']:.2f}× | {r['vs_pydantic']:.2f}× |"
                for r in s["rows"]]
    if "jobs" in res.sections:
        s = res.sections["jobs"]
        if s["supported"]:
            out += ["", f"**--jobs** ({s['answers']:,} answers): speedup of `--jobs 2` over `--jobs 1` "
                    f"{s['speedup']:.2f}× on {s['usable_cores']} usable cores (load average after: {s['load']})", "",
                    "| jobs | s | memories/s |", "|---:|---:|---:|"]
            out += [f"| {r['jobs']} | {r['seconds']:.2f} | {r['memories_per_s']:,.0f} |" for r in s["rows"]]
        else:
            out += ["", "**--jobs**: not available in this build"]
    if "serve" in res.sections or "ray" in res.sections:
        from benchmarks import pipe

        out += pipe.markdown(res.sections)
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="memvet benchmark suite")
    p.add_argument("--quick", action="store_true", help="toy sizes (seconds); figures are not meaningful")
    p.add_argument("--only", help=f"comma-separated sections: {','.join(SECTIONS)}")
    p.add_argument("--answers", type=int, help="answers per set for throughput/stages")
    p.add_argument("--rounds", type=int, help="interleaved rounds (the best is reported)")
    p.add_argument("--stream-lines", type=int, help="JSONL lines to stream (default 200,000)")
    p.add_argument("--cpu", type=int, help="pin this process (and its children) to one CPU")
    p.add_argument("--json", help="write the results as JSON to this file")
    p.add_argument("--markdown", help="write the figures as Markdown to this file")
    args = p.parse_args(argv)
    sizes = Sizes.quick() if args.quick else Sizes()
    if args.answers:
        sizes.answers = args.answers
    if args.rounds:
        sizes.rounds = args.rounds
    if args.stream_lines:
        sizes.stream_lines = args.stream_lines
    only = tuple(s.strip() for s in args.only.split(",")) if args.only else SECTIONS
    unknown = set(only) - set(SECTIONS)
    if unknown:
        p.error(f"unknown section(s): {', '.join(sorted(unknown))}")
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    res = run(sizes, only)
    command = "python benchmarks/run.py " + " ".join(argv if argv is not None else sys.argv[1:])
    if args.json:
        Path(args.json).write_text(json.dumps({"command": command, "machine": res.machine, "sections": res.sections,
                                               "targets": res.targets}, indent=2, ensure_ascii=False))
    if args.markdown:
        Path(args.markdown).write_text(markdown(res, command.strip()), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
