/* Double-precision references for Kaldi, lhotse and Whisper features.
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

/* Written from the formulas only; see afetref_kaldi.h. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetref_kaldi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#ifndef AFET_SOURCE_DIR
#define AFET_SOURCE_DIR "."
#endif

/* ---------------------------------------------------------------------- */
/* .npy files                                                             */
/* ---------------------------------------------------------------------- */

/* finds 'key': VALUE in a numpy header dict; returns a pointer to VALUE */
static const char *
npy_field (const char *hdr, const char *key)
{
  char *pat = g_strdup_printf ("'%s'", key);
  const char *p = strstr (hdr, pat);

  if (p) {
    p += strlen (pat);
    while (*p == ' ' || *p == ':')
      p++;
  }
  g_free (pat);
  return p;
}

float *
afetref_read_npy (const char *path, int *rows, int *cols)
{
  gchar *contents = NULL, *hdr = NULL;
  gsize len = 0, hlen, hstart, need, count, i;
  GError *err = NULL;
  const guint8 *b;
  const char *p;
  int major, elem = 0;
  long dims[2] = { 0, 0 };
  int ndim = 0;
  float *out = NULL;

  if (!g_file_get_contents (path, &contents, &len, &err)) {
    g_printerr ("afetref: %s\n", err->message);
    g_clear_error (&err);
    return NULL;
  }
  b = (const guint8 *) contents;
  if (len < 10 || memcmp (b, "\x93NUMPY", 6) != 0) {
    g_printerr ("afetref: %s: not a .npy file\n", path);
    goto done;
  }
  major = b[6];
  if (major == 1) {
    hlen = b[8] | (b[9] << 8);
    hstart = 10;
  } else if ((major == 2 || major == 3) && len >= 12) {
    hlen = (gsize) b[8] | ((gsize) b[9] << 8) | ((gsize) b[10] << 16) |
        ((gsize) b[11] << 24);
    hstart = 12;
  } else {
    g_printerr ("afetref: %s: unsupported .npy version %d\n", path, major);
    goto done;
  }
  if (hstart + hlen > len) {
    g_printerr ("afetref: %s: truncated .npy header\n", path);
    goto done;
  }
  hdr = g_strndup (contents + hstart, hlen);

  p = npy_field (hdr, "descr");
  if (p && (strncmp (p, "'<f4'", 5) == 0 || strncmp (p, "'|f4'", 5) == 0))
    elem = 4;
  else if (p && strncmp (p, "'<f8'", 5) == 0)
    elem = 8;
  if (elem == 0) {
    g_printerr ("afetref: %s: dtype is not '<f4' or '<f8'\n", path);
    goto done;
  }
  p = npy_field (hdr, "fortran_order");
  if (p == NULL || strncmp (p, "False", 5) != 0) {
    g_printerr ("afetref: %s: not C order\n", path);
    goto done;
  }
  p = npy_field (hdr, "shape");
  if (p == NULL || *p != '(') {
    g_printerr ("afetref: %s: no shape\n", path);
    goto done;
  }
  p++;
  while (ndim < 3) {
    char *end;
    long v;

    while (*p == ' ')
      p++;
    if (*p == ')')
      break;
    v = strtol (p, &end, 10);
    if (end == p || v < 0) {
      g_printerr ("afetref: %s: bad shape\n", path);
      goto done;
    }
    if (ndim < 2)
      dims[ndim] = v;
    ndim++;
    p = end;
    while (*p == ' ' || *p == ',')
      p++;
  }
  if (ndim == 1) {
    dims[1] = 1;
  } else if (ndim != 2) {
    g_printerr ("afetref: %s: %d dimensions, want 1 or 2\n", path, ndim);
    goto done;
  }
  if (dims[0] > G_MAXINT || dims[1] > G_MAXINT ||
      (dims[1] > 0 && (gsize) dims[0] > G_MAXSIZE / 8 / (gsize) dims[1])) {
    g_printerr ("afetref: %s: too large\n", path);
    goto done;
  }
  count = (gsize) dims[0] * (gsize) dims[1];
  need = hstart + hlen + count * elem;
  if (len < need) {
    g_printerr ("afetref: %s: %" G_GSIZE_FORMAT " bytes, want %"
        G_GSIZE_FORMAT "\n", path, len, need);
    goto done;
  }
  out = g_new (float, MAX (count, 1));
  b = (const guint8 *) contents + hstart + hlen;
  for (i = 0; i < count; i++) {
    const guint8 *q = b + i * elem;

    if (elem == 4) {
      union
      {
        guint32 u;
        float f;
      } v;
      v.u = (guint32) q[0] | ((guint32) q[1] << 8) | ((guint32) q[2] << 16) |
          ((guint32) q[3] << 24);
      out[i] = v.f;
    } else {
      union
      {
        guint64 u;
        double d;
      } v;
      int k;

      v.u = 0;
      for (k = 7; k >= 0; k--)
        v.u = (v.u << 8) | q[k];
      out[i] = (float) v.d;
    }
  }
  *rows = (int) dims[0];
  *cols = (int) dims[1];

done:
  g_free (hdr);
  g_free (contents);
  return out;
}

