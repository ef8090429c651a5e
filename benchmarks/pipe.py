"""Benchmarks of issue 14: ``memvet serve`` under load, and Ray Data with 1 and 2 workers.

- ``serve``: a real ``memvet serve`` subprocess on loopback (one worker per
  CPU); typical generated answers (20 memories in 3 scenes) sent by 1, 8 and
  64 concurrent clients (asyncio + httpx, in this process -- so the client
  shares the machine's cores with the server, as a co-located pipeline
  would). A bounded number of requests per level; requests/s, p50, p99.
- ``ray``: ``memvet check FILE.jsonl --engine ray`` driver with 1 and then 2
  tasks at a time on a local Ray started once (``num_cpus=2``) and warmed
  up; memories/s of the whole pass, Ray start-up excluded.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any

from benchmarks.generate import make_answers, write_jsonl

SERVE_LEVELS = (1, 8, 64)
_SERVE_MAIN = "import sys; from memvet.cli import main; sys.exit(main())"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


async def _load(base: str, bodies: list[bytes], clients: int, requests: int) -> dict[str, Any]:
    import httpx

    latencies: list[float] = []
    statuses: dict[int, int] = {}
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=120) as client:
        async def one_client(counter: Any, record: bool) -> None:
            for k in counter:
                t = time.perf_counter()
                r = await client.post("/v1/validate", content=bodies[k % len(bodies)],
                                      headers={"content-type": "application/json"})
                if record:
                    latencies.append(time.perf_counter() - t)
                    statuses[r.status_code] = statuses.get(r.status_code, 0) + 1

        # Warm-up at the same concurrency: every connection is open before the clock starts.
        warm = iter(range(clients * 2))
        await asyncio.gather(*(one_client(warm, False) for _ in range(clients)))
        counter = iter(range(requests))
        cpu, start = time.process_time(), time.perf_counter()
        await asyncio.gather(*(one_client(counter, True) for _ in range(clients)))
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"clients": clients, "requests": requests, "seconds": wall, "requests_per_s": requests / wall,
            "p50_ms": _pct(latencies, 50) * 1000, "p99_ms": _pct(latencies, 99) * 1000, "statuses": statuses,
            "client_cpu_share": cpu / wall}


def serve_load(requests: int = 600, answers: int = 60, levels: tuple[int, ...] = SERVE_LEVELS) -> dict[str, Any]:
    bodies = [json.dumps({"output": a.raw, "context": a.context}, ensure_ascii=False).encode()
              for a in make_answers(answers, seed=11, fault_rate=0.2)]
    port = _free_port()
    workers = os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="memvet-serve-bench-") as tmp:
        proc = subprocess.Popen([sys.executable, "-c", _SERVE_MAIN, "serve", "--port", str(port), "--workers",
                                 str(workers), "--store", os.path.join(tmp, "memory.db")], cwd=tmp,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        base = f"http://127.0.0.1:{port}"
        try:
            import httpx

            for _ in range(600):
                try:
                    if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.1)
            else:
                raise RuntimeError("memvet serve did not come up")
            asyncio.run(_load(base, bodies, 4, min(40, requests)))  # warm-up: engines built, connections open
            rows = [asyncio.run(_load(base, bodies, c, requests)) for c in levels]
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    return {"workers": workers, "answers": answers, "memories_per_request": 20, "rows": rows}


def serve_text(section: dict[str, Any]) -> str:
    lines = [f"server workers {section['workers']}; typical answers (20 memories in 3 scenes), 20% faulty"]
    for r in section["rows"]:
        lines.append(f"{r['clients']:>3} clients  {r['requests']:>5} requests  {r['requests_per_s']:8.1f} req/s  "
                     f"p50 {r['p50_ms']:7.2f} ms  p99 {r['p99_ms']:7.2f} ms  client CPU {r['client_cpu_share']:4.0%}  "
                     f"statuses {r['statuses']}")
    return "\n".join(lines)


def ray_throughput(answers: int = 1500) -> dict[str, Any]:
    import ray

    from memvet.config import Config
    from memvet.integrations.ray import check_outcomes

    with tempfile.TemporaryDirectory(prefix="memvet-ray-bench-") as tmp:
        path = os.path.join(tmp, "answers.jsonl")
        memories = write_jsonl(path, answers, seed=7, scenes=3, memories=20, fault_rate=0.2)
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            warm = os.path.join(tmp, "warm.jsonl")
            write_jsonl(warm, 64, seed=8, scenes=3, memories=20, fault_rate=0.2)
            sum(1 for _ in check_outcomes(warm, Config(), "json", workers=2))  # Ray's worker processes up, imported
            rows = []
            for workers in (1, 2, 1, 2):  # twice each, interleaved; the best of each is reported
                start = time.perf_counter()
                n = sum(1 for _ in check_outcomes(path, Config(), "json", workers=workers))
                seconds = time.perf_counter() - start
                rows.append({"workers": workers, "answers": n, "seconds": seconds,
                             "memories_per_s": memories / seconds})
        finally:
            ray.shutdown()
    best = {w: min(r["seconds"] for r in rows if r["workers"] == w) for w in (1, 2)}
    return {"answers": answers, "memories": memories, "rows": rows, "speedup": best[1] / best[2],
            "memories_per_s": {w: memories / best[w] for w in (1, 2)}}


def ray_text(section: dict[str, Any]) -> str:
    lines = [f"{r['workers']} worker(s)  {r['answers']} answers  {r['seconds']:7.2f} s  "
             f"{r['memories_per_s']:>9,.0f} memories/s" for r in section["rows"]]
    lines.append(f"speedup 2 workers over 1: {section['speedup']:.2f}x")
    return "\n".join(lines)


def markdown(sections: dict[str, Any]) -> list[str]:
    """Markdown lines for the serve and ray sections (benchmarks/run.py --markdown)."""
    out: list[str] = []
    s = sections.get("serve")
    if s:
        out += ["", f"**memvet serve** (loopback, {s['workers']} worker processes, typical answers of "
                f"{s['memories_per_request']} memories in 3 scenes, 20 % faulty; "
                "the client runs on the same cores)", "",
                "| clients | requests | requests/s | p50 ms | p99 ms | client CPU |", "|---:|---:|---:|---:|---:|---:|"]
        out += [f"| {r['clients']} | {r['requests']} | {r['requests_per_s']:.1f} | {r['p50_ms']:.2f} | "
                f"{r['p99_ms']:.2f} | {r['client_cpu_share']:.0%} |" for r in s["rows"]]
    s = sections.get("ray")
    if s:
        out += ["", f"**--engine ray** ({s['answers']:,} answers, {s['memories']:,} memories, local Ray with 2 CPUs; "
                f"speedup of 2 workers over 1: {s['speedup']:.2f}×)", "",
                "| workers | s | memories/s |", "|---:|---:|---:|"]
        out += [f"| {r['workers']} | {r['seconds']:.2f} | {r['memories_per_s']:,.0f} |" for r in s["rows"]]
    return out
