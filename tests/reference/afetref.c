/* Double-precision reference implementation of HTK-style MFCC, log mel
 * filter-bank and PLP features.
 * Copyright (C) 2026 the afet authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * This library is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
 * Library General Public License for more details.
 *
 * You should have received a copy of the GNU Library General Public
 * License along with this library; if not, write to the
 * Free Software Foundation, Inc., 51 Franklin St, Fifth Floor,
 * Boston, MA 02110-1301, USA.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Written from the formulas only; see afetref.h. */

#include "afetref.h"

#include <math.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---------------------------------------------------------------------- */
/* Little helpers for byte-order independent reading                      */
/* ---------------------------------------------------------------------- */

static guint32
rd_le32 (const guint8 * p)
{
  return (guint32) p[0] | ((guint32) p[1] << 8) | ((guint32) p[2] << 16) |
      ((guint32) p[3] << 24);
}

static guint16
rd_le16 (const guint8 * p)
{
  return (guint16) (p[0] | (p[1] << 8));
}

static guint32
rd_be32 (const guint8 * p)
{
  return ((guint32) p[0] << 24) | ((guint32) p[1] << 16) |
      ((guint32) p[2] << 8) | (guint32) p[3];
}

static guint16
rd_be16 (const guint8 * p)
{
  return (guint16) ((p[0] << 8) | p[1]);
}

/* ---------------------------------------------------------------------- */
/* WAV reader                                                             */
/* ---------------------------------------------------------------------- */

#define WAVE_FORMAT_PCM         0x0001
#define WAVE_FORMAT_IEEE_FLOAT  0x0003
#define WAVE_FORMAT_EXTENSIBLE  0xFFFE

double *
afetref_read_wav (const char *path, int *rate, int *n_samples)
{
  gchar *contents = NULL;
  gsize len = 0;
  GError *err = NULL;
  const guint8 *b, *data = NULL;
  gsize pos, data_len = 0;
  gboolean have_fmt = FALSE;
  guint format = 0, channels = 0, bits = 0, block_align = 0;
  guint32 sample_rate = 0;
  double *out = NULL;
  gsize n, i;

  if (!g_file_get_contents (path, &contents, &len, &err)) {
    g_printerr ("afetref: %s\n", err->message);
    g_clear_error (&err);
    return NULL;
  }
  b = (const guint8 *) contents;

  if (len < 12 || memcmp (b, "RIFF", 4) != 0 || memcmp (b + 8, "WAVE", 4)) {
    g_printerr ("afetref: %s: not a RIFF/WAVE file\n", path);
    goto done;
  }

  /* walk the chunks */
  pos = 12;
  while (pos + 8 <= len) {
    const guint8 *ck = b + pos;
    gsize ck_len = rd_le32 (ck + 4);
    gsize avail = len - pos - 8;

    if (memcmp (ck, "fmt ", 4) == 0) {
      if (ck_len < 16 || ck_len > avail) {
        g_printerr ("afetref: %s: bad fmt chunk\n", path);
        goto done;
      }
      format = rd_le16 (ck + 8);
      channels = rd_le16 (ck + 10);
      sample_rate = rd_le32 (ck + 12);
      block_align = rd_le16 (ck + 20);
      bits = rd_le16 (ck + 22);
      if (format == WAVE_FORMAT_EXTENSIBLE) {
        if (ck_len < 40) {
          g_printerr ("afetref: %s: short WAVE_FORMAT_EXTENSIBLE fmt chunk\n",
              path);
          goto done;
        }
        /* the sub-format GUID starts with the format code */
        format = rd_le16 (ck + 8 + 24);
      }
      have_fmt = TRUE;
    } else if (memcmp (ck, "data", 4) == 0) {
      data = ck + 8;
      /* streamed files may carry a bogus (too large) length */
      data_len = MIN (ck_len, avail);
      break;
    }
    if (ck_len > avail)
      break;
    pos += 8 + ck_len + (ck_len & 1);
  }

  if (!have_fmt || data == NULL) {
    g_printerr ("afetref: %s: missing fmt or data chunk\n", path);
    goto done;
  }
  if (channels != 1) {
    g_printerr ("afetref: %s: %u channels, only mono is supported\n", path,
        channels);
    goto done;
  }
  if (!((format == WAVE_FORMAT_PCM && (bits == 16 || bits == 32)) ||
          (format == WAVE_FORMAT_IEEE_FLOAT && (bits == 32 || bits == 64)))) {
    g_printerr ("afetref: %s: unsupported sample layout (format 0x%04x, "
        "%u bits); supported: PCM S16LE/S32LE, float32/float64\n", path,
        format, bits);
    goto done;
  }
  if (block_align != bits / 8) {
    g_printerr ("afetref: %s: unexpected block align %u for %u-bit mono\n",
        path, block_align, bits);
    goto done;
  }
  if (sample_rate == 0 || sample_rate > G_MAXINT) {
    g_printerr ("afetref: %s: bad sample rate %u\n", path, sample_rate);
    goto done;
  }

  n = data_len / block_align;
  if (n > G_MAXINT) {
    g_printerr ("afetref: %s: too many samples\n", path);
    goto done;
  }
  out = g_new (double, MAX (n, 1));
  for (i = 0; i < n; i++) {
    const guint8 *p = data + i * block_align;

    if (format == WAVE_FORMAT_PCM && bits == 16) {
      out[i] = (double) (gint16) rd_le16 (p);
    } else if (format == WAVE_FORMAT_PCM) {
      out[i] = (double) (gint32) rd_le32 (p) / 65536.0;
    } else if (bits == 32) {
      union
      {
        guint32 u;
        float f;
      } v;
      v.u = rd_le32 (p);
      out[i] = (double) v.f * 32768.0;
    } else {
      union
      {
        guint64 u;
        double d;
      } v;
      v.u = (guint64) rd_le32 (p) | ((guint64) rd_le32 (p + 4) << 32);
      out[i] = v.d * 32768.0;
    }
  }
  *rate = (int) sample_rate;
  *n_samples = (int) n;

done:
  g_free (contents);
  return out;
}

