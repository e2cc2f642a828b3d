/* Test of afetdtw (examples/afetdtw), the isolated-word recogniser, on words
 * spoken by espeak-ng at test time, through the offline and the live chain.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * afetdtw (examples/afetdtw), the isolated-word recogniser, on words
 * spoken by espeak-ng at test time: templates from two voices at one
 * speaking rate, recognition of those voices at another rate and of voices
 * the templates do not have, through the offline chain (afetmfcc !
 * afetdelta ! afetcmvn) and the live one (afetcmvn scope=sliding), words
 * separated by silence in one stream and as runs of their own (DISCONT);
 * exactly one afet-word message per word, its times, the accuracy (fails
 * below 85 %); feature-file templates; the refusal of a chain without
 * deltas or normalisation, naming the field; errors for an empty or
 * missing template directory and an undecodable template.
 *
 * Without espeak-ng the test reports itself skipped (77).
 */

#include <gst/check/gstcheck.h>
#include <gst/app/gstappsrc.h>
#include <glib/gstdio.h>
#include <string.h>

#define MIN_ACCURACY 0.85
#define WAV_RATE 22050
#define SILENCE_S 0.6
#define NOISE_AMPLITUDE 60

static const gchar *const words[] = {
  "zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
  "nine", "yes", "no", NULL
};

typedef struct
{
  const gchar *voice;
  gint speed;
} Speaker;

/* the templates: two voices at one rate */
static const Speaker template_speakers[] = {
  {"en-us", 140}, {"en+f3", 140}, {NULL, 0}
};

/* recognised: the same voices at another rate, and voices the templates
 * do not have at both rates */
static const Speaker test_speakers[] = {
  {"en-us", 180}, {"en+f3", 180}, {"en+m3", 140}, {"en+m3", 180},
  {"en-gb+f2", 140}, {"en-gb+f2", 180}, {NULL, 0}
};

static gchar *work_dir, *template_dir;

/* ---- the corpus ------------------------------------------------------- */

static gchar *
word_path (const Speaker * sp, const gchar * word)
{
  gchar *name = g_strdup_printf ("%s_%d_%s.wav", sp->voice, sp->speed, word);
  gchar *path = g_build_filename (work_dir, "speech", name, NULL);

  g_free (name);
  return path;
}

