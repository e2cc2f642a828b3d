/* A double-precision restatement of Kaldi's pitch tracker and its
 * processing, offline and online.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Kaldi's pitch features in double precision (afetref_pitch.h), written from
 * the algorithm of Kaldi's feat/pitch-functions.cc and feat/resample.cc.
 * The online tracker (PitchTracker below) is the one path: offline is one
 * chunk and the end of input, as in Kaldi. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetref_pitch.h"

#include <math.h>
#include <string.h>

void
afetref_pitch_config_init (AfetRefPitchConfig * c)
{
  c->samp_freq = 16000.0f;
  c->frame_shift_ms = 10.0f;
  c->frame_length_ms = 25.0f;
  c->preemph_coeff = 0.0f;
  c->min_f0 = 50.0f;
  c->max_f0 = 400.0f;
  c->soft_min_f0 = 10.0f;
  c->penalty_factor = 0.1f;
  c->lowpass_cutoff = 1000.0f;
  c->resample_freq = 4000.0f;
  c->delta_pitch = 0.005f;
  c->nccf_ballast = 7000.0f;
  c->lowpass_filter_width = 1;
  c->upsample_filter_width = 5;
  c->max_frames_latency = 0;
  c->frames_per_chunk = 0;
  c->simulate_first_pass_online = FALSE;
  c->recompute_frame = 500;
  c->nccf_ballast_online = FALSE;
  c->snip_edges = TRUE;
}

void
afetref_process_pitch_config_init (AfetRefProcessPitchConfig * p)
{
  p->pitch_scale = 2.0f;
  p->pov_scale = 2.0f;
  p->pov_offset = 0.0f;
  p->delta_pitch_scale = 10.0f;
  p->delta_pitch_noise_stddev = 0.005f;
  p->normalization_left_context = 75;
  p->normalization_right_context = 75;
  p->delta_window = 2;
  p->delay = 0;
  p->add_pov_feature = TRUE;
  p->add_normalized_log_pitch = TRUE;
  p->add_delta_pitch = TRUE;
  p->add_raw_log_pitch = FALSE;
}

int
afetref_process_pitch_dims (const AfetRefProcessPitchConfig * p)
{
  return (p->add_pov_feature ? 1 : 0) + (p->add_normalized_log_pitch ? 1 : 0)
      + (p->add_delta_pitch ? 1 : 0) + (p->add_raw_log_pitch ? 1 : 0);
}

double *
afetref_pitch_lags (const AfetRefPitchConfig * c, int *n)
{
  /* Kaldi keeps the lag in a float and multiplies by (1 + delta) in double
   * each step; the float rounding decides whether the last lag is in. */
  float min_lag = (float) (1.0 / c->max_f0), max_lag = (float) (1.0 / c->min_f0);
  GArray *a = g_array_new (FALSE, FALSE, sizeof (double));
  float lag;

  for (lag = min_lag; lag <= max_lag;
      lag = (float) (lag * (1.0 + c->delta_pitch))) {
    double v = lag;
    g_array_append_val (a, v);
  }
  *n = a->len;
  return (double *) g_array_free (a, FALSE);
}

void
afetref_pitch_measured_lags (const AfetRefPitchConfig * c, int *first,
    int *last)
{
  double half = c->upsample_filter_width / (2.0 * c->resample_freq);

  *first = (int) ceil (c->resample_freq * (1.0 / c->max_f0 - half));
  *last = (int) floor (c->resample_freq * (1.0 / c->min_f0 + half));
}

/* The windowed sinc both of Kaldi's resamplers use: a sinc of cutoff fc
 * (gain 2 fc at 0) under a raised cosine reaching zero at num_zeros / (2 fc)
 * seconds from the centre. */
static double
windowed_sinc (double t, double fc, int num_zeros)
{
  double w = 0.0, f;

  if (fabs (t) < num_zeros / (2.0 * fc))
    w = 0.5 * (1.0 + cos (2.0 * G_PI * fc / num_zeros * t));
  f = t != 0.0 ? sin (2.0 * G_PI * fc * t) / (G_PI * t) : 2.0 * fc;
  return f * w;
}

static gint64
gcd64 (gint64 a, gint64 b)
{
  while (b != 0) {
    gint64 r = a % b;
    a = b;
    b = r;
  }
  return a;
}

