"""The reports a reviewer reads: audit.json enrichment, report.md / report.html / issue.md, hints, claim
text, links to the playbook source. Stage 4: what a person is shown."""