/* ---------------------------------------------------------------------- */
/* HTK parameter file reader                                              */
/* ---------------------------------------------------------------------- */

float *
afetref_read_htk (const char *path, int *n_frames, int *dims,
    int *samp_period_100ns, int *parm_kind)
{
  gchar *contents = NULL;
  gsize len = 0;
  GError *err = NULL;
  const guint8 *b;
  gint32 n, period;
  gint16 ssize;
  guint16 kind;
  gsize need, i, count;
  float *out = NULL;

  if (!g_file_get_contents (path, &contents, &len, &err)) {
    g_printerr ("afetref: %s\n", err->message);
    g_clear_error (&err);
    return NULL;
  }
  b = (const guint8 *) contents;
  if (len < 12) {
    g_printerr ("afetref: %s: too short for an HTK header\n", path);
    goto done;
  }
  n = (gint32) rd_be32 (b);
  period = (gint32) rd_be32 (b + 4);
  ssize = (gint16) rd_be16 (b + 8);
  kind = rd_be16 (b + 10);

  if (kind & AFETREF_HTK_C) {
    g_printerr ("afetref: %s: compressed (_C) HTK files are not supported\n",
        path);
    goto done;
  }
  if (n < 0 || ssize <= 0 || ssize % 4 != 0) {
    g_printerr ("afetref: %s: bad header (nSamples %d, sampSize %d)\n", path,
        n, ssize);
    goto done;
  }
  need = 12 + (gsize) n * (gsize) ssize;
  if (len < need) {
    g_printerr ("afetref: %s: header says %d x %d bytes, file has %"
        G_GSIZE_FORMAT " bytes\n", path, n, ssize, len);
    goto done;
  }

  count = (gsize) n * (gsize) (ssize / 4);
  out = g_new (float, MAX (count, 1));
  for (i = 0; i < count; i++) {
    union
    {
      guint32 u;
      float f;
    } v;
    v.u = rd_be32 (b + 12 + 4 * i);
    out[i] = v.f;
  }
  *n_frames = n;
  *dims = ssize / 4;
  *samp_period_100ns = period;
  *parm_kind = kind;

done:
  g_free (contents);
  return out;
}

/* ---------------------------------------------------------------------- */
/* Framing                                                                */
/* ---------------------------------------------------------------------- */

int
afetref_frame_samples (double ms, int rate)
{
  /* HTK holds durations in 100 ns units and the sample period as a double;
   * for 20 ms / 10 ms at 8, 16 and 44.1 kHz the quotients are exactly
   * 160/80, 320/160 and 882/441 in double, so plain truncation is what HTK
   * does and what we do. */
  double samp_period = 1e7 / (double) rate;

  return (int) (ms * 1e4 / samp_period);
}

int
afetref_num_frames (int n, int W, int S)
{
  if (W <= 0 || S <= 0 || n < W)
    return 0;
  return (n - W) / S + 1;
}

/* ---------------------------------------------------------------------- */
/* Windows and per-frame processing                                       */
/* ---------------------------------------------------------------------- */

double
afetref_window_value (AfetRefWindow win, int i, int W)
{
  double a;

  if (W <= 1)
    return 1.0;
  a = 2.0 * M_PI * (double) i / (double) (W - 1);

  switch (win) {
    case AFETREF_WINDOW_HAMMING:
      return 0.54 - 0.46 * cos (a);
    case AFETREF_WINDOW_HANN:
      return 0.5 - 0.5 * cos (a);
    case AFETREF_WINDOW_POVEY:
      return pow (0.5 - 0.5 * cos (a), 0.85);
    case AFETREF_WINDOW_BLACKMAN:
      return 0.42 - 0.5 * cos (a) + 0.08 * cos (2.0 * a);
    case AFETREF_WINDOW_RECTANGULAR:
    default:
      return 1.0;
  }
}

