"""The markdown side: claims out of the playbooks (links, stamps, values read with CLDR), the portal-root
linter, sampling and allowlist candidates. Stage 1: what the corpus claims."""
