/* Checks the CMVN statistics reference against compute-cmvn-stats and
 * apply-cmvn.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Verifies the double-precision CMVN statistics reference
 * (afetref_cmvn.c) against Kaldi's own programs
 * (tests/data/kaldi-recipe/cmvn, generate.sh there): compute-cmvn-stats
 * per utterance and per speaker (--spk2utt), apply-cmvn with and without
 * --norm-vars, per utterance and with --utt2spk; and the archive reader on
 * the same statistics as float (FM) and text archives. Each comparison is
 * a relative L2 error that must be <= 1e-5.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "afetref.h"
#include "afetref_kaldi.h"
#include "afetref_cmvn.h"

#define TOL 1e-5

static int n_fail, n_pass;

static double
rel_l2 (const double *a, const double *b, gsize n)
{
  double e = 0, r = 0;
  for (gsize i = 0; i < n; i++) {
    e += (a[i] - b[i]) * (a[i] - b[i]);
    r += b[i] * b[i];
  }
  return r > 0 ? sqrt (e / r) : sqrt (e);
}

static void
report (const char *what, double err)
{
  gboolean ok = err <= TOL;
  printf ("%-48s rel L2 %.3e %s\n", what, err, ok ? "ok" : "FAIL");
  if (ok)
    n_pass++;
  else
    n_fail++;
}

static AfetRefMatrix *
load (const char *rel, int *n)
{
  gchar *p = g_build_filename (afetref_testdata_dir (), "kaldi-recipe", rel,
      NULL);
  AfetRefMatrix *m = afetref_read_kaldi_ark (p, n);
  if (!m) {
    printf ("cannot read %s\n", p);
    n_fail++;
  }
  g_free (p);
  return m;
}

static const char *
speaker (const char *utt)
{
  return g_str_has_suffix (utt, "_8k") ? "spk8k" : "spk16k";
}

int
main (void)
{
  int nf = 0, nu = 0, ns = 0;
  AfetRefMatrix *feats = load ("input/mfcc.ark", &nf);
  AfetRefMatrix *utt = load ("cmvn/cmvn_utt.ark", &nu);
  AfetRefMatrix *spk = load ("cmvn/cmvn_spk.ark", &ns);
  if (!feats || !utt || !spk)
    return 1;
  const int d = feats[0].cols;
  const gsize sn = (gsize) 2 * (d + 1);

  /* compute-cmvn-stats, per utterance and per speaker */
  double *own_spk = g_new0 (double, 2 * sn);
  for (int i = 0; i < nf; i++) {
    double *st = g_new0 (double, sn);
    afetref_cmvn_acc (feats[i].data, feats[i].rows, d, st);
    const AfetRefMatrix *k = afetref_kaldi_ark_find (utt, nu,
        feats[i].key);
    gchar *what = g_strdup_printf ("compute-cmvn-stats %s", feats[i].key);
    report (what, k && k->rows == 2 && k->cols == d + 1 ?
        rel_l2 (st, k->data, sn) : INFINITY);
    g_free (what);
    afetref_cmvn_acc (feats[i].data, feats[i].rows, d,
        own_spk + (strcmp (speaker (feats[i].key), "spk8k") == 0 ? 0 : sn));
    g_free (st);
  }
  const char *spks[2] = { "spk8k", "spk16k" };
  for (int s = 0; s < 2; s++) {
    const AfetRefMatrix *k = afetref_kaldi_ark_find (spk, ns, spks[s]);
    gchar *what = g_strdup_printf ("compute-cmvn-stats --spk2utt %s", spks[s]);
    report (what, k ? rel_l2 (own_spk + s * sn, k->data, sn) : INFINITY);
    g_free (what);
  }

  /* the same statistics as FM and text archives */
  const char *copies[2] = { "cmvn/cmvn_spk_fm.ark", "cmvn/cmvn_spk_text.ark" };
  for (int c = 0; c < 2; c++) {
    int n = 0;
    AfetRefMatrix *m = load (copies[c], &n);
    for (int s = 0; m && s < 2; s++) {
      const AfetRefMatrix *a = afetref_kaldi_ark_find (m, n, spks[s]);
      const AfetRefMatrix *b = afetref_kaldi_ark_find (spk, ns, spks[s]);
      gchar *what = g_strdup_printf ("%s %s", copies[c], spks[s]);
      report (what, a && a->rows == 2 && a->cols == d + 1 ?
          rel_l2 (a->data, b->data, sn) : INFINITY);
      g_free (what);
    }
    afetref_matrices_free (m, n);
  }

  /* apply-cmvn, the reference applying its own statistics */
  const struct
  {
    const char *file;
    gboolean per_speaker, norm_vars;
  } applied[] = {
    {"cmvn/apply_utt.ark", FALSE, FALSE},
    {"cmvn/apply_utt_vars.ark", FALSE, TRUE},
    {"cmvn/apply_spk.ark", TRUE, FALSE},
    {"cmvn/apply_spk_vars.ark", TRUE, TRUE},
  };
  for (gsize a = 0; a < G_N_ELEMENTS (applied); a++) {
    int n = 0;
    AfetRefMatrix *out = load (applied[a].file, &n);
    for (int i = 0; out && i < n; i++) {
      const AfetRefMatrix *x = afetref_kaldi_ark_find (feats, nf,
          out[i].key);
      double st[2 * 64] = { 0 };
      if (applied[a].per_speaker) {
        memcpy (st, own_spk + (strcmp (speaker (out[i].key), "spk8k") == 0 ?
                0 : sn), sn * sizeof (double));
      } else {
        afetref_cmvn_acc (x->data, x->rows, d, st);
      }
      gsize len = (gsize) x->rows * d;
      double *y = g_new (double, len);
      gboolean ok = afetref_cmvn_apply (st, d, applied[a].norm_vars, x->data,
          x->rows, y);
      gchar *what = g_strdup_printf ("%s %s", applied[a].file + 5,
          out[i].key);
      report (what, ok && out[i].rows == x->rows ? rel_l2 (y, out[i].data,
              len) : INFINITY);
      g_free (what);
      g_free (y);
    }
    afetref_matrices_free (out, n);
  }

  afetref_matrices_free (feats, nf);
  afetref_matrices_free (utt, nu);
  afetref_matrices_free (spk, ns);
  g_free (own_spk);
  printf ("%d passed, %d failed\n", n_pass, n_fail);
  return n_fail ? 1 : 0;
}
