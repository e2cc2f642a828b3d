/* Where a stage's device time goes: with AFET_PROFILE=1, every kernel launch,
 * upload and download is timed by its event and summed by name.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

/* With AFET_PROFILE=1 in the environment, queues made by
 * Device::create_queue have CL_QUEUE_PROFILING_ENABLE, and
 * profile_report () sums the events by name. A diagnostic for benchmarks
 * (afet-engine-bench prints it): it keeps every event until
 * profile_reset (), at most kProfileEvents of them. Copies and kernels
 * enqueued outside these helpers (VkFFT's, CLBlast's) are not named; the
 * report gives the span from the first start to the last end, of which
 * they are part of the rest. AFET_PROFILE=exit also prints the report to
 * stderr when the process exits (programs that do not print it, such as
 * afet-extract or gst-launch-1.0). */

#include <CL/cl.h>

#include <string>

namespace afet {

constexpr size_t kProfileEvents = 1 << 20;

/* AFET_PROFILE set and not "0" (read once) */
bool profiling ();
/* Times ev (retained here) under name, when profiling () */
void profile_note (const char *name, cl_event ev);
void profile_reset ();
/* Waits for the noted events; then a line a name: count, total
 * milliseconds, share of the span; and the span. */
std::string profile_report ();

}  /* namespace afet */
