/* Kaldi's CMVN statistics in double precision (afetref_cmvn.h).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetref_cmvn.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void
afetref_cmvn_acc (const double *x, int T, int d, double *stats)
{
  for (int t = 0; t < T; t++) {
    stats[d] += 1.0;
    for (int c = 0; c < d; c++) {
      double v = x[(gsize) t * d + c];
      stats[c] += v;
      stats[d + 1 + c] += v * v;
    }
  }
}

gboolean
afetref_cmvn_apply (const double *stats, int d, gboolean norm_vars,
    const double *x, int T, double *out)
{
  double count = stats[d];
  if (count < 1.0)
    return FALSE;
  for (int c = 0; c < d; c++) {
    double mean = stats[c] / count, scale = 1.0;
    if (norm_vars) {
      double var = stats[d + 1 + c] / count - mean * mean;
      scale = 1.0 / sqrt (var < 1e-20 ? 1e-20 : var);
    }
    for (int t = 0; t < T; t++)
      out[(gsize) t * d + c] = (x[(gsize) t * d + c] - mean) * scale;
  }
  return TRUE;
}