gint64
afetref_linear_resample_count (gint64 n_in, int rate_in, int rate_out,
    double cutoff, int num_zeros, gboolean flush)
{
  gint64 tick = (gint64) rate_in / gcd64 (rate_in, rate_out) * rate_out;
  gint64 ticks = n_in * (tick / rate_in), per_out = tick / rate_out, last;

  if (!flush) {
    /* without the end of the input, the outputs whose filter reaches past
     * the last input sample wait; Kaldi holds the half width in a float */
    float width = (float) (num_zeros / (2.0 * (float) cutoff));
    ticks -= (gint64) floorf (width * (float) tick);
  }
  if (ticks <= 0)
    return 0;
  /* the outputs at times in [0, ticks) */
  last = ticks / per_out;
  if (last * per_out == ticks)
    last--;
  return last + 1;
}

/* Output sample k of the resampled signal of x[0 .. n - 1] (zeros outside):
 * the inputs within the filter's support around k / rate_out, found from
 * k's position within the repeating unit of both periods as Kaldi does. */
static double
resample_at (const double *x, gint64 n, gint64 k, int rate_in, int rate_out,
    double cutoff, int num_zeros)
{
  gint64 g = gcd64 (rate_in, rate_out), out_unit = rate_out / g,
      in_unit = rate_in / g, unit = k / out_unit, w = k - unit * out_unit, i;
  double width = num_zeros / (2.0 * cutoff), t_out = (double) w / rate_out;
  gint64 i0 = (gint64) ceil ((t_out - width) * rate_in),
      i1 = (gint64) floor ((t_out + width) * rate_in);
  double acc = 0.0;

  for (i = i0; i <= i1; i++) {
    gint64 idx = i + unit * in_unit;
    if (idx >= 0 && idx < n)
      acc += windowed_sinc ((double) i / rate_in - t_out, cutoff,
          num_zeros) / rate_in * x[idx];
  }
  return acc;
}

double *
afetref_linear_resample (const double *x, gint64 n, int rate_in,
    int rate_out, double cutoff, int num_zeros, gint64 * n_out)
{
  gint64 m = afetref_linear_resample_count (n, rate_in, rate_out, cutoff,
      num_zeros, TRUE), k;
  double *y = g_new0 (double, MAX (m, 1));

  for (k = 0; k < m; k++)
    y[k] = resample_at (x, n, k, rate_in, rate_out, cutoff, num_zeros);
  *n_out = m;
  return y;
}

double
afetref_nccf_to_pov_feature (double n)
{
  n = CLAMP (n, -1.0, 1.0);
  return pow (1.0001 - n, 0.15) - 1.0;
}

double
afetref_nccf_to_pov (double n)
{
  double a = MIN (fabs (n), 1.0);
  double r = -5.2 + 5.4 * exp (7.5 * (a - 1.0)) + 4.8 * a
      - 2.0 * exp (-10.0 * a) + 4.2 * exp (20.0 * (a - 1.0));
  return 1.0 / (1.0 + exp (-r));
}

/* ---- the tracker ---- */

/* One output lag's taps in the NCCF upsampler: measured lags first ..
 * first + n - 1 (counted from the first measured lag). */
typedef struct
{
  int first;
  int n;
  double *w;
} Taps;

typedef struct
{
  AfetRefPitchConfig c;
  double *lags;
  int S;                        /* number of lags on the grid */
  int lag0, lag1;               /* measured lags */
  int M;                        /* lag1 - lag0 + 1 */
  int basic, full, shift;       /* window, window + lag1, shift (samples) */
  Taps *taps;

  /* input so far, and its downsampled signal */
  GArray *wave;                 /* double */
  GArray *ds;                   /* double */
  gboolean finished;

  /* per frame */
  GPtrArray *bp;                /* int[S] backpointers */
  GPtrArray *pov;               /* double[S] POV NCCF on the grid */
  GPtrArray *pitch_nccf;        /* double[S], frames < recompute_frame */
  GArray *avg_norm;             /* double, frames < recompute_frame */
  GArray *mean_sq;              /* double, frames < recompute_frame */
  gboolean recomputed;          /* RecomputeBacktraces has run */
  GPtrArray *seen;              /* double[S]: the NCCF the Viterbi used */
  double *fwd;                  /* forward cost, min 0 */
  int *path;                    /* traceback: lag index per frame */
  int path_len;
  int latency;
} PitchTracker;