gboolean
afetref_write_npy (const char *path, const float *data, int rows, int cols)
{
  GString *s = g_string_new (NULL);
  char *dict = g_strdup_printf ("{'descr': '<f4', 'fortran_order': False, "
      "'shape': (%d, %d), }", rows, cols);
  gsize total = 10 + strlen (dict) + 1, pad = (64 - total % 64) % 64, i;
  guint16 hlen = (guint16) (strlen (dict) + pad + 1);
  gboolean ok;

  g_string_append_len (s, "\x93NUMPY\x01\x00", 8);
  g_string_append_c (s, (char) (hlen & 0xff));
  g_string_append_c (s, (char) (hlen >> 8));
  g_string_append (s, dict);
  for (i = 0; i < pad; i++)
    g_string_append_c (s, ' ');
  g_string_append_c (s, '\n');
  for (i = 0; i < (gsize) rows * cols; i++) {
    union
    {
      guint32 u;
      float f;
    } v;
    char le[4];

    v.f = data[i];
    le[0] = v.u & 0xff;
    le[1] = (v.u >> 8) & 0xff;
    le[2] = (v.u >> 16) & 0xff;
    le[3] = (v.u >> 24) & 0xff;
    g_string_append_len (s, le, 4);
  }
  ok = g_file_set_contents (path, s->str, s->len, NULL);
  g_string_free (s, TRUE);
  g_free (dict);
  return ok;
}

const char *
afetref_refdata_dir (void)
{
  static gchar *dir = NULL;

  if (!dir) {
    const gchar *env = g_getenv ("AFET_REFDATA");

    dir = env && *env ? g_strdup (env) :
        g_build_filename (AFET_SOURCE_DIR, "..", "shared", "refdata", NULL);
  }
  return g_file_test (dir, G_FILE_TEST_IS_DIR) ? dir : NULL;
}

const char *
afetref_testdata_dir (void)
{
  static gchar *dir = NULL;

  if (!dir) {
    const gchar *env = g_getenv ("AFET_TESTDATA");

    dir = env && *env ? g_strdup (env) :
        g_build_filename (AFET_SOURCE_DIR, "tests", "data", NULL);
  }
  return dir;
}

char *
afetref_find_data (const char *rel, gboolean * in_refdata)
{
  const char *dirs[2] = { afetref_refdata_dir (), afetref_testdata_dir () };
  int i;

  for (i = 0; i < 2; i++) {
    char *p;

    if (dirs[i] == NULL)
      continue;
    p = g_build_filename (dirs[i], rel, NULL);
    if (g_file_test (p, G_FILE_TEST_IS_REGULAR)) {
      if (in_refdata)
        *in_refdata = (i == 0);
      return p;
    }
    g_free (p);
  }
  return NULL;
}

/* ---------------------------------------------------------------------- */
/* Transforms                                                             */
/* ---------------------------------------------------------------------- */

/* Power spectrum |X_k|^2, k = 0 .. n/2, of n real samples: radix-2 FFT
 * when n is a power of two, else a direct DFT with exactly reduced angles.
 * mag: |X_k| instead. */
static void
power_spectrum (const double *x, int n, double *pow_out, gboolean mag)
{
  int k, t;

  if (n >= 1 && (n & (n - 1)) == 0) {
    double *re = g_new (double, n), *im = g_new0 (double, n);

    memcpy (re, x, sizeof (double) * n);
    afetref_fft (re, im, n);
    for (k = 0; k <= n / 2; k++)
      pow_out[k] = re[k] * re[k] + im[k] * im[k];
    g_free (re);
    g_free (im);
  } else {
    double *ct = g_new (double, n), *st = g_new (double, n);

    for (t = 0; t < n; t++) {
      ct[t] = cos (2.0 * M_PI * (double) t / (double) n);
      st[t] = sin (2.0 * M_PI * (double) t / (double) n);
    }
    for (k = 0; k <= n / 2; k++) {
      double sr = 0.0, si = 0.0;

      for (t = 0; t < n; t++) {
        int m = (int) (((gint64) k * t) % n);

        sr += x[t] * ct[m];
        si -= x[t] * st[m];
      }
      pow_out[k] = sr * sr + si * si;
    }
    g_free (ct);
    g_free (st);
  }
  if (mag)
    for (k = 0; k <= n / 2; k++)
      pow_out[k] = sqrt (pow_out[k]);
}