static gboolean
speak (const gchar * espeak, const Speaker * sp, const gchar * word,
    const gchar * path)
{
  gchar speed[16];
  const gchar *argv[] = { espeak, "-v", sp->voice, "-s", speed, "-w", path,
    word, NULL
  };
  gint status = 0;
  GError *err = NULL;

  g_snprintf (speed, sizeof (speed), "%d", sp->speed);
  if (!g_spawn_sync (NULL, (gchar **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL,
          NULL, NULL, NULL, NULL, &status, &err)) {
    g_printerr ("espeak-ng: %s\n", err->message);
    g_clear_error (&err);
    return FALSE;
  }
  return g_spawn_check_wait_status (status, NULL);
}

static gboolean
make_corpus (const gchar * espeak)
{
  gchar *speech = g_build_filename (work_dir, "speech", NULL);
  const Speaker *sp;
  guint i;

  template_dir = g_build_filename (work_dir, "templates", NULL);
  g_mkdir_with_parents (speech, 0755);
  g_mkdir_with_parents (template_dir, 0755);
  g_free (speech);
  for (i = 0; words[i]; i++) {
    for (sp = template_speakers; sp->voice; sp++) {
      gchar *name = g_strdup_printf ("%s.%d.wav", words[i],
          (gint) (sp - template_speakers) + 1);
      gchar *path = g_build_filename (template_dir, name, NULL);
      gboolean ok = speak (espeak, sp, words[i], path);

      g_free (name);
      g_free (path);
      if (!ok)
        return FALSE;
    }
    for (sp = test_speakers; sp->voice; sp++) {
      gchar *path = word_path (sp, words[i]);
      gboolean ok = speak (espeak, sp, words[i], path);

      g_free (path);
      if (!ok)
        return FALSE;
    }
  }
  return TRUE;
}

/* espeak-ng's WAV: 16-bit mono PCM at 22050 Hz */
static GArray *
read_wav (const gchar * path)
{
  gchar *data = NULL;
  gsize size = 0, pos = 12;
  GArray *samples = g_array_new (FALSE, FALSE, sizeof (gint16));

  fail_unless (g_file_get_contents (path, &data, &size, NULL), "read %s",
      path);
  fail_unless (size > 44 && memcmp (data, "RIFF", 4) == 0, "%s: not WAV",
      path);
  while (pos + 8 <= size) {
    guint32 len = GST_READ_UINT32_LE (data + pos + 4);

    if (memcmp (data + pos, "fmt ", 4) == 0) {
      fail_unless_equals_int (GST_READ_UINT16_LE (data + pos + 10), 1);
      fail_unless_equals_int (GST_READ_UINT32_LE (data + pos + 12), WAV_RATE);
      fail_unless_equals_int (GST_READ_UINT16_LE (data + pos + 22), 16);
    } else if (memcmp (data + pos, "data", 4) == 0) {
      gsize n = MIN (len, size - pos - 8) / 2;

      for (gsize k = 0; k < n; k++) {
        gint16 v = GST_READ_UINT16_LE (data + pos + 8 + 2 * k);

        g_array_append_val (samples, v);
      }
      break;
    }
    pos += 8 + len + (len & 1);
  }
  g_free (data);
  fail_unless (samples->len > 0, "%s: no samples", path);
  return samples;
}

/* A little white noise, so that silence is not digital zero. */
static void
append_noisy (GArray * out, const gint16 * in, gsize n, GRand * rand)
{
  for (gsize k = 0; k < n; k++) {
    gint v = (in ? in[k] : 0) + g_rand_int_range (rand, -NOISE_AMPLITUDE,
        NOISE_AMPLITUDE + 1);
    gint16 s = CLAMP (v, G_MININT16, G_MAXINT16);

    g_array_append_val (out, s);
  }
}

/* What was spoken, where: word index, start and end in seconds. */
typedef struct
{
  guint word;
  gdouble start, end;
  const Speaker *speaker;
} Spoken;

/* The words of @speakers: one run with silence between the words, or
 * (@runs) a run for each word.  Returns the runs (GArray of gint16). */
static GPtrArray *
make_input (const Speaker * speakers, gboolean runs, GArray * spoken,
    gdouble gap)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_array_unref);
  GRand *rand = g_rand_new_with_seed (14);
  GArray *cur = NULL;
  gdouble t = 0;
  const Speaker *sp;

  for (sp = speakers; sp->voice; sp++) {
    for (guint i = 0; words[i]; i++) {
      gchar *path = word_path (sp, words[i]);
      GArray *w = read_wav (path);
      Spoken s;

      if (!cur || runs) {
        cur = g_array_new (FALSE, FALSE, sizeof (gint16));
        g_ptr_array_add (out, cur);
        if (!runs)
          append_noisy (cur, NULL, SILENCE_S * WAV_RATE, rand);
      }
      s.word = i;
      s.speaker = sp;
      s.start = runs ? t : (gdouble) cur->len / WAV_RATE;
      s.end = s.start + (gdouble) w->len / WAV_RATE;
      g_array_append_val (spoken, s);
      append_noisy (cur, (gint16 *) w->data, w->len, rand);
      if (!runs)
        append_noisy (cur, NULL, SILENCE_S * WAV_RATE, rand);
      t += (gdouble) cur->len / WAV_RATE + gap;
      g_array_unref (w);
      g_free (path);
    }
  }
  g_rand_free (rand);
  return out;
}

/* ---- pipelines -------------------------------------------------------- */

typedef struct
{
  GPtrArray *words;             /* GstStructure, afet-word */
  GError *error;
  gchar *debug;
  gchar *active_chain;
} Result;

static void
result_clear (Result * r)
{
  g_clear_pointer (&r->words, g_ptr_array_unref);
  g_clear_error (&r->error);
  g_clear_pointer (&r->debug, g_free);
  g_clear_pointer (&r->active_chain, g_free);
}

/* appsrc ! audioconvert ! audioresample ! @chain ! afetdtw @props, fed
 * @runs (each its own run: DISCONT, @gap seconds after the previous); a
 * live source for a sliding normalisation (afetcmvn refuses the utterance
 * scope on live input). */
