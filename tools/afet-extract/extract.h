/* afet-extract's shared types: the options, the work items (an input, its
 * key, its output, its segments) and what a worker made of each.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

#include "afethtkconfig.h"

namespace afetx
{

struct Options
{
  std::string chain = "afetmfcc";
  int rate = 0;
  /* -C: the HCopy config the chain comes from (SOURCERATE is checked
   * against every input) */
  bool htk = false;
  afet::HtkConfig htk_config;
  std::string config;           /* -C's file (an input, never overwritten) */
  std::string scp, out_dir, wav_scp, segments, ark;
  std::string format = "htk";
  int compress = 0;             /* Kaldi's compression method (--compress) */
  int jobs = 0;                 /* 0: auto_jobs () */
  std::string device = "auto";
  int shard_k = 1, shard_n = 1;
  bool skip_existing = false;
  bool quiet = false;
  bool progress = false;
  bool print_pipeline = false;
  bool wav_reader = true;       /* plain PCM WAV read by us (read_plain_wav) */
  bool keep_truncated = false;  /* a truncated WAV file: computed, warned */
  mode_t file_mode = 0644;      /* of outputs: 0666 less the umask */
  /* --segments: an end past the recording by less is clipped, by more the
   * segment fails (Kaldi's extract-segments --max-overshoot) */
  double max_overshoot = 0.5;
};

struct Segment
{
  std::string id;
  double start = 0, end = -1;
  std::string out;              /* per-file output; empty with --ark */
  std::string where;            /* "FILE:LINE" of its line, for messages */
};

/* One input: a file or a command, and where its features go. */
struct Item
{
  size_t index = 0;             /* in the (sharded) list */
  std::string key;              /* uttid or base name */
  std::string input;            /* path, or a shell command */
  bool command = false;
  std::string out;              /* per-file output; empty with --ark */
  std::vector<Segment> segments;  /* --segments: cut from this recording */
  std::string where;            /* "FILE:LINE" of its line, for messages */
};

/* What a worker made of an item. */
struct Result
{
  bool done = false;
  bool skipped = false;
  std::vector<std::string> errors;   /* "KEY: why" */
  std::vector<std::string> warnings; /* "KEY: what" (--keep-truncated) */
  /* finished while a signal was asking the run to stop: its errors are
   * the signal's (the input is left to --skip-existing), its entries are
   * whole */
  bool cut = false;
  /* --ark: the entries, in segment order */
  std::vector<std::pair<std::string, std::string>> entries;
  double audio_s = 0;
};

}  /* namespace afetx */
