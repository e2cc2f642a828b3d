/* Tests of the presets kaldi, lhotse and whisper: afetmfcc against the
 * reference tools' files and the independent double-precision references, and
 * the presets' properties, caps and refusals.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* The presets kaldi, lhotse and whisper: afetmfcc against the reference
 * tools' files (kaldi-native-fbank, lhotse's settings, Whisper's formula) on
 * speech, against the independent double-precision references of
 * tests/reference/afetref_kaldi.c on noise with any buffer sizes, and their
 * properties, caps, edges, dither, clamp and refusals. */

#include "afetcheck.h"
#include "afetref_kaldi.h"

#include <glib/gstdio.h>
#include <float.h>
#include <math.h>
#include <string.h>

/* ---- reference files ----------------------------------------------------- */

typedef struct
{
  const gchar *set;             /* directory under tests/data or refdata */
  const gchar *props;           /* afetmfcc's */
  gint dims;
  gboolean with_8k;             /* the generated set: 8 kHz files too, no
                                 * real recordings */
  gboolean few;                 /* only some of the synthetic files */
} RefSet;

static const RefSet ref_sets[] = {
  {"kaldi/mfcc", "preset=kaldi", 13, FALSE},
  {"kaldi/mfcc_c0", "preset=kaldi energy=false", 13, FALSE},
  {"kaldi/fbank80", "preset=kaldi num-ceps=0 num-filters=80", 80, FALSE},
  {"kaldi/mfcc_nosnip", "preset=kaldi snip-edges=false", 13, FALSE},
  {"whisper/80", "preset=whisper", 80, FALSE},
  {"whisper/128", "preset=whisper num-filters=128", 128, FALSE},
  {"kaldi-gen/mfcc", "preset=kaldi", 13, TRUE},
  {"kaldi-gen/mfcc_nosnip", "preset=kaldi snip-edges=false", 13, TRUE},
  {"kaldi-gen/mfcc_c0", "preset=kaldi c0=true", 13, TRUE},
  {"kaldi-gen/mfcc_c0_nosnip", "preset=kaldi energy=false snip-edges=false",
      13, TRUE},
  {"kaldi-gen/mfcc_c0_htk", "preset=kaldi energy=false htk-compat=true", 13,
      TRUE},
  {"kaldi-gen/fbank80", "preset=kaldi num-ceps=0 num-filters=80", 80, TRUE},
  {"kaldi-gen/fbank80_nosnip", "preset=kaldi num-ceps=0 num-filters=80 "
        "snip-edges=false", 80, TRUE},
  {"kaldi-gen/fbank23_energy", "preset=kaldi num-ceps=0 energy=true", 24,
      TRUE},
  {"kaldi-gen/fbank23_energy_htk", "preset=kaldi num-ceps=0 energy=true "
        "htk-compat=true", 24, TRUE},
  {"kaldi-gen/mfcc_hamming_nodc", "preset=kaldi window=hamming "
        "remove-dc=false", 13, TRUE},
  {"kaldi-gen/fbank23_rect_mag", "preset=kaldi num-ceps=0 use-power=false "
        "window=rectangular snip-edges=false", 23, TRUE},
  {"kaldi-gen/lhotse_mfcc", "preset=lhotse num-ceps=12", 13, TRUE},
  /* torchaudio's compliance.kaldi.fbank with vtln-warp 0.9 */
  {"kaldi-gen/ta_fbank23_vtln0.9", "preset=kaldi num-ceps=0 energy=true "
        "warp-factor=0.9", 24, TRUE},
  /* lhotse 1.33's own extractors (its layers.py in float32) */
  {"kaldi-gen/lhotse_ref_fbank", "preset=lhotse", 80, TRUE},
  {"kaldi-gen/lhotse_ref_mfcc", "preset=lhotse num-ceps=12", 13, TRUE},
  {"kaldi-gen/lhotse_fbank", "preset=lhotse", 80, TRUE, TRUE},
  {"kaldi-gen/lhotse_ref_fbank_energy", "preset=lhotse energy=true", 81,
      TRUE, TRUE},
};

