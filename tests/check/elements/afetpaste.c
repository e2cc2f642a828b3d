/* Tests of afetpaste (Kaldi's paste-feats --length-tolerance): random
 * buffer splits, lengths within and over the tolerance, EOS early on one
 * pad, DISCONT between utterances, refusals, and MFCC + pitch against
 * Kaldi's paste-feats output.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Two harnesses on one afetpaste (sink_0 with the src pad, sink_1 alone)
 * feed it synthetic frames whose values name their pad, frame and column;
 * the output must be the frames side by side, cut to the shortest input,
 * stamped from sink_0.  tests/data/kaldi-pitch/mfcc_pitch.ark is
 * paste-feats --length-tolerance=2 of Kaldi's MFCC and processed pitch:
 * afetmfcc preset=kaldi and afetpitch delta-pitch-noise-stddev=0 joined
 * by afetpaste must give it within 1e-4 relative L2. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "afetcheck.h"
#include "afetref_ark.h"

#include <glib/gstdio.h>
#include <unistd.h>
#include <math.h>
#include <string.h>

#define CAPS_A "application/x-afet-features, format=F32LE, kind=mfcc, " \
    "dims=5, rate=16000, frame-length=400, frame-shift=160, " \
    "framerate=100/1, statics=5, preset=kaldi"
#define CAPS_B "application/x-afet-features, format=F32LE, kind=user, " \
    "dims=3, rate=16000, frame-length=400, frame-shift=160, " \
    "framerate=100/1, statics=3, preset=kaldi, " \
    "pitch-columns=(string)\"pov,normalized-log-pitch,delta-pitch\", " \
    "pitch-pass=(string)first-pass, pitch-frames-per-chunk=(int)10"
#define DA 5
#define DB 3

typedef struct
{
  GstHarness *h0, *h1;
  GstBus *bus;
} Paste;

static void
paste_new (Paste * p, gint tolerance, const gchar * caps_b)
{
  p->h0 = gst_harness_new_with_padnames ("afetpaste", "sink_0", "src");
  p->h1 = gst_harness_new_with_element (p->h0->element, "sink_1", NULL);
  g_object_set (p->h0->element, "length-tolerance", tolerance, NULL);
  p->bus = gst_bus_new ();
  gst_element_set_bus (p->h0->element, p->bus);
  gst_harness_set_src_caps_str (p->h0, CAPS_A);
  gst_harness_set_src_caps_str (p->h1, caps_b ? caps_b : CAPS_B);
}

static void
paste_free (Paste * p)
{
  gst_element_set_bus (p->h0->element, NULL);
  gst_object_unref (p->bus);
  gst_harness_teardown (p->h0);
  gst_harness_teardown (p->h1);
}

/* frame t of pad pad, utterance u: column c is pad * 1000 + u * 100 + c +
 * t / 1000 (exact in float for t < 1000) */
static gfloat *
make_frames (gint pad, gint u, gint T, gint d)
{
  gfloat *f = g_new (gfloat, (gsize) T * d);
  for (gint t = 0; t < T; t++)
    for (gint c = 0; c < d; c++)
      f[t * d + c] = pad * 1000 + u * 100 + c + t / 1000.0f;
  return f;
}

/* frames [from, from + len) of f, stamped at 100 a second from t0 */
static GstFlowReturn
push_chunk (GstHarness * h, const gfloat * f, gint d, gint from, gint len,
    GstClockTime t0)
{
  GstBuffer *b = gst_buffer_new_memdup (f + (gsize) from * d,
      (gsize) len * d * sizeof (gfloat));
  GST_BUFFER_PTS (b) = t0 + gst_util_uint64_scale (from, GST_SECOND, 100);
  if (from == 0)
    GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
  return gst_harness_push (h, b);
}

static void
push_key (GstHarness * h, const gchar * key)
{
  gst_harness_push_event (h, gst_event_new_tag (gst_tag_list_new ("afet-key",
              key, NULL)));
}

/* the joined frames of utterance u: A's then B's columns, n frames */
static void
check_joined (const gfloat * out, gint n, gint u)
{
  for (gint t = 0; t < n; t++)
    for (gint c = 0; c < DA + DB; c++) {
      gfloat want = c < DA ? u * 100 + c + t / 1000.0f :
          1000 + u * 100 + (c - DA) + t / 1000.0f;
      fail_unless (out[t * (DA + DB) + c] == want, "utterance %d frame %d "
          "column %d: %g, not %g", u, t, c, out[t * (DA + DB) + c], want);
    }
}

