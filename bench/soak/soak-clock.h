/* afet-soak's clock, speed times real time (soak-clock.c says how).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

/* A monotonic clock running speed x real time from now on (plain: a
 * GstSystemClock whose waits sleep clock time as real time, for
 * comparison). */
GstClock *soak_clock_new (gdouble speed, gboolean plain);
