/* The double-precision Kaldi deltas and splicing (afetref_context.c).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* afetref_context: double-precision restatements of Kaldi's context steps
 * (add-deltas, splice-feats and splicing at any list of offsets), written
 * from their formulas, and Kaldi archives as floats; checked by
 * tests/reference/test_reference_context.c against Kaldi's own output
 * (tests/data/kaldi-recipe/deltas, splice). Plain C: libc, libm and GLib;
 * arrays from g_malloc (), freed with g_free (). */

#ifndef __AFETREF_CONTEXT_H__
#define __AFETREF_CONTEXT_H__

#include "afetref_ark.h"

G_BEGIN_DECLS

/* The entries of a Kaldi archive: n matrices, entry i called keys[i] with
 * rows[i] x cols[i] floats at data[i] (row-major). */
typedef struct
{
  int n;
  char **keys;
  float **data;
  int *rows;
  int *cols;
} AfetRefArk;

/* Reads a Kaldi archive (afetref_read_kaldi_ark) of float (FM) or double
 * (DM, rounded to float) matrices. FALSE, with a message naming the file
 * and the byte offset, for anything else (compressed matrices, truncation). */
gboolean afetref_ark_read (const char *path, AfetRefArk * ark);
void afetref_ark_clear (AfetRefArk * ark);
/* The index of the entry called key, or -1. */
int afetref_ark_find (const AfetRefArk * ark, const char *key);

/* Kaldi's add-deltas (DeltaFeatures): output frame t is d x (order + 1)
 * values, block o = sum_j s_o[j] x[clamp (t + j)] for j = -o N .. o N,
 * s_0 = [1], s_o = s_{o-1} convolved with j / sum_{j=-N..N} j^2; x is T x
 * d. In double precision throughout. */
double *afetref_kaldi_deltas (const float *x, int T, int d, int order,
    int window);

/* The filters s_0 .. s_order of afetref_kaldi_deltas, one after the other
 * (order o's 2 o N + 1 taps from o + N o (o - 1)). */
double *afetref_kaldi_delta_filters (int order, int window);

/* Splicing: output frame t is x[clamp (t + offsets[k])] for k = 0 .. n - 1
 * side by side (d x n values); Kaldi's splice-feats is offsets
 * -left .. right. */
double *afetref_splice (const float *x, int T, int d, const int *offsets,
    int n);

G_END_DECLS

#endif /* __AFETREF_CONTEXT_H__ */
