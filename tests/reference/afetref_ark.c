/* Kaldi archives and matrix files read in double for the reference
 * tests (afetref_ark.h).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "afetref_ark.h"

#include <string.h>

static gboolean
is_white (char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
      c == '\v';
}

/* A text matrix from d[*pos]: white space, '[', rows ended by new lines,
 * ']'; advances *pos. */
static gboolean
parse_text (const guint8 * d, gsize len, gsize * pos, const char *path,
    AfetRefMatrix * m)
{
  gsize i = *pos;
  GArray *v;
  int in_row = 0;

  while (i < len && (d[i] == ' ' || d[i] == '\t'))
    i++;
  if (i >= len || d[i] != '[') {
    g_printerr ("%s: neither a binary nor a text matrix at byte %"
        G_GSIZE_FORMAT "\n", path, i);
    return FALSE;
  }
  i++;
  v = g_array_new (FALSE, FALSE, sizeof (double));
  m->rows = m->cols = 0;
  while (i < len && d[i] != ']') {
    if (d[i] == '\n') {
      if (in_row) {
        if (m->rows > 0 && in_row != m->cols)
          break;
        m->cols = in_row;
        m->rows++;
      }
      in_row = 0;
      i++;
    } else if (is_white ((char) d[i])) {
      i++;
    } else {
      char *e;
      double x = g_ascii_strtod ((const char *) d + i, &e);
      if (e == (const char *) d + i)
        break;
      g_array_append_val (v, x);
      in_row++;
      i = (gsize) ((const guint8 *) e - d);
    }
  }
  if (in_row && (m->rows == 0 || in_row == m->cols)) {
    m->cols = in_row;
    m->rows++;
    in_row = 0;
  }
  m->data = (double *) g_array_free (v, FALSE);
  if (i >= len || d[i] != ']' || in_row) {
    g_printerr ("%s: a malformed text matrix at byte %" G_GSIZE_FORMAT "\n",
        path, i);
    return FALSE;
  }
  *pos = i + 1;
  return TRUE;
}

/* One matrix from d[*pos]: "\0B" and a binary one, or a text one;
 * advances *pos. */
static gboolean
parse_matrix (const guint8 * d, gsize len, gsize * pos, const char *path,
    AfetRefMatrix * m)
{
  gsize i = *pos;
  gboolean f64;
  gint32 rows, cols;
  gsize vsize, k;

  if (i + 2 > len || d[i] != 0 || d[i + 1] != 'B')
    return parse_text (d, len, pos, path, m);
  i += 2;
  if (i + 13 > len || (memcmp (d + i, "FM ", 3) && memcmp (d + i, "DM ", 3))
      || d[i + 3] != 4 || d[i + 8] != 4) {
    g_printerr ("%s: not a float or double matrix at byte %" G_GSIZE_FORMAT
        "\n", path, i);
    return FALSE;
  }
  f64 = d[i] == 'D';
  memcpy (&rows, d + i + 4, 4);
  memcpy (&cols, d + i + 9, 4);
  rows = GINT32_FROM_LE (rows);
  cols = GINT32_FROM_LE (cols);
  i += 13;
  vsize = f64 ? 8 : 4;
  if (rows < 0 || cols < 0 || i + (gsize) rows * cols * vsize > len) {
    g_printerr ("%s: a %d x %d matrix does not fit the file\n", path, rows,
        cols);
    return FALSE;
  }
  m->rows = rows;
  m->cols = cols;
  m->data = g_new (double, (gsize) rows * cols + 1);
  for (k = 0; k < (gsize) rows * cols; k++) {
    if (f64) {
      guint64 u;
      double x;
      memcpy (&u, d + i + 8 * k, 8);
      u = GUINT64_FROM_LE (u);
      memcpy (&x, &u, 8);
      m->data[k] = x;
    } else {
      guint32 u;
      float x;
      memcpy (&u, d + i + 4 * k, 4);
      u = GUINT32_FROM_LE (u);
      memcpy (&x, &u, 4);
      m->data[k] = x;
    }
  }
  *pos = i + (gsize) rows * cols * vsize;
  return TRUE;
}

AfetRefMatrix *
afetref_read_kaldi_ark (const char *path, int *n)
{
  gchar *buf = NULL;
  gsize len = 0, pos = 0;
  GArray *out;

  if (!g_file_get_contents (path, &buf, &len, NULL)) {
    g_printerr ("cannot read %s\n", path);
    return NULL;
  }
  out = g_array_new (FALSE, TRUE, sizeof (AfetRefMatrix));
  while (TRUE) {
    AfetRefMatrix m = { 0 };
    gsize k;
    while (pos < len && is_white (buf[pos]))
      pos++;
    if (pos >= len)
      break;
    k = pos;
    while (k < len && buf[k] != ' ')
      k++;
    if (k == pos || k >= len) {
      g_printerr ("%s: no key at byte %" G_GSIZE_FORMAT "\n", path, pos);
      goto fail;
    }
    m.key = g_strndup (buf + pos, k - pos);
    pos = k + 1;
    if (!parse_matrix ((const guint8 *) buf, len, &pos, path, &m)) {
      g_free (m.key);
      g_free (m.data);
      goto fail;
    }
    g_array_append_val (out, m);
  }
  g_free (buf);
  *n = (int) out->len;
  return (AfetRefMatrix *) g_array_free (out, FALSE);
fail:
  g_free (buf);
  afetref_matrices_free ((AfetRefMatrix *) out->data, (int) out->len);
  g_array_free (out, FALSE);
  return NULL;
}

gboolean
afetref_read_kaldi_matrix (const char *path, AfetRefMatrix * m)
{
  gchar *buf = NULL;
  gsize len = 0, pos = 0;
  gboolean ok;

  memset (m, 0, sizeof *m);
  if (!g_file_get_contents (path, &buf, &len, NULL)) {
    g_printerr ("cannot read %s\n", path);
    return FALSE;
  }
  while (pos < len && is_white (buf[pos]))
    pos++;
  ok = parse_matrix ((const guint8 *) buf, len, &pos, path, m);
  g_free (buf);
  return ok;
}

void
afetref_matrices_free (AfetRefMatrix * m, int n)
{
  int i;

  if (!m)
    return;
  for (i = 0; i < n; i++) {
    g_free (m[i].key);
    g_free (m[i].data);
  }
  g_free (m);
}

const AfetRefMatrix *
afetref_kaldi_ark_find (const AfetRefMatrix * m, int n, const char *key)
{
  for (int i = 0; i < n; i++)
    if (strcmp (m[i].key, key) == 0)
      return &m[i];
  return NULL;
}
