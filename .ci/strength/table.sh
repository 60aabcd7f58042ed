#!/bin/bash
# A strength-level table: Guoxiang at UCI_Elo E against Stockfish 15.1 at
# UCI_Elo E, 10+0.1, fresh seeds. Environment: LEVELS ("2300 1900 1500"),
# GAMES (100), SEED_PREFIX (49: seed 49E), ENGINE, OUT (/tmp). Files are
# named by seed (table_<seed>.pgn/.log), so a rerun never mixes with or
# overwrites an earlier one.
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp}
for E in ${LEVELS:-2300 1900 1500}; do
  seed=${SEED_PREFIX:-49}$E
  python3 ../shared/tools/match.py --engine ${ENGINE:-target/release/guoxiang} --engine /usr/games/stockfish --name gx$E --name sf$E \
    --option1 UCI_LimitStrength=true --option1 UCI_Elo=$E --option1 Hash=16 --option1 Threads=1 --option1 Ponder=false \
    --option2 UCI_LimitStrength=true --option2 UCI_Elo=$E --option2 Threads=1 --option2 Hash=16 --option2 Ponder=false \
    --tc 10+0.1 --games ${GAMES:-100} --concurrency 2 --openings ../shared/books/8moves_v3.epd --seed $seed \
    --pgn $out/table_$seed.pgn > $out/table_$seed.log 2>&1
done
