/* Tests of afetmfcc through GstHarness: numbers against the double-precision
 * reference, input formats, buffer splitting, timestamps, DISCONT, padding,
 * frames input, negotiation, latency.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetcheck.h"

#include <stdio.h>
#include <stdlib.h>

#include <string.h>

static AfetRefConfig
ref_config (gint rate, gdouble frame_ms, gint filters, gint ceps,
    gboolean c0, gboolean energy)
{
  AfetRefConfig c;
  afetref_config_init (&c);
  c.rate = rate;
  c.frame_length_ms = frame_ms;
  c.num_filters = filters;
  c.num_ceps = ceps;
  c.c0 = c0;
  c.energy = energy;
  return c;
}

/* noise quantised to 16-bit integers, so every input format carries the
 * same samples exactly */
static gdouble *
int_noise (gint n, gdouble amp, guint64 seed)
{
  gdouble *x = afetref_make_noise (n, amp, seed);
  for (gint i = 0; i < n; i++)
    x[i] = (gdouble) (gint) x[i];
  return x;
}

static void
run (const gchar * launch, AfetCheckFormat fmt, gint rate, const gdouble * x,
    gint n, const gint * sizes, gint n_sizes, AfetCheckResult * res)
{
  GstHarness *h = gst_harness_new_parse (launch);
  afetcheck_set_audio_caps (h, fmt, rate);
  fail_unless_equals_int (afetcheck_push_samples (h, fmt, rate, x, n, sizes,
          n_sizes, 0, TRUE), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  afetcheck_pull (h, res, 0, 0);
  gst_harness_teardown (h);
}

static void
check_groups (const AfetCheckResult * res, const gdouble * ref, gint frames,
    gint dims, const gint * groups, gint n_groups, gdouble tol)
{
  fail_unless_equals_int (res->n_frames, frames);
  fail_unless_equals_int (res->dims, dims);
  for (gint g = 0; g < n_groups; g++) {
    gint a = groups[g], b = g + 1 < n_groups ? groups[g + 1] : dims;
    gdouble e = afetref_rel_l2 (res->data, ref, frames, dims, a, b - a);
    GST_INFO ("columns %d..%d: rel L2 %.3e", a, b - 1, e);
    fail_unless (e <= tol, "columns %d..%d: rel L2 %.3e > %.1e", a, b - 1, e,
        tol);
  }
}

GST_START_TEST (test_mfcc_random_vs_reference)
{
  const gint rate = 16000, n = rate * 2;
  gdouble *x = int_noise (n, 12000, 1);
  AfetRefConfig rc = ref_config (rate, 25, 23, 12, TRUE, TRUE);
  gint frames;
  gdouble *ref = afetref_compute (&rc, x, n, &frames);
  AfetCheckResult res = { 0 };

  run ("afetmfcc energy=true", AFETCHECK_S16, rate, x, n, NULL, 0, &res);
  const gint groups[] = { 0, 12, 13 };
  check_groups (&res, ref, frames, 14, groups, 3, 1e-5);
  fail_unless_equals_int (res.info.kind, AFET_FEATURES_KIND_MFCC);
  fail_unless_equals_int (res.info.c0_index, 12);
  fail_unless_equals_int (res.info.energy_index, 13);
  fail_unless_equals_int (res.info.frame_length, 400);
  fail_unless_equals_int (res.info.frame_shift, 160);
  fail_unless_equals_int (res.info.fps_n, 100);
  fail_unless_equals_int (res.info.fps_d, 1);
  fail_unless_equals_int (res.info.preset, AFET_FEATURES_PRESET_HTK);
  afetcheck_result_clear (&res);
  g_free (ref);
  g_free (x);
}

GST_END_TEST;

GST_START_TEST (test_fbank_tone_vs_reference)
{
  const gint rate = 8000, n = rate * 2;
  gdouble *x = afetref_make_tone (n, rate, 700, 9000, 0.2);
  for (gint i = 0; i < n; i++)
    x[i] = (gdouble) (gint) x[i];
  AfetRefConfig rc = ref_config (rate, 20, 15, 0, FALSE, TRUE);
  rc.use_power = TRUE;
  gint frames;
  gdouble *ref = afetref_compute (&rc, x, n, &frames);
  AfetCheckResult res = { 0 };

  run ("afetmfcc num-ceps=0 frame-length=20 num-filters=15 use-power=true "
      "energy=true", AFETCHECK_S16, rate, x, n, NULL, 0, &res);
  const gint groups[] = { 0, 15 };
  check_groups (&res, ref, frames, 16, groups, 2, 1e-5);
  fail_unless_equals_int (res.info.kind, AFET_FEATURES_KIND_FBANK);
  fail_unless_equals_int (res.info.c0_index, -1);
  fail_unless_equals_int (res.info.energy_index, 15);
  afetcheck_result_clear (&res);
  g_free (ref);
  g_free (x);
}

GST_END_TEST;

/* HCopy's frequency warping (WARPFREQ, WARPLCUTOFF, WARPUCUTOFF: the
 * warp-factor, warp-low and warp-high properties under preset=htk) against
 * the double reference, stretching and compressing, MFCC and filter bank
 * at two rates; warp 1 is no warping, to the bit. */
GST_START_TEST (test_htk_warp_vs_reference)
{
  const struct
  {
    gint rate, filters, ceps;
    gdouble warp, lo, hi;
  } t[] = {
    {16000, 23, 12, 0.88, 300, 5000},
    {16000, 26, 0, 1.12, 400, 6500},
    {8000, 15, 12, 1.05, 250, 3000},
  };
  for (guint i = 0; i < G_N_ELEMENTS (t); i++) {
    const gint n = t[i].rate * 2;
    gdouble *x = int_noise (n, 12000, 40 + i);
    AfetRefConfig rc = ref_config (t[i].rate, 25, t[i].filters, t[i].ceps,
        t[i].ceps > 0, TRUE);
    rc.warp = t[i].warp;
    rc.warp_low = t[i].lo;
    rc.warp_high = t[i].hi;
    gint frames;
    gdouble *ref = afetref_compute (&rc, x, n, &frames);
    AfetCheckResult res = { 0 }, flat = { 0 };
    gchar *launch = g_strdup_printf ("afetmfcc num-filters=%d num-ceps=%d "
        "energy=true warp-factor=%g warp-low=%g warp-high=%g", t[i].filters,
        t[i].ceps, t[i].warp, t[i].lo, t[i].hi);
    run (launch, AFETCHECK_S16, t[i].rate, x, n, NULL, 0, &res);
    const gint dims = (t[i].ceps > 0 ? t[i].ceps + 1 : t[i].filters) + 1;
    const gint groups[] = { 0, dims - 1 };
    check_groups (&res, ref, frames, dims, groups, 2, 1e-5);
    /* and it did warp: unwarped features differ by far more than that */
    gchar *plain = g_strdup_printf ("afetmfcc num-filters=%d num-ceps=%d "
        "energy=true", t[i].filters, t[i].ceps);
    run (plain, AFETCHECK_S16, t[i].rate, x, n, NULL, 0, &flat);
    fail_unless (afetref_rel_l2 (flat.data, ref, frames, dims, 0, dims - 1) >
        1e-3);
    afetcheck_result_clear (&res);
    afetcheck_result_clear (&flat);
    g_free (launch);
    g_free (plain);
    g_free (ref);
    g_free (x);
  }
  gdouble *x = int_noise (8000, 9000, 50);
  AfetCheckResult a = { 0 }, b = { 0 };
  run ("afetmfcc", AFETCHECK_S16, 16000, x, 8000, NULL, 0, &a);
  run ("afetmfcc warp-factor=1.0 warp-low=700 warp-high=3000", AFETCHECK_S16,
      16000, x, 8000, NULL, 0, &b);
  fail_unless_equals_int (a.n_frames, b.n_frames);
  fail_unless (memcmp (a.data, b.data, (gsize) a.n_frames * a.dims *
          sizeof (gfloat)) == 0);
  afetcheck_result_clear (&a);
  afetcheck_result_clear (&b);
  g_free (x);
}

GST_END_TEST;

/* The same (integral) audio as S16, S32, F32 and F64 gives the same
 * features bit for bit, in every element that takes audio: 16-bit input is
 * uploaded as it came and converted on the device, the others as floats,
 * and both conversions are exact. Live (small batches) and not. */
GST_START_TEST (test_formats_agree)
{
  const gint rate = 16000, n = 8000;
  gdouble *x = int_noise (n, 20000, 2);
  const AfetCheckFormat fmts[] = { AFETCHECK_S16, AFETCHECK_S32,
    AFETCHECK_F32, AFETCHECK_F64
  };
  const gchar *launches[] = { "afetmfcc energy=true", "afetmfcc num-ceps=0",
    "afetframer energy=true", "afetplp", "afettraps",
    "afetmfcc energy=true max-batch=16"
  };
  const gint sizes[] = { 1, 333, 4000 };
  for (guint l = 0; l < G_N_ELEMENTS (launches); l++) {
    AfetCheckResult res[4] = { {0} };
    for (gint i = 0; i < 4; i++)
      run (launches[l], fmts[i], rate, x, n, i % 2 ? sizes : NULL, 3,
          &res[i]);
    fail_unless (res[0].n_frames > 0);
    for (gint i = 1; i < 4; i++) {
      fail_unless_equals_int (res[i].n_frames, res[0].n_frames);
      fail_unless (memcmp (res[i].data, res[0].data, (gsize) res[0].n_frames
              * res[0].dims * sizeof (gfloat)) == 0,
          "%s: format %d differs from S16", launches[l], i);
    }
    for (gint i = 0; i < 4; i++)
      afetcheck_result_clear (&res[i]);
  }
  g_free (x);
}

GST_END_TEST;

/* frame-shift longer than frame-length: the samples between frames are
 * skipped even when they arrive after the frame before them was computed
 * (live: 10 ms buffers; a small max-batch), so every split gives the
 * frames of one buffer. */
GST_START_TEST (test_shift_longer_than_frame)
{
  const gint rate = 16000, n = rate * 2 + 77;
  gdouble *x = int_noise (n, 15000, 9);
  const gint tens[] = { 160 }, odd[] = { 130, 7, 401 };
  AfetCheckResult whole = { 0 }, live = { 0 }, split = { 0 };
  run ("afetmfcc frame-length=20 frame-shift=25", AFETCHECK_S16, rate, x, n,
      NULL, 0, &whole);
  run ("afetmfcc frame-length=20 frame-shift=25", AFETCHECK_S16, rate, x, n,
      tens, 1, &live);
  run ("afetframer frame-length=20 frame-shift=25 max-batch=8 ! "
      "afetmfcc", AFETCHECK_F32, rate, x, n, odd, 3, &split);
  fail_unless_equals_int (whole.n_frames, afetref_num_frames (n, 320, 400));
  fail_unless_equals_int (live.n_frames, whole.n_frames);
  fail_unless_equals_int (split.n_frames, whole.n_frames);
  fail_unless (memcmp (live.data, whole.data, (gsize) whole.n_frames *
          whole.dims * sizeof (gfloat)) == 0);
  fail_unless (afetref_rel_l2_ff (split.data, whole.data, whole.n_frames,
          whole.dims, 0, whole.dims) <= 1e-6);
  afetcheck_result_clear (&whole);
  afetcheck_result_clear (&live);
  afetcheck_result_clear (&split);
  g_free (x);
}

GST_END_TEST;

/* Random buffer sizes give the frames of a single buffer, with correct
 * timestamps and offsets on every buffer (checked in afetcheck_pull). */
GST_START_TEST (test_split_invariance)
{
  const gint rate = 16000, n = rate * 3 + 123;
  gdouble *x = int_noise (n, 15000, 3);
  AfetCheckResult whole = { 0 }, split = { 0 }, tiny = { 0 };
  gint *sizes = afetcheck_random_sizes (64, 1, 3000, 4);
  const gint one[] = { 1, 7, 159, 161 };

  run ("afetmfcc energy=true", AFETCHECK_S16, rate, x, n, NULL, 0, &whole);
  run ("afetmfcc energy=true", AFETCHECK_S16, rate, x, n, sizes, 64, &split);
  run ("afetmfcc energy=true", AFETCHECK_S16, rate, x, 4000, one, 4, &tiny);
  fail_unless_equals_int (whole.n_frames, afetref_num_frames (n, 400, 160));
  fail_unless_equals_int (split.n_frames, whole.n_frames);
  fail_unless (split.n_buffers > 1);
  gdouble e = afetref_rel_l2_ff (split.data, whole.data, whole.n_frames,
      whole.dims, 0, whole.dims);
  fail_unless (e <= 1e-6, "split output differs: %.3e", e);
  fail_unless_equals_int (tiny.n_frames, afetref_num_frames (4000, 400, 160));
  e = afetref_rel_l2_ff (tiny.data, whole.data, tiny.n_frames, whole.dims, 0,
      whole.dims);
  fail_unless (e <= 1e-6, "tiny-buffer output differs: %.3e", e);
  afetcheck_result_clear (&whole);
  afetcheck_result_clear (&split);
  afetcheck_result_clear (&tiny);
  g_free (sizes);
  g_free (x);
}

GST_END_TEST;

/* A DISCONT drains the first run (its incomplete tail dropped) and restarts
 * framing at the new buffer: frame 0 again, PTS from the new position. */
GST_START_TEST (test_discont)
{
  const gint rate = 16000, n1 = 10000, n2 = 7000;
  const GstClockTime t1 = 5 * GST_SECOND;
  gdouble *x = int_noise (n1 + n2, 15000, 5);
  GstHarness *h = gst_harness_new_parse ("afetmfcc");
  AfetCheckResult a = { 0 }, b = { 0 };

  afetcheck_set_audio_caps (h, AFETCHECK_S16, rate);
  gint sizes[] = { 1000 };
  afetcheck_push_samples (h, AFETCHECK_S16, rate, x, n1, sizes, 1, 0, TRUE);
  /* live (the harness is): every complete frame of the first run is out */
  afetcheck_pull (h, &a, 0, 0);
  fail_unless_equals_int (a.n_frames, afetref_num_frames (n1, 400, 160));
  afetcheck_push_samples (h, AFETCHECK_S16, rate, x + n1, n2, sizes, 1, t1,
      TRUE);
  gst_harness_push_event (h, gst_event_new_eos ());
  /* the second run's frames are numbered from 0 at t1 */
  afetcheck_pull (h, &b, t1, 0);
  fail_unless_equals_int (b.n_frames, afetref_num_frames (n2, 400, 160));

  /* and they equal a fresh stream of the second part */
  AfetRefConfig rc = ref_config (rate, 25, 23, 12, TRUE, FALSE);
  gint frames;
  gdouble *ref = afetref_compute (&rc, x + n1, n2, &frames);
  const gint groups[] = { 0, 12 };
  check_groups (&b, ref, frames, 13, groups, 2, 1e-5);
  g_free (ref);
  gst_harness_teardown (h);
  afetcheck_result_clear (&a);
  afetcheck_result_clear (&b);
  g_free (x);
}

GST_END_TEST;

static GstPadProbeReturn
count_to_drain (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  gint *counts = (gint *) data;  /* [buffers seen, buffers before the drain] */
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER)
    counts[0]++;
  else if (gst_event_has_name (GST_PAD_PROBE_INFO_EVENT (info),
          AFET_FEATURES_DRAIN_EVENT))
    counts[1] = counts[0];
  return GST_PAD_PROBE_OK;
}