static gboolean
tracker_init (PitchTracker * p, const AfetRefPitchConfig * c)
{
  int i, j;
  double upcut, rate;

  memset (p, 0, sizeof (*p));
  p->c = *c;
  if (c->samp_freq <= 0 || c->resample_freq <= 0 || c->min_f0 <= 0 ||
      c->max_f0 <= c->min_f0 || c->lowpass_cutoff <= 0 ||
      2 * c->lowpass_cutoff > c->resample_freq ||
      2 * c->lowpass_cutoff > c->samp_freq ||
      c->lowpass_filter_width <= 0 || c->upsample_filter_width <= 0 ||
      c->delta_pitch <= 0 || c->frame_shift_ms <= 0 ||
      c->frame_length_ms <= 0 || c->frames_per_chunk < 0 ||
      (c->simulate_first_pass_online && c->frames_per_chunk == 0)) {
    g_printerr ("afetref_pitch: options out of Kaldi's ranges\n");
    return FALSE;
  }
  p->lags = afetref_pitch_lags (c, &p->S);
  afetref_pitch_measured_lags (c, &p->lag0, &p->lag1);
  p->M = p->lag1 - p->lag0 + 1;
  p->basic = (int) (c->resample_freq * c->frame_length_ms / 1000.0);
  p->shift = (int) (c->resample_freq * c->frame_shift_ms / 1000.0);
  p->full = p->basic + p->lag1;

  /* the NCCF, measured at integer lags lag0 .. lag1, is a signal sampled at
   * resample_freq starting at lag0; upsample it to the grid with a windowed
   * sinc of cutoff resample_freq / 2 */
  rate = c->resample_freq;
  upcut = rate * 0.5;
  p->taps = g_new0 (Taps, p->S);
  for (i = 0; i < p->S; i++) {
    double t = p->lags[i] - p->lag0 / rate;
    double half = c->upsample_filter_width / (2.0 * upcut);
    int a = (int) ceil (rate * (t - half)), b = (int) floor (rate * (t + half));
    a = MAX (a, 0);
    b = MIN (b, p->M - 1);
    p->taps[i].first = a;
    p->taps[i].n = b - a + 1;
    p->taps[i].w = g_new (double, MAX (p->taps[i].n, 1));
    for (j = 0; j < p->taps[i].n; j++)
      p->taps[i].w[j] = windowed_sinc (t - (a + j) / rate, upcut,
          c->upsample_filter_width) / rate;
  }

  p->wave = g_array_new (FALSE, FALSE, sizeof (double));
  p->ds = g_array_new (FALSE, FALSE, sizeof (double));
  p->bp = g_ptr_array_new_with_free_func (g_free);
  p->pov = g_ptr_array_new_with_free_func (g_free);
  p->pitch_nccf = g_ptr_array_new_with_free_func (g_free);
  p->seen = g_ptr_array_new_with_free_func (g_free);
  p->avg_norm = g_array_new (FALSE, FALSE, sizeof (double));
  p->mean_sq = g_array_new (FALSE, FALSE, sizeof (double));
  p->fwd = g_new0 (double, p->S);       /* frame -1: all zero */
  return TRUE;
}

static void
tracker_clear (PitchTracker * p)
{
  int i;

  for (i = 0; i < p->S && p->taps; i++)
    g_free (p->taps[i].w);
  g_free (p->taps);
  g_free (p->lags);
  if (p->wave) {
    g_array_free (p->wave, TRUE);
    g_array_free (p->ds, TRUE);
    g_ptr_array_free (p->bp, TRUE);
    g_ptr_array_free (p->pov, TRUE);
    g_ptr_array_free (p->pitch_nccf, TRUE);
    g_ptr_array_free (p->seen, TRUE);
    g_array_free (p->avg_norm, TRUE);
    g_array_free (p->mean_sq, TRUE);
  }
  g_free (p->fwd);
  g_free (p->path);
}

static int
n_frames (const PitchTracker * p)
{
  return (int) p->bp->len;
}

/* How many frames n downsampled samples give (Kaldi's NumFramesAvailable):
 * before the end, a frame needs its whole window and every lag after it. */
static int
frames_available (const PitchTracker * p, gint64 n)
{
  int len = p->basic + (p->finished ? 0 : p->lag1);

  if (n < len)
    return 0;
  if (p->c.snip_edges)
    return (int) ((n - len) / p->shift + 1);
  if (p->finished)
    return (int) ((float) n * 1.0f / p->shift + 0.5f);
  return (int) ((float) (n - len / 2) * 1.0f / p->shift + 0.5f);
}

static gint64
frame_start (const PitchTracker * p, int t)
{
  if (p->c.snip_edges)
    return (gint64) t * p->shift;
  return (gint64) ((t + 0.5) * p->shift) - p->full / 2;
}

static gboolean exact_search = FALSE;

void
afetref_pitch_set_exact_search (gboolean exact)
{
  exact_search = exact;
}

/* The transition into lag index i from j on the previous frame: its forward
 * cost and factor (i - j)^2, in float as Kaldi computes it. */
#define ARRIVE(j) ((float) (((j) - i) * ((j) - i)) * factor + prev[(j)])

