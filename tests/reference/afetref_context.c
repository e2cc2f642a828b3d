/* Double-precision restatements of Kaldi's add-deltas and splice-feats, and
 * a reader of Kaldi binary archives for their checks.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Kaldi's deltas and splicing in double precision, and the archive reader
 * the tests compare Kaldi's files with (afetref_context.h). */

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

/* Kaldi's binary int32: a size byte (4), then the value little-endian. */
static gboolean
read_int32 (const guint8 * b, gsize len, gsize * pos, int *v)
{
  gint32 x;

  if (*pos + 5 > len || b[*pos] != 4)
    return FALSE;
  memcpy (&x, b + *pos + 1, 4);
  *v = GINT32_FROM_LE (x);
  *pos += 5;
  return TRUE;
}

gboolean
afetref_ark_read (const char *path, AfetRefArk * ark)
{
  gchar *contents = NULL;
  gsize len = 0, pos = 0;
  GError *err = NULL;
  GPtrArray *keys = g_ptr_array_new (), *data = g_ptr_array_new ();
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (int));
  GArray *cols = g_array_new (FALSE, FALSE, sizeof (int));
  gboolean ok = TRUE;

  memset (ark, 0, sizeof (*ark));
  if (!g_file_get_contents (path, &contents, &len, &err)) {
    g_printerr ("%s: %s\n", path, err->message);
    g_error_free (err);
    ok = FALSE;
  }
  while (ok && pos < len) {
    const guint8 *b = (const guint8 *) contents;
    gsize start = pos, k = pos;
    int r = 0, c = 0, i;
    gboolean dbl;
    char *key;
    float *m;

    while (k < len && b[k] != ' ')
      k++;
    if (k == pos || k + 5 > len || b[k + 1] != 0 || b[k + 2] != 'B') {
      g_printerr ("%s: byte %" G_GSIZE_FORMAT ": not a binary Kaldi archive "
          "entry (a key, a space, \\0B)\n", path, start);
      ok = FALSE;
      break;
    }
    key = g_strndup (contents + pos, k - pos);
    pos = k + 3;
    dbl = pos + 3 <= len && memcmp (b + pos, "DM ", 3) == 0;
    if (!dbl && (pos + 3 > len || memcmp (b + pos, "FM ", 3) != 0)) {
      g_printerr ("%s: entry %s (byte %" G_GSIZE_FORMAT "): not a float or "
          "double matrix (compressed matrices are not read)\n", path, key,
          start);
      g_free (key);
      ok = FALSE;
      break;
    }
    pos += 3;
    if (!read_int32 (b, len, &pos, &r) || !read_int32 (b, len, &pos, &c) ||
        r < 0 || c < 0 ||
        (guint64) r * (guint64) c * (dbl ? 8 : 4) > (guint64) (len - pos)) {
      g_printerr ("%s: entry %s (byte %" G_GSIZE_FORMAT "): bad or truncated "
          "matrix header or data\n", path, key, start);
      g_free (key);
      ok = FALSE;
      break;
    }
    m = g_new (float, (gsize) r * c + 1);
    for (i = 0; i < r * c; i++) {
      if (dbl) {
        gdouble v;
        memcpy (&v, b + pos + (gsize) i * 8, 8);
        m[i] = (float) v;
      } else {
        memcpy (m + i, b + pos + (gsize) i * 4, 4);
      }
    }
    pos += (gsize) r * c * (dbl ? 8 : 4);
    g_ptr_array_add (keys, key);
    g_ptr_array_add (data, m);
    g_array_append_val (rows, r);
    g_array_append_val (cols, c);
  }
  g_free (contents);
  ark->n = (int) keys->len;
  ark->keys = (char **) g_ptr_array_free (keys, FALSE);
  ark->data = (float **) g_ptr_array_free (data, FALSE);
  ark->rows = (int *) g_array_free (rows, FALSE);
  ark->cols = (int *) g_array_free (cols, FALSE);
  if (!ok)
    afetref_ark_clear (ark);
  return ok;
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