void
afetref_window_fill (AfetRefWindow win, int W, double *w)
{
  int i;

  for (i = 0; i < W; i++)
    w[i] = afetref_window_value (win, i, W);
}

/* one frame with a precomputed window table */
static void
frame_with_table (const double *samples, int W, double preemph,
    const double *wtab, double *out, double *raw_log_energy)
{
  double sum = 0.0;
  int i;

  for (i = 0; i < W; i++) {
    out[i] = samples[i];
    sum += samples[i] * samples[i];
  }
  if (raw_log_energy)
    *raw_log_energy = sum < 2.45e-308 ? -1e10 : log (sum);

  if (preemph != 0.0 && W > 0) {
    /* backwards so that each step still sees the unmodified predecessor */
    for (i = W - 1; i >= 1; i--)
      out[i] -= preemph * out[i - 1];
    out[0] *= 1.0 - preemph;
  }

  for (i = 0; i < W; i++)
    out[i] *= wtab[i];
}

void
afetref_frame (const double *samples, int W, double preemph,
    AfetRefWindow win, double *out, double *raw_log_energy)
{
  double *wtab = g_new (double, MAX (W, 1));

  afetref_window_fill (win, W, wtab);
  frame_with_table (samples, W, preemph, wtab, out, raw_log_energy);
  g_free (wtab);
}

/* ---------------------------------------------------------------------- */
/* FFT: iterative radix-2 complex transform in double                     */
/* ---------------------------------------------------------------------- */

typedef struct
{
  int n;                        /* power of two */
  int *bitrev;                  /* n entries */
  double *cos_t, *sin_t;        /* n/2 entries: cos/sin (2 pi j / n) */
} RefFft;

static void
fft_init (RefFft * f, int n)
{
  int i, bits = 0;

  f->n = n;
  while ((1 << bits) < n)
    bits++;
  f->bitrev = g_new (int, n);
  for (i = 0; i < n; i++) {
    int r = 0, b, x = i;

    for (b = 0; b < bits; b++) {
      r = (r << 1) | (x & 1);
      x >>= 1;
    }
    f->bitrev[i] = r;
  }
  f->cos_t = g_new (double, MAX (n / 2, 1));
  f->sin_t = g_new (double, MAX (n / 2, 1));
  for (i = 0; i < n / 2; i++) {
    f->cos_t[i] = cos (2.0 * M_PI * (double) i / (double) n);
    f->sin_t[i] = sin (2.0 * M_PI * (double) i / (double) n);
  }
}

static void
fft_clear (RefFft * f)
{
  g_free (f->bitrev);
  g_free (f->cos_t);
  g_free (f->sin_t);
}

/* forward transform X_k = sum_t x_t exp(-2 pi i k t / n), in place */
static void
fft_forward (const RefFft * f, double *re, double *im)
{
  int n = f->n, i, len;

  for (i = 0; i < n; i++) {
    int j = f->bitrev[i];

    if (j > i) {
      double t = re[i];
      re[i] = re[j];
      re[j] = t;
      t = im[i];
      im[i] = im[j];
      im[j] = t;
    }
  }

  for (len = 2; len <= n; len <<= 1) {
    int half = len / 2, step = n / len, s, j;

    for (s = 0; s < n; s += len) {
      for (j = 0; j < half; j++) {
        double wr = f->cos_t[j * step], wi = -f->sin_t[j * step];
        int a = s + j, b = s + j + half;
        double tr = re[b] * wr - im[b] * wi;
        double ti = re[b] * wi + im[b] * wr;

        re[b] = re[a] - tr;
        im[b] = im[a] - ti;
        re[a] += tr;
        im[a] += ti;
      }
    }
  }
}

gboolean
afetref_fft (double *re, double *im, int n)
{
  RefFft f;

  if (n < 1 || (n & (n - 1)) != 0)
    return FALSE;
  fft_init (&f, n);
  fft_forward (&f, re, im);
  fft_clear (&f);
  return TRUE;
}

/* ---------------------------------------------------------------------- */
/* Mel filter bank design (HTK's formulas)                                */
/* ---------------------------------------------------------------------- */

typedef struct
{
  int num_chans;                /* M */
  int klo, khi;                 /* usable 1-based FFT bins */
  int *lo_chan;                 /* per 1-based bin: lower channel 0..M */
  double *lo_wt;                /* per 1-based bin: weight of lower channel */
  double *centre_hz;            /* channels 1..M */
} RefFBank;

