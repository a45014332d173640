"""Download handlers: the paced handler every http(s) request leaves through."""
