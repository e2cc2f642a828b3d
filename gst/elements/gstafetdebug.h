/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

/* A debug category made on first use, for code that runs before (or
 * without) plugin_init: the device memory and the shared context, which
 * applications may use through the GstContext alone. Defines
 * static GstDebugCategory *fn (void). */
#define GST_AFET_DEBUG_CATEGORY_LAZY(fn, name, description)               \
  static GstDebugCategory *                                               \
  fn (void)                                                               \
  {                                                                       \
    static gsize cat = 0;                                                 \
    if (g_once_init_enter (&cat)) {                                       \
      GstDebugCategory *c = nullptr;                                      \
      GST_DEBUG_CATEGORY_INIT (c, name, 0, description);                  \
      g_once_init_leave (&cat, (gsize) c);                                \
    }                                                                     \
    return (GstDebugCategory *) cat;                                      \
  }