static double
mel_of_hz (double f)
{
  return 1127.0 * log (1.0 + f / 700.0);
}

static double
hz_of_mel (double m)
{
  return 700.0 * (exp (m / 1127.0) - 1.0);
}

/* HTK's vocal tract length normalisation (HTK Book, "Frequency warping"):
 * a piecewise-linear map of f (Hz) over the bank's band [lo, hi] with
 * slope 1/a in the middle; the break points are the cut-offs moved by
 * 2 / (1 + 1/a), and the outer pieces join the middle to (lo, lo) and
 * (hi, hi). */
static double
htk_warp (double a, double fl, double fu, double lo, double hi, double f)
{
  double s = 1.0 / a, cl = 2.0 * fl / (1.0 + s), cu = 2.0 * fu / (1.0 + s);

  if (f > cu)
    return s * cu + (f - cu) * (hi - s * cu) / (hi - cu);
  if (f < cl)
    return lo + (f - lo) * (s * cl - lo) / (cl - lo);
  return s * f;
}

static void
fbank_init (RefFBank * fb, const AfetRefConfig * c, int N)
{
  int M = c->num_filters, half = N / 2, k, chan;
  double period = 1e7 / (double) c->rate;       /* 100 ns units */
  double fs_eff, fres, mlo, mhi;
  double *cf;

  /* HTK hands the filter-bank design the sample period cast to a whole
   * number of 100 ns units: 226.757 -> 226 at 44.1 kHz */
  if (c->htk_period_quirk)
    period = (double) (long) period;
  fs_eff = 1e7 / period;
  fres = fs_eff / (double) N;   /* Hz per FFT bin */

  fb->num_chans = M;
  fb->klo = 2;
  fb->khi = half;
  if (c->low_freq > 0.0)
    fb->klo = MAX (2, (int) (c->low_freq * N / fs_eff + 2.5));
  if (c->high_freq > 0.0)
    fb->khi = MIN (half, (int) (c->high_freq * N / fs_eff + 0.5));

  mlo = c->low_freq > 0.0 ? mel_of_hz (c->low_freq) : 0.0;
  /* mel of 1-based bin half+1, i.e. the effective Nyquist frequency */
  mhi = c->high_freq > 0.0 ? mel_of_hz (c->high_freq) :
      mel_of_hz ((double) half * fres);

  /* centres cf[0] = mlo, cf[1..M] and cf[M+1] = upper edge; warped ones
   * move in Hz, the lower edge stays */
  cf = g_new (double, M + 2);
  cf[0] = mlo;
  fb->centre_hz = g_new0 (double, M + 2);
  for (chan = 1; chan <= M + 1; chan++) {
    cf[chan] = (double) chan / (double) (M + 1) * (mhi - mlo) + mlo;
    if (c->warp != 1.0)
      cf[chan] = mel_of_hz (htk_warp (c->warp, c->warp_low, c->warp_high,
              hz_of_mel (mlo), hz_of_mel (mhi), hz_of_mel (cf[chan])));
    fb->centre_hz[chan] = hz_of_mel (cf[chan]);
  }

  fb->lo_chan = g_new0 (int, half + 2);
  fb->lo_wt = g_new0 (double, half + 2);
  for (k = fb->klo; k <= fb->khi; k++) {
    double melk = mel_of_hz ((double) (k - 1) * fres);

    chan = 1;
    while (chan <= M + 1 && cf[chan] < melk)
      chan++;
    chan--;                     /* cf[chan] < melk <= cf[chan+1] */
    fb->lo_chan[k] = chan;
    if (chan <= M)
      fb->lo_wt[k] = (cf[chan + 1] - melk) / (cf[chan + 1] - cf[chan]);
    else
      fb->lo_wt[k] = 0.0;       /* above the top edge: contributes nothing */
  }
  g_free (cf);
}

static void
fbank_clear (RefFBank * fb)
{
  g_free (fb->lo_chan);
  g_free (fb->lo_wt);
  g_free (fb->centre_hz);
}

/* ---------------------------------------------------------------------- */
/* Feature computation                                                    */
/* ---------------------------------------------------------------------- */

void
afetref_config_init (AfetRefConfig * c)
{
  memset (c, 0, sizeof (*c));
  c->rate = 16000;
  c->frame_length_ms = 25.0;
  c->frame_shift_ms = 10.0;
  c->window = AFETREF_WINDOW_HAMMING;
  c->preemph = 0.97;
  c->num_filters = 23;
  c->num_ceps = 12;
  c->low_freq = 0.0;
  c->high_freq = 0.0;
  c->lifter = 22;
  c->use_power = 0;
  c->c0 = 1;
  c->energy = 0;
  c->htk_period_quirk = 1;
  c->warp = 1.0;
  c->warp_low = c->warp_high = 0.0;
}