static void
run_pipeline (const gchar * chain, const gchar * dir, const gchar * props,
    GPtrArray * runs, gdouble gap, Result * r)
{
  gboolean live = strstr (chain, "scope=sliding") != NULL;
  gchar *desc = g_strdup_printf ("appsrc name=src format=time max-bytes=0 "
      "is-live=%d caps=audio/x-raw,format=S16LE,rate=%d,channels=1,"
      "layout=interleaved ! audioconvert ! audioresample ! "
      "audio/x-raw,rate=16000 ! %s%safetdtw name=dtw %s", live, WAV_RATE,
      chain, *chain ? " ! " : "", props ? props : "");
  GstElement *pipeline, *src, *dtw;
  GError *err = NULL;
  GstClockTime pts = 0;
  GstBus *bus;
  gboolean done = FALSE;

  memset (r, 0, sizeof (*r));
  r->words = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  pipeline = gst_parse_launch (desc, &err);
  fail_unless (pipeline != NULL, "%s: %s", desc, err ? err->message : "");
  g_free (desc);
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  dtw = gst_bin_get_by_name (GST_BIN (pipeline), "dtw");
  g_object_set (dtw, "templates", dir, NULL);
  bus = gst_element_get_bus (pipeline);

  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE) {
    for (guint i = 0; runs && i < runs->len; i++) {
      GArray *run = g_ptr_array_index (runs, i);
      guint chunk = WAV_RATE / 10;

      for (guint k = 0; k < run->len; k += chunk) {
        guint n = MIN (chunk, run->len - k);
        GstBuffer *buf = gst_buffer_new_memdup (&g_array_index (run, gint16,
                k), n * sizeof (gint16));
        GstClockTime dur = gst_util_uint64_scale (n, GST_SECOND, WAV_RATE);

        GST_BUFFER_PTS (buf) = pts;
        GST_BUFFER_DURATION (buf) = dur;
        if (k == 0)
          GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
        pts += dur;
        if (gst_app_src_push_buffer (GST_APP_SRC (src), buf) != GST_FLOW_OK)
          break;
      }
      pts += (GstClockTime) (gap * GST_SECOND);
    }
    gst_app_src_end_of_stream (GST_APP_SRC (src));
  }

  while (!done) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT);
    const GstStructure *s;

    fail_unless (msg != NULL, "no EOS or error after 120 s");
    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_ELEMENT:
        s = gst_message_get_structure (msg);
        if (gst_structure_has_name (s, "afet-word")) {
          fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (dtw));
          g_ptr_array_add (r->words, gst_structure_copy (s));
        }
        break;
      case GST_MESSAGE_ERROR:
        if (!r->error)
          gst_message_parse_error (msg, &r->error, &r->debug);
        done = TRUE;
        break;
      default:
        done = TRUE;
        break;
    }
    gst_message_unref (msg);
  }
  g_object_get (dtw, "active-chain", &r->active_chain, NULL);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (dtw);
  gst_object_unref (pipeline);
}

/* Checks one message a word, each within its word's time, and the
 * accuracy (printed, by speaker); returns it. */
