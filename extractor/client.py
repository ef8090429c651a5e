"""Talk to any OpenAI-compatible chat endpoint through the ``openai`` package.

OpenAI itself, vLLM, Ollama and llama.cpp servers all speak
``POST /v1/chat/completions``; only ``base_url`` changes. Settings come from
flags, then the environment (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``,
``MEMVET_MODEL``), then ``[tool.memvet.extractor]``.

Structured outputs: in ``auto`` mode the first request asks for
``response_format = {"type": "json_schema", ...}`` with the strict-mode
schema derived from the contract (wrapped in an object, since strict mode
needs an object root). An endpoint that refuses it (HTTP 400/422) is asked
again with ``{"type": "json_object"}``, then with no ``response_format`` at
all; the mode that worked is remembered per client.

Retries: 429, 408, 5xx, timeouts and connection errors are retried with
exponential backoff (honouring ``Retry-After``), a bounded number of times.
The ``openai`` client's own retries are switched off so that the count and
the delays are ours and visible. When the endpoint still fails,
:class:`EndpointError` says which URL, what happened and how often it was
tried. A bad *answer* is never an error: it goes to the validator.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Mapping

from memvet.errors import MemvetError

#: What a user without the optional dependency is told (memvet check never needs it).
MISSING_OPENAI = ("memvet extract, run and demo need the openai package, an optional dependency: "
                  "pip install 'memvet[llm]'")

try:
    import openai
except ImportError as exc:  # the core install: `pip install memvet` without [llm]
    if exc.name != "openai":
        raise
    openai = None  # settings and --dry-run still work; a client says what to install


def _require_openai() -> None:
    if openai is None:
        raise MemvetError(MISSING_OPENAI)

StructuredMode = Literal["auto", "json_schema", "json_object", "off"]
STRUCTURED_MODES: tuple[str, ...] = ("auto", "json_schema", "json_object", "off")
#: The order ``auto`` falls back through when an endpoint refuses a mode.
FALLBACK: dict[str, str | None] = {"json_schema": "json_object", "json_object": "off", "off": None}
SCHEMA_NAME = "memvet_extraction"
# Placeholder key for local servers that ignore authentication (vLLM, Ollama, llama.cpp).
LOCAL_API_KEY = "not-needed"


class EndpointError(MemvetError):
    """The endpoint could not produce an answer (unreachable, refused, timed out)."""


@dataclass(frozen=True)
class EndpointSettings:
    """Where and how to ask. Build with :func:`resolve_settings`."""

    model: str
    base_url: str | None = None
    api_key: str | None = None
    timeout: float = 60.0
    retries: int = 3
    backoff: float = 0.5        # first retry delay in seconds; doubles each time
    max_backoff: float = 8.0
    structured: StructuredMode = "auto"
    temperature: float | None = 0.0
    max_output_tokens: int | None = None

    @property
    def where(self) -> str:
        return self.base_url or "https://api.openai.com/v1"


def resolve_settings(*, model: str | None = None, base_url: str | None = None, api_key: str | None = None,
                     config: Any = None, env: Mapping[str, str] | None = None,
                     **overrides: Any) -> EndpointSettings:
    """Flags beat the environment, which beats ``[tool.memvet.extractor]``.

    ``config`` is an ``ExtractorConfig`` (or None). ``overrides`` are other
    :class:`EndpointSettings` fields given on the command line (None = unset).
    """
    env = os.environ if env is None else env
    model = model or env.get("MEMVET_MODEL") or getattr(config, "model", None)
    if not model:
        raise MemvetError("no model given: pass --model, set MEMVET_MODEL, or set model in "
                          "[tool.memvet.extractor]", field="--model")
    base_url = base_url or env.get("OPENAI_BASE_URL") or getattr(config, "base_url", None)
    api_key = api_key or env.get("OPENAI_API_KEY")
    if not api_key:
        if not base_url:
            raise MemvetError("no API key: set OPENAI_API_KEY (or pass --base-url for a local server)",
                              field="OPENAI_API_KEY")
        api_key = LOCAL_API_KEY
    values: dict[str, Any] = {}
    for name in ("timeout", "retries", "structured"):
        value = getattr(config, name, None)
        if value is not None:
            values[name] = value
    values.update({k: v for k, v in overrides.items() if v is not None})
    if values.get("structured", "auto") not in STRUCTURED_MODES:
        raise MemvetError(f"structured output mode must be one of {', '.join(STRUCTURED_MODES)}",
                          field="--structured")
    return EndpointSettings(model=model, base_url=base_url, api_key=api_key, **values)


@dataclass
class Usage:
    """Token usage of one or more calls; ``estimated`` when a server sent none."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    estimated: bool = False

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens,
                     self.total_tokens + other.total_tokens, self.estimated or other.estimated)

    def to_dict(self) -> dict[str, Any]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "total_tokens": self.total_tokens, "estimated": self.estimated}


