"""Spiders: ``worklist`` and ``audit`` fetch the cited pages and hand them to the pipelines."""
