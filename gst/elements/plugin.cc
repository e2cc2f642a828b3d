/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetframer.h"
#include "gstafetmfcc.h"
#include "gstafetplp.h"

/* Registration only: no OpenCL here. The registry scanner and gst-check
 * fork, and an OpenCL runtime (PoCL) does not survive a fork. */
static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (afetframer, plugin);
  ret |= GST_ELEMENT_REGISTER (afetmfcc, plugin);
  ret |= GST_ELEMENT_REGISTER (afetplp, plugin);
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, afet,
    "Speech features (MFCC, filter banks, ...) on OpenCL devices",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