static gboolean
has_eos (GstHarness * h)
{
  GstEvent *e;
  gboolean eos = FALSE;
  while ((e = gst_harness_try_pull_event (h))) {
    eos = eos || GST_EVENT_TYPE (e) == GST_EVENT_EOS;
    gst_event_unref (e);
  }
  return eos;
}

/* A (100 frames) and B (101) in random splits, pushed one after the other
 * (offline) or chunk by chunk in turn (live: frames go out as both have
 * them): 100 joined frames stamped from A, within length-tolerance=1. */
GST_START_TEST (test_random_splits)
{
  const gint TA = 100, TB = 101;
  gfloat *a = make_frames (0, 0, TA, DA), *b = make_frames (1, 0, TB, DB);
  const GstClockTime t0 = GST_SECOND, t0b = GST_SECOND + 3 * GST_MSECOND;
  for (guint64 seed = 1; seed <= 6; seed++) {
    gboolean live = seed % 2 == 0;
    Paste p;
    paste_new (&p, 1, NULL);
    gint *sa = afetcheck_random_sizes (64, 1, 17, seed);
    gint *sb = afetcheck_random_sizes (64, 1, 23, seed + 100);
    gint joined = 0;
    gfloat *out = g_new (gfloat, (gsize) TA * (DA + DB));
    gint ia = 0, ib = 0, ka = 0, kb = 0;
    while (ia < TA || ib < TB) {
      /* offline: all of A, then B; live: a chunk of each in turn */
      if (ia < TA) {
        gint n = sa[ka++ % 64];
        n = MIN (n, TA - ia);
        fail_unless_equals_int (push_chunk (p.h0, a, DA, ia, n, t0),
            GST_FLOW_OK);
        ia += n;
        if (!live)
          continue;
      }
      if (ib < TB) {
        gint n = sb[kb++ % 64];
        n = MIN (n, TB - ib);
        fail_unless_equals_int (push_chunk (p.h1, b, DB, ib, n, t0b),
            GST_FLOW_OK);
        ib += n;
      }
      /* what both have is out already */
      GstBuffer *buf;
      while ((buf = gst_harness_try_pull (p.h0))) {
        gint n = gst_buffer_get_size (buf) / ((DA + DB) * sizeof (gfloat));
        fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), joined);
        fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), t0 +
            gst_util_uint64_scale (joined, GST_SECOND, 100));
        fail_unless_equals_int (GST_BUFFER_IS_DISCONT (buf), joined == 0);
        gst_buffer_extract (buf, 0, out + joined * (DA + DB),
            gst_buffer_get_size (buf));
        joined += n;
        gst_buffer_unref (buf);
      }
      fail_unless_equals_int (joined, MIN (ia, MIN (ib, TA)));
    }
    /* every frame both have is out before either ends */
    fail_unless_equals_int (joined, TA);
    fail_unless (gst_harness_push_event (p.h0, gst_event_new_eos ()));
    fail_if (has_eos (p.h0), "EOS before sink_1 ended");
    fail_unless (gst_harness_push_event (p.h1, gst_event_new_eos ()));
    fail_unless (has_eos (p.h0), "no EOS after both ended");
    fail_unless (gst_harness_try_pull (p.h0) == NULL);
    check_joined (out, TA, 0);
    g_free (out);

    GstCaps *caps = gst_pad_get_current_caps (p.h0->sinkpad);
    GstStructure *s = gst_caps_get_structure (caps, 0);
    fail_unless_equals_string (gst_structure_get_string (s, "blocks"),
        "mfcc:5,pitch:3");
    fail_unless_equals_string (gst_structure_get_string (s, "pitch-columns"),
        "pov,normalized-log-pitch,delta-pitch");
    /* which of Kaldi's outputs the pitch frames are, passed on too */
    fail_unless_equals_string (gst_structure_get_string (s, "pitch-pass"),
        "first-pass");
    gint fpc = -1;
    fail_unless (gst_structure_get_int (s, "pitch-frames-per-chunk", &fpc) &&
        fpc == 10);
    fail_unless_equals_string (gst_structure_get_string (s, "kind"), "user");
    fail_unless_equals_string (gst_structure_get_string (s, "preset"),
        "kaldi");
    gst_caps_unref (caps);
    fail_unless (gst_bus_pop_filtered (p.bus, GST_MESSAGE_ERROR) == NULL);
    g_free (sa);
    g_free (sb);
    paste_free (&p);
  }
  g_free (a);
  g_free (b);
}

