#!/usr/bin/env bash
# Rewrites the self-play pool's manifest table in docs/network.md from the
# pool itself (`guoxiang pool --verify`: every game of every chunk read
# back), and prints the totals line for the "As of" paragraph under it.
# Run it at the end of a session, pool paused or not: a chunk is written
# whole or not at all, so one still being played is simply not listed.
#
#   .ci/manifest.sh                 # GUOXIANG_POOL (default ~/guoxiang-pool)
#   GUOXIANG=/path/to/guoxiang .ci/manifest.sh
set -euo pipefail
cd "$(dirname "$0")/.."
pool=${GUOXIANG_POOL:-$HOME/guoxiang-pool}
exe=${GUOXIANG:-target/release/guoxiang}
doc=docs/network.md
rows=$(mktemp)
trap 'rm -f "$rows" "$rows.doc"' EXIT
"$exe" pool --pool "$pool" --verify > "$rows"
grep -q '^| chunk | seed |' "$rows" || { echo "no manifest from $exe" >&2; exit 1; }
# Replace the table that starts at the manifest's header line (it ends at
# the first line that is not a table row) with the new one.
awk -v rows="$rows" '
    !done && /^\| chunk \| seed \|/ {
        while ((getline line < rows) > 0) if (line ~ /^\|/) print line
        skipping = 1; done = 1; next
    }
    skipping && /^\|/ { next }
    { skipping = 0; print }
    END { if (!done) exit 1 }
' "$doc" > "$rows.doc" || { echo "no manifest table in $doc" >&2; exit 1; }
cp "$rows.doc" "$doc"
grep -v -e '^|' -e '^$' "$rows" | tail -1
