/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Helpers shared by the element tests: pushing audio through a GstHarness in
 * chosen splits, collecting and checking the feature stream.
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

G_END_DECLS
