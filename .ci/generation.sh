#!/usr/bin/env bash
# One network generation, start to finish, so that any generation can be
# redone from its log row (docs/network.md):
#   1. self-play from the current build with SEED (datagen), playing with
#      INIT, the network this generation starts from,
#   2. fine-tune INIT on it (held-out loss of both printed),
#   3. gauge the new network against the shipped one (EvalFile), at 8+0.08.
# The data stays outside the repository; only a winning network is committed
# (copy it to src/eval/net.nnue, then `Bench:` in the commit).
#
#   .ci/generation.sh SEED [GAMES] [GAUGE_GAMES]     e.g. .ci/generation.sh 61 60000 400
#
# Environment: WORK (default /tmp/generation-SEED), THREADS (default 2),
# NODES (datagen nodes a move, default 5000), EPOCHS (default 10),
# LR (default 0.001), SHARED (default ../shared beside the checkout),
# INIT (the network fine-tuned, default src/eval/net.nnue: the shipped one;
# a candidate from docs/networks/ continues that line), EXTRA_DATA (more
# datagen files, space-separated, trained on before this seed's; the
# held-out positions stay the last 2% of this seed's), SKIP_DATAGEN=1 (reuse
# WORK/data.txt), SCORE_SCALE (default 1; 0.85 keeps the new network on its
# parent's scale, see "Score inflation" in docs/network.md).
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
score_scale=${SCORE_SCALE:-1}
shared=${SHARED:-../shared}
init=${INIT:-src/eval/net.nnue}
read -r -a extra_data <<< "${EXTRA_DATA:-}"
data_args=()
for file in "${extra_data[@]}"; do data_args+=(--data "$file"); done
mkdir -p "$work"

cargo build --release
exe=target/release/guoxiang
cp "$exe" "$work/guoxiang"
bench=$("$exe" bench 2>/dev/null | tail -n 1 | awk '{print $1}')
echo "generation seed $seed from $(git rev-parse --short HEAD), bench $bench" | tee "$work/log.txt"

# 1. Self-play, timed: positions per second is a benchmark figure.
if [ "${SKIP_DATAGEN:-0}" != 1 ]; then
start=$(date +%s)
"$work/guoxiang" datagen --games "$games" --nodes "$nodes" --threads "$threads" --seed "$seed" \
    --openings "$shared/books/8moves_v3.epd" --eval-file "$init" --out "$work/data.txt" 2>&1 | tail -n 3 | tee -a "$work/log.txt"
seconds=$(( $(date +%s) - start ))
positions=$(wc -l < "$work/data.txt")
echo "datagen: $positions positions in $seconds s, $(( positions / (seconds > 0 ? seconds : 1) )) positions/s on $threads threads" | tee -a "$work/log.txt"
fi

# 2. Fine-tune INIT; the trainer prints INIT's held-out loss first, then
# each epoch's.
echo "fine-tune $init ($(md5sum < "$init" | cut -c1-8)) on ${extra_data[*]} $work/data.txt" | tee -a "$work/log.txt"
"$work/guoxiang" nnue "${data_args[@]}" --data "$work/data.txt" --init "$init" --lr "$lr" --lambda 1.0 --score-scale "$score_scale" \
    --epochs "$epochs" --threads "$threads" --seed "$seed" --out "$work/net.nnue" 2>&1 | tee -a "$work/log.txt"

# 3. Gauge: the same binary with the new network against the shipped one.
python3 "$shared/tools/match.py" --engine "$work/guoxiang" --engine "$work/guoxiang" \
    --name "gen$seed" --name shipped --option1 "EvalFile=$work/net.nnue" \
    --option1 Hash=16 --option2 Hash=16 --tc 8+0.08 --games "$gauge_games" --concurrency "$threads" \
    --openings "$shared/books/8moves_v3.epd" --seed "$seed" --pgn "$work/gauge.pgn" 2>&1 | tail -n 1 | tee -a "$work/log.txt"
echo "log: $work/log.txt; network: $work/net.nnue"