/* Runs filesrc ! wavparse ! afetmfcc props; the output floats. */
static gfloat *
run_file (const gchar * wav, const gchar * props, gsize * n_floats)
{
  gchar *head = g_strdup_printf ("filesrc location=\"%s\" ! wavparse ! "
      "afetmfcc %s", wav, props);
  gsize len = 0;
  gchar *data = afetcheck_run_to_bytes (head, &len);
  g_free (head);
  *n_floats = len / sizeof (gfloat);
  return (gfloat *) data;
}

/* Compares one file's output with its reference: the same frame count,
 * relative L2 <= 1e-4 for column 0 and for the rest (the bound; the
 * speech here gives 1e-7 .. 3e-5). FALSE when the reference is absent. */
static gboolean
check_ref (const RefSet * set, const gchar * name)
{
  gchar *rel = g_strdup_printf ("%s/%s.npy", set->set, name);
  gchar *wav_rel = g_strdup_printf ("audio/%s.wav", name);
  gchar *ref_path = afetref_find_data (rel, NULL);
  gchar *wav = afetref_find_data (wav_rel, NULL);
  g_free (wav_rel);
  if (!ref_path || !wav) {
    g_print ("skipped: %s (no data)\n", rel);
    g_free (rel);
    g_free (ref_path);
    g_free (wav);
    return FALSE;
  }
  gint rows = 0, cols = 0;
  gfloat *ref = afetref_read_npy (ref_path, &rows, &cols);
  fail_unless (ref != NULL, "cannot read %s", ref_path);
  fail_unless_equals_int (cols, set->dims);
  gsize n = 0;
  gfloat *out = run_file (wav, set->props, &n);
  fail_unless (n % set->dims == 0);
  gint frames = (gint) (n / set->dims);
  fail_unless_equals_int (frames, rows);
  gdouble e0 = afetref_rel_l2_strided (out, NULL, set->dims, 0, ref, NULL,
      set->dims, 0, frames, 1);
  gdouble e1 = afetref_rel_l2_strided (out, NULL, set->dims, 1, ref, NULL,
      set->dims, 1, frames, set->dims - 1);
  g_print ("%-26s %-9s %4d frames  col 0 rel L2 %.2e  cols 1.. %.2e\n",
      set->set, name, frames, e0, e1);
  fail_unless (e0 <= 1e-4 && e1 <= 1e-4, "%s (afetmfcc %s): rel L2 %.3e / "
      "%.3e > 1e-4", rel, set->props, e0, e1);
  g_free (out);
  g_free (ref);
  g_free (ref_path);
  g_free (wav);
  g_free (rel);
  return TRUE;
}

GST_START_TEST (test_reference_files)
{
  const gchar *names[] = { "s01_16k", "s02_16k", "s03_16k", "s01_8k",
    "s02_8k", "s03_8k", "lv01_16k", "lv02_16k"
  };
  for (guint s = 0; s < G_N_ELEMENTS (ref_sets); s++) {
    gint checked = 0;
    for (guint i = 0; i < G_N_ELEMENTS (names); i++) {
      gboolean is_8k = g_str_has_suffix (names[i], "_8k");
      gboolean real = g_str_has_prefix (names[i], "lv");
      if (is_8k != FALSE && !ref_sets[s].with_8k)
        continue;
      if (real && ref_sets[s].with_8k)
        continue;
      if (check_ref (&ref_sets[s], names[i]))
        checked++;
      else
        /* the synthetic files are in tests/data: only real ones may be
         * missing */
        fail_unless (real || ref_sets[s].few, "missing test data for %s",
            ref_sets[s].set);
    }
    fail_unless (checked >= (ref_sets[s].few ? 1 : 3));
  }
}

GST_END_TEST;

/* ---- noise against the double-precision references --------------------- */

static void
expect_close (const AfetCheckResult * res, const gdouble * ref, gint frames,
    gint dims, const gchar * what)
{
  fail_unless_equals_int (res->n_frames, frames);
  fail_unless_equals_int (res->dims, dims);
  gdouble e = afetref_rel_l2 (res->data, ref, frames, dims, 0, dims);
  g_print ("%-58s %4d frames rel L2 %.2e\n", what, frames, e);
  fail_unless (e <= 1e-5, "%s: rel L2 %.3e", what, e);
}

/* Kaldi (snip-edges both ways, energy and c0), lhotse and Whisper (both
 * clamps) on noise of several lengths, fed in random buffer sizes. */