static gdouble
score (const gchar * what, const Result * r, GArray * spoken)
{
  guint right = 0, i;
  GString *by = g_string_new (NULL);
  const Speaker *last = NULL;
  guint sp_right = 0, sp_n = 0;

  fail_unless (r->error == NULL, "%s: error %s (%s)", what,
      r->error ? r->error->message : "", GST_STR_NULL (r->debug));
  fail_unless_equals_int (r->words->len, spoken->len);
  for (i = 0; i < spoken->len; i++) {
    const Spoken *s = &g_array_index (spoken, Spoken, i);
    const GstStructure *m = g_ptr_array_index (r->words, i);
    const gchar *got = gst_structure_get_string (m, "word");
    const gchar *runner = gst_structure_get_string (m, "runner-up");
    guint64 start = 0, end = 0;
    gdouble d = -1, d2 = -1;

    fail_unless (got && runner);
    fail_unless (gst_structure_get_uint64 (m, "start", &start));
    fail_unless (gst_structure_get_uint64 (m, "end", &end));
    fail_unless (gst_structure_get_double (m, "distance", &d));
    fail_unless (gst_structure_get_double (m, "runner-up-distance", &d2));
    fail_unless (d >= 0 && d2 >= d && strcmp (got, runner) != 0,
        "%s: %" GST_PTR_FORMAT, what, m);
    /* the word's message lies on the word (its recording has silence
     * after the speech, none before) */
    fail_unless (start >= (s->start - 0.1) * GST_SECOND &&
        start <= (s->start + 0.3) * GST_SECOND && end > start &&
        end <= (s->end + 0.2) * GST_SECOND,
        "%s: word %u (%s, %.2f-%.2f s) reported at %.2f-%.2f s", what, i,
        words[s->word], s->start, s->end, start / 1e9, end / 1e9);
    if (s->speaker != last) {
      if (last)
        g_string_append_printf (by, " %s/%d %u/%u", last->voice, last->speed,
            sp_right, sp_n);
      last = s->speaker;
      sp_right = sp_n = 0;
    }
    sp_n++;
    if (g_str_equal (got, words[s->word])) {
      right++;
      sp_right++;
    } else {
      g_print ("  %s: %s/%d '%s' heard as '%s' (%.3f; runner-up %s %.3f)\n",
          what, s->speaker->voice, s->speaker->speed, words[s->word], got, d,
          runner, d2);
    }
  }
  if (last)
    g_string_append_printf (by, " %s/%d %u/%u", last->voice, last->speed,
        sp_right, sp_n);
  g_print ("accuracy (%s): %u/%u = %.1f %% [%s ]\n", what, right, spoken->len,
      100.0 * right / spoken->len, by->str);
  g_string_free (by, TRUE);
  return (gdouble) right / spoken->len;
}

static void
recognise (const gchar * what, const gchar * chain, const gchar * dir,
    const gchar * props, gboolean runs, gchar ** active_chain)
{
  GArray *spoken = g_array_new (FALSE, FALSE, sizeof (Spoken));
  GPtrArray *input = make_input (test_speakers, runs, spoken, 0.5);
  gint64 t0 = g_get_monotonic_time ();
  Result r;
  gdouble acc;

  run_pipeline (chain, dir, props, input, 0.5, &r);
  g_print ("%s: %u words in %.2f s\n", what, spoken->len,
      (g_get_monotonic_time () - t0) / 1e6);
  acc = score (what, &r, spoken);
  fail_unless (acc >= MIN_ACCURACY, "%s: accuracy %.1f %% < %.0f %%", what,
      100 * acc, 100 * MIN_ACCURACY);
  if (active_chain)
    *active_chain = g_strdup (r.active_chain);
  result_clear (&r);
  g_ptr_array_unref (input);
  g_array_unref (spoken);
}

/* ---- the tests -------------------------------------------------------- */

GST_START_TEST (test_offline_stream)
{
  gchar *chain = NULL;

  recognise ("offline, silence between words",
      "afetmfcc ! afetdelta ! afetcmvn", template_dir, NULL, FALSE, &chain);
  /* the templates went through the same elements */
  fail_unless (chain && g_str_has_prefix (chain, "afetmfcc") &&
      strstr (chain, "afetdelta") && strstr (chain, "afetcmvn"), "%s",
      GST_STR_NULL (chain));
  g_free (chain);
}

GST_END_TEST;

GST_START_TEST (test_live_stream)
{
  gchar *chain = NULL;

  recognise ("live (sliding CMVN), silence between words",
      "afetmfcc ! afetdelta ! afetcmvn scope=sliding", template_dir, NULL,
      FALSE, &chain);
  /* a sliding normalisation is per file for the templates */
  fail_unless (chain && strstr (chain, "afetcmvn") &&
      !strstr (chain, "scope"), "%s", GST_STR_NULL (chain));
  g_free (chain);
}

GST_END_TEST;

GST_START_TEST (test_discont_runs)
{
  recognise ("offline, a run a word (DISCONT)",
      "afetmfcc ! afetdelta ! afetcmvn", template_dir, NULL, TRUE, NULL);
  recognise ("live, a run a word (DISCONT), split=discont",
      "afetmfcc ! afetdelta ! afetcmvn scope=sliding", template_dir,
      "split=discont", TRUE, NULL);
}

GST_END_TEST;