/* ---------------------------------------------------------------------- */
/* Kaldi: options and framing                                             */
/* ---------------------------------------------------------------------- */

void
afetref_kaldi_config_init (AfetRefKaldiConfig * c, AfetRefKaldiKind kind)
{
  memset (c, 0, sizeof (*c));
  c->kind = kind;
  c->rate = 16000;
  c->sample_scale = 1.0;
  c->frame_length_ms = 25.0;
  c->frame_shift_ms = 10.0;
  c->snip_edges = 1;
  c->dither = 0.0;
  c->remove_dc_offset = 1;
  c->preemph = 0.97;
  c->window = AFETREF_WINDOW_POVEY;
  c->blackman_coeff = 0.42;
  c->round_to_power_of_two = 1;
  c->num_bins = 23;
  c->low_freq = 20.0;
  c->high_freq = 0.0;
  c->vtln_warp = 1.0;
  c->vtln_low = 100.0;
  c->vtln_high = -500.0;
  c->num_ceps = 13;
  c->cepstral_lifter = 22.0;
  c->use_energy = (kind == AFETREF_KALDI_MFCC || kind == AFETREF_KALDI_PLP);
  c->raw_energy = 1;
  c->energy_floor = 0.0;
  c->htk_compat = 0;
  c->use_power = 1;
  c->use_log_fbank = 1;
  c->log_floor = AFETREF_FLT_EPSILON;
  c->lpc_order = 12;
  c->compress_factor = 0.33333;
  c->cepstral_scale = 1.0;
  c->lhotse = 0;
}

void
afetref_lhotse_config_init (AfetRefKaldiConfig * c, AfetRefKaldiKind kind)
{
  afetref_kaldi_config_init (c, kind);
  c->sample_scale = 1.0 / 32768.0;
  c->snip_edges = 0;
  c->high_freq = -400.0;
  c->energy_floor = 1e-10;
  c->use_energy = 0;
  c->num_bins = kind == AFETREF_KALDI_FBANK ? 80 : 23;
  c->lhotse = 1;
}

int
afetref_kaldi_window_size (const AfetRefKaldiConfig * c)
{
  return (int) (c->rate * 0.001 * c->frame_length_ms);
}

int
afetref_kaldi_window_shift (const AfetRefKaldiConfig * c)
{
  return (int) (c->rate * 0.001 * c->frame_shift_ms);
}

int
afetref_kaldi_padded_size (const AfetRefKaldiConfig * c)
{
  int w = afetref_kaldi_window_size (c), p = 1;

  if (!c->round_to_power_of_two)
    return w;
  while (p < w)
    p <<= 1;
  return p;
}

int
afetref_kaldi_num_frames (const AfetRefKaldiConfig * c, int n)
{
  int W = afetref_kaldi_window_size (c), S = afetref_kaldi_window_shift (c);

  if (W <= 0 || S <= 0)
    return 0;
  if (c->snip_edges)
    return n < W ? 0 : (n - W) / S + 1;
  return (int) (((gint64) n + S / 2) / S);
}

gint64
afetref_kaldi_first_sample (const AfetRefKaldiConfig * c, int t)
{
  gint64 W = afetref_kaldi_window_size (c), S = afetref_kaldi_window_shift (c);

  if (c->snip_edges)
    return (gint64) t *S;
  if (c->lhotse)
    return (gint64) t *S - (W - S) / 2;
  return (gint64) t *S + S / 2 - W / 2;
}

