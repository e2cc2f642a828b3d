/* Tests of afetspectrogram against Kaldi's and torchaudio's output and the
 * double-precision reference, its caps, and afetenc's files of it.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* afetspectrogram: Kaldi's compute-spectrogram-feats against Kaldi's own
 * output (kaldi-gen/kaldi_spectrogram) and torchaudio's (ta_spectrogram,
 * ta_spectrogram_nosnip_nonraw) on speech and noise, against the
 * double-precision reference of tests/reference/afetref_kaldi.c on noise in
 * random buffer sizes, its caps, and afetenc's files of it. */

#include "afetcheck.h"
#include "afetref_kaldi.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

/* A temporary file name (the file exists, empty). */
static gchar *
temp_path (void)
{
  gchar *path = g_build_filename (g_get_tmp_dir (), "afet-spectrogram-XXXXXX",
      NULL);
  gint fd = g_mkstemp (path);
  fail_unless (fd >= 0);
  close (fd);
  return path;
}

/* filesrc ! wavparse ! afetspectrogram props [! afetenc enc] into a file;
 * the file's bytes. */
static gchar *
run_file (const gchar * wav, const gchar * props, const gchar * enc,
    gsize * len)
{
  gchar *head = g_strdup_printf ("filesrc location=\"%s\" ! wavparse ! "
      "afetspectrogram %s%s%s", wav, props, enc ? " ! afetenc " : "",
      enc ? enc : "");
  gchar *contents = afetcheck_run_to_bytes (head, len);
  g_free (head);
  return contents;
}

/* ---- the tools' files ---------------------------------------------------- */

typedef struct
{
  const gchar *set;             /* under tests/data/kaldi-gen */
  const gchar *props;           /* afetspectrogram's */
  const gchar *names[4];
} RefSet;

static const RefSet ref_sets[] = {
  /* Kaldi's own Spectrogram class (float32), its defaults */
  {"kaldi_spectrogram", "preset=kaldi", {"s01_8k", "noise_16k"}},
  /* torchaudio's compliance.kaldi.spectrogram (float64), energy_floor=0 */
  {"ta_spectrogram", "preset=kaldi", {"s01_8k", "s01_16k", "noise_8k",
          "noise_16k"}},
  {"ta_spectrogram_nosnip_nonraw", "preset=kaldi snip-edges=false "
        "raw-energy=false energy-floor=1.0 window=hamming", {"s01_8k",
          "noise_8k", "noise_16k"}},
};

/* The output for one input of the README: a WAV file or the noise. */
static gfloat *
compute (const gchar * props, const gchar * name, gint * frames, gint dims)
{
  if (g_str_has_prefix (name, "noise_")) {
    /* afetref_make_noise (rate samples, 8000, seed 8 or 16), quantised */
    gint rate = g_str_has_suffix (name, "_8k") ? 8000 : 16000;
    gdouble *x = afetcheck_int_noise (rate, 8000, rate / 1000);
    gchar *launch = g_strdup_printf ("afetspectrogram %s", props);
    AfetCheckResult res = { 0 };
    afetcheck_run_samples (launch, rate, x, rate, NULL, 0, &res);
    fail_unless_equals_int (res.dims, dims);
    *frames = res.n_frames;
    gfloat *out = res.data;
    res.data = NULL;
    afetcheck_result_clear (&res);
    g_free (launch);
    g_free (x);
    return out;
  }
  gchar *wav_rel = g_strdup_printf ("audio/%s.wav", name);
  gchar *wav = afetref_find_data (wav_rel, NULL);
  fail_unless (wav != NULL, "missing %s", wav_rel);
  gsize len = 0;
  gfloat *out = (gfloat *) run_file (wav, props, NULL, &len);
  fail_unless (len % (dims * sizeof (gfloat)) == 0);
  *frames = (gint) (len / (dims * sizeof (gfloat)));
  g_free (wav);
  g_free (wav_rel);
  return out;
}

