/* Verifies the double-precision reference implementation
 * (tests/reference/afetref.c) against HTK 3.4.1 HCopy output.
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

/* Data are looked up first in $AFET_REFDATA (default: the shared refdata
 * directory next to the source tree), then in tests/data/, which holds
 * copies of the synthetic s0* files.  The real recordings (lv01_16k,
 * lv02_16k, en01_8k) only exist in the shared directory and are reported
 * as skipped when absent. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "afetref.h"

#ifndef AFET_SOURCE_DIR
#define AFET_SOURCE_DIR "."
#endif

#define TOL 1e-5
#define QUIRK_MIN_ERR 1e-4

static int n_pass, n_fail, n_skip;
static const char *refdata_dir, *testdata_dir;

static void
result (gboolean ok, const char *what)
{
  if (ok)
    n_pass++;
  else {
    n_fail++;
    printf ("FAIL: %s\n", what);
  }
}

/* Finds REL (e.g. "audio/s01_8k.wav") in the refdata dir, then in
 * tests/data.  Returns a newly allocated path or NULL. */
static char *
find_data (const char *rel)
{
  const char *dirs[2] = { refdata_dir, testdata_dir };
  int i;

  for (i = 0; i < 2; i++) {
    char *p = g_build_filename (dirs[i], rel, NULL);

    if (g_file_test (p, G_FILE_TEST_IS_REGULAR))
      return p;
    g_free (p);
  }
  return NULL;
}

static int
chans_for_rate (int rate)
{
  switch (rate) {
    case 8000:
      return 15;
    case 16000:
      return 23;
    default:
      return 25;
  }
}

/* ---------------------------------------------------------------------- */
/* Self-consistency checks of the building blocks                         */
/* ---------------------------------------------------------------------- */

static void
check_framing (void)
{
  static const struct
  {
    int rate, w, s;
  } want[] = {
    {8000, 160, 80}, {16000, 320, 160}, {44100, 882, 441}
  };
  guint i;

  printf ("Framing (HTK: (int) (WINDOWSIZE / (1e7 / rate)), 20 ms / 10 ms)\n");
  for (i = 0; i < G_N_ELEMENTS (want); i++) {
    int w = afetref_frame_samples (20.0, want[i].rate);
    int s = afetref_frame_samples (10.0, want[i].rate);
    char *msg;

    printf ("  %5d Hz: 200000/%.17g = %.17g -> W %d, S %d\n", want[i].rate,
        1e7 / want[i].rate, 200000.0 / (1e7 / want[i].rate), w, s);
    msg = g_strdup_printf ("framing at %d Hz: W %d S %d, want %d %d",
        want[i].rate, w, s, want[i].w, want[i].s);
    result (w == want[i].w && s == want[i].s, msg);
    g_free (msg);
  }
  result (afetref_num_frames (75914, 320, 160) == 473 &&
      afetref_num_frames (209238, 882, 441) == 473 &&
      afetref_num_frames (319, 320, 160) == 0 &&
      afetref_num_frames (320, 320, 160) == 1, "afetref_num_frames");
}