double
afetref_kaldi_window_value (const AfetRefKaldiConfig * c, int i, int W)
{
  double a;

  if (c->window == AFETREF_WINDOW_BLACKMAN) {
    a = 2.0 * M_PI / (double) (c->lhotse ? W : W - 1);
    return c->blackman_coeff - 0.5 * cos (a * i) +
        (0.5 - c->blackman_coeff) * cos (2.0 * a * i);
  }
  a = 2.0 * M_PI / (double) (W - 1);
  switch (c->window) {
    case AFETREF_WINDOW_HAMMING:
      return 0.54 - 0.46 * cos (a * i);
    case AFETREF_WINDOW_HANN:
      return 0.5 - 0.5 * cos (a * i);
    case AFETREF_WINDOW_POVEY:
      return pow (0.5 - 0.5 * cos (a * i), 0.85);
    case AFETREF_WINDOW_RECTANGULAR:
    default:
      return 1.0;
  }
}

static double
log_energy_of (const AfetRefKaldiConfig * c, double e, double floor_kaldi)
{
  if (c->lhotse)
    return log (e + 1e-15);
  return log (MAX (e, floor_kaldi));
}

void
afetref_kaldi_extract_frame (const AfetRefKaldiConfig * c,
    const double *samples, int n, int t, double *out, double *raw_log_energy)
{
  int W = afetref_kaldi_window_size (c), P = afetref_kaldi_padded_size (c);
  gint64 start = afetref_kaldi_first_sample (c, t);
  double sum, e;
  int i;

  for (i = 0; i < W; i++) {
    gint64 s = start + i;

    while (s < 0 || s >= n) {
      if (s < 0)
        s = -s - 1;
      else
        s = 2 * (gint64) n - 1 - s;
    }
    out[i] = samples[s] * c->sample_scale;
  }

  if (c->remove_dc_offset) {
    sum = 0.0;
    for (i = 0; i < W; i++)
      sum += out[i];
    for (i = 0; i < W; i++)
      out[i] -= sum / W;
  }

  e = 0.0;
  for (i = 0; i < W; i++)
    e += out[i] * out[i];
  if (raw_log_energy)
    *raw_log_energy = log_energy_of (c, e, AFETREF_FLT_EPSILON);

  if (c->preemph != 0.0) {
    for (i = W - 1; i > 0; i--)
      out[i] -= c->preemph * out[i - 1];
    out[0] -= c->preemph * out[0];
  }

  for (i = 0; i < W; i++)
    out[i] *= afetref_kaldi_window_value (c, i, W);
  for (i = W; i < P; i++)
    out[i] = 0.0;
}

/* ---------------------------------------------------------------------- */
/* Kaldi: mel banks                                                       */
/* ---------------------------------------------------------------------- */

double
afetref_kaldi_mel (double f)
{
  return 1127.0 * log (1.0 + f / 700.0);
}

double
afetref_kaldi_inverse_mel (double m)
{
  return 700.0 * (exp (m / 1127.0) - 1.0);
}

double
afetref_kaldi_vtln_warp_freq (double vtln_low, double vtln_high,
    double low_freq, double high_freq, double warp, double freq)
{
  double l, h, scale, fl, fh, scale_left, scale_right;

  if (freq < low_freq || freq > high_freq)
    return freq;
  l = vtln_low * MAX (1.0, warp);
  h = vtln_high * MIN (1.0, warp);
  scale = 1.0 / warp;
  fl = scale * l;
  fh = scale * h;
  scale_left = (fl - low_freq) / (l - low_freq);
  scale_right = (high_freq - fh) / (high_freq - h);
  if (freq < l)
    return low_freq + scale_left * (freq - low_freq);
  if (freq < h)
    return scale * freq;
  return high_freq + scale_right * (freq - high_freq);
}

static double
vtln_warp_mel (const AfetRefKaldiConfig * c, double low, double high,
    double vlow, double vhigh, double mel)
{
  return afetref_kaldi_mel (afetref_kaldi_vtln_warp_freq (vlow, vhigh, low,
          high, c->vtln_warp, afetref_kaldi_inverse_mel (mel)));
}

