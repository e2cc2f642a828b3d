/* The plugin's entry point: registers every afet element and sends the
 * engine's log messages to a debug category of ours.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetframer.h"
#include "gstafetmfcc.h"
#include "gstafetplp.h"
#include "gstafetdelta.h"
#include "gstafetsplice.h"
#include "gstafettraps.h"
#include "gstafetspectrogram.h"
#include "gstafetcmvn.h"
#include "gstafetenc.h"
#include "gstafetparse.h"
#include "gstafettransform.h"
#include "gstafetpitch.h"
#include "gstafetpaste.h"
#include "cache.h"

GST_DEBUG_CATEGORY_STATIC (afet_engine_debug);

/* the engine's messages (program and plan cache) in a category of ours */
static void
engine_log (int level, const char *msg)
{
  GST_CAT_LEVEL_LOG (afet_engine_debug, (GstDebugLevel) level, NULL, "%s",
      msg);
}

/* Registration only: no OpenCL here. The registry scanner and gst-check
 * fork, and an OpenCL runtime (PoCL) does not survive a fork. */
static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  GST_DEBUG_CATEGORY_INIT (afet_engine_debug, "afetengine", 0,
      "afet engine: program and plan caches");
  afet::set_log_handler (engine_log);

  ret |= GST_ELEMENT_REGISTER (afetframer, plugin);
  ret |= GST_ELEMENT_REGISTER (afetmfcc, plugin);
  ret |= GST_ELEMENT_REGISTER (afetplp, plugin);
  ret |= GST_ELEMENT_REGISTER (afettraps, plugin);
  ret |= GST_ELEMENT_REGISTER (afetspectrogram, plugin);
  ret |= GST_ELEMENT_REGISTER (afetdelta, plugin);
  ret |= GST_ELEMENT_REGISTER (afetsplice, plugin);
  ret |= GST_ELEMENT_REGISTER (afetcmvn, plugin);
  ret |= GST_ELEMENT_REGISTER (afetenc, plugin);
  ret |= GST_ELEMENT_REGISTER (afetparse, plugin);
  ret |= GST_ELEMENT_REGISTER (afettransform, plugin);
  ret |= GST_ELEMENT_REGISTER (afetpitch, plugin);
  ret |= GST_ELEMENT_REGISTER (afetpaste, plugin);
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, afet,
    "Speech features (MFCC, filter banks, ...) on OpenCL devices",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
