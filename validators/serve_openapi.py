"""The OpenAPI 3.1 document of ``memvet serve`` (served at ``/openapi.json``).

Written by hand from the contract (CONTRACT.md sections 1-3); the report
schema is the report's shape, the context schema CONTRACT section 1. It is
tested against the running server with schemathesis (tests/integrations/test_serve_openapi.py).
"""

from __future__ import annotations

from typing import Any

from .version import __version__

_MESSAGE = {
    "type": "object",
    "required": ["id", "sessionKey", "role", "content"],
    "properties": {
        "id": {"type": "string", "minLength": 1},
        "sessionKey": {"type": "string", "minLength": 1},
        "role": {"enum": ["user", "assistant", "tool", "system"]},
        "content": {"type": "string"},
        "timestamp": {"type": ["integer", "null"]},
        "recordedAt": {"type": ["integer", "null"]},
    },
}
_CONTEXT = {
    "type": "object",
    "description": "The batch context (docs/formats.md); unknown keys are a 400.",
    "required": ["messages"],
    "additionalProperties": False,
    "properties": {
        "messages": {"type": "array", "items": {"$ref": "#/components/schemas/Message"}},
        "background": {"type": "array", "items": {"$ref": "#/components/schemas/Message"}},
        "scenePool": {"type": "array", "items": {"type": "object", "required": ["id", "label"],
                                                  "properties": {"id": {"type": "string"},
                                                                 "label": {"type": "string"}}}},
        "knownProjects": {"type": "array", "items": {"type": "string"}},
        "existing": {"type": "array", "items": {"type": "object"}},
    },
}
_VIOLATION = {
    "type": "object",
    "required": ["code", "name", "action", "path", "message", "rule", "fix"],
    "properties": {
        "code": {"type": "string"}, "name": {"type": "string"},
        "action": {"enum": ["reject", "drop", "fix", "warn"]},
        "path": {"type": "string"}, "message": {"type": "string"}, "rule": {"type": "string"},
        "fix": {"type": ["array", "null"]},
    },
}
_REPORT = {
    "type": "object",
    "description": "Exactly what `memvet check --format json` prints (docs/formats.md).",
    "required": ["ok", "violations", "records", "dropped", "output", "stats"],
    "properties": {
        "ok": {"type": "boolean"},
        "violations": {"type": "array", "items": {"$ref": "#/components/schemas/Violation"}},
        "records": {"type": "array", "items": {"type": "object"}},
        "dropped": {"type": "array", "items": {"type": "object"}},
        "output": {},
        "stats": {"type": "object", "additionalProperties": {"type": "integer"}},
    },
}
_VALIDATE_REQUEST = {
    "type": "object",
    "required": ["output", "context"],
    "properties": {
        "output": {"description": "The LLM answer: its raw text (a string), or the parsed JSON value."},
        "context": {"oneOf": [{"$ref": "#/components/schemas/Context"},
                              {"type": "string", "description": "the context as JSON text"}]},
        "config": {"type": "object", "description": "A table shaped like [tool.memvet]; unknown keys are a 400."},
    },
}
_COMMIT_REQUEST = {
    "type": "object",
    "required": ["output", "context"],
    "properties": {
        **_VALIDATE_REQUEST["properties"],
        "stream": {"type": "string", "minLength": 1, "description": "the batch stream (default: http)"},
        "cursor": {"type": "integer", "minimum": 0, "description": "the batch cursor (default: next position)"},
    },
}
_ERROR = {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}}


def _json(schema_ref: str, description: str) -> dict[str, Any]:
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema_ref}"}}}}


def _errors(*codes: int) -> dict[str, Any]:
    text = {400: "a malformed request, context or config (the message memvet check prints)",
            401: "missing or wrong bearer token", 413: "the body is over the size limit",
            415: "the body is not application/json", 422: "the answer was rejected: nothing was committed",
            504: "validation timed out"}
    return {str(c): _json("Error", text[c]) for c in codes}


def openapi_document(*, token: bool = False) -> dict[str, Any]:
    security = [{"bearer": []}] if token else []
    doc: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": "memvet", "version": __version__,
                 "description": "Vet the long-term memory of AI coding assistants before it is written."},
        "paths": {
            "/v1/validate": {"post": {
                "operationId": "validate", "summary": "Validate one answer against its batch context",
                "security": security,
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/ValidateRequest"}}}},
                "responses": {"200": _json("Report", "the report"),
                              **_errors(400, 401, 413, 415, 504)}}},
            "/v1/commit": {"post": {
                "operationId": "commit", "summary": "Validate with the store attached, then commit the records",
                "security": security,
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/CommitRequest"}}}},
                "responses": {"200": _json("CommitResult", "committed (or already committed: committed=false)"),
                              **_errors(400, 401, 413, 415, 422)}}},
            "/v1/recall": {"get": {
                "operationId": "recall", "summary": "Memories that answer a question, filtered by kind first",
                "security": security,
                "parameters": [
                    {"name": "query", "in": "query", "schema": {"type": "string"}},
                    {"name": "kind", "in": "query",
                     "schema": {"enum": ["project_fact", "task_state", "code_preference"]}},
                    {"name": "task_id", "in": "query", "schema": {"type": "string"}},
                    {"name": "scope", "in": "query", "schema": {"type": "string"}},
                    {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
                ],
                "responses": {"200": {"description": "the memories", "content": {"application/json": {"schema": {
                    "type": "object", "required": ["memories"],
                    "properties": {"memories": {"type": "array", "items": {"type": "object"}}}}}}},
                    **_errors(400, 401)}}},
            "/healthz": {"get": {
                "operationId": "healthz", "summary": "Liveness",
                "responses": {"200": {"description": "up", "content": {"application/json": {"schema": {
                    "type": "object", "required": ["ok"], "properties": {"ok": {"type": "boolean"},
                                                                         "workers": {"type": "integer"}}}}}}}}},
        },
        "components": {
            "schemas": {"Message": _MESSAGE, "Context": _CONTEXT, "Violation": _VIOLATION, "Report": _REPORT,
                        "ValidateRequest": _VALIDATE_REQUEST, "CommitRequest": _COMMIT_REQUEST, "Error": _ERROR,
                        "CommitResult": {"type": "object", "required": ["committed", "records", "report"],
                                         "properties": {"committed": {"type": "boolean"},
                                                        "records": {"type": "integer"},
                                                        "scene_ids": {"type": "object"},
                                                        "memory_ids": {"type": "array", "items": {"type": "string"}},
                                                        "report": {"$ref": "#/components/schemas/Report"}}}},
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }
    return doc
