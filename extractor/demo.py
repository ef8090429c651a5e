"""``memvet demo``: the whole cycle offline, on scripted answers.

``examples/demo/`` holds a sessions file, the answers a model could have
given, and ``script.json`` saying which answer goes to which request. The
demo starts the same loopback OpenAI-compatible server the tests use, points
the real ``openai`` client at it, and runs ``memvet run``'s code path:
extract -> validate -> repair -> commit, with a real store (a temporary
one unless ``--store`` is given). It prints each attempt as it happens.

An answer may reuse a scene that an earlier batch created: the store names
new scenes when it commits them, so the answer file writes
``{{scene_id:LABEL}}`` and the server fills in the id it finds for LABEL in
the scene pool of the request -- the pool the extractor really sent.
"""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
from pathlib import Path
from typing import Any, TextIO

from memvet.errors import MemvetError

from .client import EndpointSettings
from .loopback import LoopbackServer, Reply, request_text
from .sessions import RunSummary, read_messages, run_sessions
from .stores import open_store_for

SCRIPT = "script.json"
_POOL_REF = re.compile(r"\{\{scene_id:([^}]+)\}\}")


def _packaged_demo() -> Path:
    """The demo data installed with memvet (package ``memvet.demo``, i.e. ``examples/demo``)."""
    import memvet.demo

    return Path(memvet.demo.__file__).resolve().parent


def find_demo_dir(given: str | None = None) -> Path:
    """``--dir``, else ``examples/demo`` under the working directory, else the copy installed with memvet."""
    candidates = [Path(given)] if given else [Path.cwd() / "examples" / "demo", _packaged_demo()]
    for folder in candidates:
        if (folder / SCRIPT).is_file():
            return folder
    raise MemvetError(f"no demo found ({SCRIPT} missing in {', '.join(str(c) for c in candidates)}); "
                      "pass --dir pointing to memvet's examples/demo", field="--dir")


def load_script(folder: Path) -> dict[str, Any]:
    path = folder / SCRIPT
    try:
        script = json.loads(path.read_text("utf-8"))
        replies = []
        for k, item in enumerate(script["replies"]):
            content = (folder / item["answer"]).read_text("utf-8")
            replies.append(Reply(content, match=item.get("match"), finish_reason=item.get("finish_reason", "stop")))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise MemvetError(f"broken demo script: {exc}", file=str(path)) from None
    script["replies"] = replies
    return script


def fill_pool_ids(content: str, body: dict[str, Any]) -> str:
    """Replace ``{{scene_id:LABEL}}`` with the id the request's scene pool gives LABEL."""
    if "{{scene_id:" not in content:
        return content
    pool = {}
    for line in request_text(body).splitlines():
        sid, bar, label = line.partition(" | ")
        if bar and sid and " " not in sid:
            pool.setdefault(label.strip(), sid.strip())
    return _POOL_REF.sub(lambda m: pool.get(m.group(1).strip(), "unknown-scene"), content)


class _Printer:
    def __init__(self, out: TextIO):
        self.out = out
        self.batch = 0

    def __call__(self, event: dict[str, Any]) -> None:
        kind = event["kind"]
        if kind == "plan":
            self.say(f"{event['sessions']} sessions, {event['batches']} batches to extract\n")
            return
        w = event["window"]
        self.say(f"── {w.session} · messages {w.new[0].id}…{w.new[-1].id} "
                 f"(+{len(w.background)} background) ──")
        if kind == "error":
            self.say(f"  error: {event['error']}\n")
            return
        result = event["result"]
        for k, attempt in enumerate(result.attempts, 1):
            r = attempt.report
            what = attempt.kind + (f" of scene(s) {', '.join('/' + str(i) for i in attempt.scenes)}"
                                   if attempt.scenes else "")
            cut = " (answer cut off)" if attempt.finish_reason == "length" else ""
            verdict = "ok" if r.ok else "rejected"
            self.say(f"  attempt {k}: {what}{cut} -> {verdict}; {attempt.usage.total_tokens} tokens")
            for v in r.violations:
                self.say(f"      {v.code} {v.action:6} {v.path or '/'}  {v.message}")
            if attempt.error:
                self.say(f"      repair not merged: {attempt.error}")
        commit = event["commit"]
        if commit is None:
            self.say(f"  not committed: still rejected ({result.stop}); the next run asks again\n")
            return
        scenes = getattr(commit, "scene_ids", {}) or {}
        named = "; ".join(f"{name} -> {sid}" for name, sid in scenes.items())
        self.say(f"  committed {getattr(commit, 'records', len(result.report.records))} records, cursor {w.end}"
                 + (f"; new scenes: {named}" if named else "") + "\n")

    def say(self, text: str) -> None:
        print(text, file=self.out)


def run_demo(folder: Path, *, store_path: str | None = None, config: Any = None, out: TextIO) -> int:
    from memvet.engine import Engine


    script = load_script(folder)
    sessions = read_messages(folder / script.get("sessions", "sessions.jsonl"))
    with tempfile.TemporaryDirectory(prefix="memvet-demo-") as tmp, \
            LoopbackServer(script["replies"], model=script.get("model", "memvet-demo"),
                           render=fill_pool_ids) as server:
        from memvet.config import Config

        config = config or Config()
        store = open_store_for(store_path or str(Path(tmp) / "memory.db"), config)
        print(f"loopback OpenAI-compatible server at {server.url}\n", file=out)
        settings = EndpointSettings(model=script.get("model", "memvet-demo"), base_url=server.url,
                                    api_key="demo", timeout=10, retries=1, backoff=0.01)
        try:
            summary: RunSummary = asyncio.run(run_sessions(
                sessions, settings=settings, store=store, engine=Engine(config),
                window=script.get("window", 4), background=script.get("background", 2), concurrency=1,
                known_projects=script.get("known_projects", []), on_event=_Printer(out)))
            print(summary.table(), file=out)
            # Long-term memories, then each scene's task state (recalled only inside its task).
            memories = store.recall(limit=50)
            for scene in store.scene_pool():
                memories += store.recall(kind="task_state", task_id=scene["id"], limit=50)
            print(f"\nthe store now holds {len(memories)} memories:", file=out)
            for m in memories:
                print(f"  [{m.get('kind')}, {m.get('status')}] {m.get('namespace', '')}: {m.get('content')}",
                      file=out)
        finally:
            store.close()
        unused = server.pending
        if unused:
            print(f"\nnote: {len(unused)} scripted answers were not asked for", file=out)
    return summary.exit_code
