/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* afetref_transform: Kaldi's transform-feats restated in double precision
 * (y = M x for a D-column matrix, y = M[:, :D] x + M[:, D] for D + 1),
 * with readers for Kaldi binary matrices and archives of them (FM or DM),
 * checked by test_reference_transform.c against transform-feats' output.
 * Plain C: libc, libm and GLib. */

#ifndef __AFETREF_TRANSFORM_H__
#define __AFETREF_TRANSFORM_H__

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

/* Reads a Kaldi binary archive of float or double matrices ("KEY \0BFM "
 * or "DM ", '\4' rows, '\4' cols, little-endian values); *n gets the
 * count.  NULL (with a message) on anything else. */
AfetRefMatrix *afetref_read_kaldi_ark (const char *path, int *n);

/* Reads a Kaldi binary matrix file (the same without the key).  FALSE
 * (with a message) on anything else. */
gboolean afetref_read_kaldi_matrix (const char *path, AfetRefMatrix * m);

void afetref_matrices_free (AfetRefMatrix * m, int n);

/* y (n x m->rows) from x (n x dims): linear when m->cols == dims, affine
 * (the last column the offset) when dims + 1; FALSE for anything else. */
gboolean afetref_transform (const double *x, int n, int dims,
    const AfetRefMatrix * m, double *y);

G_END_DECLS

#endif /* __AFETREF_TRANSFORM_H__ */
