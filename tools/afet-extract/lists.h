/* afet-extract's input lists: HCopy-style --scp, Kaldi's wav.scp and
 * segments, parsed into work items.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <functional>
#include <string>
#include <vector>

#include "extract.h"

namespace afetx
{

/* "htk", "npy", "ark" or "f32": the file extension of an output format */
const char *extension_of (const std::string & format);
/* a path's base name without its last extension */
std::string base_name_no_ext (const std::string & path);
/* the white-space separated fields of a line; with max_fields > 0 the last
 * field takes the rest of the line (trailing white space dropped) */
std::vector<std::string> split_ws (const std::string & line,
    size_t max_fields);
/* a text's lines (a trailing \r dropped) */
void split_lines (const std::string & text, std::vector<std::string> *lines);
/* a text file's lines (up to a NUL; a trailing \r dropped); false with
 * *why */
bool read_lines (const std::string & path, std::vector<std::string> *lines,
    std::string * why);
/* what make_items reads a list with: read_lines, or the fuzz target's */
typedef std::function < bool (const std::string & path,
    std::vector<std::string> *lines, std::string * why) > LineReader;
/* the longest a segment's start or end may be, in seconds (some 116
 * days: any rate's sample index fits an int64 far below it) */
constexpr double kMaxSegmentSeconds = 1e7;
/* a line of white space only (all of isspace: space \t \n \v \f \r) */
bool blank (const std::string & s);
/* Builds the work list from the options, the lists read by read (by default
 * read_lines); false with a message on error. */
bool make_items (const Options & o, std::vector<Item> *items,
    std::string * why, const LineReader & read = nullptr);

}  /* namespace afetx */