static void
check_blocks (void)
{
  double x[64], re[64], im[64], out[8], e, max_err = 0.0;
  double pre[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
  double *noise, *noise2;
  int k, t;
  gboolean ok;

  /* deterministic noise in range */
  noise = afetref_make_noise (64, 1000.0, 42);
  noise2 = afetref_make_noise (64, 1000.0, 42);
  ok = memcmp (noise, noise2, sizeof (double) * 64) == 0;
  for (k = 0; k < 64; k++)
    ok = ok && noise[k] >= -1000.0 && noise[k] <= 1000.0;
  result (ok, "noise generator deterministic and in range");

  /* FFT against a direct DFT */
  memcpy (re, noise, sizeof (re));
  memset (im, 0, sizeof (im));
  ok = afetref_fft (re, im, 64) && !afetref_fft (re, im, 48);
  for (t = 0; t < 64; t++) {
    double sr = 0.0, si = 0.0;

    for (k = 0; k < 64; k++) {
      sr += noise[k] * cos (2.0 * G_PI * t * k / 64.0);
      si -= noise[k] * sin (2.0 * G_PI * t * k / 64.0);
    }
    max_err = MAX (max_err, MAX (fabs (sr - re[t]), fabs (si - im[t])));
  }
  result (ok && max_err < 1e-9, "FFT matches a direct DFT");

  /* per-frame pre-emphasis (nothing from before the frame), windows and
   * raw energy */
  afetref_frame (pre, 8, 0.5, AFETREF_WINDOW_RECTANGULAR, out, &e);
  ok = out[0] == 0.5 && out[1] == 1.5 && out[7] == 4.5 &&
      fabs (e - log (204.0)) < 1e-12;
  afetref_frame (pre, 8, 0.0, AFETREF_WINDOW_HAMMING, out, NULL);
  ok = ok && fabs (out[0] - 0.08) < 1e-12 && fabs (out[7] - 0.08 * 8) < 1e-12;
  ok = ok && fabs (afetref_window_value (AFETREF_WINDOW_POVEY, 3, 10) -
      pow (afetref_window_value (AFETREF_WINDOW_HANN, 3, 10), 0.85)) < 1e-15;
  ok = ok && fabs (afetref_window_value (AFETREF_WINDOW_BLACKMAN, 0, 10)) <
      1e-15;
  memset (x, 0, sizeof (x));
  afetref_frame (x, 64, 0.97, AFETREF_WINDOW_HAMMING, re, &e);
  ok = ok && e == -1e10;
  result (ok, "pre-emphasis, windows, raw energy");

  /* FBANK of a 1 kHz tone peaks in the channel holding it: centres are
   * mel(8000)/24 = 118.4 mel apart and mel(1000) = 1000, so channel 8 or
   * 9 (1-based) */
  {
    AfetRefConfig c;
    double *tone, *fb;
    int nf, best = 0;

    afetref_config_init (&c);
    c.rate = 16000;
    c.num_ceps = 0;
    c.preemph = 0.0;
    tone = afetref_make_tone (16000, 16000, 1000.0, 10000.0, 0.0);
    fb = afetref_compute (&c, tone, 16000, &nf);
    for (k = 1; k < c.num_filters; k++)
      if (fb[5 * c.num_filters + k] > fb[5 * c.num_filters + best])
        best = k;
    result (nf == 98 && afetref_dims (&c) == 23 && (best == 7 || best == 8),
        "1 kHz tone peaks in its mel channel");
    g_free (tone);
    g_free (fb);
  }
  g_free (noise);
  g_free (noise2);
}

/* Writes a mono WAV with the given format code / bits and payload. */
static char *
write_wav (const char *dir, const char *name, int format, int bits,
    gboolean extensible, int channels, const void *data, int n_bytes)
{
  guint8 hdr[68];
  int fmt_len = extensible ? 40 : 16, hlen = 12 + 8 + fmt_len + 8, rate = 8000;
  int block = channels * bits / 8;
  char *path = g_build_filename (dir, name, NULL);
  GString *buf = g_string_new (NULL);
  guint8 *p = hdr;

#define PUT32(v) do { guint32 _v = (v); p[0] = _v; p[1] = _v >> 8; \
    p[2] = _v >> 16; p[3] = _v >> 24; p += 4; } while (0)
#define PUT16(v) do { guint16 _v = (v); p[0] = _v; p[1] = _v >> 8; \
    p += 2; } while (0)
  memcpy (p, "RIFF", 4);
  p += 4;
  PUT32 (hlen - 8 + n_bytes);
  memcpy (p, "WAVEfmt ", 8);
  p += 8;
  PUT32 (fmt_len);
  PUT16 (extensible ? 0xFFFE : format);
  PUT16 (channels);
  PUT32 (rate);
  PUT32 (rate * block);
  PUT16 (block);
  PUT16 (bits);
  if (extensible) {
    static const guint8 guid_tail[14] = { 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
      0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71
    };
    PUT16 (22);
    PUT16 (bits);
    PUT32 (channels == 1 ? 4 : 3);
    PUT16 (format);
    memcpy (p, guid_tail, 14);
    p += 14;
  }
  memcpy (p, "data", 4);
  p += 4;
  PUT32 (n_bytes);
