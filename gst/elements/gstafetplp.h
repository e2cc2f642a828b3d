/* The afetplp element's type.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstafetspectral.h"

G_BEGIN_DECLS

#define GST_TYPE_AFET_PLP (gst_afet_plp_get_type ())
G_DECLARE_FINAL_TYPE (GstAfetPlp, gst_afet_plp, GST, AFET_PLP,
    GstAfetSpectral);
GST_ELEMENT_REGISTER_DECLARE (afetplp);

G_END_DECLS
