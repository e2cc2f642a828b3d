/* afet-soak's clock: a GstSystemClock whose time runs `speed` times faster
 * than the monotonic clock, its waits evenly paced (soak-clock.h).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "soak-clock.h"

#include <math.h>

/* SoakClock: a GstSystemClock whose time runs `speed` times faster than the
 * monotonic clock.
 *
 * The rate itself comes from the calibration (gst_clock_set_calibration
 * with rate speed/1), which every GstClock applies in gst_clock_get_time().
 * That alone is not enough: GstSystemClock's wait sleeps for the *clock*
 * time left to the deadline as *real* time, so with a fast clock each wait
 * overshoots by the factor `speed`, and a live source then makes up for it
 * in bursts of about `speed` buffers pushed back to back. The wait below
 * sleeps for (time left) / speed of real time instead, so buffers come out
 * evenly paced at speed x their real-time rate. Each waiting thread sleeps
 * on its own (nanosleep, at most kMaxNap at a time, then it looks at the
 * entry's status again): thousands of live sources share the clock, and a
 * lock or condition variable shared by every wait (an earlier version)
 * made the benchmark's own clock the busiest lock of the process (kernel
 * futex spin locks: half of the CPU samples of a short 2500-stream run on
 * a 16-core H200 host).
 * unschedule() (the parent's) marks the entry; its sleeper returns within
 * kMaxNap. Asynchronous waits (gst_clock_id_wait_async) keep the parent's
 * implementation; nothing in these pipelines uses them. */

typedef struct
{
  GstSystemClock parent;
  gint rate_num, rate_denom;    /* clock time per real time */
} SoakClock;

typedef struct
{
  GstSystemClockClass parent_class;
} SoakClockClass;

static GType soak_clock_get_type (void);
G_DEFINE_TYPE (SoakClock, soak_clock, GST_TYPE_SYSTEM_CLOCK);

/* the longest single sleep of a wait, real us: how late an unscheduled
 * waiter may notice */
#define kMaxNap 10000

static GstClockReturn
soak_clock_wait (GstClock * clock, GstClockEntry * entry,
    GstClockTimeDiff * jitter)
{
  SoakClock *self = (SoakClock *) clock;
  const GstClockTime target = GST_CLOCK_ENTRY_TIME (entry);
  gboolean waited = FALSE;

  for (;;) {
    if (g_atomic_int_get ((gint *) & GST_CLOCK_ENTRY_STATUS (entry)) ==
        GST_CLOCK_UNSCHEDULED)
      return GST_CLOCK_UNSCHEDULED;
    GstClockTime now = gst_clock_get_time (clock);
    GstClockTimeDiff diff = GST_CLOCK_DIFF (now, target);
    if (!waited && jitter)
      *jitter = -diff;
    if (diff <= 0)
      return (waited || diff == 0) ? GST_CLOCK_OK : GST_CLOCK_EARLY;
    /* real microseconds until the clock reaches target, rounded up */
    gint64 real_us = (gint64) gst_util_uint64_scale_ceil ((guint64) diff,
        (guint64) self->rate_denom, (guint64) self->rate_num * 1000);
    g_usleep ((gulong) CLAMP (real_us, 1, kMaxNap));
    waited = TRUE;
  }
}

static void
soak_clock_class_init (SoakClockClass * klass)
{
  GST_CLOCK_CLASS (klass)->wait = soak_clock_wait;
}

static void
soak_clock_init (SoakClock * self)
{
  self->rate_num = self->rate_denom = 1;
}

/* A monotonic clock running speed x real time from now on. */
GstClock *
soak_clock_new (gdouble speed, gboolean plain)
{
  const gint num = (gint) llround (speed * 1000.0), denom = 1000;
  GstClock *clock;
  if (plain) {
    clock = g_object_new (GST_TYPE_SYSTEM_CLOCK, "name", "afet-soak-clock",
        "clock-type", GST_CLOCK_TYPE_MONOTONIC, NULL);
  } else {
    SoakClock *self = g_object_new (soak_clock_get_type (), "name",
        "afet-soak-clock", "clock-type", GST_CLOCK_TYPE_MONOTONIC, NULL);
    self->rate_num = num;
    self->rate_denom = denom;
    clock = GST_CLOCK (self);
  }
  gst_object_ref_sink (clock);
  GstClockTime now = gst_clock_get_internal_time (clock);
  gst_clock_set_calibration (clock, now, now, num, denom);
  return clock;
}