double *
afetref_kaldi_mel_banks (const AfetRefKaldiConfig * c, int *n_fft_bins,
    double *centre_hz)
{
  int P = afetref_kaldi_padded_size (c), nfft = P / 2, M = c->num_bins;
  double nyquist = 0.5 * c->rate, low = c->low_freq, high, delta, mlow, mhigh;
  double vlow = c->vtln_low, vhigh = c->vtln_high, width;
  double *w;
  int m, i;

  high = c->high_freq > 0.0 ? c->high_freq : nyquist + c->high_freq;
  if (M < 3 || P < 2 || low < 0.0 || low >= nyquist || high <= 0.0 ||
      high > nyquist || high <= low) {
    g_printerr ("afetref: bad mel options: %d bins, low-freq %g, high-freq "
        "%g, nyquist %g\n", M, low, high, nyquist);
    return NULL;
  }
  if (vhigh < 0.0)
    vhigh += nyquist;
  if (c->vtln_warp != 1.0 && (vlow < 0.0 || vlow <= low || vlow >= high ||
          vhigh <= 0.0 || vhigh >= high || vhigh <= vlow)) {
    g_printerr ("afetref: bad VTLN options: vtln-low %g, vtln-high %g, "
        "low-freq %g, high-freq %g\n", vlow, vhigh, low, high);
    return NULL;
  }

  width = (double) c->rate / (double) P;
  mlow = afetref_kaldi_mel (low);
  mhigh = afetref_kaldi_mel (high);
  delta = (mhigh - mlow) / (M + 1);
  w = g_new0 (double, (gsize) M * MAX (nfft, 1));

  for (m = 0; m < M; m++) {
    double left = mlow + m * delta, centre = mlow + (m + 1) * delta;
    double right = mlow + (m + 2) * delta;
    int used = 0;

    if (c->vtln_warp != 1.0) {
      left = vtln_warp_mel (c, low, high, vlow, vhigh, left);
      centre = vtln_warp_mel (c, low, high, vlow, vhigh, centre);
      right = vtln_warp_mel (c, low, high, vlow, vhigh, right);
    }
    if (centre_hz)
      centre_hz[m] = afetref_kaldi_inverse_mel (centre);
    for (i = 0; i < nfft; i++) {
      double mel = afetref_kaldi_mel (width * i);

      if (mel > left && mel < right) {
        w[(gsize) m * nfft + i] = mel <= centre ?
            (mel - left) / (centre - left) : (right - mel) / (right - centre);
        used++;
      }
    }
    /* Kaldi's --htk-mode: "replicate a bug in HTK" */
    if (c->htk_mode && m == 0 && mlow != 0.0) {
      for (i = 0; i < nfft; i++)
        if (w[(gsize) m * nfft + i] != 0.0) {
          w[(gsize) m * nfft + i] = 0.0;
          break;
        }
    }
    if (used == 0) {
      g_printerr ("afetref: mel bin %d of %d holds no FFT bin (Kaldi: \"You "
          "may have set --num-mel-bins too large\")\n", m, M);
      g_free (w);
      return NULL;
    }
  }
  *n_fft_bins = nfft;
  return w;
}

int
afetref_kaldi_dims (const AfetRefKaldiConfig * c)
{
  switch (c->kind) {
    case AFETREF_KALDI_MFCC:
    case AFETREF_KALDI_PLP:
      return c->num_ceps;
    case AFETREF_KALDI_FBANK:
      return c->num_bins + (c->use_energy ? 1 : 0);
    case AFETREF_KALDI_SPECTROGRAM:
    default:
      return afetref_kaldi_padded_size (c) / 2 + 1;
  }
}

/* ---------------------------------------------------------------------- */
/* Kaldi: PLP pieces                                                      */
/* ---------------------------------------------------------------------- */

/* Durbin's recursion as Kaldi runs it: r[0..p] -> a[0..p-1] (A(z) = 1 +
 * sum_{j=1}^{p} a[j-1] z^-j) and the final prediction error, with each
 * step's (1 - k^2) floored at 1e-5.  r[0] = 0 gives NaN (0/0), as Kaldi. */
double
afetref_kaldi_durbin (int p, const double *r, double *a)
{
  double *tmp = g_new (double, MAX (p, 1));
  double e = r[0];
  int i, j;

  for (i = 0; i < p; i++) {
    double k = r[i + 1], f;

    for (j = 0; j < i; j++)
      k += a[j] * r[i - j];
    k /= e;
    f = 1.0 - k * k;
    if (f < 1.0e-5)
      f = 1.0e-5;
    e *= f;
    tmp[i] = -k;
    for (j = 0; j < i; j++)
      tmp[j] = a[j] - k * a[i - j - 1];
    for (j = 0; j <= i; j++)
      a[j] = tmp[j];
  }
  g_free (tmp);
  return e;
}

/* cepstrum c[0..p-1] (c_1 .. c_p) of 1/A(z), a[0..p-1] = a_1 .. a_p */
void
afetref_kaldi_lpc_to_cepstrum (int p, const double *a, double *c)
{
  int n, k;

  for (n = 1; n <= p; n++) {
    double s = 0.0;

    for (k = 1; k < n; k++)
      s += (double) (n - k) * a[k - 1] * c[n - k - 1];
    c[n - 1] = -a[n - 1] - s / n;
  }
}