#undef PUT32
#undef PUT16
  g_string_append_len (buf, (const char *) hdr, p - hdr);
  g_string_append_len (buf, data, n_bytes);
  if (!g_file_set_contents (path, buf->str, buf->len, NULL)) {
    g_free (path);
    path = NULL;
  }
  g_string_free (buf, TRUE);
  return path;
}

static gboolean
read_back (char *path, const double *want, int n)
{
  int rate = 0, got_n = 0, i;
  double *x;
  gboolean ok;

  if (path == NULL)
    return FALSE;
  x = afetref_read_wav (path, &rate, &got_n);
  ok = x != NULL && rate == 8000 && got_n == n;
  for (i = 0; ok && i < n; i++)
    ok = fabs (x[i] - want[i]) < 1e-3;
  g_free (x);
  g_unlink (path);
  g_free (path);
  return ok;
}

static void
check_wav_readers (void)
{
  static const double want[4] = { 0.0, 1000.0, -32768.0, 32767.0 };
  gint16 s16[4];
  gint32 s32[4];
  float f32[4];
  double f64[4];
  guint8 u8[4] = { 0, 64, 128, 255 };
  char *dir = g_dir_make_tmp ("afetref-XXXXXX", NULL);
  gboolean ok;
  char *path;
  int i, rate, n;

  if (dir == NULL) {
    result (FALSE, "temporary directory for WAV reader checks");
    return;
  }
  /* little-endian payloads (the test machines are little-endian; guard) */
  if (G_BYTE_ORDER != G_LITTLE_ENDIAN) {
    printf ("WAV reader checks skipped on a big-endian host\n");
    n_skip++;
    g_rmdir (dir);
    g_free (dir);
    return;
  }
  for (i = 0; i < 4; i++) {
    s16[i] = (gint16) want[i];
    s32[i] = (gint32) (want[i] * 65536.0);
    f32[i] = (float) (want[i] / 32768.0);
    f64[i] = want[i] / 32768.0;
  }
  ok = read_back (write_wav (dir, "s16.wav", 1, 16, FALSE, 1, s16, 8), want,
      4);
  ok = ok && read_back (write_wav (dir, "s32.wav", 1, 32, FALSE, 1, s32, 16),
      want, 4);
  ok = ok && read_back (write_wav (dir, "f32.wav", 3, 32, FALSE, 1, f32, 16),
      want, 4);
  ok = ok && read_back (write_wav (dir, "f64.wav", 3, 64, FALSE, 1, f64, 32),
      want, 4);
  ok = ok && read_back (write_wav (dir, "ext.wav", 3, 32, TRUE, 1, f32, 16),
      want, 4);
  result (ok, "WAV reader: S16, S32, F32, F64, extensible");

  /* refused layouts: stereo and 8-bit */
  printf ("(two 'unsupported' messages expected next)\n");
  path = write_wav (dir, "st.wav", 1, 16, FALSE, 2, s16, 8);
  ok = path != NULL && afetref_read_wav (path, &rate, &n) == NULL;
  if (path)
    g_unlink (path);
  g_free (path);
  path = write_wav (dir, "u8.wav", 1, 8, FALSE, 1, u8, 4);
  ok = ok && path != NULL && afetref_read_wav (path, &rate, &n) == NULL;
  if (path)
    g_unlink (path);
  g_free (path);
  result (ok, "WAV reader refuses stereo and 8-bit");

  g_rmdir (dir);
  g_free (dir);
}

/* ---------------------------------------------------------------------- */
/* Against HTK                                                            */
/* ---------------------------------------------------------------------- */

typedef struct
{
  const char *name;             /* directory under htk/ */
  int num_ceps, c0, energy;
  int chans;                    /* 0 = by rate */
  int htk_kind;
  int htk_dims_factor;          /* 3 for _D_A: statics are the first third */
} Kind;

static const Kind kinds[] = {
  {"MFCC_0", 12, 1, 0, 0, AFETREF_HTK_MFCC | AFETREF_HTK_0, 1},
  {"FBANK", 0, 0, 0, 0, AFETREF_HTK_FBANK, 1},
  {"FBANK40", 0, 0, 0, 40, AFETREF_HTK_FBANK, 1},
  {"MFCC_E_D_A", 12, 0, 1, 0,
      AFETREF_HTK_MFCC | AFETREF_HTK_E | AFETREF_HTK_D | AFETREF_HTK_A, 3},
};