@dataclass
class ChatRequest:
    """One call: the chat messages, and the JSON Schema of the answer (None = free text)."""

    messages: list[dict[str, str]]
    schema: dict[str, Any] | None = None
    schema_name: str = SCHEMA_NAME
    #: Appended to the last message when a JSON mode is used (how to wrap the answer).
    json_note: str | None = None


@dataclass
class Completion:
    """What came back: the text, why it stopped, its cost and the mode that worked."""

    text: str
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    mode: str = "off"
    retries: int = 0          # transport retries before this answer
    seconds: float = 0.0

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"


# --- the parts shared by the sync and async clients -------------------------------

def _response_format(mode: str, request: ChatRequest) -> dict[str, Any] | None:
    if request.schema is None or mode == "off":
        return None
    if mode == "json_object":
        return {"type": "json_object"}
    return {"type": "json_schema",
            "json_schema": {"name": request.schema_name, "schema": request.schema, "strict": True}}


def _is_retryable(exc: Exception) -> bool:
    if isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError)):
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in (408, 409, 429) or exc.status_code >= 500
    return False


def _refuses_format(exc: Exception) -> bool:
    return isinstance(exc, openai.APIStatusError) and exc.status_code in (400, 422)


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            continue
        if 0 <= seconds <= 120:
            return seconds
    return None


def _delay(settings: EndpointSettings, attempt: int, exc: Exception) -> float:
    server = _retry_after(exc)
    if server is not None:
        return server
    base = min(settings.backoff * (2 ** attempt), settings.max_backoff)
    return base * (1 - 0.25 * random.random())  # jitter, so parallel sessions do not retry in step


def _describe(exc: Exception, settings: EndpointSettings, tries: int) -> str:
    where = settings.where
    times = f"after {tries} tr{'y' if tries == 1 else 'ies'}"
    if isinstance(exc, openai.APITimeoutError):
        return f"no answer from {where} within {settings.timeout:g} s ({times}); raise --timeout or check the server"
    if isinstance(exc, openai.APIConnectionError):
        return f"cannot connect to {where} ({times}): {exc.__cause__ or exc}"
    if isinstance(exc, openai.APIStatusError):
        detail = _error_message(exc)
        hint = {401: "; check OPENAI_API_KEY", 404: "; check --base-url and --model"}.get(exc.status_code, "")
        return f"{where} answered HTTP {exc.status_code} ({times}): {detail}{hint}"
    return f"{where} failed ({times}): {type(exc).__name__}: {exc}"


def _error_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:300]
    return str(exc.message)[:300]


def _completion(response: Any, mode: str, request: ChatRequest, retries: int, started: float) -> Completion:
    from .prompt import estimate_tokens, messages_tokens

    choices = getattr(response, "choices", None) or []
    choice = choices[0] if choices else None
    message = getattr(choice, "message", None)
    text = getattr(message, "content", None) or ""
    finish = getattr(choice, "finish_reason", None)
    raw_usage = getattr(response, "usage", None)
    if raw_usage is not None and getattr(raw_usage, "total_tokens", None) is not None:
        usage = Usage(raw_usage.prompt_tokens or 0, raw_usage.completion_tokens or 0, raw_usage.total_tokens or 0)
    else:
        prompt = messages_tokens(request.messages)
        done = estimate_tokens(text)
        usage = Usage(prompt, done, prompt + done, estimated=True)
    return Completion(text, finish, usage, mode, retries, time.monotonic() - started)


