#!/usr/bin/env bash
# Restore the content store from the artifact of the last *successful* run of this workflow.
#
#   deploy/actions/restore-store.sh STORE_DIR [WORKFLOW_FILE]
#
# Why an artifact and not actions/cache: GitHub evicts a cache entry not read for 7 days, so a
# monthly job would find nothing every month; an artifact lives for its retention-days (the
# workflow uploads it with 90). Only a successful run's store is taken: a failed month may have
# left it half-written. The restored store is checked (sv_scrapy.ops.storecheck: every entry's
# checksum, every text's hash) before it replaces STORE_DIR. Every outcome is one line, in the
# job summary and in $GITHUB_OUTPUT (store_note=…, last_complete=<date of that run>); finding no
# store is never silent (the audit's report says it starts a new baseline, too). A store a newer
# release wrote fails the step (exit 1) instead: after a rollback, a new baseline would replace it.
# Needs: gh (GH_TOKEN with actions: read), GITHUB_REPOSITORY; SV_PYTHON (default .venv/bin/python).
set -uo pipefail
store=${1:?usage: restore-store.sh STORE_DIR [WORKFLOW_FILE]}
workflow=${2:-source-verify.yml}
artifact=${SV_STORE_ARTIFACT:-sv-store}
python=${SV_PYTHON:-.venv/bin/python}
outputs=${GITHUB_OUTPUT:-/dev/null}

say() {
  echo "store_note=$1" >> "$outputs"
  [ -n "${GITHUB_STEP_SUMMARY:-}" ] && echo "$1" >> "$GITHUB_STEP_SUMMARY"
  echo "$1"
}

found=$(gh run list --repo "$GITHUB_REPOSITORY" --workflow "$workflow" --status success --limit 1 \
          --json databaseId,createdAt --jq '.[0] | select(.) | "\(.databaseId) \(.createdAt)"' 2>/dev/null) || found=""
if [ -z "$found" ]; then
  say "no previous store: no successful run of $workflow yet; this audit starts a new baseline"
  exit 0
fi
run_id=${found%% *}
created=${found#* }
when=${created%%T*}
download=$(mktemp -d)
if ! gh run download "$run_id" --repo "$GITHUB_REPOSITORY" --name "$artifact" --dir "$download" >/dev/null 2>&1; then
  say "no previous store: the $artifact artifact of run $run_id ($when) could not be downloaded (expired?); this audit starts a new baseline"
  exit 0
fi
if ! check=$("$python" -m sv_scrapy.ops.storecheck "$download" 2>&1); then
  case $check in
    *"newer sv_scrapy"*)
      # a rollback: a new baseline would be uploaded over the newer release's memory and lose it
      say "the store of run $run_id ($when) was written by a newer sv_scrapy ($check); not starting a new baseline over it: run that release again, or delete the $artifact artifact to start afresh"
      exit 1;;
  esac
  say "no previous store: the store of run $run_id ($when) is not usable ($check); this audit starts a new baseline"
  exit 0
fi
rm -rf "$store"
mkdir -p "$(dirname "$store")"
mv "$download" "$store"
echo "last_complete=$when" >> "$outputs"
say "store restored from run $run_id of $when: $check"
