/* The afetdtw element's type and its split and weighting enums.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifndef __GST_AFET_DTW_H__
#define __GST_AFET_DTW_H__

#include <gst/gst.h>
#include <gst/base/gstbasesink.h>

G_BEGIN_DECLS

#define GST_TYPE_AFET_DTW (gst_afet_dtw_get_type ())
G_DECLARE_FINAL_TYPE (GstAfetDtw, gst_afet_dtw, GST, AFET_DTW, GstBaseSink);
GST_ELEMENT_REGISTER_DECLARE (afetdtw);

/**
 * GstAfetDtwSplit:
 * @GST_AFET_DTW_SPLIT_ENERGY: words end at silence (the energy
 *   end-pointer), at a DISCONT, a GAP and at EOS
 * @GST_AFET_DTW_SPLIT_DISCONT: a run (up to a DISCONT, a GAP or EOS) is
 *   one word; only its silent edges are cut
 *
 * How the input is cut into words.
 */
typedef enum
{
  GST_AFET_DTW_SPLIT_ENERGY = 0,
  GST_AFET_DTW_SPLIT_DISCONT,
} GstAfetDtwSplit;

/**
 * GstAfetDtwWeighting:
 * @GST_AFET_DTW_WEIGHTING_NONE: plain Euclidean frame distance
 * @GST_AFET_DTW_WEIGHTING_VARIANCE: each column weighted by the inverse
 *   of its variance over the templates' frames
 *
 * How the columns count in the distance between two frames.
 */
typedef enum
{
  GST_AFET_DTW_WEIGHTING_NONE = 0,
  GST_AFET_DTW_WEIGHTING_VARIANCE,
} GstAfetDtwWeighting;

G_END_DECLS

#endif /* __GST_AFET_DTW_H__ */
