/* Fault injection, for tests: the environment variable AFET_FAULT makes
 * chosen OpenCL calls of this process fail as a driver would.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <CL/cl.h>

/* AFET_FAULT's value is a comma-separated list of SITE[:N][+]: the N-th
 * call at SITE (1 when N is left out) fails, and with '+' every later one
 * too. Sites:
 *   alloc    buffer allocations (CL_MEM_OBJECT_ALLOCATION_FAILURE)
 *   build    program builds, from source or cached binaries
 *            (CL_BUILD_PROGRAM_FAILURE)
 *   enqueue  kernel launches and host transfers (CL_OUT_OF_RESOURCES)
 * Unset, it costs one relaxed atomic load a call. */

namespace afet {

enum class FaultSite
{
  ALLOC = 0,
  BUILD,
  ENQUEUE,
};

/* The error this call must report, or CL_SUCCESS to go on. */
cl_int injected_fault (FaultSite site);

}  /* namespace afet */