/* Kaldi's search for the best predecessor of every lag index: it relies on
 * the best predecessor growing with i, and on each cost curve having one
 * minimum near it, so it stops scanning as soon as the cost stops falling.
 * A first pass up the lags from the previous lag's predecessor; then passes
 * down and up the lags, each narrowing the interval the predecessor of i is
 * known to lie in (lo[i] .. hi[i]) by scanning in from the far end, until a
 * pass changes nothing. */
static void
kaldi_search (int S, float factor, const float *prev, float *best_out,
    int *bp, int *lo, int *hi)
{
  int i, j, iter, last = 0;

  for (i = 0; i < S; i++) {
    int bj = last;
    float best = ARRIVE (bj);
    for (j = last + 1; j < S; j++) {
      float v = ARRIVE (j);
      if (v < best) {
        best = v;
        bj = j;
      } else {
        break;
      }
    }
    bp[i] = bj;
    best_out[i] = best;
    lo[i] = bj;
    hi[i] = S - 1;
    last = bj;
  }
  for (iter = 0; iter < S; iter++) {
    gboolean changed = FALSE;
    if (iter % 2 == 0) {
      /* down the lags: scan down from the upper bound, tightening it */
      last = S - 1;
      for (i = S - 1; i >= 0; i--) {
        int l = lo[i], u = MIN (last, hi[i]), bj = bp[i], first = bp[i];
        float best = best_out[i];
        if (u == l || bj == u) {
          last = u == l ? l : bj;
          continue;
        }
        for (j = u; j > l + 1; j--) {
          float v = ARRIVE (j);
          if (v < best) {
            best = v;
            bj = j;
          } else if (bj > j) {
            break;
          }
        }
        hi[i] = bj;
        if (bj != first) {
          best_out[i] = best;
          bp[i] = bj;
          changed = TRUE;
        }
        last = bj;
      }
    } else {
      /* up the lags: scan up from the lower bound, tightening it */
      last = 0;
      for (i = 0; i < S; i++) {
        int l = MAX (last, lo[i]), u = hi[i], bj = bp[i], first = bp[i];
        float best = best_out[i];
        if (u == l || bj == l) {
          last = u == l ? l : bj;
          continue;
        }
        for (j = l; j < u - 1; j++) {
          float v = ARRIVE (j);
          if (v < best) {
            best = v;
            bj = j;
          } else if (bj < j) {
            break;
          }
        }
        lo[i] = bj;
        if (bj != first) {
          best_out[i] = best;
          bp[i] = bj;
          changed = TRUE;
        }
        last = bj;
      }
    }
    if (!changed)
      break;
  }
}

/* The Viterbi step of one frame: forward cost and backpointers from the
 * previous frame's forward cost; the transition from lag index j to i costs
 * factor (i - j)^2, the local cost is 1 - nccf (1 - soft_min_f0 lag). The
 * predecessor is Kaldi's search's (or, with exact search, the lowest of the
 * best). The forward cost is then shifted so its minimum is 0.
 *
 * This step alone is in float, as in Kaldi: on silence every lag's local
 * cost is 1 and paths differ in cost by less than a float's rounding, so
 * which lag Kaldi keeps there is decided by float rounding. In double the
 * reference chose another lag than Kaldi on 2% of the frames of the test
 * recordings, all such ties (path costs within 1e-7 of each other); in float,
 * from double NCCFs, on none but one. */
static void
viterbi_step (const PitchTracker * p, const double *nccf, const double *prev_d,
    double *cur, int *bp)
{
  int i, j, S = p->S;
  /* Kaldi: the squared log step in a float, times the penalty in float */
  float factor = (float) pow (log (1.0 + p->c.delta_pitch), 2.0) *
      p->c.penalty_factor;
  float *prev = g_new (float, S), *best = g_new (float, S), lo = G_MAXFLOAT;

  for (i = 0; i < S; i++)
    prev[i] = (float) prev_d[i];
  if (exact_search) {
    for (i = 0; i < S; i++) {
      best[i] = G_MAXFLOAT;
      for (j = 0; j < S; j++) {
        float v = ARRIVE (j);
        if (v < best[i]) {
          best[i] = v;
          bp[i] = j;
        }
      }
    }
  } else {
    int *lb = g_new (int, S), *ub = g_new (int, S);
    kaldi_search (S, factor, prev, best, bp, lb, ub);
    g_free (lb);
    g_free (ub);
  }
  for (i = 0; i < S; i++) {
    float n = (float) nccf[i];
    float local = (1.0f - n) + p->c.soft_min_f0 * n * (float) p->lags[i];
    best[i] += local;
    lo = MIN (lo, best[i]);
  }
  for (i = 0; i < S; i++)
    cur[i] = best[i] - lo;
  g_free (prev);
  g_free (best);
}

