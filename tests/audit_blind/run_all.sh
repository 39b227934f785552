#!/bin/bash
# run pecheck on every case as a user would: check --table cos --table-sin sin --hf-config config.json [+ README-documented args]
PE=${PE:-$(cd "$(dirname "$0")/../.." && pwd)/build/pecheck}  # absolute: the loop below cd's into each case
cd "${AUDIT_OUT:-/tmp/audit/cases}"
for d in ${@:-*}; do
  args=$(/usr/bin/python3 -c "import json;print(' '.join(json.load(open('$d/case.json'))['args']))")
  ( cd $d; /usr/bin/time -f "%e s" -o time.txt $PE check --table cos.npy --table-sin sin.npy --hf-config config.json $args --threads 2 > out.txt 2> err.txt; echo $? > rc.txt )
  echo "$d rc=$(cat $d/rc.txt) $(cat $d/time.txt)"
done
