"""The verdict schema of the seed, as the forced tool the model must call."""

from __future__ import annotations

from typing import Any

VERDICTS = ("MATCH", "MISMATCH", "STALE", "PARTIAL", "NOT_FOUND", "SOURCE_UNAVAILABLE", "INDETERMINATE")
CONFIDENCES = ("HIGH", "MEDIUM", "LOW")
QUOTED_VERDICTS = frozenset({"MATCH", "MISMATCH", "STALE", "PARTIAL"})  # need a verbatim span
ORDER = {"MISMATCH": 0, "STALE": 1, "NOT_FOUND": 2, "PARTIAL": 3, "INDETERMINATE": 4, "SOURCE_UNAVAILABLE": 5,
         "MATCH": 6}
TOOL_NAME = "record_verdict"
FIELDS = ("verdict", "claimed", "source_says", "confidence", "note")

VERDICT_TOOL: dict[str, Any] = {
    "name": TOOL_NAME,
    "description": "Record the verdict on one claim against the page it cites. Call exactly once.",
    "strict": True,  # the input is guaranteed to match the schema (structured outputs)
    "input_schema": {
        "type": "object",
        "additionalProperties": False,
        "required": list(FIELDS),
        "properties": {
            "verdict": {"type": "string", "enum": list(VERDICTS)},
            "claimed": {"type": "string", "description": "the claim's figure and context, in a few words"},
            "source_says": {"type": "string",
                            "description": "a span copied verbatim from the page text; empty if none supports a verdict"},
            "confidence": {"type": "string", "enum": list(CONFIDENCES)},
            "note": {"type": "string", "description": "one sentence: why"},
        },
    },
}
