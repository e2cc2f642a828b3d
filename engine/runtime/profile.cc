/* Profiling of device time (profile.h): AFET_PROFILE read once, the events
 * noted by name and their report.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "profile.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace afet {

namespace {

std::mutex lock;
std::vector<std::pair<std::string, cl_event>> events;

}  /* namespace */

bool
profiling ()
{
  static const bool on = [] {
    const char *v = std::getenv ("AFET_PROFILE");
    if (v && std::strcmp (v, "exit") == 0)
      std::atexit ([] {
            std::fprintf (stderr, "afet profile:\n%s",
                profile_report ().c_str ());
          });
    return v && *v && std::strcmp (v, "0") != 0;
  }();
  return on;
}

void
profile_note (const char *name, cl_event ev)
{
  if (!profiling () || !ev)
    return;
  std::lock_guard<std::mutex> g (lock);
  if (events.size () >= kProfileEvents)
    return;
  clRetainEvent (ev);
  events.emplace_back (name, ev);
}

void
profile_reset ()
{
  std::lock_guard<std::mutex> g (lock);
  for (auto &e : events)
    clReleaseEvent (e.second);
  events.clear ();
}

std::string
profile_report ()
{
  std::lock_guard<std::mutex> g (lock);
  struct Sum
  {
    long count = 0;
    double ns = 0.0;
  };
  std::map<std::string, Sum> sums;
  cl_ulong first = ~(cl_ulong) 0, last = 0;
  for (auto &e : events) {
    clWaitForEvents (1, &e.second);
    cl_ulong start = 0, end = 0;
    if (clGetEventProfilingInfo (e.second, CL_PROFILING_COMMAND_START,
            sizeof start, &start, nullptr) != CL_SUCCESS ||
        clGetEventProfilingInfo (e.second, CL_PROFILING_COMMAND_END,
            sizeof end, &end, nullptr) != CL_SUCCESS)
      continue;
    Sum &s = sums[e.first];
    s.count++;
    s.ns += (double) (end - start);
    first = std::min (first, start);
    last = std::max (last, end);
  }
  const double span = last > first ? (double) (last - first) : 0.0;
  std::string out;
  char line[256];
  for (auto &s : sums) {
    std::snprintf (line, sizeof line, "  %-24s %7ld x %10.3f ms %5.1f %%\n",
        s.first.c_str (), s.second.count, s.second.ns / 1e6,
        span > 0 ? 100.0 * s.second.ns / span : 0.0);
    out += line;
  }
  std::snprintf (line, sizeof line, "  span (first start to last end) "
      "%.3f ms\n", span / 1e6);
  return out + line;
}

}  /* namespace afet */
