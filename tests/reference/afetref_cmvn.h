/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The double-precision restatement of Kaldi's CMVN statistics
 * (transform/cmvn.cc: AccCmvnStats, ApplyCmvn) and a plain reader of Kaldi
 * archives of matrices (binary FM / DM, text), for the afetcmvn tests and
 * test_reference_cmvn. Plain C, GLib.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One archive entry: rows x cols doubles, row-major. */
typedef struct
{
  char *key;
  int rows, cols;
  double *data;
} AfetRefKaldiMatrix;

/* Every entry of a Kaldi matrix archive, in file order (NULL on a format
 * error, with a message on stderr); *n gets the count. */
AfetRefKaldiMatrix *afetref_read_kaldi_ark (const char *path, int *n);
void afetref_kaldi_ark_free (AfetRefKaldiMatrix * m, int n);
/* The entry of key, or NULL. */
const AfetRefKaldiMatrix *afetref_kaldi_ark_find (const AfetRefKaldiMatrix *
    m, int n, const char *key);

/* Kaldi's AccCmvnStats: adds T frames of d values (x, row-major) to stats
 * (2 x (d + 1): row 0 sums and the count last, row 1 sums of squares). */
void afetref_cmvn_acc (const double *x, int T, int d, double *stats);

/* Kaldi's ApplyCmvn of stats (2 x (d + 1)) to T frames of d values, in
 * double: x - mean, or (x - mean) / sqrt (var) with var floored at 1e-20
 * when norm_vars. Returns FALSE where Kaldi stops (count < 1). */
gboolean afetref_cmvn_apply (const double *stats, int d, gboolean norm_vars,
    const double *x, int T, double *out);

G_END_DECLS
