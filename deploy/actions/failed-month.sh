#!/usr/bin/env bash
# A failed audit still reaches the reviewer: the rolling issue gets a ⚠️ line at the top naming
# the failure and the last complete audit, and keeps last month's report below it.
#
#   deploy/actions/failed-month.sh ERROR_FILE [LAST_COMPLETE_DATE]
#
# ERROR_FILE holds the audit's stderr; its last line is the run's one line. Needs gh (GH_TOKEN
# with issues: write), GITHUB_REPOSITORY; SV_PYTHON (default .venv/bin/python); SV_NOW's date
# or today's (UTC) names the month.
set -uo pipefail
errors=${1:?usage: failed-month.sh ERROR_FILE [LAST_COMPLETE_DATE]}
last_complete=${2:-}
python=${SV_PYTHON:-.venv/bin/python}
line=$(grep -v '^[[:space:]]*$' "$errors" 2>/dev/null | tail -n 1)
line=${line:-the audit failed before it said why (see the job log)}
when=${SV_NOW:-$(date -u +%Y-%m-%dT%H:%M:%SZ)}
when=${when%%T*}
work=$(mktemp -d)
gh label create source-verify --repo "$GITHUB_REPOSITORY" --color C5DEF5 --force >/dev/null
number=$(gh issue list --repo "$GITHUB_REPOSITORY" --label source-verify --state open --json number --jq '.[0].number // empty')
if [ -n "$number" ]; then
  gh issue view "$number" --repo "$GITHUB_REPOSITORY" --json body --jq .body > "$work/old.md"
else
  : > "$work/old.md"
fi
"$python" -m sv_scrapy.ops.failedmonth --line "$line" --date "$when" --last-complete "$last_complete" \
  --body-file "$work/old.md" --out "$work/new.md" || exit 1
if [ -n "$number" ]; then
  gh issue edit "$number" --repo "$GITHUB_REPOSITORY" --body-file "$work/new.md"
else
  gh issue create --repo "$GITHUB_REPOSITORY" --title "Source-content audit (monthly)" --label source-verify \
    --body-file "$work/new.md"
fi
