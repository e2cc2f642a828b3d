/* Sums over a work-group's segments, shared by framing.cl and gframes.cl.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * kernels/embed.py pastes this file where they #include it.
 */

/* The sum of v over the aligned segment of seg work-items (a power of two
 * dividing AFET_LSZ) that this work-item is in, returned to each of them;
 * part holds AFET_LSZ floats of local memory. Every work-item of the group
 * must call it. */
static float
afet_segment_sum (__local float *part, float v, uint seg)
{
  const uint lid = get_local_id (0);
  const uint u = lid & (seg - 1);
  part[lid] = v;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (uint s = seg / 2; s > 0; s >>= 1) {
    if (u < s)
      part[lid] += part[lid + s];
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  float r = part[lid - u];
  barrier (CLK_LOCAL_MEM_FENCE);
  return r;
}

/* The sum of every work-item's v, returned to each. */
#define afet_group_sum(part, v) afet_segment_sum (part, v, AFET_LSZ)
