/* The reference tests' reader of Kaldi archives and matrix files.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Kaldi matrices as the reference tests read them: archives ("KEY " then a
 * binary "\0B" FM/DM matrix or a text "[ ... ]" one), single matrix files,
 * values in double.  Independent of the plugin's reader (afetmatrix.cc).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One matrix of an archive (key NULL for a matrix file), values in double
 * row by row. */
typedef struct
{
  char *key;
  int rows, cols;
  double *data;
} AfetRefMatrix;

/* Every entry of a Kaldi archive of float or double matrices, binary or
 * text, in file order; *n gets the count.  NULL (with a message naming the
 * file and byte) on anything else (compressed matrices, truncation). */
AfetRefMatrix *afetref_read_kaldi_ark (const char *path, int *n);

/* One Kaldi matrix file (binary or text: an archive entry without the
 * key).  FALSE (with a message) on anything else. */
gboolean afetref_read_kaldi_matrix (const char *path, AfetRefMatrix * m);

void afetref_matrices_free (AfetRefMatrix * m, int n);

/* The entry of key, or NULL. */
const AfetRefMatrix *afetref_kaldi_ark_find (const AfetRefMatrix * m, int n,
    const char *key);

G_END_DECLS
