/* GST_AFET_DEBUG_CATEGORY_LAZY: a debug category made on first use, for code
 * that runs before (or without) plugin_init.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

/* For the device memory and the shared device, which applications may use
 * through the GstContext alone. Defines static GstDebugCategory *fn (void). */
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

/* static GType fn (void): a GEnum type called Name with the given
 * GEnumValues, registered on first use. */
#define GST_AFET_DEFINE_ENUM(fn, Name, ...) \
static GType \
fn (void) \
{ \
  static gsize id = 0; \
  static const GEnumValue values[] = { __VA_ARGS__, {0, nullptr, nullptr} }; \
  if (g_once_init_enter (&id)) \
    g_once_init_leave (&id, g_enum_register_static (Name, values)); \
  return (GType) id; \
}
