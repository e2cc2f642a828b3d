# Shared by the gst-launch benchmarks: time "SRC ! ELEMENTS ! fakesink", best
# of $reps, and print a Markdown table row.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Set src, secs and reps.

# best PIPELINE...: the best wall time in seconds of REPS runs
best () {
  local b=
  for _ in $(seq "$reps"); do
    local t0 t1
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086  # src is a pipeline description
    gst-launch-1.0 -q $src ! "$@" ! fakesink > /dev/null || return 1
    t1=$(date +%s.%N)
    b=$(echo "$t0 $t1 ${b:-1e9}" | awk '{d = $2 - $1; print (d < $3 ? d : $3)}')
  done
  echo "$b"
}

# row NAME PIPELINE...: "| NAME | seconds | x real time |"
row () {
  local name=$1; shift
  local t
  t=$(best "$@") || { echo "| $name | failed | |"; return; }
  echo "| $name | $t | $(echo "$secs $t" | awk '{printf "%.0f", $1 / $2}') |"
}