/* Two utterances of noise through chain in one stream, the drain event
 * after the first and EOS after the second (sent without a DISCONT, at
 * 5 s): each bit for bit what it gives alone, and every frame of the
 * first out before the event. Returns the first utterance's frames. */
static gint
check_drain (const gchar * chain, gint n1, gint n2, gint size, guint64 seed)
{
  const gint rate = 16000;
  const GstClockTime t1 = 5 * GST_SECOND;
  gdouble *x = int_noise (n1 + n2, 15000, seed);
  AfetCheckResult alone1 = { 0 }, alone2 = { 0 }, a = { 0 }, b = { 0 };
  run (chain, AFETCHECK_S16, rate, x, n1, &size, 1, &alone1);
  run (chain, AFETCHECK_S16, rate, x + n1, n2, &size, 1, &alone2);

  GstHarness *h = gst_harness_new_parse (chain);
  gint counts[2] = { 0, -1 };
  gst_pad_add_probe (h->sinkpad, (GstPadProbeType)
      (GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM),
      count_to_drain, counts, NULL);
  afetcheck_set_audio_caps (h, AFETCHECK_S16, rate);
  fail_unless_equals_int (afetcheck_push_samples (h, AFETCHECK_S16, rate, x,
          n1, &size, 1, 0, TRUE), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h,
          gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM,
              gst_structure_new_empty (AFET_FEATURES_DRAIN_EVENT))));
  afetcheck_pull (h, &a, 0, 0);
  /* every frame of the utterance came out before the event */
  fail_unless_equals_int (counts[1], a.n_buffers);
  fail_unless_equals_int (a.n_frames, alone1.n_frames);
  fail_unless (memcmp (a.data, alone1.data, sizeof (gfloat) *
          a.n_frames * a.dims) == 0);

  fail_unless_equals_int (afetcheck_push_samples (h, AFETCHECK_S16, rate,
          x + n1, n2, &size, 1, t1, FALSE), GST_FLOW_OK);
  gst_harness_push_event (h, gst_event_new_eos ());
  afetcheck_pull (h, &b, t1, 0);
  fail_unless_equals_int (b.n_frames, alone2.n_frames);
  fail_unless (memcmp (b.data, alone2.data, sizeof (gfloat) *
          b.n_frames * b.dims) == 0);
  gst_harness_teardown (h);
  const gint frames = alone1.n_frames;
  afetcheck_result_clear (&alone1);
  afetcheck_result_clear (&alone2);
  afetcheck_result_clear (&a);
  afetcheck_result_clear (&b);
  g_free (x);
  return frames;
}