GST_START_TEST (test_noise_vs_reference)
{
  const gint lengths[] = { 16000, 4321, 401, 250 };
  gint *sizes = afetcheck_random_sizes (64, 1, 997, 7);
  for (guint l = 0; l < G_N_ELEMENTS (lengths); l++) {
    const gint n = lengths[l];
    gdouble *x = afetcheck_int_noise (n, 12000, 11 + l);
    struct
    {
      const gchar *props;
      AfetRefKaldiKind kind;
      gboolean lhotse, snip, energy;
      gint bins;
    } k[] = {
      {"preset=kaldi", AFETREF_KALDI_MFCC, FALSE, TRUE, TRUE, 23},
      {"preset=kaldi snip-edges=false energy=false", AFETREF_KALDI_MFCC,
          FALSE, FALSE, FALSE, 23},
      {"preset=kaldi num-ceps=0 num-filters=40 snip-edges=false",
          AFETREF_KALDI_FBANK, FALSE, FALSE, FALSE, 40},
      {"preset=lhotse", AFETREF_KALDI_FBANK, TRUE, FALSE, FALSE, 80},
      {"preset=lhotse num-ceps=0 energy=true", AFETREF_KALDI_FBANK, TRUE,
          FALSE, TRUE, 80},
      {"preset=kaldi warp-factor=1.15", AFETREF_KALDI_MFCC, FALSE, TRUE,
          TRUE, 23},
      {"preset=kaldi warp-factor=0.85 warp-low=300 warp-high=6000",
          AFETREF_KALDI_MFCC, FALSE, TRUE, TRUE, 23},
      {"preset=kaldi raw-energy=false energy-floor=100", AFETREF_KALDI_MFCC,
          FALSE, TRUE, TRUE, 23},
    };
    for (guint i = 0; i < G_N_ELEMENTS (k); i++) {
      AfetRefKaldiConfig c;
      if (k[i].lhotse)
        afetref_lhotse_config_init (&c, k[i].kind);
      else
        afetref_kaldi_config_init (&c, k[i].kind);
      c.snip_edges = k[i].snip;
      c.use_energy = k[i].energy;
      c.num_bins = k[i].bins;
      c.energy_floor = k[i].lhotse ? 1e-10 : 0.0;
      if (strstr (k[i].props, "raw-energy=false")) {
        c.raw_energy = 0;
        c.energy_floor = 100;
      }
      if (strstr (k[i].props, "warp-factor=1.15"))
        c.vtln_warp = 1.15;
      if (strstr (k[i].props, "warp-factor=0.85")) {
        c.vtln_warp = 0.85;
        c.vtln_low = 300;
        c.vtln_high = 6000;
      }
      gint frames = 0;
      gdouble *ref = afetref_kaldi_compute (&c, x, n, &frames);
      if (frames == 0)
        continue;
      gchar *launch = g_strdup_printf ("afetmfcc %s", k[i].props);
      AfetCheckResult res = { 0 };
      afetcheck_run_samples (launch, 16000, x, n, sizes, 64, &res);
      gchar *what = g_strdup_printf ("%s, %d samples", launch, n);
      expect_close (&res, ref, frames, afetref_kaldi_dims (&c), what);
      afetcheck_result_clear (&res);
      g_free (what);
      g_free (launch);
      g_free (ref);
    }
    const AfetRefWhisperClamp modes[] = { AFETREF_WHISPER_CLAMP_UTTERANCE,
      AFETREF_WHISPER_CLAMP_RUNNING
    };
    const gchar *clamps[] = { "utterance", "running" };
    /* silence, then noise growing louder: the running maximum moves and
     * the clamp bites */
    gdouble *y = g_new (gdouble, n);
    for (gint i = 0; i < n; i++)
      y[i] = i < n / 4 ? 0.0 : rint (x[i] * (gdouble) i / n);
    for (guint m = 0; m < 2 && n > 400; m++) {
      gint frames = 0;
      gdouble *ref = afetref_whisper_log_mel (y, n, 80, modes[m], &frames);
      gchar *launch = g_strdup_printf ("afetmfcc preset=whisper clamp=%s",
          clamps[m]);
      AfetCheckResult res = { 0 };
      afetcheck_run_samples (launch, 16000, y, n, sizes, 64, &res);
      gchar *what = g_strdup_printf ("%s, %d samples", launch, n);
      expect_close (&res, ref, frames, 80, what);
      afetcheck_result_clear (&res);
      g_free (what);
      g_free (launch);
      g_free (ref);
    }
    g_free (y);
    g_free (x);
  }
  g_free (sizes);
}

