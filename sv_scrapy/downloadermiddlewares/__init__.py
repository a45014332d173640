"""Downloader middlewares: target guard, backoff retries, robots with a distinct refusal."""