#undef ARRIVE

static int
argmin (const double *v, int n)
{
  int i, b = 0;

  for (i = 1; i < n; i++)
    if (v[i] < v[b])
      b = i;
  return b;
}

/* The best path from the lowest final forward cost back to frame 0. */
static void
traceback (PitchTracker * p)
{
  int T = n_frames (p), t, s = argmin (p->fwd, p->S);

  p->path = g_renew (int, p->path, MAX (T, 1));
  p->path_len = T;
  for (t = T - 1; t >= 0; t--) {
    p->path[t] = s;
    s = ((int *) g_ptr_array_index (p->bp, t))[s];
  }
}

/* How many of the last frames the traceback has not settled (Kaldi's
 * ComputeLatency): follow the paths from the lowest and highest lag back
 * until they meet, at most max_frames_latency frames. */
static int
latency (const PitchTracker * p)
{
  int lat = 0, lo = 0, hi = p->S - 1, t = n_frames (p) - 1;

  if (p->c.max_frames_latency <= 0)
    return 0;
  while (lat < p->c.max_frames_latency) {
    if (t < 0)
      return lat;               /* frame -1: every path starts there */
    lo = ((int *) g_ptr_array_index (p->bp, t))[lo];
    hi = ((int *) g_ptr_array_index (p->bp, t))[hi];
    if (lo == hi)
      return lat;
    t--;
    lat++;
  }
  return lat;
}

static void
signal_stats (const PitchTracker * p, gint64 end, double *mean_square)
{
  const double *d = (const double *) p->ds->data;
  double s = 0.0, s2 = 0.0;
  gint64 i;

  for (i = 0; i < end; i++) {
    s += d[i];
    s2 += d[i] * d[i];
  }
  *mean_square = end > 0 ? s2 / end - (s / end) * (s / end) : 0.0;
}

/* Kaldi's RecomputeBacktraces: once recompute_frame frames are in (or at the
 * end, if fewer), the energy of the whole input so far replaces the partial
 * estimates the early frames' ballast used; if any differs by more than 1%,
 * every early frame's NCCF is rescaled by the ratio its average e1 e2 gives
 * and the Viterbi of those frames is run again. */
static void
recompute (PitchTracker * p)
{
  int T = n_frames (p), t;
  double ms, new_ballast;
  gboolean must = FALSE;
  double *prev, *cur;

  p->recomputed = TRUE;
  if (T == 0)
    return;
  signal_stats (p, p->ds->len, &ms);
  /* Kaldi keeps these in floats */
  ms = (float) ms;
  for (t = 0; t < T; t++) {
    double a = g_array_index (p->mean_sq, double, t);
    if (!(a == ms || fabs (a - ms) <= 0.01 * (fabs (a) + fabs (ms))))
      must = TRUE;
  }
  if (!must)
    return;
  new_ballast = pow (ms * p->basic, 2.0) * p->c.nccf_ballast;
  prev = g_new0 (double, p->S);
  cur = g_new (double, p->S);
  for (t = 0; t < T; t++) {
    double old_ms = g_array_index (p->mean_sq, double, t),
        avg = g_array_index (p->avg_norm, double, t),
        old_ballast = pow (old_ms * p->basic, 2.0) * p->c.nccf_ballast,
        scale = sqrt ((old_ballast + avg) / (new_ballast + avg));
    double *nc = g_ptr_array_index (p->pitch_nccf, t);
    int i;
    for (i = 0; i < p->S; i++)
      nc[i] *= scale;
    memcpy (g_ptr_array_index (p->seen, t), nc, p->S * sizeof (double));
    viterbi_step (p, nc, prev, cur, g_ptr_array_index (p->bp, t));
    memcpy (prev, cur, p->S * sizeof (double));
  }
  memcpy (p->fwd, prev, p->S * sizeof (double));
  g_free (prev);
  g_free (cur);
  traceback (p);
  p->latency = latency (p);
}