/* Relative L2 <= 1e-4 for column 0 (the energy) and for the bins. */
GST_START_TEST (test_reference_files)
{
  for (guint s = 0; s < G_N_ELEMENTS (ref_sets); s++) {
    for (guint i = 0; i < 4 && ref_sets[s].names[i]; i++) {
      const gchar *name = ref_sets[s].names[i];
      gchar *rel = g_strdup_printf ("kaldi-gen/%s/%s.npy", ref_sets[s].set,
          name);
      gchar *path = afetref_find_data (rel, NULL);
      fail_unless (path != NULL, "missing %s", rel);
      gint rows = 0, cols = 0;
      gfloat *ref = afetref_read_npy (path, &rows, &cols);
      fail_unless (ref != NULL, "cannot read %s", path);
      fail_unless_equals_int (cols, g_str_has_suffix (name, "_8k") ? 129 :
          257);
      gint frames = 0;
      gfloat *out = compute (ref_sets[s].props, name, &frames, cols);
      fail_unless_equals_int (frames, rows);
      gdouble e0 = afetref_rel_l2_strided (out, NULL, cols, 0, ref, NULL,
          cols, 0, frames, 1);
      gdouble e1 = afetref_rel_l2_strided (out, NULL, cols, 1, ref, NULL,
          cols, 1, frames, cols - 1);
      g_print ("%-29s %-9s %4d frames  col 0 rel L2 %.2e  bins %.2e\n",
          ref_sets[s].set, name, frames, e0, e1);
      fail_unless (e0 <= 1e-4 && e1 <= 1e-4, "%s (afetspectrogram %s): "
          "rel L2 %.3e / %.3e > 1e-4", rel, ref_sets[s].props, e0, e1);
      g_free (out);
      g_free (ref);
      g_free (path);
      g_free (rel);
    }
  }
}

GST_END_TEST;

/* ---- noise against the double-precision reference ------------------------ */

/* Raw and windowed energy, both edges, with floors that bind on some
 * frames, 16 and 8 kHz, noise of several lengths in random buffer sizes:
 * relative L2 <= 1e-5 over all columns. */
GST_START_TEST (test_noise_vs_reference)
{
  const gint lengths[] = { 16000, 4321, 401, 250 };
  gint *sizes = afetcheck_random_sizes (64, 1, 997, 5);
  gint binds = 0;               /* frames at the near-energy floors */
  const struct
  {
    const gchar *props;
    gint rate;
    gboolean snip, raw;
    gdouble floor;
    AfetRefWindow window;
  } k[] = {
    {"preset=kaldi", 16000, TRUE, TRUE, 0.0, AFETREF_WINDOW_POVEY},
    {"preset=kaldi", 8000, TRUE, TRUE, 0.0, AFETREF_WINDOW_POVEY},
    {"preset=kaldi snip-edges=false raw-energy=false energy-floor=1.0 "
          "window=hamming", 16000, FALSE, FALSE, 1.0,
        AFETREF_WINDOW_HAMMING},
    /* floors near the noise's energies: raw ~ 2e10, windowed ~ 6e9 */
    {"preset=kaldi energy-floor=2e10", 16000, TRUE, TRUE, 2e10,
        AFETREF_WINDOW_POVEY},
    {"preset=kaldi raw-energy=false energy-floor=6e9 snip-edges=false",
          8000, FALSE, FALSE, 6e9, AFETREF_WINDOW_POVEY},
  };
  for (guint l = 0; l < G_N_ELEMENTS (lengths); l++) {
    const gint n = lengths[l];
    gdouble *x = afetcheck_int_noise (n, 12000, 31 + l);
    for (guint i = 0; i < G_N_ELEMENTS (k); i++) {
      AfetRefKaldiConfig c;
      afetref_kaldi_config_init (&c, AFETREF_KALDI_SPECTROGRAM);
      c.rate = k[i].rate;
      c.snip_edges = k[i].snip;
      c.raw_energy = k[i].raw;
      c.energy_floor = k[i].floor;
      c.window = k[i].window;
      gint frames = 0;
      gdouble *ref = afetref_kaldi_compute (&c, x, n, &frames);
      if (frames == 0)
        continue;
      gint dims = afetref_kaldi_dims (&c);
      gchar *launch = g_strdup_printf ("afetspectrogram %s", k[i].props);
      AfetCheckResult res = { 0 };
      afetcheck_run_samples (launch, k[i].rate, x, n, sizes, 64, &res);
      fail_unless_equals_int (res.n_frames, frames);
      fail_unless_equals_int (res.dims, dims);
      gdouble e = afetref_rel_l2 (res.data, ref, frames, dims, 0, dims);
      gdouble e0 = afetref_rel_l2 (res.data, ref, frames, dims, 0, 1);
      g_print ("%-76s %5d Hz %5d samples %3d frames rel L2 %.2e (col 0 "
          "%.2e)\n", launch, k[i].rate, n, frames, e, e0);
      fail_unless (e <= 1e-5 && e0 <= 1e-5, "%s at %d Hz, %d samples: rel "
          "L2 %.3e, column 0 %.3e", launch, k[i].rate, n, e, e0);
      if (k[i].floor > 0) {
        /* the floor holds; where it binds, column 0 is ln(floor) */
        gfloat lf = (gfloat) log (k[i].floor);
        gint bound = 0;
        for (gint t = 0; t < frames; t++) {
          gfloat v = res.data[(gsize) t * dims];
          fail_unless (v >= lf - 1e-6f * fabsf (lf));
          bound += v == lf;
          binds += v == lf && k[i].floor > 1.0;
        }
        g_print ("  the floor binds on %d of %d frames\n", bound, frames);
      }
      afetcheck_result_clear (&res);
      g_free (launch);
      g_free (ref);
    }
    g_free (x);
  }
  fail_unless (binds > 0, "no energy floor bound: the floors test nothing");
  g_free (sizes);
}

