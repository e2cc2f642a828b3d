/* The C face of the HCopy configuration reader, for htkconfig.c.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The C face of the HCopy configuration reader for htkconfig.c: the
 * reader is C++ (afethtkconfig.h), the element tests are C.
 */
#include "afethtkconfig.h"

#include <glib.h>

extern "C" gchar *htkconfig_chain (const gchar * path, gchar ** error);

/* The feature chain a config file gives (gst-launch text), or NULL with
 * the reader's message in *error. */
gchar *
htkconfig_chain (const gchar * path, gchar ** error)
{
  afet::HtkConfig cfg;
  std::string chain;
  afet::Status st = afet::htk_config_read (path, &cfg);
  if (st.ok ())
    st = afet::htk_config_chain (cfg, &chain);
  if (!st.ok ()) {
    *error = g_strdup (st.message ().c_str ());
    return NULL;
  }
  return g_strdup (chain.c_str ());
}