/* The drain event ends an utterance as end-of-stream does (pad=true: its
 * zero-filled last frame too) and follows its last frame out; the stream
 * goes on, and the next utterance, with no DISCONT, is counted from its
 * own first sample: each bit for bit what it gives alone. */
GST_START_TEST (test_drain)
{
  const gint n1 = 10250;
  fail_unless_equals_int (check_drain ("afetmfcc pad=true", n1, 7130, 1000,
          7), afetref_num_frames (n1, 400, 160) + 1);
}

GST_END_TEST;

/* The same through a live chain (the harness is live: the three elements
 * compute in one combined pass a round, the rows between them on the
 * host or the device). */
GST_START_TEST (test_drain_live_chain)
{
  check_drain ("afetmfcc ! afetdelta ! afetcmvn scope=sliding", 24250, 17130,
      160, 8);
}

GST_END_TEST;

/* pad=true emits the incomplete last frame, zero-filled. */
GST_START_TEST (test_pad)
{
  const gint rate = 16000, n = 16000 + 250;   /* tail of 250 + 240 samples */
  gdouble *x = int_noise (n, 15000, 6);
  AfetCheckResult drop = { 0 }, pad = { 0 };
  run ("afetmfcc", AFETCHECK_S16, rate, x, n, NULL, 0, &drop);
  run ("afetmfcc pad=true", AFETCHECK_S16, rate, x, n, NULL, 0, &pad);
  gint full = afetref_num_frames (n, 400, 160);
  fail_unless_equals_int (drop.n_frames, full);
  fail_unless_equals_int (pad.n_frames, full + 1);

  /* reference: the signal zero-extended to a whole last frame */
  gint m = full * 160 + 400;
  gdouble *xp = g_new0 (gdouble, m);
  memcpy (xp, x, n * sizeof (gdouble));
  AfetRefConfig rc = ref_config (rate, 25, 23, 12, TRUE, FALSE);
  gint frames;
  gdouble *ref = afetref_compute (&rc, xp, m, &frames);
  fail_unless_equals_int (frames, full + 1);
  const gint groups[] = { 0, 12 };
  check_groups (&pad, ref, frames, 13, groups, 2, 1e-5);
  g_free (ref);
  g_free (xp);

  /* no padded frame when the last frame ends at the last sample */
  AfetCheckResult exact = { 0 };
  run ("afetmfcc pad=true", AFETCHECK_S16, rate, x, 15920, NULL, 0, &exact);
  fail_unless_equals_int (exact.n_frames, 98);
  afetcheck_result_clear (&exact);
  afetcheck_result_clear (&drop);
  afetcheck_result_clear (&pad);
  g_free (x);
}