GST_END_TEST;

/* A DISCONT ends a run: each run gets its own edges (mirrored or reflected
 * samples at both ends) and its own clamp maximum. */
GST_START_TEST (test_runs_have_their_own_edges)
{
  const gint n1 = 5000, n2 = 7777;
  gdouble *a = afetcheck_int_noise (n1, 9000, 21), *b = afetcheck_int_noise (n2, 3000, 22);
  const gchar *launches[] = { "afetmfcc preset=kaldi snip-edges=false",
    "afetmfcc preset=whisper"
  };
  for (guint l = 0; l < 2; l++) {
    gboolean whisper = l == 1;
    GstHarness *h = gst_harness_new_parse (launches[l]);
    gst_harness_set_live (h, FALSE);
    afetcheck_set_audio_caps (h, AFETCHECK_S16, 16000);
    const gint sizes[] = { 160, 37, 999 };
    fail_unless_equals_int (afetcheck_push_samples (h, AFETCHECK_S16, 16000,
            a, n1, sizes, 3, 0, TRUE), GST_FLOW_OK);
    fail_unless_equals_int (afetcheck_push_samples (h, AFETCHECK_S16, 16000,
            b, n2, sizes, 3, GST_SECOND, TRUE), GST_FLOW_OK);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    AfetCheckRuns runs = { 0 };
    afetcheck_pull_runs (h, &runs);
    fail_unless_equals_int (runs.n_runs, 2);
    const gdouble *x[2] = { a, b };
    const gint len[2] = { n1, n2 };
    for (gint r = 0; r < 2; r++) {
      gint frames = 0;
      gdouble *ref;
      if (whisper) {
        ref = afetref_whisper_log_mel (x[r], len[r], 80,
            AFETREF_WHISPER_CLAMP_UTTERANCE, &frames);
      } else {
        AfetRefKaldiConfig c;
        afetref_kaldi_config_init (&c, AFETREF_KALDI_MFCC);
        c.snip_edges = 0;
        ref = afetref_kaldi_compute (&c, x[r], len[r], &frames);
      }
      fail_unless_equals_int (runs.run_frames[r], frames);
      gdouble e = afetref_rel_l2 (runs.data + (gsize) runs.run_start[r] *
          runs.dims, ref, frames, runs.dims, 0, runs.dims);
      fail_unless (e <= 1e-5, "%s run %d: rel L2 %.3e", launches[l], r, e);
      g_free (ref);
    }
    fail_unless_equals_uint64 (runs.run_pts[1], GST_SECOND);
    afetcheck_runs_clear (&runs);
    gst_harness_teardown (h);
  }
  g_free (a);
  g_free (b);
}

GST_END_TEST;

/* ---- properties, caps, dither, refusals -------------------------------- */

GST_START_TEST (test_preset_defaults_and_explicit_values)
{
  GstElement *e = gst_element_factory_make ("afetmfcc", NULL);
  fail_unless (e != NULL);
  gint window = 0;
  guint filters = 0, ceps = 0;
  gdouble high = 0, low = 0;
  gboolean energy = FALSE, c0 = FALSE, snip = TRUE, dc = FALSE;
  gst_util_set_object_arg (G_OBJECT (e), "preset", "kaldi");
  g_object_get (e, "num-filters", &filters, "num-ceps", &ceps, "low-freq",
      &low, "energy", &energy, "c0", &c0, "remove-dc", &dc, NULL);
  fail_unless_equals_int (filters, 23);
  fail_unless_equals_int (ceps, 12);
  fail_unless (low == 20.0 && energy && !c0 && dc);
  /* explicit values win, set before or after the preset */
  gst_util_set_object_arg (G_OBJECT (e), "num-filters", "40");
  gst_util_set_object_arg (G_OBJECT (e), "preset", "lhotse");
  g_object_get (e, "num-filters", &filters, "num-ceps", &ceps, "high-freq",
      &high, "snip-edges", &snip, "window", &window, NULL);
  fail_unless_equals_int (filters, 40);
  fail_unless_equals_int (ceps, 0);
  fail_unless (high == -400.0 && !snip);
  /* povey, the window's enum value 2 */
  fail_unless_equals_int (window, 2);
  gst_util_set_object_arg (G_OBJECT (e), "preset", "whisper");
  gint clamp = 0;
  gdouble preemph = 1;
  g_object_get (e, "clamp", &clamp, "use-power", &energy, "preemphasis",
      &preemph, "num-filters", &filters, NULL);
  fail_unless (clamp != 0 && energy && preemph == 0.0);
  fail_unless_equals_int (filters, 40);
  gst_object_unref (e);
}

