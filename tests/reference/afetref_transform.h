/* The double-precision restatement of Kaldi's transform-feats.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* afetref_transform: Kaldi's transform-feats restated in double precision
 * (y = M x for a D-column matrix, y = M[:, :D] x + M[:, D] for D + 1),
 * matrices read by afetref_ark.h, checked by test_reference_transform.c against transform-feats' output.
 * Plain C: libc, libm and GLib. */

#ifndef __AFETREF_TRANSFORM_H__
#define __AFETREF_TRANSFORM_H__

#include "afetref_ark.h"

G_BEGIN_DECLS

/* y (n x m->rows) from x (n x dims): linear when m->cols == dims, affine
 * (the last column the offset) when dims + 1; FALSE for anything else. */
gboolean afetref_transform (const double *x, int n, int dims,
    const AfetRefMatrix * m, double *y);

G_END_DECLS

#endif /* __AFETREF_TRANSFORM_H__ */