class _Base:
    def __init__(self, settings: EndpointSettings):
        self.settings = settings
        # ``auto`` starts with the strongest mode and steps down on refusal.
        self.mode = "json_schema" if settings.structured == "auto" else settings.structured
        self.calls = 0
        self.usage = Usage()

    def _kwargs(self, request: ChatRequest, mode: str) -> dict[str, Any]:
        messages = request.messages
        fmt = _response_format(mode, request)
        if fmt is not None and request.json_note:
            last = messages[-1]
            messages = [*messages[:-1], {**last, "content": f"{last['content']}\n\n{request.json_note}"}]
        kwargs: dict[str, Any] = {"model": self.settings.model, "messages": messages}
        if fmt is not None:
            kwargs["response_format"] = fmt
        if self.settings.temperature is not None:
            kwargs["temperature"] = self.settings.temperature
        if self.settings.max_output_tokens is not None:
            kwargs["max_tokens"] = self.settings.max_output_tokens
        return kwargs

    def _step_down(self, exc: Exception, request: ChatRequest) -> bool:
        """On a refused response_format in auto mode, fall back one mode; True if we should ask again."""
        if self.settings.structured != "auto" or request.schema is None or not _refuses_format(exc):
            return False
        nxt = FALLBACK.get(self.mode)
        if nxt is None:
            return False
        self.mode = nxt
        return True

    def _record(self, completion: Completion) -> Completion:
        self.calls += 1
        self.usage = self.usage + completion.usage
        return completion


class ChatClient(_Base):
    """Synchronous client (``memvet extract``, the LLM judge)."""

    def __init__(self, settings: EndpointSettings, *, client: openai.OpenAI | None = None):
        _require_openai()
        super().__init__(settings)
        self.client = client or openai.OpenAI(base_url=settings.base_url, api_key=settings.api_key,
                                              timeout=settings.timeout, max_retries=0)

    def complete(self, request: ChatRequest) -> Completion:
        started, attempt = time.monotonic(), 0
        while True:
            mode = self.mode
            try:
                response = self.client.chat.completions.create(**self._kwargs(request, mode))
            except openai.APIError as exc:
                if self._step_down(exc, request):
                    continue
                if _is_retryable(exc) and attempt < self.settings.retries:
                    time.sleep(_delay(self.settings, attempt, exc))
                    attempt += 1
                    continue
                raise EndpointError(_describe(exc, self.settings, attempt + 1)) from exc
            return self._record(_completion(response, mode, request, attempt, started))

    def close(self) -> None:
        self.client.close()


class AsyncChatClient(_Base):
    """Asynchronous client (``memvet run``: many sessions at once)."""

    def __init__(self, settings: EndpointSettings, *, client: openai.AsyncOpenAI | None = None):
        _require_openai()
        super().__init__(settings)
        self.client = client or openai.AsyncOpenAI(base_url=settings.base_url, api_key=settings.api_key,
                                                   timeout=settings.timeout, max_retries=0)

    async def complete(self, request: ChatRequest) -> Completion:
        started, attempt = time.monotonic(), 0
        while True:
            mode = self.mode
            try:
                response = await self.client.chat.completions.create(**self._kwargs(request, mode))
            except openai.APIError as exc:
                if self._step_down(exc, request):
                    continue
                if _is_retryable(exc) and attempt < self.settings.retries:
                    await asyncio.sleep(_delay(self.settings, attempt, exc))
                    attempt += 1
                    continue
                raise EndpointError(_describe(exc, self.settings, attempt + 1)) from exc
            return self._record(_completion(response, mode, request, attempt, started))

    async def close(self) -> None:
        await self.client.close()


def with_settings(settings: EndpointSettings, **changes: Any) -> EndpointSettings:
    return replace(settings, **changes)
