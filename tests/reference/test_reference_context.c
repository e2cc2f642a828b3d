/* Checks the double-precision Kaldi deltas and splicing against Kaldi's own
 * add-deltas and splice-feats output.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Checks afetref_context (Kaldi's deltas and splicing in double precision)
 * against Kaldi's own add-deltas and splice-feats output in
 * tests/data/kaldi-recipe/{deltas,splice} (made from input/mfcc.ark by the
 * generate.sh there): relative L2 per block <= 1e-5 for the deltas, equal
 * values for splicing; and checks that Kaldi's deltas are HTK's in the
 * interior and differ only within 2 N frames of the ends. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>

#include <glib.h>

#include "afetref.h"
#include "afetref_context.h"
#include "afetref_kaldi.h"

#define TOL 1e-5

static int n_pass, n_fail;

static void
result (gboolean ok, const char *what)
{
  printf ("  %s %s\n", ok ? "ok  " : "FAIL", what);
  if (ok)
    n_pass++;
  else
    n_fail++;
}

static gboolean
load (const char *rel, AfetRefArk * ark)
{
  gchar *path = g_build_filename (afetref_testdata_dir (), "kaldi-recipe",
      rel, NULL);
  gboolean ok = afetref_ark_read (path, ark);
  g_free (path);
  return ok;
}

static void
check_deltas (const AfetRefArk * in)
{
  const char *key = "s03_8k";
  int e = afetref_ark_find (in, key), order, w, o;

  printf ("add-deltas of %s\n", key);
  if (e < 0) {
    result (FALSE, "input/mfcc.ark has no s03_8k");
    return;
  }
  for (order = 1; order <= 3; order++)
    for (w = 2; w <= 3; w++) {
      gchar *rel = g_strdup_printf ("deltas/o%d_w%d.ark", order, w);
      AfetRefArk k;
      int T = in->rows[e], d = in->cols[e], dims = d * (order + 1);
      gboolean ok = load (rel, &k) && k.n == 1 &&
          g_str_equal (k.keys[0], key) && k.rows[0] == T &&
          k.cols[0] == dims;
      double worst = 0.0;
      if (ok) {
        double *ref = afetref_kaldi_deltas (in->data[e], T, d, order, w);
        for (o = 0; o <= order; o++) {
          double err = afetref_rel_l2 (k.data[0], ref, T, dims, o * d, d);
          worst = MAX (worst, err);
        }
        g_free (ref);
        afetref_ark_clear (&k);
      }
      gchar *what = g_strdup_printf ("%s: relative L2 %.3e (worst block)",
          rel, worst);
      result (ok && worst <= TOL, what);
      g_free (what);
      g_free (rel);
    }
}

static void
check_splice (const AfetRefArk * in)
{
  const char *key = "s03_16k";
  const int lr[][2] = { {3, 3}, {1, 1}, {2, 0} };
  int e = afetref_ark_find (in, key);
  guint i;

  printf ("splice-feats of %s\n", key);
  if (e < 0) {
    result (FALSE, "input/mfcc.ark has no s03_16k");
    return;
  }
  for (i = 0; i < G_N_ELEMENTS (lr); i++) {
    gchar *rel = g_strdup_printf ("splice/l%dr%d.ark", lr[i][0], lr[i][1]);
    int n = lr[i][0] + lr[i][1] + 1, T = in->rows[e], d = in->cols[e], k;
    int *offs = g_new (int, n);
    AfetRefArk a;
    double diff = -1.0;
    gboolean ok;

    for (k = 0; k < n; k++)
      offs[k] = k - lr[i][0];
    ok = load (rel, &a) && a.n == 1 && g_str_equal (a.keys[0], key) &&
        a.rows[0] == T && a.cols[0] == d * n;
    if (ok) {
      double *ref = afetref_splice (in->data[e], T, d, offs, n);
      diff = afetref_max_abs_strided (a.data[0], NULL, d * n, 0, NULL, ref,
          d * n, 0, T, d * n);
      g_free (ref);
      afetref_ark_clear (&a);
    }
    gchar *what = g_strdup_printf ("%s: largest difference %g", rel, diff);
    result (ok && diff == 0.0, what);
    g_free (what);
    g_free (offs);
    g_free (rel);
  }
}

/* HTK's deltas: each order the regression of the previous order's
 * sequence, its indices clamped (HTK's, as afetdelta preset=htk). */
static double *
htk_deltas (const float *x, int T, int d, int order, int w)
{
  double *seq = g_new (double, (gsize) T * d * (order + 1));
  double *out = g_new (double, (gsize) T * d * (order + 1));
  double norm = 0.0;
  int i, o, t, c, k;

  for (k = 1; k <= w; k++)
    norm += 2.0 * k * k;
  for (i = 0; i < T * d; i++)
    seq[i] = x[i];
  for (o = 1; o <= order; o++) {
    const double *p = seq + (gsize) (o - 1) * T * d;
    double *q = seq + (gsize) o * T * d;
    for (t = 0; t < T; t++)
      for (c = 0; c < d; c++) {
        double acc = 0.0;
        for (k = 1; k <= w; k++) {
          int a = MIN (t + k, T - 1), b = MAX (t - k, 0);
          acc += k * (p[a * d + c] - p[b * d + c]);
        }
        q[t * d + c] = acc / norm;
      }
  }
  for (t = 0; t < T; t++)
    for (o = 0; o <= order; o++)
      for (c = 0; c < d; c++)
        out[(gsize) t * d * (order + 1) + o * d + c] =
            seq[(gsize) o * T * d + t * d + c];
  g_free (seq);
  return out;
}

static void
check_htk_agreement (const AfetRefArk * in)
{
  int e = afetref_ark_find (in, "s01_16k"), order = 3, w = 2;
  int T = in->rows[e], d = in->cols[e], dims = d * (order + 1), t, c;
  double *k = afetref_kaldi_deltas (in->data[e], T, d, order, w);
  double *h = htk_deltas (in->data[e], T, d, order, w);
  double inner = 0.0, deltas = 0.0, edge_acc = 0.0;

  printf ("Kaldi's deltas against HTK's (s01_16k, order 3, window 2)\n");
  for (t = 0; t < T; t++)
    for (c = 0; c < dims; c++) {
      double diff = fabs (k[t * dims + c] - h[t * dims + c]);
      /* order o reads o N frames each side: both agree when none clamps */
      int reach = (c / d) * w;
      if (t >= reach && t < T - reach)
        inner = MAX (inner, diff);
      if (c >= d && c < 2 * d)
        deltas = MAX (deltas, diff);
      if (c >= 2 * d && c < 3 * d && t == 0)
        edge_acc = MAX (edge_acc, diff);
    }
  printf ("  interior max diff %.3e, deltas max diff %.3e, accelerations at "
      "frame 0 max diff %.3e\n", inner, deltas, edge_acc);
  result (inner < 1e-9, "interior frames agree with HTK's");
  result (deltas < 1e-9, "the deltas (order 1) agree everywhere");
  result (edge_acc > 1e-3, "the accelerations differ at the ends");
  g_free (k);
  g_free (h);
}

int
main (void)
{
  AfetRefArk in;

  setvbuf (stdout, NULL, _IOLBF, 0);
  if (!load ("input/mfcc.ark", &in)) {
    printf ("cannot read tests/data/kaldi-recipe/input/mfcc.ark\n");
    return 1;
  }
  check_deltas (&in);
  check_splice (&in);
  check_htk_agreement (&in);
  afetref_ark_clear (&in);
  printf ("%d passed, %d failed\n", n_pass, n_fail);
  return n_fail ? 1 : 0;
}