GST_END_TEST;

/* A warp factor of 1 is no warping, to the bit. */
GST_START_TEST (test_warp_one_is_none)
{
  gdouble *x = afetcheck_int_noise (9000, 7000, 6);
  AfetCheckResult a = { 0 }, b = { 0 };
  afetcheck_run_samples ("afetmfcc preset=kaldi", 16000, x, 9000, NULL, 0, &a);
  afetcheck_run_samples ("afetmfcc preset=kaldi warp-factor=1.0 warp-low=500", 16000,
      x, 9000, NULL, 0, &b);
  fail_unless_equals_int (a.n_frames, b.n_frames);
  fail_unless (memcmp (a.data, b.data, (gsize) a.n_frames * a.dims *
          sizeof (gfloat)) == 0);
  afetcheck_result_clear (&a);
  afetcheck_result_clear (&b);
  g_free (x);
}

GST_END_TEST;

/* The caps name the preset and window a stream was made with. */
GST_START_TEST (test_caps_carry_preset)
{
  const struct
  {
    const gchar *launch, *preset, *window;
  } t[] = {
    {"afetmfcc preset=kaldi", "kaldi", "povey"},
    {"afetmfcc preset=lhotse", "lhotse", "povey"},
    {"afetmfcc preset=whisper", "whisper", "hann-periodic"},
    {"afetframer preset=whisper", "whisper", "hann-periodic"},
    {"afetframer preset=kaldi energy=true ! afetmfcc", "kaldi", "povey"},
  };
  gdouble *x = afetcheck_int_noise (8000, 5000, 3);
  for (guint i = 0; i < G_N_ELEMENTS (t); i++) {
    AfetCheckResult res = { 0 };
    afetcheck_run_samples (t[i].launch, 16000, x, 8000, NULL, 0, &res);
    fail_unless (res.n_frames > 0);
    fail_unless_equals_string (afet_features_preset_to_string
        (res.info.preset), t[i].preset);
    fail_unless_equals_string (afet_features_window_to_string
        (res.info.window), t[i].window);
    afetcheck_result_clear (&res);
  }
  g_free (x);
}

GST_END_TEST;

/* Frames from afetframer preset=kaldi through afetmfcc (which takes the
 * frames' preset) equal afetmfcc preset=kaldi on the audio. */
GST_START_TEST (test_frames_take_their_preset)
{
  gdouble *x = afetcheck_int_noise (9000, 7000, 5);
  AfetCheckResult a = { 0 }, b = { 0 };
  afetcheck_run_samples ("afetmfcc preset=kaldi", 16000, x, 9000, NULL, 0, &a);
  afetcheck_run_samples ("afetframer preset=kaldi energy=true ! afetmfcc", 16000, x,
      9000, NULL, 0, &b);
  fail_unless_equals_int (a.n_frames, b.n_frames);
  fail_unless (afetcheck_max_rel_diff (a.data, b.data, (gsize) a.n_frames *
          a.dims) < 1e-6);
  afetcheck_result_clear (&a);
  afetcheck_result_clear (&b);
  g_free (x);
}

GST_END_TEST;

/* Dither: Gaussian with the asked deviation, the same whatever the buffer
 * sizes, shared by overlapping frames, changed by the seed; none when 0. */