/* Kaldi's AcceptWaveform: n more samples (none at the end of input). */
static void
tracker_accept (PitchTracker * p, const double *x, gint64 n)
{
  const AfetRefPitchConfig *c = &p->c;
  gint64 have, want, k;
  int start, end, t, i, l;
  double *win, *inner, *norm, *nccf_m, *pov_m, ms_all = 0.0;

  g_array_append_vals (p->wave, x, n);

  /* the downsampled signal so far: the same values whatever the chunks,
   * those whose filter is inside the input until the end */
  have = p->ds->len;
  want = afetref_linear_resample_count (p->wave->len, (int) c->samp_freq,
      (int) c->resample_freq, c->lowpass_cutoff, c->lowpass_filter_width,
      p->finished);
  for (k = have; k < want; k++) {
    double v = resample_at ((const double *) p->wave->data, p->wave->len, k,
        (int) c->samp_freq, (int) c->resample_freq, c->lowpass_cutoff,
        c->lowpass_filter_width);
    g_array_append_val (p->ds, v);
  }

  start = n_frames (p);
  end = frames_available (p, p->ds->len);
  if (end <= start)
    return;

  if (!c->nccf_ballast_online)
    signal_stats (p, p->ds->len, &ms_all);
  win = g_new (double, p->full);
  inner = g_new (double, p->M);
  norm = g_new (double, p->M);
  nccf_m = g_new (double, p->M);
  pov_m = g_new (double, p->M);
  for (t = start; t < end; t++) {
    gint64 s0 = frame_start (p, t);
    const double *d = (const double *) p->ds->data;
    double mean = 0.0, e1 = 0.0, ms, ballast, avg = 0.0;
    double *nc = g_new (double, p->S), *pv = g_new (double, p->S);
    double *seen = g_new (double, p->S);
    double *cur = g_new (double, p->S);
    int *bp = g_new (int, p->S);

    /* the frame's window and all lags after it, zero outside the signal */
    for (i = 0; i < p->full; i++) {
      k = s0 + i;
      win[i] = (k >= 0 && k < (gint64) p->ds->len) ? d[k] : 0.0;
    }
    if (c->preemph_coeff != 0.0f) {
      for (i = p->full - 1; i > 0; i--)
        win[i] -= c->preemph_coeff * win[i - 1];
      win[0] *= 1.0 - c->preemph_coeff;
    }
    /* the mean of the first window is taken from all of it */
    for (i = 0; i < p->basic; i++)
      mean += win[i];
    mean /= p->basic;
    for (i = 0; i < p->full; i++)
      win[i] -= mean;
    for (i = 0; i < p->basic; i++)
      e1 += win[i] * win[i];
    for (l = 0; l < p->M; l++) {
      double e2 = 0.0, ip = 0.0;
      const double *w2 = win + p->lag0 + l;
      for (i = 0; i < p->basic; i++) {
        e2 += w2[i] * w2[i];
        ip += win[i] * w2[i];
      }
      inner[l] = ip;
      norm[l] = e1 * e2;
      avg += norm[l];
    }
    avg /= p->M;

    /* the ballast: the input's energy so far (online: up to this frame's
     * last sample), squared and scaled */
    if (c->nccf_ballast_online)
      signal_stats (p, MIN (s0 + p->full, (gint64) p->ds->len), &ms);
    else
      ms = ms_all;
    ballast = pow (ms * p->basic, 2.0) * c->nccf_ballast;
    for (l = 0; l < p->M; l++) {
      double den = sqrt (norm[l] + ballast), den0 = sqrt (norm[l]);
      nccf_m[l] = den != 0.0 ? inner[l] / den : 0.0;
      pov_m[l] = den0 != 0.0 ? inner[l] / den0 : 0.0;
    }
    /* upsample both to the lag grid */
    for (i = 0; i < p->S; i++) {
      const Taps *tp = &p->taps[i];
      double a = 0.0, b = 0.0;
      for (l = 0; l < tp->n; l++) {
        a += tp->w[l] * nccf_m[tp->first + l];
        b += tp->w[l] * pov_m[tp->first + l];
      }
      nc[i] = a;
      pv[i] = b;
    }

    memcpy (seen, nc, p->S * sizeof (double));
    viterbi_step (p, nc, p->fwd, cur, bp);
    g_free (p->fwd);
    p->fwd = cur;
    g_ptr_array_add (p->bp, bp);
    g_ptr_array_add (p->pov, pv);
    g_ptr_array_add (p->seen, seen);
    if (t < c->recompute_frame) {
      g_ptr_array_add (p->pitch_nccf, nc);
      g_array_append_val (p->avg_norm, avg);
      ms = (float) ms;          /* Kaldi keeps it in a float */
      g_array_append_val (p->mean_sq, ms);
    } else {
      g_free (nc);
    }
    if (t == c->recompute_frame - 1 && !c->nccf_ballast_online &&
        !p->recomputed)
      recompute (p);
  }
  g_free (win);
  g_free (inner);
  g_free (norm);
  g_free (nccf_m);
  g_free (pov_m);
  traceback (p);
  p->latency = latency (p);
}

