/* libFuzzer target of afet-extract's list parsing (make_items, from memory).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* libFuzzer target for afet-extract's list parsing (make_items in
 * tools/afet-extract/lists.cc): an --scp list, or a wav.scp with or without
 * a segments file, read from memory end to end into work items.
 *
 * Input: one control byte, then the list's text, then (after the first NUL
 * byte, if any) the segments file's text.
 *
 *   byte 0, bit 0:    0 --scp, 1 --wav-scp
 *           bit 1:    --ark (else --out-dir, unless bit 3)
 *           bit 2:    --segments (with --wav-scp)
 *           bit 3:    neither --out-dir nor --ark (--scp's two-column form)
 *           bits 4-5: --shard's N - 1
 *           bits 6-7: --shard's K - 1 (modulo N)
 *
 * Besides crashes, leaks and undefined behaviour, it checks what
 * afet-extract relies on and abort()s when it is broken:
 *
 *  - every line is blank() exactly when split_ws() finds no field in it
 *    (a line of \f alone once crashed --scp);
 *  - a refusal comes with a reason;
 *  - items are numbered in order, and a file input is never empty;
 *  - with --segments every item has a segment, and every segment's times
 *    are finite, its start from 0 to kMaxSegmentSeconds, its end -1 or
 *    after the start and at most kMaxSegmentSeconds (the sample indices
 *    afet-extract computes from them fit an int64).
 *
 * Build and run: tools/fuzz.sh (see tests/fuzz/meson.build).
 */

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "lists.h"

using namespace afetx;

static void
require (bool ok)
{
  if (!ok)
    abort ();
}

extern "C" int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  if (size < 1)
    return 0;
  const uint8_t mode = data[0];
  const std::string rest ((const char *) data + 1, size - 1);
  const size_t nul = rest.find ('\0');
  const std::string list = rest.substr (0, nul);
  const std::string segments = nul == std::string::npos ? "" :
      rest.substr (nul + 1);

  Options o;
  if (mode & 1)
    o.wav_scp = "list";
  else
    o.scp = "list";
  if (mode & 8) {
    /* neither */
  } else if (mode & 2) {
    o.ark = "out/feats.ark";
    o.format = "kaldi";
  } else {
    o.out_dir = "out";
  }
  if ((mode & 1) && (mode & 4))
    o.segments = "segments";
  o.shard_n = ((mode >> 4) & 3) + 1;
  o.shard_k = ((mode >> 6) & 3) % o.shard_n + 1;

  /* the lists come from memory, as read_lines would split them */
  LineReader reader = [&](const std::string & path,
      std::vector<std::string> *lines, std::string * why) {
    if (path == "list")
      split_lines (list, lines);
    else if (path == "segments")
      split_lines (segments, lines);
    else {
      *why = "no such list: " + path;
      return false;
    }
    return true;
  };

  for (const std::string * text : {&list, &segments}) {
    std::vector<std::string> lines;
    split_lines (*text, &lines);
    for (const auto & l:lines)
      require (blank (l) == split_ws (l, 0).empty ());
  }

  std::vector<Item> items;
  std::string why;
  if (!make_items (o, &items, &why, reader)) {
    require (!why.empty ());
    return 0;
  }
  for (size_t i = 0; i < items.size (); i++) {
    const Item & it = items[i];
    require (it.index == i);
    require (it.command || !it.input.empty ());
    require (o.segments.empty () ? it.segments.empty () :
        !it.segments.empty ());
    for (const auto & s:it.segments) {
      require (std::isfinite (s.start) && std::isfinite (s.end));
      require (s.start >= 0 && s.start <= kMaxSegmentSeconds);
      require (s.end == -1 || (s.end > s.start &&
              s.end <= kMaxSegmentSeconds));
    }
  }
  return 0;
}
