/* Kaldi matrices read whole (one in a file, or an archive of them; binary
 * or text, and single matrices also as NumPy .npy), Kaldi's two-column
 * tables (utt2spk), and the binary double-matrix entry Kaldi writes:
 * afettransform's matrices, afetcmvn's statistics.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The layouts, as Kaldi writes them (util/kaldi-holder, matrix/kaldi-matrix):
 * - binary matrix: "\0B", "DM " (doubles) or "FM " (floats), '\4' int32
 *   rows, '\4' int32 cols (little-endian), rows x cols values, row by row;
 * - text matrix: '[', rows of numbers separated by new lines, ']' (Kaldi
 *   writes "[\n  1 2 3 \n  4 5 6 ]\n");
 * - archive entry: KEY, ' ', then one of the two;
 * - a table: one "KEY VALUE" a line, white space between.
 * Every error names the file, the entry's key and the byte offset or line.
 */

#ifndef __AFET_MATRIX_H__
#define __AFET_MATRIX_H__

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace afetfile
{

struct Matrix
{
  int rows = 0, cols = 0;
  std::vector<double> v;        /* row-major; floats widened exactly */

  double at (int r, int c) const { return v[(size_t) r * cols + c]; }
};

/* One matrix a file: Kaldi's binary or text form, or a 2-D float32 or
 * float64 NumPy .npy (told apart by their first bytes).  Empty, not
 * finite, compressed (CM), or followed by anything but white space: an
 * error. */
bool read_matrix_file (const std::string & path, Matrix * m,
    std::string * why);

/* Every entry of a Kaldi archive of matrices (binary DM or FM, or text;
 * either kind may follow the other), in file order.  A key that comes
 * twice, a compressed or empty matrix, a number that is not finite, rows
 * of unequal length, a truncated entry or an archive without an entry is
 * an error. */
bool read_matrix_archive (const std::string & path,
    std::vector<std::pair<std::string, Matrix>> * out, std::string * why);

/* A Kaldi table of one value a key (utt2spk, spk2gender): lines of
 * exactly two white-space separated fields; empty lines are skipped.  A
 * key that comes twice, a line of another field count, a NUL byte or a
 * table without a line is an error naming the file and line. */
bool read_kaldi_table (const std::string & path,
    std::map<std::string, std::string> * out, std::string * why);

/* A binary archive entry of a double matrix, byte for byte as Kaldi's
 * DoubleMatrixWriter writes it. */
std::string kaldi_double_entry (const std::string & key, const Matrix & m);

/* Writes @data to @path through a temporary file beside it and a rename,
 * so that a reader never sees half a file; false with @why naming the
 * path and the cause. */
bool write_file_atomically (const std::string & path,
    const std::string & data, std::string * why);

} /* namespace afetfile */

#endif /* __AFET_MATRIX_H__ */