GST_END_TEST;

/* ---- caps ---------------------------------------------------------------- */

GST_START_TEST (test_caps)
{
  const struct
  {
    const gchar *props;
    gint rate, dims, W, S;
    AfetFeaturesPreset preset;
    AfetFeaturesWindow window;
  } t[] = {
    {"preset=kaldi", 16000, 257, 400, 160, AFET_FEATURES_PRESET_KALDI,
        AFET_FEATURES_WINDOW_POVEY},
    {"preset=kaldi energy-floor=1.0", 8000, 129, 200, 80,
        AFET_FEATURES_PRESET_KALDI, AFET_FEATURES_WINDOW_POVEY},
    {"preset=kaldi frame-length=50 window=hamming", 16000, 513, 800, 160,
        AFET_FEATURES_PRESET_KALDI, AFET_FEATURES_WINDOW_HAMMING},
    /* HTK's framing (Hamming, no DC removal), Kaldi's formula */
    {"", 16000, 257, 400, 160, AFET_FEATURES_PRESET_HTK,
        AFET_FEATURES_WINDOW_HAMMING},
    /* Whisper's framing: a 400-point FFT */
    {"preset=whisper", 16000, 201, 400, 160, AFET_FEATURES_PRESET_WHISPER,
        AFET_FEATURES_WINDOW_HANN_PERIODIC},
  };
  gdouble *x = afetcheck_int_noise (4000, 5000, 3);
  for (guint i = 0; i < G_N_ELEMENTS (t); i++) {
    gchar *launch = g_strdup_printf ("afetspectrogram %s", t[i].props);
    GstHarness *h = gst_harness_new_parse (launch);
    gst_harness_set_live (h, FALSE);
    afetcheck_set_audio_caps (h, AFETCHECK_S16, t[i].rate);
    fail_unless_equals_int (afetcheck_push_samples (h, AFETCHECK_S16,
            t[i].rate, x, 4000, NULL, 0, 0, TRUE), GST_FLOW_OK);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
    fail_unless (caps != NULL, "%s: no caps", launch);
    AfetFeaturesInfo info;
    fail_unless (afet_features_info_from_caps (&info, caps));
    fail_unless_equals_int (info.kind, AFET_FEATURES_KIND_SPECTROGRAM);
    fail_unless_equals_int (info.dims, t[i].dims);
    fail_unless_equals_int (info.statics, t[i].dims);
    fail_unless_equals_int (info.energy_index, 0);
    fail_unless_equals_int (info.c0_index, -1);
    fail_unless_equals_int (info.delta_order, 0);
    fail_unless_equals_int (info.frame_length, t[i].W);
    fail_unless_equals_int (info.frame_shift, t[i].S);
    fail_unless_equals_int (info.preset, t[i].preset);
    fail_unless_equals_int (info.window, t[i].window);
    const GstStructure *s = gst_caps_get_structure (caps, 0);
    fail_unless_equals_string (gst_structure_get_string (s, "spectrum"),
        "power");
    fail_unless_equals_string (gst_structure_get_string (s, "log"), "ln");
    gdouble floor = 0;
    gboolean has_floor = gst_structure_get_double (s, "energy-floor", &floor);
    fail_unless_equals_int (has_floor, strstr (t[i].props, "energy-floor")
        != NULL);
    if (has_floor)
      fail_unless (floor == 1.0);
    gst_caps_unref (caps);
    AfetCheckResult res = { 0 };
    afetcheck_pull (h, &res, 0, 0);
    fail_unless_equals_int (res.dims, t[i].dims);
    fail_unless (res.n_frames > 0);
    for (gsize j = 0; j < (gsize) res.n_frames * res.dims; j++)
      fail_unless (isfinite (res.data[j]), "%s: value %" G_GSIZE_FORMAT
          " is not finite", launch, j);
    afetcheck_result_clear (&res);
    gst_harness_teardown (h);
    g_free (launch);
  }
  g_free (x);
}

