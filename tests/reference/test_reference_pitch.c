/* Checks the double-precision Kaldi pitch tracker and its processing against
 * Kaldi's own pitch programs' output.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Checks afetref_pitch against tests/data/kaldi-pitch (made by the
 * generate.sh there with compute-kaldi-pitch-feats, process-kaldi-pitch-feats,
 * compute-and-process-kaldi-pitch-feats and paste-feats) on s01..s03 and the
 * f0 glide at 8 and 16 kHz: the same lag as Kaldi on >= 99.9% of the frames
 * of each mode, pitch within 1e-4 relative and NCCF within 1e-4 where the lag
 * agrees, processed features within 1e-4 relative L2 per column; offline,
 * in chunks of 10 frames, and the first pass. Also checks what the files say
 * of Kaldi: the glide's pitch follows its known f0, the default delta-pitch
 * noise touches only the delta column, and paste-feats --length-tolerance
 * cuts to the shorter stream. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "afetref.h"
#include "afetref_context.h"
#include "afetref_kaldi.h"
#include "afetref_pitch.h"

#define LAG_AGREE 0.999
#define PITCH_TOL 1e-4
#define NCCF_TOL 1e-4
#define PROC_TOL 1e-4
/* The first pass outputs each frame from the traceback of the best lag at
 * the end of its chunk; where two lags tie there to a float's rounding, the
 * reference can pick the neighbour (one frame of s02_8k), which moves that
 * frame's log pitch by 0.5% and, through the normalisation span, the
 * processed features of its neighbours. */
#define FIRST_PASS_PROC_TOL 1e-3

static const char *keys[] = { "s01_8k", "s02_8k", "s03_8k", "glide_8k",
  "s01_16k", "s02_16k", "s03_16k", "glide_16k"
};

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
  gchar *path = g_build_filename (afetref_testdata_dir (), "kaldi-pitch",
      rel, NULL);
  gboolean ok = afetref_ark_read (path, ark);
  if (!ok)
    printf ("cannot read %s\n", path);
  g_free (path);
  return ok;
}

static double *
load_wave (const char *key, int *rate, int *n)
{
  gchar *path = g_str_has_prefix (key, "glide") ?
      g_strdup_printf ("%s/kaldi-pitch/%s.wav", afetref_testdata_dir (), key) :
      g_strdup_printf ("%s/audio/%s.wav", afetref_testdata_dir (), key);
  double *x = afetref_read_wav (path, rate, n);
  g_free (path);
  return x;
}

static void
config_for (AfetRefPitchConfig * c, int rate, int chunk, gboolean first)
{
  afetref_pitch_config_init (c);
  c->samp_freq = rate;
  c->frames_per_chunk = chunk;
  c->simulate_first_pass_online = first;
}

/* The index of the grid lag Kaldi's pitch (1 / lag, in float) came from. */
static int
kaldi_lag (const double *lags, int S, float pitch)
{
  int i, best = 0;
  double bd = G_MAXDOUBLE;

  for (i = 0; i < S; i++) {
    double d = fabs (1.0 / lags[i] - pitch);
    if (d < bd) {
      bd = d;
      best = i;
    }
  }
  return best;
}

typedef struct
{
  int frames, agree;
  double pitch_err, nccf_err;
  gboolean shapes;
} RawStats;

/* Compares one archive of raw pitch with the reference run with the given
 * chunking. */
