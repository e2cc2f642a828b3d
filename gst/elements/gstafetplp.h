/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstafetbase.h"

G_BEGIN_DECLS

#define GST_TYPE_AFET_PLP (gst_afet_plp_get_type ())
G_DECLARE_FINAL_TYPE (GstAfetPlp, gst_afet_plp, GST, AFET_PLP, GstAfetBase);
GST_ELEMENT_REGISTER_DECLARE (afetplp);

#define GST_TYPE_AFET_FILTER_SHAPE (gst_afet_filter_shape_get_type ())
GType gst_afet_filter_shape_get_type (void);

typedef enum
{
  GST_AFET_FILTER_SHAPE_HTK_MEL = 0,
  GST_AFET_FILTER_SHAPE_BARK,
} GstAfetFilterShape;

G_END_DECLS