static void
tracker_finish (PitchTracker * p)
{
  p->finished = TRUE;
  tracker_accept (p, NULL, 0);
  if (n_frames (p) < p->c.recompute_frame && !p->c.nccf_ballast_online &&
      !p->recomputed)
    recompute (p);
  p->latency = 0;
}

static int
frames_ready (const PitchTracker * p)
{
  return p->path_len - p->latency;
}

static double
frame_nccf (const PitchTracker * p, int t)
{
  return ((double *) g_ptr_array_index (p->pov, t))[p->path[t]];
}

static double
frame_pitch (const PitchTracker * p, int t)
{
  return 1.0 / p->lags[p->path[t]];
}

static gint64
chunk_samples (const AfetRefPitchConfig * c)
{
  /* Kaldi's float product */
  return (gint64) (int) (c->frames_per_chunk * c->samp_freq *
      c->frame_shift_ms / 1000.0f);
}

void
afetref_pitch_clear (AfetRefPitch * r)
{
  g_free (r->nccf);
  g_free (r->pitch);
  g_free (r->lag);
  g_free (r->nccf_pitch);
  g_free (r->nccf_pov);
  memset (r, 0, sizeof (*r));
}

static void
result_set (AfetRefPitch * out, const PitchTracker * p, int t)
{
  out->nccf[t] = frame_nccf (p, t);
  out->pitch[t] = frame_pitch (p, t);
  out->lag[t] = p->path[t];
}

gboolean
afetref_pitch_compute (const AfetRefPitchConfig * c, const double *wave,
    gint64 n, gboolean keep_nccf, AfetRefPitch * out)
{
  PitchTracker p;
  int T, t;
  gint64 chunk, off = 0;

  memset (out, 0, sizeof (*out));
  if (!tracker_init (&p, c)) {
    tracker_clear (&p);
    return FALSE;
  }
  chunk = c->frames_per_chunk > 0 ? MAX (chunk_samples (c), 1) : MAX (n, 1);
  if (c->simulate_first_pass_online) {
    /* each frame as it is when first ready */
    int done = 0, cap = 64;
    out->nccf = g_new (double, cap);
    out->pitch = g_new (double, cap);
    out->lag = g_new (int, cap);
    while (off < n) {
      gint64 m = MIN (chunk, n - off);
      tracker_accept (&p, wave + off, m);
      off += m;
      if (off == n)
        tracker_finish (&p);
      for (; done < frames_ready (&p); done++) {
        if (done >= cap) {
          cap *= 2;
          out->nccf = g_renew (double, out->nccf, cap);
          out->pitch = g_renew (double, out->pitch, cap);
          out->lag = g_renew (int, out->lag, cap);
        }
        result_set (out, &p, done);
      }
    }
    out->n_frames = done;
  } else {
    while (off < n) {
      gint64 m = MIN (chunk, n - off);
      tracker_accept (&p, wave + off, m);
      off += m;
    }
    tracker_finish (&p);
    T = frames_ready (&p);
    out->n_frames = T;
    out->nccf = g_new (double, MAX (T, 1));
    out->pitch = g_new (double, MAX (T, 1));
    out->lag = g_new (int, MAX (T, 1));
    for (t = 0; t < T; t++)
      result_set (out, &p, t);
  }
  out->n_lags = p.S;
  if (keep_nccf) {
    T = n_frames (&p);
    out->nccf_pitch = g_new (double, (gsize) MAX (T, 1) * p.S);
    out->nccf_pov = g_new (double, (gsize) MAX (T, 1) * p.S);
    for (t = 0; t < T; t++) {
      memcpy (out->nccf_pitch + (gsize) t * p.S,
          g_ptr_array_index (p.seen, t), p.S * sizeof (double));
      memcpy (out->nccf_pov + (gsize) t * p.S,
          g_ptr_array_index (p.pov, t), p.S * sizeof (double));
    }
  }
  tracker_clear (&p);
  return TRUE;
}

/* ---- processing ---- */