static void
check_raw (const char *file, int chunk, gboolean first, RawStats * st)
{
  AfetRefArk k;
  guint u;

  memset (st, 0, sizeof (*st));
  st->shapes = load (file, &k) && k.n == (int) G_N_ELEMENTS (keys);
  if (!st->shapes)
    return;
  for (u = 0; u < G_N_ELEMENTS (keys) && st->shapes; u++) {
    int e = afetref_ark_find (&k, keys[u]), rate, n, t, S;
    double *x = load_wave (keys[u], &rate, &n), *lags;
    AfetRefPitchConfig c;
    AfetRefPitch r;

    config_for (&c, rate, chunk, first);
    if (e < 0 || !x || !afetref_pitch_compute (&c, x, n, FALSE, &r) ||
        k.rows[e] != r.n_frames || k.cols[e] != 2) {
      printf ("  %s %s: %d x %d frames in Kaldi's, %d in the reference\n",
          file, keys[u], e < 0 ? -1 : k.rows[e], e < 0 ? -1 : k.cols[e],
          x ? r.n_frames : -1);
      st->shapes = FALSE;
      g_free (x);
      break;
    }
    lags = afetref_pitch_lags (&c, &S);
    for (t = 0; t < r.n_frames; t++) {
      const float *row = k.data[e] + 2 * t;
      st->frames++;
      int kl = kaldi_lag (lags, S, row[1]);
      if (kl != r.lag[t]) {
        printf ("  %s frame %d: Kaldi's lag %d (nccf %.4f), the "
            "reference's %d (nccf %.4f)\n", keys[u], t, kl, row[0],
            r.lag[t], r.nccf[t]);
        continue;
      }
      st->agree++;
      st->pitch_err = MAX (st->pitch_err,
          fabs (row[1] - r.pitch[t]) / r.pitch[t]);
      st->nccf_err = MAX (st->nccf_err, fabs (row[0] - r.nccf[t]));
    }
    g_free (lags);
    afetref_pitch_clear (&r);
    g_free (x);
  }
  afetref_ark_clear (&k);
}

static void
report_raw (const char *file, int chunk, gboolean first)
{
  RawStats st;
  gchar *what;

  check_raw (file, chunk, first, &st);
  printf ("%s: %d of %d frames on Kaldi's lag (%.3f%%), largest pitch "
      "error %.2e relative, NCCF %.2e\n", file, st.agree, st.frames,
      100.0 * st.agree / MAX (st.frames, 1), st.pitch_err, st.nccf_err);
  result (st.shapes, "every entry, as many frames as Kaldi's");
  what = g_strdup_printf ("the same lag on %d of %d frames (>= %.1f%%)",
      st.agree, st.frames, 100 * LAG_AGREE);
  result (st.shapes && st.agree >= LAG_AGREE * st.frames, what);
  g_free (what);
  result (st.shapes && st.pitch_err <= PITCH_TOL,
      "pitch within 1e-4 relative where the lag agrees");
  result (st.shapes && st.nccf_err <= NCCF_TOL,
      "NCCF within 1e-4 where the lag agrees");
}

/* Relative L2 of each column of a T x d candidate against the reference. */
static double
worst_column (const float *kal, const double *ref, int T, int d)
{
  int c;
  double worst = 0.0;

  for (c = 0; c < d; c++)
    worst = MAX (worst, afetref_rel_l2 (kal, ref, T, d, c, 1));
  return worst;
}

/* process-kaldi-pitch-feats of Kaldi's own raw.ark against processed.ark
 * (the processing alone), and of the reference's raw pitch (all of it). */
static void
check_processed (void)
{
  AfetRefArk raw, pro;
  AfetRefProcessPitchConfig pp;
  double alone = 0.0, all = 0.0;
  gboolean ok;
  guint u;

  printf ("processed.ark (process-kaldi-pitch-feats "
      "--delta-pitch-noise-stddev=0)\n");
  afetref_process_pitch_config_init (&pp);
  pp.delta_pitch_noise_stddev = 0.0f;
  ok = load ("raw.ark", &raw) && load ("processed.ark", &pro);
  for (u = 0; ok && u < G_N_ELEMENTS (keys); u++) {
    int e = afetref_ark_find (&raw, keys[u]), f = afetref_ark_find (&pro,
        keys[u]), T, t, rate, n;
    double *nc, *pt, *y, *x;
    AfetRefPitchConfig c;
    AfetRefPitch r;

    if (e < 0 || f < 0 || pro.rows[f] != raw.rows[e] || pro.cols[f] != 3) {
      ok = FALSE;
      break;
    }
    T = raw.rows[e];
    nc = g_new (double, T);
    pt = g_new (double, T);
    for (t = 0; t < T; t++) {
      nc[t] = raw.data[e][2 * t];
      pt[t] = raw.data[e][2 * t + 1];
    }
    y = afetref_process_pitch (&pp, nc, pt, T, NULL);
    alone = MAX (alone, worst_column (pro.data[f], y, T, 3));
    g_free (y);
    g_free (nc);
    g_free (pt);

    x = load_wave (keys[u], &rate, &n);
    config_for (&c, rate, 0, FALSE);
    ok = x && afetref_pitch_compute (&c, x, n, FALSE, &r) && r.n_frames == T;
    if (ok) {
      y = afetref_process_pitch (&pp, r.nccf, r.pitch, T, NULL);
      all = MAX (all, worst_column (pro.data[f], y, T, 3));
      g_free (y);
      afetref_pitch_clear (&r);
    }
    g_free (x);
  }
  printf ("  worst column's relative L2: %.2e processing Kaldi's raw pitch, "
      "%.2e processing the reference's\n", alone, all);
  result (ok, "every entry, as many frames as raw.ark");
  result (ok && alone <= PROC_TOL, "the processing of Kaldi's raw pitch "
      "within 1e-4 relative L2");
  result (ok && all <= PROC_TOL, "the whole chain within 1e-4 relative L2");
  if (ok) {
    afetref_ark_clear (&raw);
    afetref_ark_clear (&pro);
  }
}