GST_END_TEST;

/* ---- properties ---------------------------------------------------------- */

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make ("afetspectrogram", NULL);
  fail_unless (e != NULL);
  gdouble floor = -1;
  gboolean raw = FALSE;
  g_object_get (e, "energy-floor", &floor, "raw-energy", &raw, NULL);
  fail_unless (floor == 0.0);
  fail_unless (raw);
  g_object_set (e, "energy-floor", 2.5, "raw-energy", FALSE, NULL);
  g_object_get (e, "energy-floor", &floor, "raw-energy", &raw, NULL);
  fail_unless (floor == 2.5);
  fail_unless (!raw);
  gst_object_unref (e);
}

GST_END_TEST;

/* ---- afetenc ------------------------------------------------------------- */

/* HTK (USER, no _E: the energy is column 0, not last) and NumPy files hold
 * exactly the element's frames. */
GST_START_TEST (test_afetenc_round_trip)
{
  gchar *wav = afetref_find_data ("audio/s01_16k.wav", NULL);
  fail_unless (wav != NULL);
  const gchar *props = "preset=kaldi raw-energy=false";
  gsize len = 0;
  gfloat *direct = (gfloat *) run_file (wav, props, NULL, &len);
  const gint dims = 257;
  fail_unless (len > 0 && len % (dims * sizeof (gfloat)) == 0);
  const gint frames = (gint) (len / (dims * sizeof (gfloat)));

  gsize hlen = 0;
  gchar *htk = run_file (wav, props, "format=htk", &hlen);
  gchar *path = temp_path ();
  fail_unless (g_file_set_contents (path, htk, (gssize) hlen, NULL));
  gint n = 0, d = 0, period = 0, kind = 0;
  gfloat *back = afetref_read_htk (path, &n, &d, &period, &kind);
  fail_unless (back != NULL);
  fail_unless_equals_int (n, frames);
  fail_unless_equals_int (d, dims);
  fail_unless_equals_int (period, 100000);
  fail_unless_equals_int (kind, 9);     /* USER */
  fail_unless (memcmp (back, direct, len) == 0);
  g_free (back);
  g_free (htk);

  gsize nlen = 0;
  gchar *npy = run_file (wav, props, "format=npy", &nlen);
  fail_unless (g_file_set_contents (path, npy, (gssize) nlen, NULL));
  gint rows = 0, cols = 0;
  back = afetref_read_npy (path, &rows, &cols);
  fail_unless (back != NULL);
  fail_unless_equals_int (rows, frames);
  fail_unless_equals_int (cols, dims);
  fail_unless (memcmp (back, direct, len) == 0);
  g_free (back);
  g_free (npy);

  g_unlink (path);
  g_free (path);
  g_free (direct);
  g_free (wav);
}

GST_END_TEST;

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  Suite *s = suite_create ("afetspectrogram");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 900);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_reference_files);
  tcase_add_test (tc, test_noise_vs_reference);
  tcase_add_test (tc, test_caps);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_afetenc_round_trip);
  return gst_check_run_suite (s, "afetspectrogram", __FILE__);
}
