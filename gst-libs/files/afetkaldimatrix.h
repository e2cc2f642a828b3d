/* Kaldi archives of small double matrices (CMVN statistics: compute-cmvn-
 * stats writes them, apply-cmvn reads them) and Kaldi's two-column tables
 * (utt2spk), read whole; and the binary double-matrix entry they are
 * written as.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The layouts, as Kaldi writes them (util/kaldi-holder, matrix/kaldi-matrix):
 * - binary entry: KEY, ' ', "\0B", "DM " (doubles) or "FM " (floats), '\4'
 *   int32 rows, '\4' int32 cols (little-endian), rows x cols values;
 * - text entry: KEY, ' ', '[', then rows of numbers separated by new lines,
 *   ']' (Kaldi writes "KEY  [\n  1 2 3 \n  4 5 6 ]\n");
 * - a table: one "KEY VALUE" a line, white space between.
 */

#ifndef __AFET_KALDI_MATRIX_H__
#define __AFET_KALDI_MATRIX_H__

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace afetfile
{

struct KaldiMatrix
{
  int rows = 0, cols = 0;
  std::vector<double> v;        /* row-major */

  double at (int r, int c) const { return v[(size_t) r * cols + c]; }
};

/* Reads every entry of a Kaldi archive of matrices (binary DM or FM, or
 * text; entries of either kind may follow each other), in file order.  A
 * key that comes twice, a compressed matrix (CM), a number that is not
 * finite, rows of unequal length or a truncated entry is an error; @why
 * names the file, the key and the byte offset. */
bool read_kaldi_matrices (const std::string & path,
    std::vector < std::pair < std::string, KaldiMatrix > >*out,
    std::string * why);

/* Reads a Kaldi table of one value a key (utt2spk, spk2gender): lines of
 * exactly two white-space separated fields; empty lines are skipped.  A
 * key that comes twice or a line of another field count is an error naming
 * the file and line. */
bool read_kaldi_table (const std::string & path,
    std::map < std::string, std::string > *out, std::string * why);

/* A binary archive entry of a double matrix, byte for byte as Kaldi's
 * DoubleMatrixWriter writes it. */
std::string kaldi_double_entry (const std::string & key,
    const KaldiMatrix & m);

/* Writes @data to @path through a temporary file beside it and a rename,
 * so that a reader never sees half a file; false with @why naming the
 * path and the cause. */
bool write_file_atomically (const std::string & path,
    const std::string & data, std::string * why);

} /* namespace afetfile */

#endif /* __AFET_KALDI_MATRIX_H__ */