/* compute-and-process-kaldi-pitch-feats, offline, in chunks and first pass */
static void
check_cap (const char *file, int chunk, gboolean first, double tol)
{
  AfetRefArk k;
  AfetRefProcessPitchConfig pp;
  double worst = 0.0;
  gboolean ok = load (file, &k);
  guint u;
  gchar *what;

  afetref_process_pitch_config_init (&pp);
  pp.delta_pitch_noise_stddev = 0.0f;
  for (u = 0; ok && u < G_N_ELEMENTS (keys); u++) {
    int e = afetref_ark_find (&k, keys[u]), rate, n, T = 0;
    double *x = load_wave (keys[u], &rate, &n), *y = NULL;
    AfetRefPitchConfig c;

    config_for (&c, rate, chunk, first);
    if (x)
      y = afetref_compute_and_process_pitch (&c, &pp, x, n, &T);
    ok = e >= 0 && y && k.rows[e] == T && k.cols[e] == 3;
    if (ok) {
      double w = worst_column (k.data[e], y, T, 3);
      if (w > tol)
        printf ("  %s: %.2e\n", keys[u], w);
      worst = MAX (worst, w);
    }
    else
      printf ("  %s %s: %d frames in Kaldi's, %d in the reference\n", file,
          keys[u], e < 0 ? -1 : k.rows[e], T);
    g_free (y);
    g_free (x);
  }
  printf ("%s: worst column's relative L2 %.2e\n", file, worst);
  result (ok, "every entry, as many frames as Kaldi's");
  what = g_strdup_printf ("within %g relative L2 (%.2e)", tol, worst);
  result (ok && worst <= tol, what);
  g_free (what);
  if (ok)
    afetref_ark_clear (&k);
}