GST_END_TEST;

/* afetframer's frames into afetmfcc equal afetmfcc on audio. */
GST_START_TEST (test_frames_input)
{
  const gint rate = 16000, n = 20000;
  gdouble *x = int_noise (n, 15000, 7);
  AfetCheckResult direct = { 0 }, chained = { 0 };
  gint *sizes = afetcheck_random_sizes (16, 100, 2000, 8);
  run ("afetmfcc energy=true frame-length=20", AFETCHECK_S16, rate, x, n,
      NULL, 0, &direct);
  run ("afetframer energy=true frame-length=20 ! afetmfcc energy=true",
      AFETCHECK_S16, rate, x, n, sizes, 16, &chained);
  fail_unless_equals_int (chained.n_frames, direct.n_frames);
  fail_unless_equals_int (chained.dims, direct.dims);
  gdouble e = afetref_rel_l2_ff (chained.data, direct.data, direct.n_frames,
      direct.dims, 0, direct.dims);
  fail_unless (e <= 1e-6, "chain differs: %.3e", e);
  fail_unless_equals_int (chained.info.frame_length, 320);
  afetcheck_result_clear (&direct);
  afetcheck_result_clear (&chained);
  g_free (sizes);
  g_free (x);
}

GST_END_TEST;

/* Collects the error and warning texts an element posted. */
static gchar *
bus_texts (GstBus * bus)
{
  GString *s = g_string_new (NULL);
  GstMessage *m;
  while ((m = gst_bus_pop (bus))) {
    GError *err = NULL;
    gchar *dbg = NULL;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR)
      gst_message_parse_error (m, &err, &dbg);
    else if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING)
      gst_message_parse_warning (m, &err, &dbg);
    if (err)
      g_string_append_printf (s, "%s: %s | %s\n",
          GST_MESSAGE_TYPE_NAME (m), err->message, dbg ? dbg : "");
    g_clear_error (&err);
    g_free (dbg);
    gst_message_unref (m);
  }
  return g_string_free (s, FALSE);
}

