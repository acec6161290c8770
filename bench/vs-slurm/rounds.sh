# shellcheck shell=bash
# Shared by run.sh and dbd.sh (sourced): timing helpers, figures measured in
# rounds with Rota and Slurm alternating, and their summary as `name value unit`
# lines plus one JSON object. The sourcing script defines log, use KIND (points
# the commands at one kind's cluster) and one fig_NAME per figure, each printing
# one number; it sets ROUNDS and calls rounds_start DIR first.

now() { echo "$EPOCHREALTIME"; }
ms_since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", (b - a) * 1000 }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

rounds_start() {  # DIR: where the raw results go
  RESULTS="$1/results"
  : >"$RESULTS"
  SUMMARY_JSON=""
}
record() { echo "$1 $2 $3 $4" >>"$RESULTS"; }  # figure round kind value
# The first of each round alternates too, so neither kind always runs on a
# machine the other has just warmed (or loaded).
order() { if (($1 % 2)); then echo "slurm rota"; else echo "rota slurm"; fi; }

run_rounds() {  # figures...
  local r k f
  for ((r = 1; r <= ROUNDS; r++)); do
    for k in $(order "$r"); do
      use "$k"
      for f in "$@"; do record "$f" "$r" "$k" "$("fig_$f")"; done
    done
    log "round $r/$ROUNDS of: $*"
  done
}

summarize() {  # FIGURE NAME UNIT: three lines (medians and their ratio), and its JSON member
  local f="$1" name="$2" unit="$3" rota slurm spread ratio
  rota=$(awk -v f="$f" '$1 == f && $3 == "rota" { print $4 }' "$RESULTS" | median)
  slurm=$(awk -v f="$f" '$1 == f && $3 == "slurm" { print $4 }' "$RESULTS" | median)
  spread=$(awk -v f="$f" '$1 == f { v[$2, $3] = $4; r[$2] = 1 }
    END { for (i in r) if (v[i, "slurm"] > 0) print v[i, "rota"] / v[i, "slurm"] }' "$RESULTS" |
    sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f..%.2f", lo, hi }')
  ratio=$(awk -v a="$rota" -v b="$slurm" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "nan" }')
  echo "${name}_rota $rota $unit"
  echo "${name}_slurm $slurm $unit"
  echo "${name}_ratio $ratio x (rota/slurm; per round $spread)"
  SUMMARY_JSON+="${SUMMARY_JSON:+, }\"$name\": {\"unit\": \"$unit\", \"rota\": $rota, \"slurm\": $slurm, \"ratio\": $ratio, \"ratio_range\": \"$spread\"}"
}
