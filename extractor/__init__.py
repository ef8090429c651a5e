"""The extractor: ask the LLM, validate the answer, repair what was rejected.

>>> from memvet.extractor import ChatClient, extract, resolve_settings      # doctest: +SKIP
>>> client = ChatClient(resolve_settings(model="qwen2.5", base_url="http://127.0.0.1:8000/v1"))
>>> result = extract("context.json", client)
>>> result.ok, result.stop, [a.kind for a in result.attempts], result.report.records

Modules: :mod:`.prompt` (template and rendering), :mod:`.client`
(OpenAI-compatible calls, structured outputs, retries), :mod:`.repair`
(repair requests and merging), :mod:`.extract` (the loop),
:mod:`.sessions` (``memvet run``), :mod:`.judge` (optional LLM judge
plugin), :mod:`.loopback` (a local scripted server for tests and the demo).

Names are imported lazily, so ``memvet check`` never pays for importing
``openai``.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "render": "prompt", "load_template": "prompt", "PromptTemplate": "prompt",
    "ChatClient": "client", "AsyncChatClient": "client", "EndpointSettings": "client",
    "resolve_settings": "client", "EndpointError": "client", "Usage": "client",
    "extract": "extract", "extract_async": "extract", "extraction_steps": "extract",
    "ExtractionResult": "extract", "Attempt": "extract",
    "run_sessions": "sessions", "read_messages": "sessions", "RunSummary": "sessions",
    "Judge": "judge", "VerdictCache": "judge", "judge_engine": "judge",
    "LoopbackServer": "loopback", "Reply": "loopback",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