/* Processed frame t (after the delay) of n raw frames as they stand. */
static void
process_frame (const AfetRefProcessPitchConfig * pp, const double *nccf,
    const double *pitch, int n, int t, const double *noise, double *out)
{
  int k = 0, f;

  if (pp->add_pov_feature)
    out[k++] = pp->pov_scale * afetref_nccf_to_pov_feature (nccf[t]) +
        pp->pov_offset;
  if (pp->add_normalized_log_pitch) {
    /* log pitch less its mean over the normalisation span, each frame
     * weighted by its probability of voicing */
    int b = MAX (0, t - pp->normalization_left_context),
        e = MIN (t + pp->normalization_right_context + 1, n);
    double sw = 0.0, swl = 0.0;
    for (f = b; f < e; f++) {
      double w = afetref_nccf_to_pov (nccf[f]);
      sw += w;
      swl += w * log (pitch[f]);
    }
    out[k++] = (log (pitch[t]) - swl / sw) * pp->pitch_scale;
  }
  if (pp->add_delta_pitch) {
    /* Kaldi's first-order delta of the log pitch over the frames that are
     * there, the ends repeated */
    int N = pp->delta_window, b = MAX (0, t - N), e = MIN (t + N + 1, n), j;
    double num = 0.0, den = 0.0;
    for (j = 1; j <= N; j++) {
      int fp = MIN (t + j, e - 1), fm = MAX (t - j, b);
      num += j * (log (pitch[fp]) - log (pitch[fm]));
      den += 2.0 * j * j;
    }
    out[k++] = (num / den + (noise ? noise[t] : 0.0)) * pp->delta_pitch_scale;
  }
  if (pp->add_raw_log_pitch)
    out[k++] = log (pitch[t]);
}

double *
afetref_process_pitch (const AfetRefProcessPitchConfig * pp,
    const double *nccf, const double *pitch, int T, const double *noise)
{
  int dims = afetref_process_pitch_dims (pp), t, rows;
  double *y;

  if (dims == 0 || (pp->delta_pitch_noise_stddev != 0.0f && !noise &&
          pp->add_delta_pitch)) {
    g_printerr ("afetref_process_pitch: %s\n", dims == 0 ?
        "no feature selected" : "delta-pitch noise without the noise array "
        "(Kaldi's comes from rand ())");
    return NULL;
  }
  rows = T > 0 ? T + pp->delay : 0;
  y = g_new0 (double, (gsize) MAX (rows, 1) * dims);
  for (t = 0; t < rows; t++)
    process_frame (pp, nccf, pitch, T, MAX (0, t - pp->delay), noise,
        y + (gsize) t * dims);
  return y;
}

double *
afetref_compute_and_process_pitch (const AfetRefPitchConfig * c,
    const AfetRefProcessPitchConfig * pp, const double *wave, gint64 n,
    int *n_frames_out)
{
  PitchTracker p;
  int dims = afetref_process_pitch_dims (pp), T, t, done = 0, cap = 64;
  gint64 chunk, off = 0;
  double *y, *nc, *pt;

  *n_frames_out = 0;
  if (dims == 0 || (pp->delta_pitch_noise_stddev != 0.0f &&
          pp->add_delta_pitch)) {
    g_printerr ("afetref_compute_and_process_pitch: %s\n", dims == 0 ?
        "no feature selected" : "delta-pitch noise (Kaldi's comes from "
        "rand ()): set it to 0");
    return NULL;
  }
  if (!tracker_init (&p, c)) {
    tracker_clear (&p);
    return NULL;
  }
  chunk = c->frames_per_chunk > 0 ? MAX (chunk_samples (c), 1) : MAX (n, 1);
  y = g_new0 (double, (gsize) cap * dims);
  nc = g_new (double, 1);
  pt = g_new (double, 1);
  /* frames go out as soon as the processing has them: all the frames the
   * tracker has, less the normalisation's right context until the end */
  while (off < n) {
    gint64 m = MIN (chunk, n - off);
    int ready, src;
    tracker_accept (&p, wave + off, m);
    off += m;
    if (off == n)
      tracker_finish (&p);
    src = frames_ready (&p);
    nc = g_renew (double, nc, MAX (src, 1));
    pt = g_renew (double, pt, MAX (src, 1));
    for (t = 0; t < src; t++) {
      nc[t] = frame_nccf (&p, t);
      pt[t] = frame_pitch (&p, t);
    }
    if (src == 0)
      ready = 0;
    else if (off == n)
      ready = src + pp->delay;
    else
      ready = MAX (0, src - pp->normalization_right_context + pp->delay);
    for (; done < ready; done++) {
      if (done >= cap) {
        cap *= 2;
        y = g_renew (double, y, (gsize) cap * dims);
      }
      process_frame (pp, nc, pt, src, MAX (0, done - pp->delay), NULL,
          y + (gsize) done * dims);
    }
  }
  if (!c->simulate_first_pass_online) {
    /* the final features, again from the final traceback */
    T = frames_ready (&p);
    g_free (y);
    y = afetref_process_pitch (pp, nc, pt, T, NULL);
    done = T > 0 ? T + pp->delay : 0;
  }
  g_free (nc);
  g_free (pt);
  tracker_clear (&p);
  *n_frames_out = done;
  return y;
}
