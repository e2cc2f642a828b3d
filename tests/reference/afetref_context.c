/* Double-precision restatements of Kaldi's add-deltas and splice-feats, and
 * Kaldi archives as float matrices for their checks.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Kaldi's deltas and splicing in double precision, and the archives the
 * tests compare Kaldi's files with, as floats (afetref_context.h). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetref_context.h"

#include <string.h>

static int
clampi (int t, int T)
{
  return t < 0 ? 0 : (t >= T ? T - 1 : t);
}

double *
afetref_kaldi_delta_filters (int order, int window)
{
  /* order o starts at sum_{p<o} (2 p N + 1) = o + N o (o - 1) */
  int total = order + 1 + window * order * (order + 1);
  double *s = g_new0 (double, total);
  double norm = 0.0;
  int o, j, k;

  for (j = -window; j <= window; j++)
    norm += (double) j * j;
  s[0] = 1.0;
  for (o = 1; o <= order; o++) {
    const double *prev = s + (o - 1) + window * (o - 1) * (o - 2);
    double *cur = s + o + window * o * (o - 1);
    int pr = (o - 1) * window, cr = o * window;
    for (j = -window; j <= window; j++)
      for (k = -pr; k <= pr; k++)
        cur[j + k + cr] += j * prev[k + pr] / norm;
  }
  return s;
}

double *
afetref_kaldi_deltas (const float *x, int T, int d, int order, int window)
{
  double *s = afetref_kaldi_delta_filters (order, window);
  int dims = d * (order + 1), t, o, j, c;
  double *y = g_new0 (double, (gsize) T * dims);

  for (t = 0; t < T; t++)
    for (o = 0; o <= order; o++) {
      const double *so = s + o + window * o * (o - 1);
      int r = o * window;
      for (j = -r; j <= r; j++) {
        const float *row = x + (gsize) clampi (t + j, T) * d;
        for (c = 0; c < d; c++)
          y[(gsize) t * dims + o * d + c] += so[j + r] * row[c];
      }
    }
  g_free (s);
  return y;
}

double *
afetref_splice (const float *x, int T, int d, const int *offsets, int n)
{
  double *y = g_new (double, (gsize) T * d * n);
  int t, k, c;

  for (t = 0; t < T; t++)
    for (k = 0; k < n; k++) {
      const float *row = x + (gsize) clampi (t + offsets[k], T) * d;
      for (c = 0; c < d; c++)
        y[((gsize) t * n + k) * d + c] = row[c];
    }
  return y;
}

gboolean
afetref_ark_read (const char *path, AfetRefArk * ark)
{
  int n = 0, i;
  AfetRefMatrix *m = afetref_read_kaldi_ark (path, &n);

  memset (ark, 0, sizeof (*ark));
  if (!m)
    return FALSE;
  ark->n = n;
  ark->keys = g_new0 (char *, n + 1);
  ark->data = g_new0 (float *, n + 1);
  ark->rows = g_new0 (int, n + 1);
  ark->cols = g_new0 (int, n + 1);
  for (i = 0; i < n; i++) {
    gsize k, count = (gsize) m[i].rows * m[i].cols;
    ark->keys[i] = g_strdup (m[i].key);
    ark->rows[i] = m[i].rows;
    ark->cols[i] = m[i].cols;
    /* FM values come back exactly; DM ones rounded to float, as Kaldi's
     * float readers do */
    ark->data[i] = g_new (float, count + 1);
    for (k = 0; k < count; k++)
      ark->data[i][k] = (float) m[i].data[k];
  }
  afetref_matrices_free (m, n);
  return TRUE;
}

void
afetref_ark_clear (AfetRefArk * ark)
{
  int i;

  for (i = 0; i < ark->n; i++) {
    g_free (ark->keys[i]);
    g_free (ark->data[i]);
  }
  g_free (ark->keys);
  g_free (ark->data);
  g_free (ark->rows);
  g_free (ark->cols);
  memset (ark, 0, sizeof (*ark));
}

int
afetref_ark_find (const AfetRefArk * ark, const char *key)
{
  int i;

  for (i = 0; i < ark->n; i++)
    if (strcmp (ark->keys[i], key) == 0)
      return i;
  return -1;
}
