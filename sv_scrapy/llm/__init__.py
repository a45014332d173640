"""The LLM layer: a Claude verdict per worklist item that must quote the page — and code
that checks the quote before anything reaches a report (``guardrails``)."""
