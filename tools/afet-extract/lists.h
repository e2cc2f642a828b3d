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
/* A key (uttid, segment id or base name) as the name of its output file
 * in --out-dir: KEY.EXT, one name inside the folder.  False, with *why,
 * for a key that is empty, holds a '/' or makes a name longer than a file
 * name may be (255 bytes). */
bool key_names_file (const std::string & key, const std::string & ext,
    std::string * why);
/* Builds the work list from the options; false with a message on error.
 * Before anything runs, the whole list (all shards) is checked: every key
 * that names a file is a name inside --out-dir (key_names_file), no two
 * inputs write the same output or (--ark) the same key, and no output is
 * one of the inputs or lists.  The lists are read by read (by default
 * read_lines). */
bool make_items (const Options & o, std::vector<Item> *items,
    std::string * why, const LineReader & read = nullptr);

}  /* namespace afetx */