static void
config_for (AfetRefConfig * c, const Kind * k, int rate)
{
  afetref_config_init (c);
  c->rate = rate;
  c->frame_length_ms = 20.0;
  c->frame_shift_ms = 10.0;
  c->window = AFETREF_WINDOW_HAMMING;
  c->preemph = 0.97;
  c->num_filters = k->chans ? k->chans : chans_for_rate (rate);
  c->num_ceps = k->num_ceps;
  c->lifter = 22;
  c->use_power = 0;
  c->c0 = k->c0;
  c->energy = k->energy;
  c->htk_period_quirk = 1;
}

static void
print_row (const char *file, const char *kind, int frames, const char *group,
    double rel, double maxabs, const char *status)
{
  printf ("  %-9s %-11s %6d  %-8s %11.3e %11.3e  %s\n", file, kind, frames,
      group, rel, maxabs, status);
}

/* Compares one (file, kind) against the HTK file: header, frame count and
 * relative L2 per column group. */
static void
check_one (const char *file, const double *x, int n, int rate, const Kind * k,
    gboolean synthetic)
{
  char *rel = g_strdup_printf ("htk/%s/%s.htk", k->name, file);
  char *path = find_data (rel);
  char *what = g_strdup_printf ("%s %s", file, k->name);
  AfetRefConfig c;
  float *htk;
  double *ref;
  int hn, hdims, hperiod, hkind, nf, dims, g;
  gboolean ok = TRUE;
  struct
  {
    const char *name;
    int col0, ncols;
  } groups[2];
  int n_groups;

  if (path == NULL) {
    if (synthetic) {
      printf ("  %-9s %-11s missing %s\n", file, k->name, rel);
      result (FALSE, what);
    } else {
      printf ("  %-9s %-11s skipped (no %s)\n", file, k->name, rel);
      n_skip++;
    }
    goto out;
  }

  htk = afetref_read_htk (path, &hn, &hdims, &hperiod, &hkind);
  if (htk == NULL) {
    result (FALSE, what);
    goto out;
  }

  config_for (&c, k, rate);
  dims = afetref_dims (&c);
  ref = afetref_compute (&c, x, n, &nf);

  if (hperiod != 100000 || hkind != k->htk_kind ||
      hdims != dims * k->htk_dims_factor) {
    printf ("  %-9s %-11s header mismatch: period %d kind 0%o dims %d "
        "(want 100000, 0%o, %d)\n", file, k->name, hperiod, hkind, hdims,
        k->htk_kind, dims * k->htk_dims_factor);
    ok = FALSE;
  }
  if (nf != hn) {
    printf ("  %-9s %-11s frame count %d, HTK %d\n", file, k->name, nf, hn);
    ok = FALSE;
  }

  if (k->num_ceps > 0) {
    groups[0].name = "c1-c12";
    groups[0].col0 = 0;
    groups[0].ncols = k->num_ceps;
    groups[1].name = k->c0 ? "c0" : "E";
    groups[1].col0 = k->num_ceps;
    groups[1].ncols = 1;
    n_groups = 2;
  } else {
    groups[0].name = "all";
    groups[0].col0 = 0;
    groups[0].ncols = dims;
    n_groups = 1;
  }

  if (ok) {
    for (g = 0; g < n_groups; g++) {
      double e = afetref_rel_l2_strided (htk, NULL, hdims, groups[g].col0,
          NULL, ref, dims, groups[g].col0, nf, groups[g].ncols);
      double m = afetref_max_abs_strided (htk, NULL, hdims, groups[g].col0,
          NULL, ref, dims, groups[g].col0, nf, groups[g].ncols);
      gboolean gok = e <= TOL;

      print_row (file, k->name, nf, groups[g].name, e, m, gok ? "ok" : "FAIL");
      ok = ok && gok;
    }
  }
  result (ok, what);

  /* without the 44.1 kHz quirk the MFCCs must be measurably off: proves
   * that the comparison is able to detect it */
  if (rate == 44100 && strcmp (k->name, "MFCC_0") == 0 && nf == hn) {
    double *ref2, e, m;
    int nf2;
    char *w2 = g_strdup_printf ("%s MFCC_0 without quirk differs > %g", file,
        QUIRK_MIN_ERR);

    c.htk_period_quirk = 0;
    ref2 = afetref_compute (&c, x, n, &nf2);
    e = afetref_rel_l2_strided (htk, NULL, hdims, 0, NULL, ref2, dims, 0, nf,
        k->num_ceps);
    m = afetref_max_abs_strided (htk, NULL, hdims, 0, NULL, ref2, dims, 0, nf,
        k->num_ceps);
    print_row (file, "MFCC_0/noq", nf, "c1-c12", e, m,
        e > QUIRK_MIN_ERR ? "ok (> 1e-4 as expected)" : "FAIL (too close)");
    result (nf2 == nf && e > QUIRK_MIN_ERR, w2);
    g_free (w2);
    g_free (ref2);
  }

  g_free (htk);
  g_free (ref);
out:
  g_free (path);
  g_free (rel);
  g_free (what);
}