int
afetref_dims (const AfetRefConfig * c)
{
  if (c->num_ceps > 0)
    return c->num_ceps + (c->c0 ? 1 : 0) + (c->energy ? 1 : 0);
  return c->num_filters + (c->energy ? 1 : 0);
}

double *
afetref_compute (const AfetRefConfig * c, const double *samples, int n,
    int *n_frames)
{
  int W, S, N, nf, dims, M, L, t, k, j;
  double *wtab, *re, *im, *fbv, *dct, *lift, *out;
  RefFft fft;
  RefFBank fb;

  *n_frames = 0;
  if (c->rate <= 0 || c->num_filters <= 0 || c->num_ceps < 0) {
    g_printerr ("afetref: invalid config (rate %d, filters %d, ceps %d)\n",
        c->rate, c->num_filters, c->num_ceps);
    return NULL;
  }
  W = afetref_frame_samples (c->frame_length_ms, c->rate);
  S = afetref_frame_samples (c->frame_shift_ms, c->rate);
  if (W < 2 || S < 1) {
    g_printerr ("afetref: frame of %d samples, shift %d: too short\n", W, S);
    return NULL;
  }
  nf = afetref_num_frames (n, W, S);
  if (nf == 0)
    return NULL;

  N = 1;
  while (N < W)
    N <<= 1;
  M = c->num_filters;
  L = c->lifter;
  dims = afetref_dims (c);

  wtab = g_new (double, W);
  afetref_window_fill (c->window, W, wtab);
  fft_init (&fft, N);
  fbank_init (&fb, c, N);
  re = g_new (double, N);
  im = g_new (double, N);
  fbv = g_new (double, M + 2);

  /* DCT-II rows j = 1..num_ceps (index (j-1)*M + k-1) and lifter */
  dct = g_new (double, MAX (c->num_ceps, 1) * M);
  lift = g_new (double, MAX (c->num_ceps, 1));
  for (j = 1; j <= c->num_ceps; j++) {
    for (k = 1; k <= M; k++)
      dct[(j - 1) * M + k - 1] =
          cos (M_PI * (double) j * ((double) k - 0.5) / (double) M);
    lift[j - 1] = L > 0 ? 1.0 + (double) L / 2.0 * sin (M_PI * j / L) : 1.0;
  }

  out = g_new (double, (gsize) nf * dims);

  for (t = 0; t < nf; t++) {
    double energy, *row = out + (gsize) t * dims;
    int col = 0;

    frame_with_table (samples + (gsize) t * S, W, c->preemph, wtab, re,
        &energy);
    for (k = W; k < N; k++)
      re[k] = 0.0;
    memset (im, 0, sizeof (double) * N);
    fft_forward (&fft, re, im);

    /* filter bank over 1-based bins klo..khi (0-based k-1) */
    for (k = 0; k <= M + 1; k++)
      fbv[k] = 0.0;
    for (k = fb.klo; k <= fb.khi; k++) {
      double p = re[k - 1] * re[k - 1] + im[k - 1] * im[k - 1];
      double v = c->use_power ? p : sqrt (p);
      int lo = fb.lo_chan[k];
      double lw = fb.lo_wt[k] * v;

      if (lo >= 1 && lo <= M)
        fbv[lo] += lw;
      if (lo + 1 <= M)
        fbv[lo + 1] += v - lw;
    }
    for (k = 1; k <= M; k++)
      fbv[k] = log (fbv[k] < 1.0 ? 1.0 : fbv[k]);

    if (c->num_ceps > 0) {
      double norm = sqrt (2.0 / (double) M);

      for (j = 1; j <= c->num_ceps; j++) {
        double s = 0.0;

        for (k = 1; k <= M; k++)
          s += fbv[k] * dct[(j - 1) * M + k - 1];
        row[col++] = norm * s * lift[j - 1];
      }
      if (c->c0) {
        double s = 0.0;

        for (k = 1; k <= M; k++)
          s += fbv[k];
        row[col++] = norm * s;
      }
    } else {
      for (k = 1; k <= M; k++)
        row[col++] = fbv[k];
    }
    if (c->energy)
      row[col++] = energy;
  }

  g_free (wtab);
  g_free (re);
  g_free (im);
  g_free (fbv);
  g_free (dct);
  g_free (lift);
  fft_clear (&fft);
  fbank_clear (&fb);

  *n_frames = nf;
  return out;
}

/* ---------------------------------------------------------------------- */
/* PLP                                                                    */
/* ---------------------------------------------------------------------- */

