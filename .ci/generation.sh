#!/usr/bin/env bash
# One network generation, start to finish, so that any generation can be
# redone from its log row (docs/network.md):
#   1. self-play from the current build with SEED (datagen),
#   2. fine-tune the shipped network on it (held-out loss of both printed),
#   3. gauge the new network against the shipped one (EvalFile), at 8+0.08.
# The data stays outside the repository; only a winning network is committed
# (copy it to src/eval/net.nnue, then `Bench:` in the commit).
#
#   .ci/generation.sh SEED [GAMES] [GAUGE_GAMES]     e.g. .ci/generation.sh 61 60000 400
#
# Environment: WORK (default /tmp/generation-SEED), THREADS (default 2),
# NODES (datagen nodes a move, default 5000), EPOCHS (default 10),
# LR (default 0.001), SHARED (default ../shared beside the checkout).
set -euo pipefail
cd "$(dirname "$0")/.."

seed=${1:?usage: .ci/generation.sh SEED [GAMES] [GAUGE_GAMES]}
games=${2:-60000}
gauge_games=${3:-400}
work=${WORK:-/tmp/generation-$seed}
threads=${THREADS:-2}
nodes=${NODES:-5000}
epochs=${EPOCHS:-10}
lr=${LR:-0.001}
shared=${SHARED:-../shared}
mkdir -p "$work"

cargo build --release
exe=target/release/guoxiang
cp "$exe" "$work/guoxiang"
bench=$("$exe" bench 2>/dev/null | tail -n 1 | awk '{print $1}')
echo "generation seed $seed from $(git rev-parse --short HEAD), bench $bench" | tee "$work/log.txt"

# 1. Self-play, timed: positions per second is a benchmark figure.
start=$(date +%s)
"$work/guoxiang" datagen --games "$games" --nodes "$nodes" --threads "$threads" --seed "$seed" \
    --openings "$shared/books/8moves_v3.epd" --out "$work/data.txt" 2>&1 | tail -n 3 | tee -a "$work/log.txt"
seconds=$(( $(date +%s) - start ))
positions=$(wc -l < "$work/data.txt")
echo "datagen: $positions positions in $seconds s, $(( positions / (seconds > 0 ? seconds : 1) )) positions/s on $threads threads" | tee -a "$work/log.txt"

# 2. Fine-tune the shipped network; the trainer prints the shipped net's
# held-out loss first, then each epoch's.
"$work/guoxiang" nnue --data "$work/data.txt" --init src/eval/net.nnue --lr "$lr" --lambda 1.0 \
    --epochs "$epochs" --threads "$threads" --seed "$seed" --out "$work/net.nnue" 2>&1 | tee -a "$work/log.txt"

# 3. Gauge: the same binary with the new network against the shipped one.
python3 "$shared/tools/match.py" --engine "$work/guoxiang" --engine "$work/guoxiang" \
    --name "gen$seed" --name shipped --option1 "EvalFile=$work/net.nnue" \
    --option1 Hash=16 --option2 Hash=16 --tc 8+0.08 --games "$gauge_games" --concurrency "$threads" \
    --openings "$shared/books/8moves_v3.epd" --seed "$seed" --pgn "$work/gauge.pgn" 2>&1 | tail -n 1 | tee -a "$work/log.txt"
echo "log: $work/log.txt; network: $work/net.nnue"
