/* The GObject type of afetparse, the feature file reader element.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_AFET_PARSE (gst_afet_parse_get_type ())
G_DECLARE_FINAL_TYPE (GstAfetParse, gst_afet_parse, GST, AFET_PARSE,
    GstElement);
GST_ELEMENT_REGISTER_DECLARE (afetparse);

G_END_DECLS