void
afetref_plp_config_init (AfetRefPlpConfig * c)
{
  memset (c, 0, sizeof (*c));
  c->rate = 16000;
  c->frame_length_ms = 25.0;
  c->frame_shift_ms = 10.0;
  c->window = AFETREF_WINDOW_HAMMING;
  c->preemph = 0.97;
  c->num_filters = 23;
  c->num_ceps = 12;
  c->lpc_order = 12;
  c->compression = 0.33;
  c->low_freq = 0.0;
  c->high_freq = 0.0;
  c->use_power = 1;
  c->lifter = 22;
  c->c0 = 1;
  c->energy = 0;
  c->htk_period_quirk = 1;
  c->warp = 1.0;
  c->warp_low = c->warp_high = 0.0;
  c->filter_shape = AFETREF_PLP_MEL;
}

int
afetref_plp_dims (const AfetRefPlpConfig * c)
{
  return c->num_ceps + (c->c0 ? 1 : 0) + (c->energy ? 1 : 0);
}

double
afetref_plp_equal_loudness (double f)
{
  double fsq = f * f, q = fsq / (fsq + 1.6e5);

  return q * q * (fsq + 1.44e6) / (fsq + 9.61e6);
}

static double
bark_of_hz (double f)
{
  return 6.0 * asinh (f / 600.0);
}

static double
hz_of_bark (double z)
{
  return 600.0 * sinh (z / 6.0);
}

/* Hermansky's critical-band masking curve at d = z - z_m Bark */
static double
bark_psi (double d)
{
  if (d < -2.5 || d > 1.3)
    return 0.0;
  if (d <= -0.5)
    return pow (10.0, d + 0.5);
  if (d < 0.5)
    return 1.0;
  return pow (10.0, -2.5 * (d - 0.5));
}

/* Dense PLP filter bank: w[m * (half + 2) + k] for channel m = 1..M and
 * 1-based bin k = klo..khi; eql[m] the channel's equal-loudness weight. */
static void
plp_bank_init (const AfetRefPlpConfig * c, int N, double **w_out,
    double **eql_out, int *klo_out, int *khi_out)
{
  int M = c->num_filters, half = N / 2, k, m;
  double period = 1e7 / (double) c->rate, fs_eff, fres;
  double *w = g_new0 (double, (gsize) (M + 2) * (half + 2));
  double *eql = g_new0 (double, M + 2);
  int klo = 2, khi = half;

  if (c->htk_period_quirk)
    period = (double) (long) period;
  fs_eff = 1e7 / period;
  fres = fs_eff / (double) N;
  if (c->low_freq > 0.0)
    klo = MAX (2, (int) (c->low_freq * N / fs_eff + 2.5));
  if (c->high_freq > 0.0)
    khi = MIN (half, (int) (c->high_freq * N / fs_eff + 0.5));

  if (c->filter_shape == AFETREF_PLP_MEL) {
    AfetRefConfig mc;
    RefFBank fb;

    afetref_config_init (&mc);
    mc.rate = c->rate;
    mc.num_filters = M;
    mc.low_freq = c->low_freq;
    mc.high_freq = c->high_freq;
    mc.htk_period_quirk = c->htk_period_quirk;
    mc.warp = c->warp;
    mc.warp_low = c->warp_low;
    mc.warp_high = c->warp_high;
    fbank_init (&fb, &mc, N);
    for (k = fb.klo; k <= fb.khi; k++) {
      int lo = fb.lo_chan[k];

      if (lo >= 1 && lo <= M)
        w[(gsize) lo * (half + 2) + k] += fb.lo_wt[k];
      if (lo + 1 <= M)
        w[(gsize) (lo + 1) * (half + 2) + k] += 1.0 - fb.lo_wt[k];
    }
    /* at the channel centres, as the design places them (warped too) */
    for (m = 1; m <= M; m++)
      eql[m] = afetref_plp_equal_loudness (fb.centre_hz[m]);
    fbank_clear (&fb);
  } else {
    double zlo = c->low_freq > 0.0 ? bark_of_hz (c->low_freq) : 0.0;
    double zhi = c->high_freq > 0.0 ? bark_of_hz (c->high_freq) :
        bark_of_hz ((double) half * fres);

    for (m = 1; m <= M; m++) {
      double zm = (double) m / (double) (M + 1) * (zhi - zlo) + zlo;

      for (k = klo; k <= khi; k++)
        w[(gsize) m * (half + 2) + k] =
            bark_psi (bark_of_hz ((double) (k - 1) * fres) - zm);
      eql[m] = afetref_plp_equal_loudness (hz_of_bark (zm));
    }
  }
  *w_out = w;
  *eql_out = eql;
  *klo_out = klo;
  *khi_out = khi;
}