GST_START_TEST (test_energy_needs_framer_energy)
{
  GstHarness *h = gst_harness_new_parse ("afetframer ! afetmfcc energy=true");
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  afetcheck_set_audio_caps (h, AFETCHECK_S16, 16000);
  gdouble x[4000] = { 0 };
  GstFlowReturn ret = afetcheck_push_samples (h, AFETCHECK_S16, 16000, x,
      4000, NULL, 0, 0, TRUE);
  fail_unless (ret != GST_FLOW_OK, "energy without framer energy accepted");
  gchar *texts = bus_texts (bus);
  GST_INFO ("bus: %s", texts);
  fail_unless (strstr (texts, "energy=true on afetframer") != NULL,
      "no reason given: %s", texts);
  g_free (texts);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

static void
check_refused (const gchar * caps, const gchar * reason)
{
  GstHarness *h = gst_harness_new ("afetmfcc");
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, caps);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 4096, NULL);
  gst_buffer_memset (buf, 0, 0, 4096);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_NOT_NEGOTIATED);
  gchar *texts = bus_texts (bus);
  GST_INFO ("bus: %s", texts);
  fail_unless (strstr (texts, reason) != NULL, "caps %s: no '%s' in: %s",
      caps, reason, texts);
  g_free (texts);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_START_TEST (test_refuses_bad_audio)
{
  check_refused ("audio/x-raw, format=S16LE, layout=interleaved, "
      "rate=16000, channels=2", "mono");
  check_refused ("audio/x-raw, format=U8, layout=interleaved, "
      "rate=16000, channels=1", "audioconvert");
  check_refused ("audio/x-raw, format=S16LE, layout=interleaved, "
      "rate=4000, channels=1", "audioresample");
}

