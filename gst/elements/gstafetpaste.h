/* The GObject type of afetpaste, which joins feature streams frame by frame.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_AFET_PASTE (gst_afet_paste_get_type ())
G_DECLARE_FINAL_TYPE (GstAfetPaste, gst_afet_paste, GST, AFET_PASTE,
    GstElement);
GST_ELEMENT_REGISTER_DECLARE (afetpaste);

G_END_DECLS
