/* Checks the transform-feats reference against transform-feats' output.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Checks the double-precision transform-feats (afetref_transform.c)
 * against Kaldi's transform-feats output in
 * tests/data/kaldi-recipe/transform (global linear, affine and LDA
 * matrices; per-speaker matrices through utt2spk): rel L2 <= 1e-5. */

#include "afetref.h"
#include "afetref_kaldi.h"
#include "afetref_transform.h"

#include <stdio.h>
#include <string.h>

#define TOL 1e-5

static int n_fail;

static gchar *
data_path (const char *name)
{
  return g_build_filename (afetref_testdata_dir (), "kaldi-recipe", name,
      NULL);
}

static const AfetRefMatrix *
find (const AfetRefMatrix * m, int n, const char *key)
{
  int i;
  for (i = 0; i < n; i++)
    if (strcmp (m[i].key, key) == 0)
      return &m[i];
  return NULL;
}

/* speaker of utt in the utt2spk file (newly allocated), or NULL */
static gchar *
speaker_of (const char *utt2spk, const char *utt)
{
  gchar *text = NULL, **lines, *spk = NULL;
  int i;
  if (!g_file_get_contents (utt2spk, &text, NULL, NULL))
    return NULL;
  lines = g_strsplit (text, "\n", -1);
  for (i = 0; lines[i] && !spk; i++) {
    gchar **w = g_strsplit_set (g_strstrip (lines[i]), " \t", 2);
    if (w[0] && w[1] && strcmp (w[0], utt) == 0)
      spk = g_strdup (g_strstrip (w[1]));
    g_strfreev (w);
  }
  g_strfreev (lines);
  g_free (text);
  return spk;
}

/* Every entry of out_name against the reference applied to in_name's
 * entry of the same key, with the global matrix (mat_name) or the
 * per-speaker archive (utt2spk set). */
static void
check (const char *label, const char *in_name, const char *mat_name,
    const char *utt2spk_name, const char *out_name)
{
  gchar *in_path = data_path (in_name), *out_path = data_path (out_name);
  gchar *mat_path = data_path (mat_name);
  gchar *u2s = utt2spk_name ? data_path (utt2spk_name) : NULL;
  int n_in = 0, n_out = 0, n_mat = 0, i;
  AfetRefMatrix *in = afetref_read_kaldi_ark (in_path, &n_in);
  AfetRefMatrix *out = afetref_read_kaldi_ark (out_path, &n_out);
  AfetRefMatrix global = { 0 }, *mats = NULL;
  double worst = 0.0;

  if (u2s)
    mats = afetref_read_kaldi_ark (mat_path, &n_mat);
  else if (afetref_read_kaldi_matrix (mat_path, &global))
    mats = &global, n_mat = 1;
  if (!in || !out || !mats || n_out != n_in || n_out == 0) {
    printf ("FAIL: %s: cannot read the data\n", label);
    n_fail++;
    goto done;
  }
  for (i = 0; i < n_out; i++) {
    const AfetRefMatrix *x = find (in, n_in, out[i].key), *m = &global;
    double *y, *xd;
    float *cand;
    gsize k;
    double e;
    if (u2s) {
      gchar *spk = speaker_of (u2s, out[i].key);
      m = spk ? find (mats, n_mat, spk) : NULL;
      g_free (spk);
    }
    if (!x || !m || m->rows != out[i].cols || x->rows != out[i].rows) {
      printf ("FAIL: %s: %s has no input, matrix or matching size\n", label,
          out[i].key);
      n_fail++;
      continue;
    }
    /* the input as Kaldi read it (float), the matrix likewise */
    xd = x->data;
    y = g_new (double, (gsize) x->rows * m->rows);
    cand = g_new (float, (gsize) x->rows * m->rows);
    if (!afetref_transform (xd, x->rows, x->cols, m, y)) {
      printf ("FAIL: %s: %d x %d matrix for %d columns\n", label, m->rows,
          m->cols, x->cols);
      n_fail++;
    } else {
      for (k = 0; k < (gsize) x->rows * m->rows; k++)
        cand[k] = (float) out[i].data[k];
      e = afetref_rel_l2 (cand, y, x->rows, m->rows, 0, m->rows);
      worst = MAX (worst, e);
      if (!(e <= TOL)) {
        printf ("FAIL: %s %s: rel L2 %.3g\n", label, out[i].key, e);
        n_fail++;
      }
    }
    g_free (y);
    g_free (cand);
  }
  printf ("%-10s %d entries, worst rel L2 (Kaldi vs double reference) "
      "%.3g\n", label, n_out, worst);
done:
  afetref_matrices_free (in, n_in);
  afetref_matrices_free (out, n_out);
  if (mats == &global)
    g_free (global.data);
  else
    afetref_matrices_free (mats, n_mat);
  g_free (in_path);
  g_free (out_path);
  g_free (mat_path);
  g_free (u2s);
}

int
main (void)
{
  check ("linear", "input/mfcc.ark", "transform/linear.mat", NULL,
      "transform/linear-out.ark");
  check ("affine", "input/mfcc.ark", "transform/affine.mat", NULL,
      "transform/affine-out.ark");
  check ("lda", "transform/spliced.ark", "transform/lda.mat", NULL,
      "transform/lda-out.ark");
  check ("speaker", "input/mfcc.ark", "transform/trans.ark",
      "transform/utt2spk", "transform/spk-out.ark");
  if (n_fail)
    printf ("%d failures\n", n_fail);
  return n_fail ? 1 : 0;
}
