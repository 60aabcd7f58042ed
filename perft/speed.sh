#!/usr/bin/env bash
# Single-thread perft speed of guoxiang against Stockfish's `go perft`, side by
# side on the standard positions. Usage: perft/speed.sh [guoxiang] [stockfish]
set -euo pipefail
gx=${1:-target/release/guoxiang}
sf=${2:-/usr/games/stockfish}
cases=(
  "6|rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
  "5|r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
  "7|8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
  "5|r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"
  "5|rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"
  "5|r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10"
)
now() { date +%s.%N; }
gx_nodes=0; gx_time=0; sf_nodes=0; sf_time=0
printf '%-8s %-12s %10s %10s\n' depth nodes gx_Mnps sf_Mnps
for c in "${cases[@]}"; do
  d=${c%%|*}; fen=${c#*|}
  g=999; s=999
  for _ in $(seq "${RUNS:-3}"); do  # best of RUNS, the two engines alternating
    t0=$(now); n=$("$gx" perft "$d" "$fen" --threads 1 | awk '/^Nodes searched/ {print $3}'); t1=$(now)
    m=$(printf 'setoption name Threads value 1\nposition fen %s\ngo perft %s\nquit\n' "$fen" "$d" \
        | "$sf" | awk '/^Nodes searched/ {print $3}'); t2=$(now)
    [ "$n" = "$m" ] || { echo "node counts differ: $n vs $m on $fen"; exit 1; }
    g=$(echo "g=$t1 - $t0; if (g < $g) g else $g" | bc -l); s=$(echo "s=$t2 - $t1; if (s < $s) s else $s" | bc -l)
  done
  printf '%-8s %-12s %10.1f %10.1f\n' "$d" "$n" "$(echo "$n/$g/1000000" | bc -l)" "$(echo "$n/$s/1000000" | bc -l)"
  gx_nodes=$((gx_nodes + n)); sf_nodes=$((sf_nodes + m))
  gx_time=$(echo "$gx_time + $g" | bc -l); sf_time=$(echo "$sf_time + $s" | bc -l)
done
gx_mnps=$(echo "$gx_nodes/$gx_time/1000000" | bc -l); sf_mnps=$(echo "$sf_nodes/$sf_time/1000000" | bc -l)
printf 'total %d nodes: guoxiang %.1f Mnps (%.2f s), stockfish %.1f Mnps (%.2f s), ratio %.2fx\n' \
  "$gx_nodes" "$gx_mnps" "$gx_time" "$sf_mnps" "$sf_time" "$(echo "$gx_mnps/$sf_mnps" | bc -l)"