GST_START_TEST (test_dither)
{
  const gint n = 40000;
  gdouble *zeros = g_new0 (gdouble, n);
  const gchar *base = "afetframer window=rectangular preemphasis=0 "
      "frame-length=25 frame-shift=10 dither=2";
  AfetCheckResult a = { 0 }, b = { 0 }, c = { 0 };
  gint *sizes = afetcheck_random_sizes (32, 1, 700, 9);
  afetcheck_run_samples (base, 16000, zeros, n, NULL, 0, &a);
  afetcheck_run_samples (base, 16000, zeros, n, sizes, 32, &b);
  gchar *seeded = g_strdup_printf ("%s dither-seed=5", base);
  afetcheck_run_samples (seeded, 16000, zeros, n, NULL, 0, &c);
  fail_unless_equals_int (a.n_frames, b.n_frames);
  fail_unless (memcmp (a.data, b.data, (gsize) a.n_frames * a.dims *
          sizeof (gfloat)) == 0, "dither depends on the buffer sizes");
  fail_unless (memcmp (a.data, c.data, (gsize) a.n_frames * a.dims *
          sizeof (gfloat)) != 0, "dither-seed changes nothing");
  /* frame t + 1 starts S = 160 samples after frame t */
  for (gint t = 0; t + 1 < a.n_frames; t++)
    fail_unless (memcmp (a.data + (gsize) t * a.dims + 160,
            a.data + (gsize) (t + 1) * a.dims, 240 * sizeof (gfloat)) == 0);
  gdouble sum = 0, sq = 0;
  gint count = 0;
  for (gint t = 0; t < a.n_frames; t++)
    for (gint i = 0; i < 160; i++) {
      gdouble v = a.data[(gsize) t * a.dims + i];
      sum += v;
      sq += v * v;
      count++;
    }
  gdouble mean = sum / count, sd = sqrt (sq / count - mean * mean);
  g_print ("dither=2 over %d samples: mean %.4f, deviation %.4f\n", count,
      mean, sd);
  fail_unless (fabs (mean) < 0.05 && fabs (sd - 2.0) < 0.05);
  afetcheck_result_clear (&a);
  afetcheck_result_clear (&b);
  afetcheck_result_clear (&c);
  g_free (seeded);
  g_free (sizes);
  g_free (zeros);
}

GST_END_TEST;

/* The energy of a silent frame: Kaldi's ln FLT_EPSILON, or the floor. */
GST_START_TEST (test_energy_floor)
{
  gdouble *zeros = g_new0 (gdouble, 4000);
  const struct
  {
    const gchar *launch;
    gdouble energy;
  } t[] = {
    {"afetmfcc preset=kaldi", log (FLT_EPSILON)},
    {"afetmfcc preset=kaldi energy-floor=1.0", 0.0},
    {"afetmfcc preset=lhotse num-ceps=0 energy=true", log (1e-10)},
  };
  for (guint i = 0; i < G_N_ELEMENTS (t); i++) {
    AfetCheckResult res = { 0 };
    afetcheck_run_samples (t[i].launch, 16000, zeros, 4000, NULL, 0, &res);
    fail_unless_equals_int (res.info.energy_index, 0);
    for (gint f = 0; f < res.n_frames; f++)
      fail_unless (fabs (res.data[(gsize) f * res.dims] - t[i].energy) <
          1e-4, "%s: frame %d energy %f, want %f", t[i].launch, f,
          res.data[(gsize) f * res.dims], t[i].energy);
    afetcheck_result_clear (&res);
  }
  g_free (zeros);
}

GST_END_TEST;

/* What cannot be done is refused at negotiation, naming the cause. */
GST_START_TEST (test_refusals)
{
  const struct
  {
    const gchar *chain, *needle;
  } t[] = {
    {"afetmfcc preset=whisper num-ceps=12", "clamp applies"},
    {"afetmfcc preset=kaldi snip-edges=false pad=true", "snip-edges=false"},
    {"afetmfcc preset=kaldi c0=true energy=true", "either the energy or c0"},
    {"afetframer preset=kaldi ! afetmfcc preset=htk", "cut with preset=kaldi"},
    {"afettraps preset=kaldi", "HTK's conventions only"},
    {"afetmfcc preset=whisper warp-factor=0.9", "not Whisper's"},
    {"afetmfcc warp-factor=0.9 warp-low=4000 warp-high=3000",
        "needs its cut-offs"},
    {"afetframer preset=lhotse ! afetplp energy=false",
        "preset=lhotse has no PLP"},
    {"afetmfcc preset=kaldi warp-factor=0.9 warp-low=10", "VTLN needs"},
  };
  for (guint i = 0; i < G_N_ELEMENTS (t); i++) {
    gchar *launch = g_strdup_printf ("audiotestsrc num-buffers=5 ! "
        "audio/x-raw,rate=16000,channels=1 ! %s ! fakesink", t[i].chain);
    gchar *error = NULL;
    fail_if (afetcheck_run_launch (launch, &error), "%s ran", launch);
    fail_unless (error && strstr (error, t[i].needle), "%s: '%s' lacks '%s'",
        launch, error, t[i].needle);
    g_free (error);
    g_free (launch);
  }
}

