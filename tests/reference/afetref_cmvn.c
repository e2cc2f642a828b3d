/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Kaldi's CMVN statistics in double precision and a Kaldi matrix archive
 * reader (afetref_cmvn.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetref_cmvn.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static gboolean
is_white (char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
      c == '\v';
}

static guint32
le32 (const guchar * p)
{
  return (guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 |
      (guint32) p[3] << 24;
}

AfetRefKaldiMatrix *
afetref_read_kaldi_ark (const char *path, int *n)
{
  gchar *d = NULL;
  gsize len = 0;
  if (!g_file_get_contents (path, &d, &len, NULL)) {
    fprintf (stderr, "cannot read %s\n", path);
    return NULL;
  }
  GArray *out = g_array_new (FALSE, TRUE, sizeof (AfetRefKaldiMatrix));
  gsize i = 0;
  gboolean ok = TRUE;
  while (ok) {
    while (i < len && is_white (d[i]))
      i++;
    if (i >= len)
      break;
    gsize k = i;
    while (i < len && !is_white (d[i]) && d[i] != '\0')
      i++;
    AfetRefKaldiMatrix m = { g_strndup (d + k, i - k), 0, 0, NULL };
    i++;                        /* the space */
    if (i + 1 < len && d[i] == '\0' && d[i + 1] == 'B') {
      gboolean dbl = d[i + 2] == 'D';
      if (i + 15 > len || (d[i + 2] != 'D' && d[i + 2] != 'F') ||
          d[i + 3] != 'M') {
        ok = FALSE;
        break;
      }
      i += 5;
      m.rows = (int) le32 ((const guchar *) d + i + 1);
      m.cols = (int) le32 ((const guchar *) d + i + 6);
      i += 10;
      gsize vs = dbl ? 8 : 4, count = (gsize) m.rows * m.cols;
      if (i + count * vs > len) {
        ok = FALSE;
        break;
      }
      m.data = g_new (double, count);
      for (gsize j = 0; j < count; j++) {
        if (dbl) {
          memcpy (&m.data[j], d + i + 8 * j, 8);
        } else {
          float f;
          memcpy (&f, d + i + 4 * j, 4);
          m.data[j] = f;
        }
      }
      i += count * vs;
    } else {
      /* text: '[', rows ended by new lines, ']' */
      while (i < len && d[i] != '[')
        i++;
      i++;
      GArray *v = g_array_new (FALSE, FALSE, sizeof (double));
      int in_row = 0;
      while (i < len && d[i] != ']') {
        if (d[i] == '\n') {
          if (in_row) {
            m.cols = in_row;
            m.rows++;
          }
          in_row = 0;
          i++;
        } else if (is_white (d[i])) {
          i++;
        } else {
          char *e;
          double x = g_ascii_strtod (d + i, &e);
          g_array_append_val (v, x);
          in_row++;
          i = (gsize) (e - d);
        }
      }
      if (in_row) {
        m.cols = in_row;
        m.rows++;
      }
      i++;
      m.data = (double *) g_array_free (v, FALSE);
    }
    g_array_append_val (out, m);
  }
  g_free (d);
  if (!ok) {
    fprintf (stderr, "%s: malformed archive at byte %zu\n", path, i);
    *n = (int) out->len;
    afetref_kaldi_ark_free ((AfetRefKaldiMatrix *) g_array_free (out, FALSE),
        *n);
    return NULL;
  }
  *n = (int) out->len;
  return (AfetRefKaldiMatrix *) g_array_free (out, FALSE);
}

void
afetref_kaldi_ark_free (AfetRefKaldiMatrix * m, int n)
{
  for (int i = 0; m && i < n; i++) {
    g_free (m[i].key);
    g_free (m[i].data);
  }
  g_free (m);
}

const AfetRefKaldiMatrix *
afetref_kaldi_ark_find (const AfetRefKaldiMatrix * m, int n, const char *key)
{
  for (int i = 0; i < n; i++)
    if (strcmp (m[i].key, key) == 0)
      return &m[i];
  return NULL;
}

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