double
afetref_kaldi_equal_loudness (double f)
{
  double fsq = f * f, fsub = fsq / (fsq + 1.6e5);

  return fsub * fsub * ((fsq + 1.44e6) / (fsq + 9.61e6));
}

/* ---------------------------------------------------------------------- */
/* Kaldi: features                                                        */
/* ---------------------------------------------------------------------- */

double *
afetref_kaldi_compute (const AfetRefKaldiConfig * c, const double *samples,
    int n, int *n_frames)
{
  int W = afetref_kaldi_window_size (c), P = afetref_kaldi_padded_size (c);
  int nf, dims = afetref_kaldi_dims (c), M = c->num_bins, nfft = 0;
  int t, i, j, p = c->lpc_order;
  double *banks = NULL, *centre = NULL, *eql = NULL, *dct = NULL;
  double *lift = NULL, *frame, *spec, *mel, *out, *ext = NULL, *r = NULL;
  double *a = NULL, *cep = NULL;
  gboolean need_mel = c->kind != AFETREF_KALDI_SPECTROGRAM;

  *n_frames = 0;
  if (c->dither != 0.0) {
    g_printerr ("afetref: dither must be 0 (no random reference)\n");
    return NULL;
  }
  if (W <= 0 || afetref_kaldi_window_shift (c) <= 0 || n <= 0)
    return NULL;
  if (c->kind == AFETREF_KALDI_MFCC && (c->num_ceps < 1 ||
          c->num_ceps > M)) {
    g_printerr ("afetref: num_ceps %d must be in 1 .. num_bins %d\n",
        c->num_ceps, M);
    return NULL;
  }
  if (c->kind == AFETREF_KALDI_PLP && (c->num_ceps < 1 || p < 1 ||
          c->num_ceps > p + 1)) {
    g_printerr ("afetref: PLP needs 1 <= num_ceps (%d) <= lpc_order + 1 "
        "(%d)\n", c->num_ceps, p + 1);
    return NULL;
  }
  nf = afetref_kaldi_num_frames (c, n);
  if (nf <= 0)
    return NULL;

  if (need_mel) {
    centre = g_new (double, MAX (M, 1));
    banks = afetref_kaldi_mel_banks (c, &nfft, centre);
    if (banks == NULL) {
      g_free (centre);
      return NULL;
    }
  }
  if (c->kind == AFETREF_KALDI_MFCC || c->kind == AFETREF_KALDI_PLP) {
    lift = g_new (double, c->num_ceps);
    for (i = 0; i < c->num_ceps; i++)
      lift[i] = c->cepstral_lifter != 0.0 ?
          1.0 + 0.5 * c->cepstral_lifter * sin (M_PI * i / c->cepstral_lifter)
          : 1.0;
  }
  if (c->kind == AFETREF_KALDI_MFCC) {
    dct = g_new (double, (gsize) c->num_ceps * M);
    for (i = 0; i < c->num_ceps; i++)
      for (j = 0; j < M; j++)
        dct[(gsize) i * M + j] = i == 0 ? sqrt (1.0 / M) :
            sqrt (2.0 / M) * cos (M_PI * i * (j + 0.5) / M);
  }
  if (c->kind == AFETREF_KALDI_PLP) {
    eql = g_new (double, M);
    for (j = 0; j < M; j++)
      eql[j] = afetref_kaldi_equal_loudness (centre[j]);
    ext = g_new (double, M + 2);
    r = g_new (double, p + 1);
    a = g_new (double, p);
    cep = g_new (double, p);
  }

  frame = g_new (double, P);
  spec = g_new (double, P / 2 + 1);
  mel = g_new (double, MAX (M, 1));
  out = g_new (double, (gsize) nf * dims);

  for (t = 0; t < nf; t++) {
    double e_raw, log_e, e_win = 0.0;
    double *row = out + (gsize) t * dims;
    gboolean mag = c->kind == AFETREF_KALDI_FBANK && !c->use_power;

    afetref_kaldi_extract_frame (c, samples, n, t, frame, &e_raw);
    for (i = 0; i < P; i++)
      e_win += frame[i] * frame[i];
    if (c->raw_energy)
      log_e = e_raw;
    else
      log_e = log_energy_of (c, e_win, c->kind == AFETREF_KALDI_PLP ?
          AFETREF_FLT_MIN : AFETREF_FLT_EPSILON);
    if (c->energy_floor > 0.0 && log_e < log (c->energy_floor))
      log_e = log (c->energy_floor);

    power_spectrum (frame, P, spec, mag);

    if (need_mel) {
      for (j = 0; j < M; j++) {
        double s = 0.0;

        for (i = 0; i < nfft; i++)
          s += banks[(gsize) j * nfft + i] * spec[i];
        mel[j] = (c->htk_mode && s < 1.0) ? 1.0 : s;
      }
    }

    switch (c->kind) {
      case AFETREF_KALDI_MFCC:{
        double c0;

        for (j = 0; j < M; j++)
          mel[j] = log (MAX (mel[j], c->log_floor));
        for (i = 0; i < c->num_ceps; i++) {
          double s = 0.0;

          for (j = 0; j < M; j++)
            s += dct[(gsize) i * M + j] * mel[j];
          row[i] = s * lift[i];
        }
        if (c->use_energy)
          row[0] = log_e;
        if (c->htk_compat) {
          c0 = row[0];
          for (i = 0; i + 1 < c->num_ceps; i++)
            row[i] = row[i + 1];
          row[c->num_ceps - 1] = c->use_energy ? c0 : c0 * M_SQRT2;
        }
        break;
      }
      case AFETREF_KALDI_FBANK:{
        int off = (c->use_energy && !c->htk_compat) ? 1 : 0;

        for (j = 0; j < M; j++)
          row[off + j] = c->use_log_fbank ?
              log (MAX (mel[j], c->log_floor)) : mel[j];
        if (c->use_energy)
          row[c->htk_compat ? M : 0] = log_e;
        break;
      }
      case AFETREF_KALDI_PLP:{
        double e_p, c0;
        int K = M + 1;

        for (j = 0; j < M; j++)
          ext[j + 1] = pow (mel[j] * eql[j], c->compress_factor);
        ext[0] = ext[1];
        ext[M + 1] = ext[M];
        for (i = 0; i <= p; i++) {
          double s = ext[0] + ext[K] * cos (M_PI * i);

          for (j = 1; j < K; j++)
            s += 2.0 * ext[j] * cos (M_PI * (double) i * j / K);
          r[i] = s / (2.0 * K);
        }
        e_p = afetref_kaldi_durbin (p, r, a);
        /* Kaldi: -log(1/E), then max(., FLT_MIN) on the log */
        c0 = log (e_p);
        if (c0 < AFETREF_FLT_MIN)
          c0 = AFETREF_FLT_MIN;
        afetref_kaldi_lpc_to_cepstrum (p, a, cep);
        row[0] = c0;
        for (i = 1; i < c->num_ceps; i++)
          row[i] = cep[i - 1];
        for (i = 0; i < c->num_ceps; i++)
          row[i] *= lift[i] * c->cepstral_scale;
        if (c->use_energy)
          row[0] = log_e;
        if (c->htk_compat) {
          c0 = row[0];
          for (i = 0; i + 1 < c->num_ceps; i++)
            row[i] = row[i + 1];
          row[c->num_ceps - 1] = c0;
        }
        break;
      }
      case AFETREF_KALDI_SPECTROGRAM:
      default:
        for (i = 0; i <= P / 2; i++)
          row[i] = log (MAX (spec[i], c->log_floor));
        row[0] = log_e;
        break;
    }
  }

  g_free (frame);
  g_free (spec);
  g_free (mel);
  g_free (banks);
  g_free (centre);
  g_free (eql);
  g_free (dct);
  g_free (lift);
  g_free (ext);
  g_free (r);
  g_free (a);
  g_free (cep);
  *n_frames = nf;
  return out;
}

