/* The splicing stage: each output frame the input frames at a list of
 * offsets, clamped at the edges as Kaldi's splice-feats (splice.h).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Splicing's config, its offset lists as text, and its stage. */

#include "splice.h"
#include "clutil.h"

#include "afet-kernels.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <set>

namespace afet {

int
SpliceConfig::back () const
{
  int lo = 0;
  for (int o : offsets)
    lo = std::min (lo, o);
  return -lo;
}

int
SpliceConfig::ahead () const
{
  int hi = 0;
  for (int o : offsets)
    hi = std::max (hi, o);
  return hi;
}

Status
SpliceConfig::validate () const
{
  if (offsets.empty ())
    return Status (Status::BAD_CONFIG, "no offsets to splice");
  if ((int) offsets.size () > max_count)
    return Status (Status::BAD_CONFIG, std::to_string (offsets.size ()) +
        " offsets: at most " + std::to_string (max_count));
  std::set<int> seen;
  for (int o : offsets) {
    if (o < -max_offset || o > max_offset)
      return Status (Status::BAD_CONFIG, "offset " + std::to_string (o) +
          " is beyond +-" + std::to_string (max_offset) + " frames");
    if (!seen.insert (o).second)
      return Status (Status::BAD_CONFIG, "offset " + std::to_string (o) +
          " is listed twice: each input frame goes into the output once");
  }
  if (dims < 1 || row_stride < dims)
    return Status (Status::BAD_CONFIG, "no columns to splice");
  if ((long long) dims * (long long) offsets.size () > 1000000)
    return Status (Status::BAD_CONFIG, "the spliced frame would have " +
        std::to_string ((long long) dims * (long long) offsets.size ()) +
        " values: at most 1000000");
  return Status::Ok ();
}

std::string
SpliceConfig::key () const
{
  return "splice " + std::to_string (dims) + " " +
      std::to_string (row_stride) + " " + splice_offsets_string (offsets);
}

/* an integer filling the whole of s (after trimming spaces) */
static bool
parse_int (const std::string &s, int *v)
{
  size_t a = s.find_first_not_of (" \t"), b = s.find_last_not_of (" \t");
  if (a == std::string::npos)
    return false;
  std::string t = s.substr (a, b - a + 1);
  errno = 0;
  char *end = nullptr;
  long x = std::strtol (t.c_str (), &end, 10);
  if (errno || end == t.c_str () || *end || x < -1000000000L ||
      x > 1000000000L)
    return false;
  *v = (int) x;
  return true;
}

Status
parse_splice_offsets (const std::string &text, std::vector<int> *out)
{
  std::vector<int> offs;
  size_t pos = 0;
  while (true) {
    size_t comma = text.find (',', pos);
    std::string item = text.substr (pos, comma == std::string::npos ?
        std::string::npos : comma - pos);
    size_t dots = item.find ("..");
    int lo, hi;
    if (dots == std::string::npos) {
      if (!parse_int (item, &lo))
        return Status (Status::BAD_CONFIG, "offsets: '" + item + "' is not "
            "an integer or a range lo..hi (in \"" + text + "\")");
      offs.push_back (lo);
    } else {
      if (!parse_int (item.substr (0, dots), &lo) ||
          !parse_int (item.substr (dots + 2), &hi))
        return Status (Status::BAD_CONFIG, "offsets: '" + item + "' is not "
            "a range lo..hi of integers (in \"" + text + "\")");
      if (lo > hi)
        return Status (Status::BAD_CONFIG, "offsets: the range '" + item +
            "' runs backwards: write it lo..hi");
      if ((long long) hi - lo >= SpliceConfig::max_count)
        return Status (Status::BAD_CONFIG, "offsets: the range '" + item +
            "' has more than " + std::to_string (SpliceConfig::max_count) +
            " offsets");
      for (int o = lo; o <= hi; o++)
        offs.push_back (o);
    }
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
  *out = std::move (offs);
  return Status::Ok ();
}

std::string
splice_offsets_string (const std::vector<int> &offsets)
{
  std::string s;
  for (size_t i = 0; i < offsets.size (); i++) {
    if (i)
      s += ",";
    s += std::to_string (offsets[i]);
  }
  return s;
}

Status
SpliceStage::init_kernels ()
{
  std::vector<cl_int> o (cfg_.offsets.begin (), cfg_.offsets.end ());
  AFET_RETURN_IF_ERROR (make_buffer (device_->context (), CL_MEM_READ_ONLY,
          o.size () * sizeof (cl_int), o.data (), &offsets_));
  return make_kernels ("context", kernels::context, kernels::context_sha256,
      "afet_splice");
}

void
SpliceStage::kernel_args (ArgSetter &a) const
{
  a ((cl_uint) cfg_.dims) ((cl_uint) cfg_.offsets.size ())
      (offsets_.get ());
}

}  /* namespace afet */