GST_END_TEST;

/* Lengths 100 and 102 within length-tolerance=2: cut to 100; 103 is an
 * error naming the key and the pads, when the longer input passes the
 * ended one (at once) or when both end. */
GST_START_TEST (test_tolerance)
{
  gfloat *a = make_frames (0, 0, 100, DA), *b = make_frames (1, 0, 103, DB);
  Paste p;

  /* within */
  paste_new (&p, 2, NULL);
  fail_unless_equals_int (push_chunk (p.h0, a, DA, 0, 100, 0), GST_FLOW_OK);
  fail_unless_equals_int (push_chunk (p.h1, b, DB, 0, 102, 0), GST_FLOW_OK);
  gst_harness_push_event (p.h0, gst_event_new_eos ());
  gst_harness_push_event (p.h1, gst_event_new_eos ());
  fail_unless (has_eos (p.h0));
  AfetCheckRuns runs;
  memset (&runs, 0, sizeof runs);
  afetcheck_pull_runs (p.h0, &runs);
  fail_unless_equals_int (runs.n_frames, 100);
  check_joined (runs.data, 100, 0);
  afetcheck_runs_clear (&runs);
  paste_free (&p);

  /* over, found when both end (sink_0 has not ended while sink_1 grows) */
  paste_new (&p, 2, NULL);
  push_key (p.h0, "utt7");
  fail_unless_equals_int (push_chunk (p.h0, a, DA, 0, 100, 0), GST_FLOW_OK);
  fail_unless_equals_int (push_chunk (p.h1, b, DB, 0, 103, 0), GST_FLOW_OK);
  gst_harness_push_event (p.h1, gst_event_new_eos ());
  gst_harness_push_event (p.h0, gst_event_new_eos ());
  fail_if (has_eos (p.h0), "EOS after a length mismatch");
  afetcheck_expect_error (p.bus, "Length mismatch in utterance 'utt7'");
  paste_free (&p);

  /* over, found at once: sink_0 ended at 100, sink_1 reaches 103 */
  paste_new (&p, 2, NULL);
  push_key (p.h0, "utt8");
  fail_unless_equals_int (push_chunk (p.h0, a, DA, 0, 100, 0), GST_FLOW_OK);
  gst_harness_push_event (p.h0, gst_event_new_eos ());
  fail_unless_equals_int (push_chunk (p.h1, b, DB, 0, 102, 0), GST_FLOW_OK);
  fail_unless_equals_int (push_chunk (p.h1, b, DB, 102, 1, 0),
      GST_FLOW_ERROR);
  afetcheck_expect_error (p.bus, "sink_1 has 103 frames, sink_0 ended with "
      "100, a difference over length-tolerance=2");
  paste_free (&p);
  g_free (a);
  g_free (b);
}

GST_END_TEST;

/* EOS early on one pad: the frames both have are out; the other pad's
 * end within the tolerance ends the stream, past it fails at once; a pad
 * that ends with no frames is an error (paste-feats refuses it). */
GST_START_TEST (test_eos_early)
{
  gfloat *a = make_frames (0, 0, 50, DA), *b = make_frames (1, 0, 100, DB);
  Paste p;

  paste_new (&p, 2, NULL);
  fail_unless_equals_int (push_chunk (p.h0, a, DA, 0, 50, 0), GST_FLOW_OK);
  gst_harness_push_event (p.h0, gst_event_new_eos ());
  for (gint t = 0; t < 52; t += 4)
    fail_unless_equals_int (push_chunk (p.h1, b, DB, t, 4, 0), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_in_queue (p.h0) > 0, TRUE);
  fail_if (has_eos (p.h0));
  gst_harness_push_event (p.h1, gst_event_new_eos ());
  fail_unless (has_eos (p.h0));
  AfetCheckRuns runs;
  memset (&runs, 0, sizeof runs);
  afetcheck_pull_runs (p.h0, &runs);
  fail_unless_equals_int (runs.n_frames, 50);
  check_joined (runs.data, 50, 0);
  afetcheck_runs_clear (&runs);
  paste_free (&p);

  /* sink_1 goes on past sink_0's end: fails as soon as it is over */
  paste_new (&p, 2, NULL);
  fail_unless_equals_int (push_chunk (p.h0, a, DA, 0, 50, 0), GST_FLOW_OK);
  gst_harness_push_event (p.h0, gst_event_new_eos ());
  GstFlowReturn ret = GST_FLOW_OK;
  gint t = 0;
  for (; t < 100 && ret == GST_FLOW_OK; t += 1)
    ret = push_chunk (p.h1, b, DB, t, 1, 0);
  fail_unless_equals_int (ret, GST_FLOW_ERROR);
  fail_unless_equals_int (t, 53);
  afetcheck_expect_error (p.bus, "sink_0 ended with 50");
  paste_free (&p);

  /* sink_1 ends with no frames */
  paste_new (&p, 2, NULL);
  gst_harness_push_event (p.h1, gst_event_new_eos ());
  fail_unless_equals_int (push_chunk (p.h0, a, DA, 0, 50, 0), GST_FLOW_ERROR);
  afetcheck_expect_error (p.bus, "sink_1 ended (EOS) with no frames");
  paste_free (&p);
  g_free (a);
  g_free (b);
}

