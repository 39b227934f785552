#!/bin/bash
# Runs every case of cases.tsv through pecheck check; writes logs/ID.txt and results.tsv
# usage: run_cases.sh PECHECK TABLEDIR
PC=$1; D=$2; mkdir -p "$D/logs"; : > "$D/results.tsv"
while IFS=$'\t' read -r id exp args note; do
  timeout 300 nice "$PC" check $args --regressions off > "$D/logs/$id.txt" 2>&1; rc=$?
  cause=$(grep -m1 -o 'likely cause: .*' "$D/logs/$id.txt" | sed 's/^likely cause: //' | cut -c1-150)
  [ -z "$cause" ] && [ $rc = 2 ] && cause="(exit 2) $(grep -m1 -v '^$' "$D/logs/$id.txt" | cut -c1-140)"
  [ -z "$cause" ] && [ $rc = 1 ] && cause="(no likely-cause line) $(grep -m1 '^FAIL' "$D/logs/$id.txt" | cut -c1-130)"
  printf '%s\t%s\t%s\t%s\n' "$id" "$exp" "$rc" "$cause" >> "$D/results.tsv"
  printf '%s\t%s\t%s\t%s\n' "$id" "$exp" "$rc" "$cause"
done < "$D/cases.tsv"