/* @wav through the default chain into a NumPy file */
static void
make_npy (const gchar * wav, const gchar * npy)
{
  gchar *desc = g_strdup_printf ("filesrc location=%s ! decodebin ! "
      "audioconvert ! audioresample ! audio/x-raw,rate=16000,channels=1 ! "
      "afetmfcc ! afetdelta ! afetcmvn ! afetenc format=npy ! filesink "
      "location=%s", wav, npy);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstMessage *msg;

  fail_unless (p != NULL, "%s", desc);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "%s", desc);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
}

/* templates as NumPy feature files (afetenc), read back by afetparse (HTK
 * files cannot say "mean over all columns", the default chain's) */
GST_START_TEST (test_feature_templates)
{
  gchar *dir = g_build_filename (work_dir, "npy", NULL);

  g_mkdir_with_parents (dir, 0755);
  for (guint i = 0; words[i]; i++) {
    for (gint k = 1; k <= 2; k++) {
      gchar *wav = g_strdup_printf ("%s/%s.%d.wav", template_dir, words[i], k);
      gchar *npy = g_strdup_printf ("%s/%s.%d.npy", dir, words[i], k);

      make_npy (wav, npy);
      g_free (npy);
      g_free (wav);
    }
  }
  recognise ("offline, NumPy feature-file templates",
      "afetmfcc ! afetdelta ! afetcmvn", dir, NULL, FALSE, NULL);
  g_free (dir);
}

GST_END_TEST;

static void
expect_error_props (const gchar * chain, const gchar * dir,
    const gchar * props, const gchar * want1, const gchar * want2)
{
  GPtrArray *runs = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_array_unref);
  GArray *silence = g_array_new (FALSE, TRUE, sizeof (gint16));
  Result r;

  g_array_set_size (silence, WAV_RATE);
  g_ptr_array_add (runs, silence);
  run_pipeline (chain, dir, props, runs, 0, &r);
  fail_unless (r.error != NULL, "no error with '%s' and %s", chain, dir);
  g_print ("error, as it should be: %s\n", r.error->message);
  fail_unless (strstr (r.error->message, want1) != NULL, "'%s' does not "
      "name '%s'", r.error->message, want1);
  fail_unless (!want2 || strstr (r.error->message, want2) != NULL,
      "'%s' does not name '%s'", r.error->message, want2);
  fail_unless_equals_int (r.words->len, 0);
  result_clear (&r);
  g_ptr_array_unref (runs);
}

static void
expect_error (const gchar * chain, const gchar * dir, const gchar * want1,
    const gchar * want2)
{
  expect_error_props (chain, dir, NULL, want1, want2);
}

GST_START_TEST (test_refuse_chain)
{
  /* no deltas: refused at negotiation, the field named */
  expect_error ("afetmfcc", template_dir, "delta-order", NULL);
  /* deltas, not normalised */
  expect_error ("afetmfcc ! afetdelta", template_dir, "normalization", NULL);
  /* a filter bank is not cepstra */
  expect_error ("afetmfcc num-ceps=0 ! afetdelta ! afetcmvn", template_dir,
      "kind", NULL);
  /* the templates through another chain than the input's */
  expect_error_props ("afetmfcc ! afetdelta ! afetcmvn", template_dir,
      "chain=\"afetmfcc num-ceps=20 ! afetdelta ! afetcmvn\"", "63 values",
      template_dir);
  expect_error_props ("afetmfcc ! afetdelta ! afetcmvn", template_dir,
      "chain=\"afetmfcc preemphasis=0.9 ! afetdelta ! afetcmvn\"",
      "preemphasis", NULL);
}

GST_END_TEST;

/* afetparse's NumPy stream (kind user, no deltas stated): refused by
 * afetdtw itself, which names the field */
GST_START_TEST (test_refuse_parsed)
{
  gchar *wav = g_build_filename (template_dir, "one.1.wav", NULL);
  gchar *npy = g_build_filename (work_dir, "refused.npy", NULL);
  gchar *desc = g_strdup_printf ("filesrc location=%s ! afetparse ! afetdtw "
      "templates=%s", npy, template_dir);
  GstElement *p;
  GstMessage *msg;
  GError *err = NULL;

  make_npy (wav, npy);
  p = gst_parse_launch (desc, NULL);
  fail_unless (p != NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &err, NULL);
  g_print ("error, as it should be: %s\n", err->message);
  fail_unless (g_str_has_prefix (GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
          "afetdtw"), "from %s", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)));
  fail_unless (strstr (err->message, "'kind' is user") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
  g_free (npy);
  g_free (wav);
}

