/* Where a stream's frames are, for the kernels of the stages whose output
 * frame reads the frames around it: a block of one stream, or a lane of many.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Used by context.cl and cmvn.cl (kernels/embed.py pastes this file where
 * they #include it). Two layouts, read by the same arithmetic:
 *  - a block: rows first_row .. of one stream (ring 0);
 *  - a lane: many live streams in one buffer (engine/temporal/lanes.h), each in
 *    ring rows (a power of two) from row base; frame g at base + g mod ring.
 * total is the stream's frame count, or -1 while the end is not known.
 */

typedef struct
{
  long first_row;
  long total;
  uint base;
  uint ring;
} afet_view;

static afet_view
afet_block_view (long first_row, long total)
{
  afet_view v = { first_row, total, 0u, 0u };
  return v;
}

/* output row t of a lane launch: desc holds frame, total and lane base (3
 * longs) per output row */
static afet_view
afet_lane_view (__global const long *desc, uint t, uint ring, long *g)
{
  __global const long *d = desc + (size_t) t * 3u;
  afet_view v = { 0, d[1], (uint) d[2], ring };
  *g = d[0];
  return v;
}

static long
afet_clamp_frame (long g, long total)
{
  if (g < 0)
    g = 0;
  if (total >= 0 && g > total - 1)
    g = total - 1;
  return g;
}

/* the row of frame g (inside the stream) */
static size_t
afet_row_of (afet_view v, long g)
{
  if (v.ring)
    return (size_t) v.base + (size_t) (g & (long) (v.ring - 1u));
  return (size_t) (g - v.first_row);
}

/* column col of frame g, clamped to the stream (the edge frame repeats) */
static float
afet_in (__global const float *rows, uint row_stride, afet_view v, long g,
    uint col)
{
  return rows[afet_row_of (v, afet_clamp_frame (g, v.total)) * row_stride +
      col];
}
