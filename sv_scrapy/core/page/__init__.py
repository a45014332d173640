"""The page side: a fetched body read (HTML/text, PDF, OCR), scanned for the claimed figures (prefilter),
and judged (``pagerecord``: fetch_status and the claim records). Stage 2: what the page says."""
