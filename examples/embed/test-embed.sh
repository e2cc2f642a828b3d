#!/bin/bash
# afet-embed on two recordings (both on the first one's device, through the
# shared device) and on a file that does not exist (an error, exit 1).
#   test-embed.sh AFET_EMBED SOURCE_ROOT
set -u
bin=$1
top=$2
a=$top/examples/data/speech-16k.wav
b=$top/tests/data/audio/s01_16k.wav
fail=0
check () { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

out=$("$bin" "$a" "$b" 2>&1)
rc=$?
echo "$out"
check "two files: exit 0" "[ $rc -eq 0 ]"
check "the shared device is named once" \
  "[ \$(echo \"\$out\" | grep -c '^device: .* (shared with the following files)') -eq 1 ]"
check "speech-16k.wav: 472 frames of 39, c0 in column 12, deltas and accelerations, normalised" \
  "echo \"\$out\" | grep -q 'speech-16k.wav: 472 frames of 39 (mfcc, 13 statics, c0 in column 12, energy in column -1, delta order 2, mean normalised)'"
check "s01_16k.wav summarised too" "echo \"\$out\" | grep -q 's01_16k.wav: [0-9]* frames of 39'"
# with CMN over the utterance, every column's mean is about 0
check "c0's mean is removed" "echo \"\$out\" | grep -A1 speech-16k.wav | grep -Eq 'mean c0 -?0\.0000'"

out=$("$bin" /no/such/file.wav 2>&1)
rc=$?
echo "$out"
check "a missing file: exit 1 with the reason" \
  "[ $rc -eq 1 ] && echo \"\$out\" | grep -q '/no/such/file.wav'"
out=$("$bin" --device no-such-device "$a" 2>&1)
rc=$?
echo "$out"
check "an unknown device: exit 1 naming it and the devices there are" \
  "[ $rc -eq 1 ] && echo \"\$out\" | grep -q 'no-such-device' && echo \"\$out\" | grep -q 'Devices:'"
exit $fail