GST_END_TEST;

/* Two utterances (DISCONT, afet-key tags on sink_0) of 60/61 and 40/40
 * frames, interleaved in random splits: two runs of 60 and 40 frames,
 * stamped from sink_0's utterances, each key tag passed on. */
GST_START_TEST (test_discont)
{
  const gint TA[2] = { 60, 40 }, TB[2] = { 61, 40 };
  const GstClockTime t0[2] = { 0, 5 * GST_SECOND };
  gfloat *a[2], *b[2];
  for (gint u = 0; u < 2; u++) {
    a[u] = make_frames (0, u, TA[u], DA);
    b[u] = make_frames (1, u, TB[u], DB);
  }
  for (guint64 seed = 1; seed <= 4; seed++) {
    Paste p;
    paste_new (&p, 1, NULL);
    gint *sz = afetcheck_random_sizes (64, 1, 13, seed);
    gint k = 0;
    gint ia[2] = { 0, 0 }, ib[2] = { 0, 0 };
    /* sink_0 runs ahead into utterance 2 in odd seeds */
    for (gint u = 0; u < 2; u++) {
      push_key (p.h0, u ? "second" : "first");
      while (ia[u] < TA[u] || ib[u] < TB[u]) {
        if (ia[u] < TA[u]) {
          gint n = sz[k++ % 64];
          n = MIN (n, TA[u] - ia[u]);
          fail_unless_equals_int (push_chunk (p.h0, a[u], DA, ia[u], n,
                  t0[u]), GST_FLOW_OK);
          ia[u] += n;
        }
        if (ib[u] < TB[u] && (seed % 2 == 0 || u == 1 || ia[0] == TA[0])) {
          gint n = sz[k++ % 64];
          n = MIN (n, TB[u] - ib[u]);
          fail_unless_equals_int (push_chunk (p.h1, b[u], DB, ib[u], n,
                  t0[u] + GST_MSECOND), GST_FLOW_OK);
          ib[u] += n;
        }
      }
    }
    gst_harness_push_event (p.h0, gst_event_new_eos ());
    gst_harness_push_event (p.h1, gst_event_new_eos ());
    AfetCheckRuns runs;
    memset (&runs, 0, sizeof runs);
    afetcheck_pull_runs (p.h0, &runs);
    fail_unless_equals_int (runs.n_runs, 2);
    fail_unless_equals_int (runs.run_frames[0], 60);
    fail_unless_equals_int (runs.run_frames[1], 40);
    fail_unless_equals_uint64 (runs.run_pts[0], t0[0]);
    fail_unless_equals_uint64 (runs.run_pts[1], t0[1]);
    check_joined (runs.data, 60, 0);
    check_joined (runs.data + 60 * (DA + DB), 40, 1);
    /* the keys went on, in order */
    GstEvent *e;
    gint keys = 0;
    while ((e = gst_harness_try_pull_event (p.h0))) {
      if (GST_EVENT_TYPE (e) == GST_EVENT_TAG) {
        GstTagList *tags;
        gchar *key = NULL;
        gst_event_parse_tag (e, &tags);
        if (gst_tag_list_get_string (tags, "afet-key", &key)) {
          fail_unless_equals_string (key, keys ? "second" : "first");
          keys++;
          g_free (key);
        }
      }
      gst_event_unref (e);
    }
    fail_unless_equals_int (keys, 2);
    fail_unless (gst_bus_pop_filtered (p.bus, GST_MESSAGE_ERROR) == NULL);
    afetcheck_runs_clear (&runs);
    g_free (sz);
    paste_free (&p);
  }
  for (gint u = 0; u < 2; u++) {
    g_free (a[u]);
    g_free (b[u]);
  }
}

