#!/usr/bin/env bash
# Grows the self-play pool (see src/tools/pool.rs and docs/network.md),
# chunk by chunk, until stopped; started again, it goes on where it stopped.
# Two series of chunks alternate, for diverse openings:
#   seeds 10000 and up: a line of the 8moves_v3 book, then 4 random plies;
#   seeds 20000 and up: the start position, then 8 random plies.
# Openings the search scores beyond 400 cp are drawn again.
#
#   nice -n 19 .ci/pool.sh            # pause: kill -STOP <pid>; resume: kill -CONT <pid>
#
# Environment: GUOXIANG_POOL (default ~/guoxiang-pool), THREADS (2),
# NODES (5000), SOFT_NODES (3500: no new iteration after it; labels as
# good, 7% fewer nodes, see docs/network.md), DISCARD_NODES (1000: the
# plies training drops anyway; 11% fewer nodes), TACTICAL_NODES (1000:
# no new iteration past it while the best move is a capture or promotion,
# which training drops too; 8% fewer nodes a kept position), CHUNK_GAMES (2000),
# SHARED (../shared beside the checkout).
set -euo pipefail
cd "$(dirname "$0")/.."
pool=${GUOXIANG_POOL:-$HOME/guoxiang-pool}
threads=${THREADS:-2}
nodes=${NODES:-5000}
soft_nodes=${SOFT_NODES:-3500}
discard_nodes=${DISCARD_NODES:-1000}
tactical_nodes=${TACTICAL_NODES:-1000}
chunk_games=${CHUNK_GAMES:-2000}
shared=${SHARED:-../shared}
book=$(realpath "$shared/books/8moves_v3.epd")
commit=$(git rev-parse --short HEAD)
mkdir -p "$pool/bin"
GUOXIANG_COMMIT=$commit cargo build --release
exe="$pool/bin/guoxiang-$commit"
cp target/release/guoxiang "$exe"
echo "pool $pool, engine $exe"
while true; do
    "$exe" datagen --pool "$pool" --seed 10000 --chunks 1 --chunk-games "$chunk_games" \
        --nodes "$nodes" --soft-nodes "$soft_nodes" \
        --discard-nodes "$discard_nodes" --tactical-nodes "$tactical_nodes" \
        --threads "$threads" --openings "$book" 2>/dev/null
    "$exe" datagen --pool "$pool" --seed 20000 --chunks 1 --chunk-games "$chunk_games" \
        --nodes "$nodes" --soft-nodes "$soft_nodes" \
        --discard-nodes "$discard_nodes" --tactical-nodes "$tactical_nodes" \
        --threads "$threads" --random-plies 8 2>/dev/null
done
