/* afet - speech feature extraction for GStreamer
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Matrices for afettransform (Kaldi's transform-feats): one matrix from a
 * file in Kaldi's binary form ("\0B", "FM " or "DM ", '\4' rows, '\4'
 * cols, little-endian values), Kaldi's text form ("[", one line of numbers
 * a row, "]") or NumPy .npy (2-D float32 or float64); an archive of them
 * keyed by speaker or utterance (binary or text); and a Kaldi utt2spk file
 * (one "utterance speaker" a line).  Every error names the file and what
 * is wrong with it.
 */

#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace afetfile
{

struct Matrix
{
  int rows = 0;
  int cols = 0;
  std::vector<float> data;      /* rows x cols, row by row */
};

/* One matrix (the forms above, told apart by their first bytes). */
bool read_matrix_file (const std::string & path, Matrix * m,
    std::string * why);

/* Every entry of a Kaldi archive of matrices, in file order; keys unique. */
bool read_matrix_archive (const std::string & path,
    std::vector<std::pair<std::string, Matrix>> * out, std::string * why);

/* utterance -> speaker; an utterance listed twice is an error. */
bool read_utt2spk (const std::string & path,
    std::map<std::string, std::string> * out, std::string * why);

}  /* namespace afetfile */