/* ---------------------------------------------------------------------- */
/* Whisper                                                                */
/* ---------------------------------------------------------------------- */

#define SLANEY_F_SP (200.0 / 3.0)
#define SLANEY_MIN_LOG_HZ 1000.0
#define SLANEY_MIN_LOG_MEL (SLANEY_MIN_LOG_HZ / SLANEY_F_SP)

static double
slaney_logstep (void)
{
  return log (6.4) / 27.0;
}

double
afetref_slaney_mel (double f)
{
  if (f >= SLANEY_MIN_LOG_HZ)
    return SLANEY_MIN_LOG_MEL + log (f / SLANEY_MIN_LOG_HZ) / slaney_logstep ();
  return f / SLANEY_F_SP;
}

double
afetref_slaney_inverse_mel (double m)
{
  if (m >= SLANEY_MIN_LOG_MEL)
    return SLANEY_MIN_LOG_HZ * exp (slaney_logstep () * (m -
            SLANEY_MIN_LOG_MEL));
  return SLANEY_F_SP * m;
}

double *
afetref_slaney_mel_filters (int rate, int n_fft, int n_mels)
{
  int nb = n_fft / 2 + 1, m, k;
  double *pts = g_new (double, n_mels + 2);
  double *w = g_new0 (double, (gsize) n_mels * nb);
  double mmax = afetref_slaney_mel (rate / 2.0);

  /* numpy.linspace (0, mmax, n_mels + 2): start + i * step, the last
   * point exactly mmax */
  for (m = 0; m < n_mels + 2; m++) {
    double mm = m == n_mels + 1 ? mmax : m * (mmax / (n_mels + 1));

    pts[m] = afetref_slaney_inverse_mel (mm);
  }
  for (m = 0; m < n_mels; m++) {
    double enorm = 2.0 / (pts[m + 2] - pts[m]);

    for (k = 0; k < nb; k++) {
      double f = (double) k * rate / n_fft;
      double lower = (f - pts[m]) / (pts[m + 1] - pts[m]);
      double upper = (pts[m + 2] - f) / (pts[m + 2] - pts[m + 1]);
      double v = MIN (lower, upper);

      w[(gsize) m * nb + k] = v > 0.0 ? v * enorm : 0.0;
    }
  }
  g_free (pts);
  return w;
}