GST_END_TEST;

/* high-freq above Nyquist: a negotiation error that says why */
GST_START_TEST (test_refuses_bad_settings)
{
  GstHarness *h = gst_harness_new_parse ("afetmfcc high-freq=6000");
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  afetcheck_set_audio_caps (h, AFETCHECK_S16, 8000);
  gdouble x[2000] = { 0 };
  fail_if (afetcheck_push_samples (h, AFETCHECK_S16, 8000, x, 2000, NULL, 0,
          0, TRUE) == GST_FLOW_OK);
  gchar *texts = bus_texts (bus);
  fail_unless (strstr (texts, "Nyquist") != NULL, "no reason: %s", texts);
  g_free (texts);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_latency)
{
  /* latency-budget=0: the budget has tests of its own (budget.c) */
  GstHarness *h = gst_harness_new_parse ("afetmfcc frame-length=20 "
      "latency-budget=0");
  afetcheck_set_audio_caps (h, AFETCHECK_S16, 16000);
  gst_harness_set_upstream_latency (h, 10 * GST_MSECOND);
  gdouble x[1000] = { 0 };
  afetcheck_push_samples (h, AFETCHECK_S16, 16000, x, 1000, NULL, 0, 0, TRUE);
  /* upstream 10 ms + one 20 ms window */
  fail_unless_equals_uint64 (gst_harness_query_latency (h),
      30 * GST_MSECOND);
  gst_harness_teardown (h);

  /* the framer reports the window; afetmfcc on frames adds nothing */
  h = gst_harness_new_parse ("afetframer frame-length=25 latency-budget=0 "
      "! afetmfcc");
  afetcheck_set_audio_caps (h, AFETCHECK_S16, 16000);
  gst_harness_set_upstream_latency (h, 0);
  afetcheck_push_samples (h, AFETCHECK_S16, 16000, x, 1000, NULL, 0, 0, TRUE);
  fail_unless_equals_uint64 (gst_harness_query_latency (h),
      25 * GST_MSECOND);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_dct_methods_agree)
{
  const gint rate = 16000, n = 16000;
  gdouble *x = int_noise (n, 15000, 9);
  AfetCheckResult a = { 0 }, b = { 0 };
  run ("afetmfcc dct-method=fused", AFETCHECK_S16, rate, x, n, NULL, 0, &a);
  run ("afetmfcc dct-method=gemm", AFETCHECK_S16, rate, x, n, NULL, 0, &b);
  fail_unless_equals_int (a.n_frames, b.n_frames);
  gdouble e = afetref_rel_l2_ff (b.data, a.data, a.n_frames, a.dims, 0,
      a.dims);
  fail_unless (e <= 1e-6, "fused and gemm differ: %.3e", e);
  afetcheck_result_clear (&a);
  afetcheck_result_clear (&b);
  g_free (x);
}

GST_END_TEST;

