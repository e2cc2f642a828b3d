/* Helpers shared by the element tests: pushing audio through a GstHarness in
 * chosen splits, collecting and checking the feature stream.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "afetfeatures.h"
#include "afetref.h"

G_BEGIN_DECLS

typedef enum
{
  AFETCHECK_S16,
  AFETCHECK_S32,
  AFETCHECK_F32,
  AFETCHECK_F64,
} AfetCheckFormat;

/* Output of an element, concatenated: n_frames x dims floats. */
typedef struct
{
  gfloat *data;
  gint n_frames;
  gint dims;
  AfetFeaturesInfo info;
  gint n_buffers;
} AfetCheckResult;

void afetcheck_set_audio_caps (GstHarness * h, AfetCheckFormat fmt,
    gint rate);

/* Pushes samples (16-bit scale, integral values) as buffers of the given
 * sample counts (sizes[i], cycling through; NULL = one buffer), with PTS from
 * t0 + the sample count and DISCONT on the first buffer when discont. */
GstFlowReturn afetcheck_push_samples (GstHarness * h, AfetCheckFormat fmt,
    gint rate, const gdouble * samples, gint n, const gint * sizes,
    gint n_sizes, GstClockTime t0, gboolean discont);

/* Pulls every buffer now queued at the harness sink and appends it; checks
 * on each buffer that offsets follow on, and that PTS and duration are the
 * ones computed from frame indices: t0 + frames x S / rate. */
void afetcheck_pull (GstHarness * h, AfetCheckResult * res, GstClockTime t0,
    guint64 first_offset);

void afetcheck_result_clear (AfetCheckResult * res);

/* Random split sizes in [lo, hi] (deterministic for a seed). */
gint *afetcheck_random_sizes (gint count, gint lo, gint hi, guint64 seed);

/* Location of the shared refdata (env AFET_REFDATA, else the source tree's
 * ../shared/refdata), or NULL; and of tests/data. */
const gchar *afetcheck_refdata_dir (void);
const gchar *afetcheck_testdata_dir (void);

/* Finds audio/NAME.wav and htk/KIND/NAME.htk, first in the shared refdata,
 * then (synthetic files only) in tests/data. Returns newly allocated paths
 * or FALSE if absent. */
gboolean afetcheck_find_pair (const gchar * kind, const gchar * name,
    gchar ** wav, gchar ** htk);

/* Output of an element split into runs at DISCONT: run r holds
 * run_frames[r] frames starting at data + run_start[r] * dims; every buffer
 * is checked to continue its run (offsets from 0, PTS from the run's first
 * PTS, never backwards). */
typedef struct
{
  gfloat *data;
  gint dims;
  gint n_frames;
  gint n_runs;
  gint run_start[16];
  gint run_frames[16];
  GstClockTime run_pts[16];
  gint n_discont;
} AfetCheckRuns;

void afetcheck_pull_runs (GstHarness * h, AfetCheckRuns * runs);
void afetcheck_runs_clear (AfetCheckRuns * runs);

/* Pops the messages on a bus: returns the first ERROR's text (newly
 * allocated, NULL if none) and counts errors and warnings; the first
 * warning's text too, when first_warning is given. */
gchar *afetcheck_pop_error (GstBus * bus, guint * n_errors,
    guint * n_warnings, gchar ** first_warning);

/* Asserts that the bus holds an ERROR whose text contains needle (the
 * first error counts), and empties the bus. */
void afetcheck_expect_error (GstBus * bus, const gchar * needle);

/* Runs a gst-launch line to EOS or ERROR (120 s at most): TRUE for EOS;
 * the first error's text into *error (NULL for EOS). */
gboolean afetcheck_run_launch (const gchar * launch, gchar ** error);

/* Pushes T frames of d floats from f, in buffers of sizes[k % n_sizes]
 * frames (all T in one when sizes is NULL), stamped at 100 frames a second
 * from t0, the first marked DISCONT; each push must return OK. */
void afetcheck_push_frames (GstHarness * h, const gfloat * f, gint T, gint d,
    const gint * sizes, gint n_sizes, GstClockTime t0);

/* Largest |a - b| relative to the largest |b| (1 when b is all zero). */
gdouble afetcheck_max_rel_diff (const gfloat * a, const gfloat * b, gsize n);

/* n samples of uniform noise in [-amp, amp], rounded to 16-bit integers
 * (afetref_make_noise, afetref_quantize_s16); g_free it. */
gdouble *afetcheck_int_noise (gint n, gdouble amp, guint64 seed);

/* Pushes x (16-bit scale, rate Hz, S16) through launch in a harness that is
 * not live (a recorded run), in buffers of sizes (NULL: one), to EOS; the
 * output into res. */
void afetcheck_run_samples (const gchar * launch, gint rate,
    const gdouble * x, gint n, const gint * sizes, gint n_sizes,
    AfetCheckResult * res);

/* Runs "head ! filesink location=TMP" to EOS (failing the test on an
 * error) and returns the file's bytes (*len of them); g_free them. */
gchar *afetcheck_run_to_bytes (const gchar * head, gsize * len);

/* Runs tests/data/kaldi-recipe/input/mfcc.ark (six Kaldi MFCC entries)
 * through "afetparse ! LAUNCH" in a harness, the file pushed in pieces of 1
 * to 20000 bytes (seed; 0: in one piece), to EOS: the output in runs (one
 * an entry); *caps (may be NULL) gets the output caps. */
void afetcheck_run_recipe_input (const gchar * launch, guint64 seed,
    AfetCheckRuns * runs, GstCaps ** caps);

G_END_DECLS
