/* The double-precision restatement of Kaldi's CMVN statistics.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The double-precision restatement of Kaldi's CMVN statistics
 * (transform/cmvn.cc: AccCmvnStats, ApplyCmvn), for the afetcmvn tests and
 * test_reference_cmvn (statistics read by afetref_ark.h). Plain C, GLib.
 */
#pragma once

#include "afetref_ark.h"

G_BEGIN_DECLS

/* Kaldi's AccCmvnStats: adds T frames of d values (x, row-major) to stats
 * (2 x (d + 1): row 0 sums and the count last, row 1 sums of squares). */
void afetref_cmvn_acc (const double *x, int T, int d, double *stats);

/* Kaldi's ApplyCmvn of stats (2 x (d + 1)) to T frames of d values, in
 * double: x - mean, or (x - mean) / sqrt (var) with var floored at 1e-20
 * when norm_vars. Returns FALSE where Kaldi stops (count < 1). */
gboolean afetref_cmvn_apply (const double *stats, int d, gboolean norm_vars,
    const double *x, int T, double *out);

G_END_DECLS