GST_START_TEST (test_property_defaults)
{
  GstElement *e = gst_element_factory_make ("afetmfcc", NULL);
  guint filters, ceps, lifter;
  gdouble len, shift, pre, lo, hi;
  gboolean power, c0, energy, pad;
  gchar *device;
  gint window;
  g_object_get (e, "num-filters", &filters, "num-ceps", &ceps, "lifter",
      &lifter, "frame-length", &len, "frame-shift", &shift, "preemphasis",
      &pre, "low-freq", &lo, "high-freq", &hi, "use-power", &power, "c0",
      &c0, "energy", &energy, "pad", &pad, "device", &device, "window",
      &window, NULL);
  fail_unless_equals_int (filters, 23);
  fail_unless_equals_int (ceps, 12);
  fail_unless_equals_int (lifter, 22);
  fail_unless_equals_float (len, 25.0);
  fail_unless_equals_float (shift, 10.0);
  fail_unless_equals_float (pre, 0.97);
  fail_unless_equals_float (lo, 0.0);
  fail_unless_equals_float (hi, 0.0);
  fail_unless (!power && c0 && !energy && !pad);
  fail_unless_equals_string (device, "auto");
  fail_unless_equals_int (window, 0);
  g_free (device);
  gst_object_unref (e);
}

GST_END_TEST;

static GstPadProbeReturn
count_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GArray *sizes = (GArray *) user_data;
  guint frames = (guint) (gst_buffer_get_size (GST_PAD_PROBE_INFO_BUFFER
          (info)) / (13 * sizeof (gfloat)));
  g_array_append_val (sizes, frames);
  return GST_PAD_PROBE_OK;
}

/* Plays pipe until EOS (failing the test on an error or after seconds);
 * the caller sets it to NULL. */
static void
play_to_eos (GstElement * pipe, gint seconds)
{
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, seconds * GST_SECOND,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_object_unref (bus);
}

/* the batch size an element logs for max-batch 0 */
static volatile gint batch_said = 0;

static void
note_batch (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  const gchar *m = gst_debug_message_get (message);
  const gchar *at = m ? strstr (m, "max-batch 0: batches of ") : NULL;
  if (at)
    g_atomic_int_set (&batch_said, atoi (at + strlen ("max-batch 0: "
                "batches of ")));
}

/* max-batch 0 (the default) sizes the batch to the device: 4096 frames on
 * CPU devices (PoCL's names start with pthread- or cpu-), 16384 on GPUs for
 * a source that is not live; 4096 for a live one anywhere. */
GST_START_TEST (test_batching_auto)
{
  GstElement *pipe = gst_parse_launch ("audiotestsrc num-buffers=180 "
      "samplesperbuffer=16000 ! audio/x-raw,rate=16000,channels=1 ! "
      "afetmfcc name=m ! fakesink name=sink", NULL);
  fail_unless (pipe != NULL);
  GstElement *m = gst_bin_get_by_name (GST_BIN (pipe), "m");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GArray *sizes = g_array_new (FALSE, FALSE, sizeof (guint));
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_buffer, sizes,
      NULL);
  guint set = 1;
  g_object_get (m, "max-batch", &set, NULL);
  fail_unless_equals_int (set, 0);
  play_to_eos (pipe, 120);
  gchar *name = NULL;
  g_object_get (m, "device-name", &name, NULL);
  gst_element_set_state (pipe, GST_STATE_NULL);
  const gboolean cpu = name && (g_str_has_prefix (name, "pthread") ||
      g_str_has_prefix (name, "cpu"));
  const guint want = cpu ? 4096 : 16384;
  /* 180 s: 17998 frames, whole batches and then the rest */
  guint total = 0;
  for (guint i = 0; i < sizes->len; i++)
    total += g_array_index (sizes, guint, i);
  fail_unless_equals_int (total, 17998);
  fail_unless (sizes->len >= 2);
  for (guint i = 0; i + 1 < sizes->len; i++)
    fail_unless_equals_int (g_array_index (sizes, guint, i), want);
  printf ("auto max-batch on %s: %u frames a launch\n", name, want);
  g_free (name);
  g_array_unref (sizes);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (m);
  gst_object_unref (pipe);

  /* a stream whose duration upstream knows gets no larger batches than its
   * frames need, to the next power of two: 473 frames, 512 */
  gchar *wav = g_build_filename (afetcheck_testdata_dir (), "audio",
      "s01_16k.wav", NULL);
  gchar *launch = g_strdup_printf ("filesrc location=\"%s\" ! wavparse ! "
      "afetmfcc ! fakesink", wav);
  gst_debug_set_threshold_for_name ("afetbase", GST_LEVEL_INFO);
  gst_debug_add_log_function (note_batch, NULL, NULL);
  g_atomic_int_set (&batch_said, 0);
  pipe = gst_parse_launch (launch, NULL);
  play_to_eos (pipe, 60);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_debug_remove_log_function (note_batch);
  fail_unless_equals_int (g_atomic_int_get (&batch_said), 512);
  gst_object_unref (pipe);
  g_free (launch);
  g_free (wav);
}

