"""Downloader middlewares: politeness gate, backoff retries, robots with a distinct refusal."""