GST_END_TEST;

/* A flush (a seek) on both pads drops the frames not yet joined: the
 * next frames start a run of their own. */
GST_START_TEST (test_flush)
{
  gfloat *a = make_frames (0, 0, 30, DA), *b = make_frames (1, 0, 30, DB);
  Paste p;
  paste_new (&p, 0, NULL);
  fail_unless_equals_int (push_chunk (p.h0, a, DA, 0, 20, 0), GST_FLOW_OK);
  fail_unless_equals_int (push_chunk (p.h1, b, DB, 0, 10, 0), GST_FLOW_OK);
  for (GstHarness * h = p.h0; h; h = h == p.h0 ? p.h1 : NULL) {
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
    GstSegment seg;
    gst_segment_init (&seg, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  }
  AfetCheckRuns runs;
  memset (&runs, 0, sizeof runs);
  afetcheck_pull_runs (p.h0, &runs);
  fail_unless_equals_int (runs.n_frames, 10);
  afetcheck_runs_clear (&runs);
  fail_unless_equals_int (push_chunk (p.h0, a, DA, 0, 30, 0), GST_FLOW_OK);
  fail_unless_equals_int (push_chunk (p.h1, b, DB, 0, 30, 0), GST_FLOW_OK);
  gst_harness_push_event (p.h0, gst_event_new_eos ());
  gst_harness_push_event (p.h1, gst_event_new_eos ());
  memset (&runs, 0, sizeof runs);
  afetcheck_pull_runs (p.h0, &runs);
  fail_unless_equals_int (runs.n_runs, 1);
  fail_unless_equals_int (runs.n_frames, 30);
  check_joined (runs.data, 30, 0);
  fail_unless (has_eos (p.h0));
  fail_unless (gst_bus_pop_filtered (p.bus, GST_MESSAGE_ERROR) == NULL);
  afetcheck_runs_clear (&runs);
  paste_free (&p);
  g_free (a);
  g_free (b);
}

GST_END_TEST;

/* Another clock, a normalised input, one pad alone, a consumer wanting
 * other blocks: errors naming the cause. */
GST_START_TEST (test_refusals)
{
  gfloat *a = make_frames (0, 0, 10, DA), *b = make_frames (1, 0, 10, DB);
  Paste p;

  paste_new (&p, 0, "application/x-afet-features, format=F32LE, kind=user, "
      "dims=3, rate=16000, frame-length=400, frame-shift=80, "
      "framerate=200/1");
  fail_unless_equals_int (push_chunk (p.h0, a, DA, 0, 10, 0), GST_FLOW_OK);
  fail_if (push_chunk (p.h1, b, DB, 0, 10, 0) == GST_FLOW_OK);
  afetcheck_expect_error (p.bus, "sink_1's frames (rate 16000, frame-shift "
      "80: 200/1 frames a second) are not sink_0's");
  paste_free (&p);

  paste_new (&p, 0, "application/x-afet-features, format=F32LE, kind=user, "
      "dims=3, rate=16000, frame-length=400, frame-shift=160, "
      "framerate=100/1, normalization=mean");
  fail_unless_equals_int (push_chunk (p.h0, a, DA, 0, 10, 0), GST_FLOW_OK);
  fail_if (push_chunk (p.h1, b, DB, 0, 10, 0) == GST_FLOW_OK);
  afetcheck_expect_error (p.bus, "Normalise the joined stream after "
      "afetpaste");
  paste_free (&p);

  /* a consumer that takes fbank 23 + pitch 3 only refuses MFCC + pitch */
  gchar *wav = g_strdup_printf ("%s/audio/s01_16k.wav",
      afetcheck_testdata_dir ());
  gchar *launch = g_strdup_printf ("filesrc location=\"%s\" ! wavparse ! "
      "tee name=t t. ! afetmfcc preset=kaldi ! p.sink_0 t. ! afetpitch ! "
      "p.sink_1 afetpaste name=p length-tolerance=2 ! capsfilter caps="
      "\"application/x-afet-features, blocks=(string)\\\"fbank:23,pitch:3"
      "\\\"\" ! fakesink", wav);
  gchar *err = NULL;
  fail_if (afetcheck_run_launch (launch, &err), "%s ran to EOS", launch);
  fail_unless (err && strstr (err, "field 'blocks' is \"mfcc:13\\,pitch:3\""),
      "%s", err);
  g_free (err);
  g_free (launch);
  g_free (wav);

  /* one pad */
  GstHarness *h = gst_harness_new_with_padnames ("afetpaste", "sink_0",
      "src");
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, CAPS_A);
  fail_if (push_chunk (h, a, DA, 0, 10, 0) == GST_FLOW_OK);
  afetcheck_expect_error (bus, "link two or more streams");
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  g_free (a);
  g_free (b);
}

