"""Typed pydantic models of the extraction output (CONTRACT.md section 2).

They mirror ``schemas/extraction-output.schema.json`` exactly -- a property
test proves both accept the same documents -- so the contract stage can try
the fast pydantic path first and call jsonschema only to explain a failure.
JSON Schema's ``integer`` includes ``85.0`` and excludes ``true``; strict
pydantic differs on both, hence the small validator below.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictFloat, StrictInt, StrictStr, TypeAdapter

MemoryType = Literal["work_fact", "work_task", "work_method", "work_artifact"]
TaskState = Literal["open", "done", "dropped"]


def _integral(v: int | float) -> int | float:
    if isinstance(v, float) and not v.is_integer():
        raise ValueError("must be an integer")
    return v


JsonInteger = Annotated[StrictInt | StrictFloat, AfterValidator(_integral)]
Id = Annotated[StrictStr, Field(min_length=1)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Metadata(BaseModel):
    # Any other key is legal for the schema (T003 reports foreign keys).
    model_config = ConfigDict(extra="allow", strict=True)

    work_object: StrictStr | None = None
    status: StrictStr | None = None
    activity_start_time: StrictStr | None = None
    activity_end_time: StrictStr | None = None
    deadline: StrictStr | None = None
    owner: StrictStr | None = None
    scope: StrictStr | None = None
    method_type: StrictStr | None = None
    artifact_type: StrictStr | None = None
    artifact_ref: StrictStr | None = None
    project: StrictStr | None = None
    projectEvidence: list[Id] | None = None


class Memory(_Strict):
    content: Annotated[StrictStr, Field(min_length=1)]
    type: MemoryType
    taskState: TaskState | None = None
    priority: Annotated[JsonInteger, Field(ge=0, le=100)]
    source_message_ids: Annotated[list[Id], Field(min_length=1)]
    metadata: Metadata | None = None


class Scene(_Strict):
    scene_id: Id | None = None
    new_scene_name: StrictStr | None = None
    new_scene_reason: StrictStr | None = None
    scene_name: StrictStr | None = None
    message_ids: list[Id]
    memories: list[Memory]


Output = TypeAdapter(list[Scene])


def _explicit_nulls(value: Any) -> bool:
    """True when an optional field is present as ``null`` (the schema forbids that)."""
    if not isinstance(value, list):
        return False
    for scene in value:
        if not isinstance(scene, dict):
            continue
        if any(scene.get(k, 0) is None for k in ("scene_id", "new_scene_name", "new_scene_reason", "scene_name")):
            return True
        for mem in scene.get("memories") or ():
            if isinstance(mem, dict):
                if mem.get("taskState", 0) is None or mem.get("metadata", 0) is None:
                    return True
                meta = mem.get("metadata")
                if isinstance(meta, dict) and any(
                        meta.get(k, 0) is None for k in Metadata.model_fields):
                    return True
    return False


def accepts(value: Any) -> bool:
    """Whether the typed models accept ``value`` (same answer as the JSON Schema)."""
    try:
        Output.validate_python(value)
    except Exception:
        return False
    return not _explicit_nulls(value)