static void
check_file (const char *file, gboolean synthetic)
{
  char *rel = g_strdup_printf ("audio/%s.wav", file);
  char *path = find_data (rel);
  double *x;
  int rate = 0, n = 0;
  guint i;

  if (path == NULL) {
    if (synthetic) {
      printf ("  %-9s missing %s\n", file, rel);
      result (FALSE, file);
    } else {
      for (i = 0; i < G_N_ELEMENTS (kinds); i++) {
        if (kinds[i].energy)
          continue;             /* MFCC_E_D_A exists for s0* only */
        printf ("  %-9s %-11s skipped (no %s)\n", file, kinds[i].name, rel);
        n_skip++;
      }
    }
    g_free (rel);
    return;
  }

  x = afetref_read_wav (path, &rate, &n);
  if (x == NULL) {
    result (FALSE, file);
  } else {
    for (i = 0; i < G_N_ELEMENTS (kinds); i++) {
      if (kinds[i].energy && !synthetic)
        continue;
      check_one (file, x, n, rate, &kinds[i], synthetic);
    }
  }
  g_free (x);
  g_free (path);
  g_free (rel);
}

int
main (void)
{
  static const char *synth[] = {
    "s01_8k", "s02_8k", "s03_8k", "s01_16k", "s02_16k", "s03_16k",
    "s01_44k", "s02_44k", "s03_44k"
  };
  static const char *real[] = { "en01_8k", "lv01_16k", "lv02_16k" };
  char *def_refdata = g_build_filename (AFET_SOURCE_DIR, "..", "shared",
      "refdata", NULL);
  char *def_testdata = g_build_filename (AFET_SOURCE_DIR, "tests", "data",
      NULL);
  guint i;

  setvbuf (stdout, NULL, _IOLBF, 0);

  refdata_dir = g_getenv ("AFET_REFDATA");
  if (refdata_dir == NULL || *refdata_dir == '\0')
    refdata_dir = def_refdata;
  testdata_dir = g_getenv ("AFET_TESTDATA");
  if (testdata_dir == NULL || *testdata_dir == '\0')
    testdata_dir = def_testdata;

  printf ("afetref against HTK 3.4.1 HCopy (tolerance: relative L2 <= %g)\n",
      TOL);
  printf ("refdata: %s%s\n", refdata_dir,
      g_file_test (refdata_dir, G_FILE_TEST_IS_DIR) ? "" : " (absent)");
  printf ("fallback: %s\n\n", testdata_dir);

  check_framing ();
  check_blocks ();
  check_wav_readers ();

  printf ("\n  %-9s %-11s %6s  %-8s %11s %11s  %s\n", "file", "kind", "frames",
      "group", "rel L2", "max |diff|", "result");
  for (i = 0; i < G_N_ELEMENTS (synth); i++)
    check_file (synth[i], TRUE);
  for (i = 0; i < G_N_ELEMENTS (real); i++)
    check_file (real[i], FALSE);

  printf ("\n%d passed, %d failed, %d skipped\n", n_pass, n_fail, n_skip);

  g_free (def_refdata);
  g_free (def_testdata);
  return n_fail ? 1 : 0;
}