GST_END_TEST;

/* make_mfcc_pitch.sh's chain on s01..s03 at 8 and 16 kHz against
 * mfcc_pitch.ark (paste-feats --length-tolerance=2 of Kaldi's MFCC and
 * process-kaldi-pitch-feats --delta-pitch-noise-stddev=0): one thread
 * (tee without queues) and, for one key, a thread a branch through
 * queues of default size, which the MFCC branch would fill while afetpitch
 * waits for the utterance's end if afetpaste did not take its buffers. */
GST_START_TEST (test_kaldi_mfcc_pitch)
{
  static const char *keys[] = { "s01_8k", "s02_8k", "s03_8k", "s01_16k",
    "s02_16k", "s03_16k"
  };
  gchar *ref_path = g_build_filename (afetcheck_testdata_dir (),
      "kaldi-pitch", "mfcc_pitch.ark", NULL);
  int n_ref = 0;
  AfetRefMatrix *ref = afetref_read_kaldi_ark (ref_path, &n_ref);
  fail_unless (ref != NULL, "cannot read %s", ref_path);
  for (guint i = 0; i < G_N_ELEMENTS (keys) + 1; i++) {
    const gboolean threads = i == G_N_ELEMENTS (keys);
    const char *key = keys[threads ? 4 : i];
    gchar *wav = g_strdup_printf ("%s/audio/%s.wav",
        afetcheck_testdata_dir (), key);
    const char *q = threads ? "queue ! " : "";
    gchar *head = g_strdup_printf ("filesrc location=\"%s\" ! wavparse ! "
        "tee name=t t. ! %safetmfcc preset=kaldi ! p.sink_0 t. ! "
        "%safetpitch delta-pitch-noise-stddev=0 ! p.sink_1 afetpaste name=p "
        "length-tolerance=2 ! afetenc format=kaldi key=%s", wav, q, q, key);
    gsize len = 0;
    gchar *bytes = afetcheck_run_to_bytes (head, &len);
    gchar *tmp = NULL;
    gint fd = g_file_open_tmp ("afetpaste-XXXXXX.ark", &tmp, NULL);
    fail_unless (fd >= 0);
    close (fd);
    fail_unless (g_file_set_contents (tmp, bytes, (gssize) len, NULL));
    int n = 0;
    AfetRefMatrix *got = afetref_read_kaldi_ark (tmp, &n);
    fail_unless (got != NULL && n == 1);
    const AfetRefMatrix *want = afetref_kaldi_ark_find (ref, n_ref, key);
    fail_unless (want != NULL, "%s not in %s", key, ref_path);
    fail_unless_equals_int (got->rows, want->rows);
    fail_unless_equals_int (got->cols, 16);
    fail_unless_equals_int (want->cols, 16);
    double num = 0, den = 0;
    for (gint k = 0; k < want->rows * want->cols; k++) {
      num += (got->data[k] - want->data[k]) * (got->data[k] - want->data[k]);
      den += want->data[k] * want->data[k];
    }
    double rel = sqrt (num / den);
    g_print ("%s%s: %d x %d, rel L2 vs paste-feats %.3g\n", key,
        threads ? " (queues)" : "", got->rows, got->cols, rel);
    fail_unless (rel <= 1e-4, "%s: rel L2 %g", key, rel);
    afetref_matrices_free (got, n);
    g_unlink (tmp);
    g_free (tmp);
    g_free (bytes);
    g_free (head);
    g_free (wav);
  }
  afetref_matrices_free (ref, n_ref);
  g_free (ref_path);
}

GST_END_TEST;

static Suite *
afetpaste_suite (void)
{
  Suite *s = suite_create ("afetpaste");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_random_splits);
  tcase_add_test (tc, test_tolerance);
  tcase_add_test (tc, test_eos_early);
  tcase_add_test (tc, test_discont);
  tcase_add_test (tc, test_flush);
  tcase_add_test (tc, test_refusals);
  tcase_add_test (tc, test_kaldi_mfcc_pitch);
  suite_add_tcase (s, tc);
  return s;
}

GST_CHECK_MAIN (afetpaste);
