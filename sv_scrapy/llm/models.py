"""Know the model before the first claim: ``models.retrieve`` at the start of ``scrapy verify``.

An id the API does not know is a user's mistake (one line naming it and the ids the API lists,
exit 2), found before any claim is sent. The request shape comes from what the model supports:
the Models API's ``capabilities`` where it says (``thinking.types.disabled`` / ``adaptive``,
``structured_outputs``), else the per-model table ``llm.models.<id>`` in config (``thinking``,
``forced_tool``, ``output``: ``json`` asks for the verdict as structured output through
``output_config.format`` instead of the tool); never from a 400 at claim time. A forced tool goes only with thinking off (the
API refuses a forced tool next to thinking), so a model that cannot turn thinking off gets
``tool_choice: auto``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sv_scrapy.core.errors import ArgumentError
from sv_scrapy.llm.client import Outcome, from_exception


@dataclass(frozen=True)
class ModelShape:
    """What a run sends to this model, and why."""

    thinking: str  # off (sent as disabled) | default (not sent) | adaptive
    forced: bool  # the verdict tool forced (only with thinking off)
    strict: bool  # the verdict tool held to its schema
    why: str  # one line for the log and the report
    output: str = "tool"  # tool | json (output_config.format)


def _supported(obj: Any, *path: str) -> bool | None:
    """``obj.a.b.supported`` when the API says, else None."""
    for name in path:
        obj = getattr(obj, name, None)
        if obj is None:
            return None
    value = getattr(obj, "supported", None)
    return value if isinstance(value, bool) else None


def known_ids(client: Any) -> list[str]:
    try:
        return [str(m.id) for m in client.models.list(limit=1000).data]
    except Exception:  # the list is only there to help the user: none is fine
        return []


def retrieve(client: Any, model: str) -> tuple[Any | None, Outcome | None]:
    """(the model's info, None), or (None, why no call can be made) when the API fails; an unknown id
    is an ``ArgumentError`` naming the ids the API knows."""
    import anthropic

    try:
        info = client.with_options(max_retries=2).models.retrieve(model)
    except anthropic.NotFoundError:
        ids = known_ids(client)
        raise ArgumentError(f"--model {model!r}: the Models API does not know this id (known: "
                            f"{', '.join(ids) if ids else 'the list could not be read'})") from None
    except Exception as exc:  # unreachable, auth, ...: the run stops before any claim, one line
        failure = from_exception(exc)
        failure.fatal = True
        return None, failure
    if getattr(info, "lifecycle", "") == "retired":  # inference requests naming it fail
        raise ArgumentError(f"--model {model!r}: the Models API says this model is retired")
    return info, None


def output_budget(info: Any | None, max_tokens: int, retry_budget: int) -> tuple[int, int]:
    """The output budgets, held under the model's own ``max_tokens`` when the Models API gives it."""
    ceiling = getattr(info, "max_tokens", None)
    if isinstance(ceiling, int) and ceiling > 0:
        return min(max_tokens, ceiling), min(retry_budget, ceiling)
    return max_tokens, retry_budget


def request_shape(preferred: str, info: Any | None, entry: Mapping[str, Any]) -> ModelShape:
    """The shape from the Models API's capabilities first, the config table second."""
    caps = getattr(info, "capabilities", None)
    thinking = str(entry.get("thinking") or preferred)
    said = []
    disabled = _supported(caps, "thinking", "types", "disabled")
    adaptive = _supported(caps, "thinking", "types", "adaptive")
    if thinking == "off" and disabled is False:
        thinking = "adaptive" if adaptive is not False else "default"
        said.append("the Models API says it does not take thinking disabled")
    if thinking == "adaptive" and adaptive is False:
        thinking = "default"
        said.append("the Models API says it does not take adaptive thinking")
    forced = thinking == "off" and entry.get("forced_tool", True) is not False
    if thinking == "off" and not forced:
        said.append("the config table (llm.models) says the tool is not forced")
    strict = _supported(caps, "structured_outputs") is not False
    if not strict:
        said.append("the Models API says it has no strict tool schemas")
    output = str(entry.get("output") or "tool")
    if output == "json" and not strict:
        output = "tool"
        said.append("so no structured output either: the tool")
    if output == "json":
        forced = False
    if said:
        source = "; ".join(said)
    elif caps is not None:
        source = "as the Models API and config say"
    else:
        source = "the Models API gives no capabilities: as config says"
    if output == "json":
        answer = "structured output (output_config.format)"
    else:
        answer = f"tool_choice {'forced' if forced else 'auto'}{', strict tool' if strict else ''}"
    shape = f"thinking {'disabled' if thinking == 'off' else thinking}, {answer}"
    return ModelShape(thinking, forced, strict, f"{shape} ({source})", output)