/* What the files say of Kaldi itself. */
static void
check_kaldi_facts (void)
{
  AfetRefArk raw, pro, noisy, mfcc, joined;
  gboolean ok;
  guint u;
  int t;

  printf ("Kaldi's own behaviour in the files\n");
  /* the glide: frames well inside the voiced part track the known f0 */
  ok = load ("raw.ark", &raw);
  for (u = 0; ok && u < G_N_ELEMENTS (keys); u++) {
    int e = afetref_ark_find (&raw, keys[u]), voiced = 0, near = 0;
    if (!g_str_has_prefix (keys[u], "glide"))
      continue;
    for (t = 0; t < raw.rows[e]; t++) {
      /* frame t's window (25 ms) is centred on 10 t + 12.5 ms */
      double tc = 0.010 * t + 0.0125, f0;
      if (tc < 0.3 || tc > 2.7)
        continue;
      f0 = tc < 1.5 ? 90.0 * pow (320.0 / 90.0, (tc - 0.25) / 1.25) :
          320.0 * pow (140.0 / 320.0, (tc - 1.5) / 1.25);
      voiced++;
      if (fabs (raw.data[e][2 * t + 1] / f0 - 1.0) < 0.03)
        near++;
    }
    gchar *what = g_strdup_printf ("%s: Kaldi's pitch within 3%% of the "
        "glide's f0 on %d of %d voiced frames", keys[u], near, voiced);
    result (near >= 0.98 * voiced, what);
    g_free (what);
  }
  /* the default noise: only the delta pitch moves, by about 10 x 0.005 */
  ok = ok && load ("processed.ark", &pro) && load ("processed_noise.ark",
      &noisy);
  if (ok) {
    double other = 0.0, s2 = 0.0;
    int cnt = 0;
    for (u = 0; u < (guint) pro.n; u++)
      for (t = 0; t < pro.rows[u]; t++) {
        const float *a = pro.data[u] + 3 * t, *b = noisy.data[u] + 3 * t;
        other = MAX (other, fabs (a[0] - b[0]) + fabs (a[1] - b[1]));
        s2 += (double) (a[2] - b[2]) * (a[2] - b[2]);
        cnt++;
      }
    gchar *what = g_strdup_printf ("default delta-pitch noise: columns 1-2 "
        "unchanged (%g), column 3 moved by rms %.4f (10 x 0.005 expected)",
        other, sqrt (s2 / cnt));
    result (other == 0.0 && fabs (sqrt (s2 / cnt) - 0.05) < 0.01, what);
    g_free (what);
  }
  /* paste-feats --length-tolerance=2: the shorter length, side by side */
  {
    gchar *path = g_build_filename (afetref_testdata_dir (), "kaldi-recipe",
        "input", "mfcc.ark", NULL);
    gboolean j = ok && afetref_ark_read (path, &mfcc) &&
        load ("mfcc_pitch.ark", &joined) && joined.n == mfcc.n;
    int cut = 0;
    g_free (path);
    for (u = 0; j && u < (guint) joined.n; u++) {
      int m = afetref_ark_find (&mfcc, joined.keys[u]),
          p = afetref_ark_find (&pro, joined.keys[u]), T, c;
      j = m >= 0 && p >= 0 && joined.cols[u] == 16;
      if (!j)
        break;
      T = MIN (mfcc.rows[m], pro.rows[p]);
      j = joined.rows[u] == T && ABS (mfcc.rows[m] - pro.rows[p]) <= 2;
      cut += mfcc.rows[m] != pro.rows[p];
      for (t = 0; j && t < T; t++)
        for (c = 0; c < 16; c++)
          j = j && joined.data[u][16 * t + c] == (c < 13 ?
              mfcc.data[m][13 * t + c] : pro.data[p][3 * t + c - 13]);
    }
    gchar *what = g_strdup_printf ("mfcc_pitch.ark is MFCC then pitch, cut "
        "to the shorter (%d entries cut)", cut);
    result (j, what);
    g_free (what);
    if (j) {
      afetref_ark_clear (&mfcc);
      afetref_ark_clear (&joined);
    }
  }
  if (ok) {
    afetref_ark_clear (&raw);
    afetref_ark_clear (&pro);
    afetref_ark_clear (&noisy);
  }
}

int
main (void)
{
  setvbuf (stdout, NULL, _IOLBF, 0);
  report_raw ("raw.ark", 0, FALSE);
  {
    /* for the device design: how often the exact best predecessor gives
     * another path than Kaldi's bounded search (no check) */
    RawStats st;
    afetref_pitch_set_exact_search (TRUE);
    check_raw ("raw.ark", 0, FALSE, &st);
    afetref_pitch_set_exact_search (FALSE);
    printf ("raw.ark with the exact predecessor search instead of Kaldi's: "
        "%d of %d frames on Kaldi's lag\n", st.agree, st.frames);
  }
  check_processed ();
  check_cap ("cap.ark", 0, FALSE, PROC_TOL);
  report_raw ("raw_chunk10.ark", 10, FALSE);
  check_cap ("cap_chunk10.ark", 10, FALSE, PROC_TOL);
  report_raw ("raw_chunk10_first.ark", 10, TRUE);
  check_cap ("cap_chunk10_first.ark", 10, TRUE, FIRST_PASS_PROC_TOL);
  check_kaldi_facts ();
  printf ("%d passed, %d failed\n", n_pass, n_fail);
  return n_fail ? 1 : 0;
}