GST_END_TEST;

/* The analysis contract: a consumer that names lhotse's settings in its
 * caps (here a capsfilter, as a recognizer's sink template would) takes
 * lhotse's features, through afetdelta too, and refuses others with the
 * field that differs. */
GST_START_TEST (test_consumer_demands_lhotse)
{
  const gchar *lhotse_model = "application/x-afet-features, kind=fbank, "
      "statics=80, preset=lhotse, filter-bank=kaldi, num-filters=80, "
      "low-freq=20.0, high-freq=7600.0, snip-edges=false, "
      "sample-range=unit, spectrum=power, log=ln, remove-dc=true, "
      "preemphasis=0.97, dither=0.0";
  const struct
  {
    const gchar *chain, *needle;        /* needle NULL: runs */
  } t[] = {
    {"afetmfcc preset=lhotse", NULL},
    {"afetmfcc preset=lhotse ! afetdelta", NULL},
    {"afetframer preset=lhotse energy=false ! afetmfcc", NULL},
    {"afetmfcc preset=kaldi num-ceps=0 num-filters=80",
        "field 'preset' is kaldi, wanted lhotse"},
    {"afetmfcc preset=lhotse high-freq=-300",
        "field 'high-freq' is 7700, wanted 7600"},
    {"afetmfcc preset=lhotse snip-edges=true",
        "field 'snip-edges' is true, wanted false"},
    {"afetmfcc preset=lhotse dither=0.5", "field 'dither' is 0.5"},
    {"afetmfcc preset=lhotse sample-range=int16",
        "field 'sample-range' is int16, wanted unit"},
  };
  for (guint i = 0; i < G_N_ELEMENTS (t); i++) {
    gchar *launch = g_strdup_printf ("audiotestsrc num-buffers=5 ! "
        "audio/x-raw,rate=16000,channels=1 ! %s ! %s ! fakesink", t[i].chain,
        lhotse_model);
    gchar *error = NULL;
    gboolean ran = afetcheck_run_launch (launch, &error);
    if (!t[i].needle)
      fail_unless (ran, "%s: %s", launch, error);
    else
      fail_unless (!ran && error && strstr (error, t[i].needle),
          "%s: '%s' lacks \"%s\"", launch, error ? error : "(ran)",
          t[i].needle);
    g_free (error);
    g_free (launch);
  }
  /* a floor is stated even when it is 0; a type is named when it differs */
  const struct
  {
    const gchar *chain, *needle;
  } u[] = {
    {"afetmfcc preset=kaldi ! application/x-afet-features,energy-floor=1.0",
        "field 'energy-floor' is 0, wanted 1"},
    {"afetmfcc preset=lhotse ! application/x-afet-features,high-freq=7600",
        "write it as a gdouble"},
  };
  for (guint i = 0; i < G_N_ELEMENTS (u); i++) {
    gchar *launch = g_strdup_printf ("audiotestsrc num-buffers=5 ! "
        "audio/x-raw,rate=16000,channels=1 ! %s ! fakesink", u[i].chain);
    gchar *error = NULL;
    fail_if (afetcheck_run_launch (launch, &error), "%s ran", launch);
    fail_unless (error && strstr (error, u[i].needle), "%s: '%s'", launch,
        error);
    g_free (error);
    g_free (launch);
  }
}

GST_END_TEST;

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  Suite *s = suite_create ("presets");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 900);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_reference_files);
  tcase_add_test (tc, test_noise_vs_reference);
  tcase_add_test (tc, test_runs_have_their_own_edges);
  tcase_add_test (tc, test_preset_defaults_and_explicit_values);
  tcase_add_test (tc, test_caps_carry_preset);
  tcase_add_test (tc, test_frames_take_their_preset);
  tcase_add_test (tc, test_dither);
  tcase_add_test (tc, test_energy_floor);
  tcase_add_test (tc, test_refusals);
  tcase_add_test (tc, test_consumer_demands_lhotse);
  tcase_add_test (tc, test_warp_one_is_none);
  return gst_check_run_suite (s, "presets", __FILE__);
}