double *
afetref_compute_plp (const AfetRefPlpConfig * c, const double *samples,
    int n, int *n_frames)
{
  int W, S, N, half, nf, dims, M, K, p, nc, t, k, m, i, j, klo, khi;
  double *wtab, *re, *im, *as, *cosm, *r, *a, *tmp, *cep, *lift, *w, *eql;
  double *out;
  RefFft fft;

  *n_frames = 0;
  if (c->rate <= 0 || c->num_filters <= 0 || c->num_ceps <= 0 ||
      c->lpc_order <= 0 || !(c->compression > 0.0)) {
    g_printerr ("afetref: invalid PLP config (rate %d, filters %d, ceps %d, "
        "order %d, compression %g)\n", c->rate, c->num_filters, c->num_ceps,
        c->lpc_order, c->compression);
    return NULL;
  }
  W = afetref_frame_samples (c->frame_length_ms, c->rate);
  S = afetref_frame_samples (c->frame_shift_ms, c->rate);
  if (W < 2 || S < 1) {
    g_printerr ("afetref: frame of %d samples, shift %d: too short\n", W, S);
    return NULL;
  }
  nf = afetref_num_frames (n, W, S);
  if (nf == 0)
    return NULL;

  N = 1;
  while (N < W)
    N <<= 1;
  half = N / 2;
  M = c->num_filters;
  K = M + 1;                    /* the spectrum has K + 1 = M + 2 points */
  p = c->lpc_order;
  nc = c->num_ceps;
  dims = afetref_plp_dims (c);

  wtab = g_new (double, W);
  afetref_window_fill (c->window, W, wtab);
  fft_init (&fft, N);
  plp_bank_init (c, N, &w, &eql, &klo, &khi);
  re = g_new (double, N);
  im = g_new (double, N);
  as = g_new (double, M + 2);
  r = g_new (double, p + 1);
  a = g_new0 (double, MAX (p, nc) + 1);
  tmp = g_new (double, p + 1);
  cep = g_new (double, nc + 1);
  lift = g_new (double, nc + 1);
  for (j = 1; j <= nc; j++)
    lift[j] = c->lifter > 0 ?
        1.0 + (double) c->lifter / 2.0 * sin (M_PI * j / c->lifter) : 1.0;

  /* inverse DFT of the even spectrum, normalised by 2K */
  cosm = g_new (double, (gsize) (p + 1) * (M + 2));
  for (i = 0; i <= p; i++)
    for (m = 0; m <= K; m++)
      cosm[(gsize) i * (M + 2) + m] = (m == 0 || m == K ? 1.0 : 2.0) *
          cos (M_PI * (double) i * (double) m / (double) K) / (2.0 * K);

  out = g_new (double, (gsize) nf * dims);

  for (t = 0; t < nf; t++) {
    double energy, err, *row = out + (gsize) t * dims;
    int col = 0;

    frame_with_table (samples + (gsize) t * S, W, c->preemph, wtab, re,
        &energy);
    for (k = W; k < N; k++)
      re[k] = 0.0;
    memset (im, 0, sizeof (double) * N);
    fft_forward (&fft, re, im);
    /* re[] becomes the power (or magnitude) spectrum, 1-based bin k at k-1 */
    for (k = klo; k <= khi; k++) {
      double pw = re[k - 1] * re[k - 1] + im[k - 1] * im[k - 1];

      re[k - 1] = c->use_power ? pw : sqrt (pw);
    }

    for (m = 1; m <= M; m++) {
      const double *wm = w + (gsize) m * (half + 2);
      double s = 0.0;

      for (k = klo; k <= khi; k++)
        s += wm[k] * re[k - 1];
      if (s < 1.0)
        s = 1.0;
      as[m] = pow (s * eql[m], c->compression);
    }
    as[0] = as[1];
    as[M + 1] = as[M];

    for (i = 0; i <= p; i++) {
      double s = 0.0;

      for (m = 0; m <= K; m++)
        s += cosm[(gsize) i * (M + 2) + m] * as[m];
      r[i] = s;
    }

    /* Durbin: A(z) = 1 + sum a_j z^-j, err = prediction error */
    for (j = 0; j <= MAX (p, nc); j++)
      a[j] = 0.0;
    err = r[0];
    if (err > 0.0) {
      for (i = 1; i <= p; i++) {
        double acc = r[i], kk, e2;

        for (j = 1; j < i; j++)
          acc += a[j] * r[i - j];
        kk = -acc / err;
        e2 = err * (1.0 - kk * kk);
        if (!(fabs (kk) < 1.0) || !(e2 > 0.0))
          break;                /* singular: keep the model so far */
        for (j = 1; j < i; j++)
          tmp[j] = a[j] + kk * a[i - j];
        for (j = 1; j < i; j++)
          a[j] = tmp[j];
        a[i] = kk;
        err = e2;
      }
    }

    /* cepstrum of 1/A(z) */
    for (j = 1; j <= nc; j++) {
      double s = 0.0;

      for (i = 1; i < j; i++)
        s += (double) (j - i) * a[i] * cep[j - i];
      cep[j] = -(a[j] + s / (double) j);
    }
    for (j = 1; j <= nc; j++)
      row[col++] = cep[j] * lift[j];
    if (c->c0)
      row[col++] = err > 0.0 ? log (err) : -1e10;
    if (c->energy)
      row[col++] = energy;
  }

  g_free (wtab);
  g_free (re);
  g_free (im);
  g_free (as);
  g_free (r);
  g_free (a);
  g_free (tmp);
  g_free (cep);
  g_free (lift);
  g_free (cosm);
  g_free (w);
  g_free (eql);
  fft_clear (&fft);

  *n_frames = nf;
  return out;
}

