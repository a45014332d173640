#!/usr/bin/env bash
# The audit's matrix from the repository variable SV_PARTS (default 1: one part, today's single job).
#
#   SV_PARTS=4 deploy/actions/parts-matrix.sh   ->  $GITHUB_OUTPUT: count=4, parts=[1,2,3,4]
#
# A value that is no whole number from 1 to 256 is the maintainer's mistake: one line, exit 2.
set -uo pipefail
count=${SV_PARTS:-1}
outputs=${GITHUB_OUTPUT:-/dev/null}
if ! [[ "$count" =~ ^[0-9]{1,3}$ ]] || [ "$count" -lt 1 ] || [ "$count" -gt 256 ]; then
  echo "SV_PARTS=${count@Q}: expected a whole number from 1 to 256" >&2
  exit 2
fi
parts=$(seq -s, 1 "$count")
echo "count=$count" >> "$outputs"
echo "parts=[$parts]" >> "$outputs"
echo "the audit runs in $count part(s)"