void
afetref_whisper_normalise (double *log_mel, int n_frames, int n_mels,
    AfetRefWhisperClamp mode)
{
  double mx = -G_MAXDOUBLE;
  gsize i, total = (gsize) n_frames * n_mels;
  int t, m;

  if (mode == AFETREF_WHISPER_LOG10_ONLY)
    return;
  if (mode == AFETREF_WHISPER_CLAMP_UTTERANCE) {
    for (i = 0; i < total; i++)
      mx = MAX (mx, log_mel[i]);
    for (i = 0; i < total; i++)
      log_mel[i] = (MAX (log_mel[i], mx - 8.0) + 4.0) / 4.0;
    return;
  }
  for (t = 0; t < n_frames; t++) {
    double *row = log_mel + (gsize) t * n_mels;

    for (m = 0; m < n_mels; m++)
      mx = MAX (mx, row[m]);
    for (m = 0; m < n_mels; m++)
      row[m] = (MAX (row[m], mx - 8.0) + 4.0) / 4.0;
  }
}

double *
afetref_whisper_log_mel (const double *samples, int n, int n_mels,
    AfetRefWhisperClamp mode, int *n_frames)
{
  const int N_FFT = 400, HOP = 160, PAD = N_FFT / 2, NB = N_FFT / 2 + 1;
  double *filt, *frame, *spec, *out;
  double win[400];
  int nf = n / HOP, t, i, m;

  *n_frames = 0;
  if (nf <= 0 || n_mels <= 0)
    return NULL;
  filt = afetref_slaney_mel_filters (16000, N_FFT, n_mels);
  for (i = 0; i < N_FFT; i++)
    win[i] = 0.5 - 0.5 * cos (2.0 * M_PI * i / N_FFT);
  frame = g_new (double, N_FFT);
  spec = g_new (double, NB);
  out = g_new (double, (gsize) nf * n_mels);

  for (t = 0; t < nf; t++) {
    for (i = 0; i < N_FFT; i++) {
      gint64 s = (gint64) t * HOP + i - PAD;

      /* reflection without repeating the edge sample, period 2 (n - 1) */
      if (n == 1) {
        s = 0;
      } else {
        gint64 period = 2 * (gint64) (n - 1);

        s %= period;
        if (s < 0)
          s += period;
        if (s >= n)
          s = period - s;
      }
      frame[i] = samples[s] / 32768.0 * win[i];
    }
    power_spectrum (frame, N_FFT, spec, FALSE);
    for (m = 0; m < n_mels; m++) {
      double s = 0.0;

      for (i = 0; i < NB; i++)
        s += filt[(gsize) m * NB + i] * spec[i];
      out[(gsize) t * n_mels + m] = log10 (MAX (s, 1e-10));
    }
  }
  afetref_whisper_normalise (out, nf, n_mels, mode);

  g_free (filt);
  g_free (frame);
  g_free (spec);
  *n_frames = nf;
  return out;
}
