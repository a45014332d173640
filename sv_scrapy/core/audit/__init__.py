"""The audit's memory: the content store and its run journal, change settling, news since the last audit,
history, the single-writer lock, run stats. Stage 3: what changed since last time."""
