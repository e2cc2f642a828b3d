/* Fault injection for tests (fault.h): AFET_FAULT read once, and the calls at
 * each site counted.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fault.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace afet {

namespace {

constexpr int kSites = 3;
const char *const kSiteNames[kSites] = { "alloc", "build", "enqueue" };
const cl_int kSiteErrors[kSites] = { CL_MEM_OBJECT_ALLOCATION_FAILURE,
  CL_BUILD_PROGRAM_FAILURE, CL_OUT_OF_RESOURCES
};

struct Plan
{
  bool any = false;
  long long nth[kSites] = { 0, 0, 0 };     /* 0: never */
  bool onwards[kSites] = { false, false, false };
  std::atomic<long long> calls[kSites] = { {0}, {0}, {0} };
};

Plan &
plan ()
{
  static Plan p;
  static std::once_flag once;
  std::call_once (once, [] {
    const char *env = std::getenv ("AFET_FAULT");
    if (!env || !*env)
      return;
    std::string spec (env);
    size_t pos = 0;
    while (pos <= spec.size ()) {
      size_t end = spec.find (',', pos);
      if (end == std::string::npos)
        end = spec.size ();
      std::string item = spec.substr (pos, end - pos);
      const std::string raw = item;
      pos = end + 1;
      bool onwards = !item.empty () && item.back () == '+';
      if (onwards)
        item.pop_back ();
      long long n = 1;
      size_t colon = item.find (':');
      if (colon != std::string::npos) {
        n = std::atoll (item.c_str () + colon + 1);
        item.resize (colon);
      }
      bool known = false;
      for (int s = 0; s < kSites; s++)
        if (item == kSiteNames[s] && n >= 1) {
          p.nth[s] = n;
          p.onwards[s] = onwards;
          p.any = known = true;
        }
      /* a test aid: a mistyped spec must not pass quietly as no fault */
      if (!known)
        std::fprintf (stderr, "afet: AFET_FAULT: ignoring \"%s\" (expected "
            "SITE[:N][+], SITE alloc, build or enqueue, N >= 1)\n",
            raw.c_str ());
    }
  });
  return p;
}

}  /* namespace */

cl_int
injected_fault (FaultSite site)
{
  Plan &p = plan ();
  if (!p.any)
    return CL_SUCCESS;
  const int s = (int) site;
  if (p.nth[s] == 0)
    return CL_SUCCESS;
  long long k = p.calls[s].fetch_add (1, std::memory_order_relaxed) + 1;
  bool fail = p.onwards[s] ? k >= p.nth[s] : k == p.nth[s];
  return fail ? kSiteErrors[s] : CL_SUCCESS;
}

}  /* namespace afet */
