/* Kaldi's transform-feats in double precision (afetref_transform.h).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "afetref_transform.h"

#include <string.h>

gboolean
afetref_transform (const double *x, int n, int dims, const AfetRefMatrix * m,
    double *y)
{
  const gboolean affine = m->cols == dims + 1;
  int t, r, d;

  if (m->cols != dims && !affine)
    return FALSE;
  for (t = 0; t < n; t++)
    for (r = 0; r < m->rows; r++) {
      const double *row = m->data + (gsize) r * m->cols;
      double s = affine ? row[dims] : 0.0;
      for (d = 0; d < dims; d++)
        s += row[d] * x[(gsize) t * dims + d];
      y[(gsize) t * m->rows + r] = s;
    }
  return TRUE;
}