GST_END_TEST;

GST_START_TEST (test_template_errors)
{
  gchar *empty = g_build_filename (work_dir, "empty", NULL);
  gchar *missing = g_build_filename (work_dir, "missing", NULL);
  gchar *bad = g_build_filename (work_dir, "bad", NULL);
  gchar *junk = g_build_filename (bad, "broken.wav", NULL);
  gchar *one = g_build_filename (bad, "one.wav", NULL);
  gchar *src = g_build_filename (template_dir, "one.1.wav", NULL);
  gchar *data;
  gsize len;

  g_mkdir_with_parents (empty, 0755);
  expect_error ("afetmfcc ! afetdelta ! afetcmvn", empty, empty,
      "no templates");
  expect_error ("afetmfcc ! afetdelta ! afetcmvn", missing, missing, NULL);

  g_mkdir_with_parents (bad, 0755);
  fail_unless (g_file_get_contents (src, &data, &len, NULL));
  fail_unless (g_file_set_contents (one, data, len, NULL));
  g_free (data);
  fail_unless (g_file_set_contents (junk, "this is not audio at all, just "
          "some text that no decoder takes for sound", -1, NULL));
  expect_error ("afetmfcc ! afetdelta ! afetcmvn", bad, "broken.wav", NULL);

  g_free (empty);
  g_free (missing);
  g_free (bad);
  g_free (junk);
  g_free (one);
  g_free (src);
}

GST_END_TEST;

static Suite *
afetdtw_suite (void)
{
  Suite *s = suite_create ("afetdtw");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_offline_stream);
  tcase_add_test (tc, test_live_stream);
  tcase_add_test (tc, test_discont_runs);
  tcase_add_test (tc, test_feature_templates);
  tcase_add_test (tc, test_refuse_chain);
  tcase_add_test (tc, test_refuse_parsed);
  tcase_add_test (tc, test_template_errors);
  return s;
}

static void
remove_tree (const gchar * path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  const gchar *name;

  while (d && (name = g_dir_read_name (d))) {
    gchar *p = g_build_filename (path, name, NULL);

    if (g_file_test (p, G_FILE_TEST_IS_DIR))
      remove_tree (p);
    else
      g_unlink (p);
    g_free (p);
  }
  if (d)
    g_dir_close (d);
  g_rmdir (path);
}

int
main (int argc, char **argv)
{
  gchar *espeak = g_find_program_in_path ("espeak-ng");
  gint64 t0 = g_get_monotonic_time ();
  GstPluginFeature *feature;
  SRunner *sr;
  gint failed;

  gst_check_init (&argc, &argv);
  if (!espeak) {
    g_print ("SKIP: espeak-ng not found (apt-get install espeak-ng)\n");
    return 77;
  }
  feature = gst_registry_lookup_feature (gst_registry_get (), "afetdtw");
  if (!feature) {
    g_print ("afetdtw not found: is examples/afetdtw built?\n");
    return 1;
  }
  gst_object_unref (feature);
  work_dir = g_dir_make_tmp ("afetdtw-XXXXXX", NULL);
  if (!work_dir || !make_corpus (espeak)) {
    g_print ("could not make the speech with %s\n", espeak);
    return 1;
  }
  g_print ("%u words x (%u template + %u test) speakers spoken in %.1f s\n",
      g_strv_length ((gchar **) words),
      (guint) G_N_ELEMENTS (template_speakers) - 1,
      (guint) G_N_ELEMENTS (test_speakers) - 1,
      (g_get_monotonic_time () - t0) / 1e6);

  sr = srunner_create (afetdtw_suite ());
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);

  if (!g_getenv ("AFETDTW_KEEP"))
    remove_tree (work_dir);
  else
    g_print ("kept %s\n", work_dir);
  g_free (work_dir);
  g_free (template_dir);
  g_free (espeak);
  return failed == 0 ? 0 : 1;
}