GST_END_TEST;

/* A non-live source is batched: whole max-batch buffers, then the rest. */
GST_START_TEST (test_batching_not_live)
{
  gchar *wav = g_build_filename (afetcheck_testdata_dir (), "audio",
      "s01_16k.wav", NULL);
  gchar *launch = g_strdup_printf ("filesrc location=\"%s\" blocksize=4096 ! "
      "wavparse ! afetmfcc name=m frame-length=20 max-batch=64 ! "
      "fakesink name=sink", wav);
  GstElement *pipe = gst_parse_launch (launch, NULL);
  fail_unless (pipe != NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GArray *sizes = g_array_new (FALSE, FALSE, sizeof (guint));
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_buffer, sizes,
      NULL);
  play_to_eos (pipe, 60);
  gst_element_set_state (pipe, GST_STATE_NULL);

  /* 473 frames: 7 x 64 + 25, although wavparse sends 4 KiB buffers */
  fail_unless_equals_int (sizes->len, 8);
  for (guint i = 0; i < 7; i++)
    fail_unless_equals_int (g_array_index (sizes, guint, i), 64);
  fail_unless_equals_int (g_array_index (sizes, guint, 7), 25);
  g_array_unref (sizes);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (launch);
  g_free (wav);
}

GST_END_TEST;

/* A caps change mid-stream restarts framing with the new format. */
GST_START_TEST (test_caps_change)
{
  GstHarness *h = gst_harness_new_parse ("afetmfcc");
  gdouble *x = int_noise (16000, 15000, 10);
  AfetCheckResult a = { 0 }, b = { 0 };
  afetcheck_set_audio_caps (h, AFETCHECK_S16, 16000);
  afetcheck_push_samples (h, AFETCHECK_S16, 16000, x, 16000, NULL, 0, 0,
      TRUE);
  afetcheck_pull (h, &a, 0, 0);
  fail_unless_equals_int (a.info.rate, 16000);
  fail_unless_equals_int (a.n_frames, afetref_num_frames (16000, 400, 160));

  afetcheck_set_audio_caps (h, AFETCHECK_S16, 8000);
  afetcheck_push_samples (h, AFETCHECK_S16, 8000, x, 8000, NULL, 0,
      GST_SECOND, FALSE);
  gst_harness_push_event (h, gst_event_new_eos ());
  afetcheck_pull (h, &b, GST_SECOND, 0);
  fail_unless_equals_int (b.info.rate, 8000);
  fail_unless_equals_int (b.info.frame_length, 200);
  fail_unless_equals_int (b.n_frames, afetref_num_frames (8000, 200, 80));
  AfetRefConfig rc = ref_config (8000, 25, 23, 12, TRUE, FALSE);
  gint frames;
  gdouble *ref = afetref_compute (&rc, x, 8000, &frames);
  const gint groups[] = { 0, 12 };
  check_groups (&b, ref, frames, 13, groups, 2, 1e-5);
  g_free (ref);
  afetcheck_result_clear (&a);
  afetcheck_result_clear (&b);
  gst_harness_teardown (h);
  g_free (x);
}

GST_END_TEST;

static Suite *
afetmfcc_suite (void)
{
  Suite *s = suite_create ("afetmfcc");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_property_defaults);
  tcase_add_test (tc, test_mfcc_random_vs_reference);
  tcase_add_test (tc, test_fbank_tone_vs_reference);
  tcase_add_test (tc, test_htk_warp_vs_reference);
  tcase_add_test (tc, test_formats_agree);
  tcase_add_test (tc, test_shift_longer_than_frame);
  tcase_add_test (tc, test_split_invariance);
  tcase_add_test (tc, test_discont);
  tcase_add_test (tc, test_drain);
  tcase_add_test (tc, test_drain_live_chain);
  tcase_add_test (tc, test_pad);
  tcase_add_test (tc, test_frames_input);
  tcase_add_test (tc, test_energy_needs_framer_energy);
  tcase_add_test (tc, test_refuses_bad_audio);
  tcase_add_test (tc, test_refuses_bad_settings);
  tcase_add_test (tc, test_latency);
  tcase_add_test (tc, test_dct_methods_agree);
  tcase_add_test (tc, test_batching_not_live);
  tcase_add_test (tc, test_batching_auto);
  tcase_add_test (tc, test_caps_change);
  return s;
}

GST_CHECK_MAIN (afetmfcc);