/* ---------------------------------------------------------------------- */
/* Comparison helpers                                                     */
/* ---------------------------------------------------------------------- */

static inline double
pick (const float *f, const double *d, gsize i)
{
  return f ? (double) f[i] : d[i];
}

double
afetref_rel_l2_strided (const float *cand_f, const double *cand_d,
    int cand_stride, int cand_col0, const float *ref_f, const double *ref_d,
    int ref_stride, int ref_col0, int n_frames, int ncols)
{
  double num = 0.0, den = 0.0;
  int t, j;

  for (t = 0; t < n_frames; t++) {
    for (j = 0; j < ncols; j++) {
      double a = pick (cand_f, cand_d, (gsize) t * cand_stride + cand_col0 + j);
      double r = pick (ref_f, ref_d, (gsize) t * ref_stride + ref_col0 + j);

      num += (a - r) * (a - r);
      den += r * r;
    }
  }
  if (den == 0.0)
    return sqrt (num);
  return sqrt (num / den);
}

double
afetref_max_abs_strided (const float *cand_f, const double *cand_d,
    int cand_stride, int cand_col0, const float *ref_f, const double *ref_d,
    int ref_stride, int ref_col0, int n_frames, int ncols)
{
  double m = 0.0;
  int t, j;

  for (t = 0; t < n_frames; t++) {
    for (j = 0; j < ncols; j++) {
      double a = pick (cand_f, cand_d, (gsize) t * cand_stride + cand_col0 + j);
      double r = pick (ref_f, ref_d, (gsize) t * ref_stride + ref_col0 + j);

      if (fabs (a - r) > m || isnan (a - r))
        m = isnan (a - r) ? NAN : fabs (a - r);
      if (isnan (m))
        return m;
    }
  }
  return m;
}

double
afetref_rel_l2 (const float *cand, const double *ref, int n_frames, int dims,
    int col0, int ncols)
{
  return afetref_rel_l2_strided (cand, NULL, dims, col0, NULL, ref, dims,
      col0, n_frames, ncols);
}

double
afetref_rel_l2_ff (const float *cand, const float *ref, int n_frames,
    int dims, int col0, int ncols)
{
  return afetref_rel_l2_strided (cand, NULL, dims, col0, ref, NULL, dims,
      col0, n_frames, ncols);
}

/* ---------------------------------------------------------------------- */
/* Test signals                                                           */
/* ---------------------------------------------------------------------- */

double *
afetref_make_tone (int n, int rate, double freq, double amp, double phase)
{
  double *x = g_new (double, MAX (n, 1));
  int i;

  for (i = 0; i < n; i++)
    x[i] = amp * sin (2.0 * M_PI * freq * (double) i / (double) rate + phase);
  return x;
}

double *
afetref_make_noise (int n, double amp, guint64 seed)
{
  double *x = g_new (double, MAX (n, 1));
  guint64 s = seed ? seed : G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  int i;

  for (i = 0; i < n; i++) {
    guint64 r;
    double u;

    /* xorshift64* */
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    r = s * G_GUINT64_CONSTANT (0x2545F4914F6CDD1D);
    u = (double) (r >> 11) * (1.0 / 9007199254740992.0);        /* [0, 1) */
    x[i] = amp * (2.0 * u - 1.0);
  }
  return x;
}

void
afetref_quantize_s16 (double *x, int n)
{
  int i;

  for (i = 0; i < n; i++) {
    double v = nearbyint (x[i]);

    x[i] = v < -32768.0 ? -32768.0 : (v > 32767.0 ? 32767.0 : v);
  }
}

gint16 *
afetref_to_s16 (const double *x, int n)
{
  gint16 *o = g_new (gint16, MAX (n, 1));
  int i;

  for (i = 0; i < n; i++) {
    double v = nearbyint (x[i]);

    o[i] = (gint16) (v < -32768.0 ? -32768.0 : (v > 32767.0 ? 32767.0 : v));
  }
  return o;
}

float *
afetref_to_f32 (const double *x, int n)
{
  float *o = g_new (float, MAX (n, 1));
  int i;

  for (i = 0; i < n; i++)
    o[i] = (float) (x[i] / 32768.0);
  return o;
}
