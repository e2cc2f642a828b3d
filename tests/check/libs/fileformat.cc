/* Tests of afetfile::to_big_endian (gst-libs/files/afetfileformat.h): HTK's
 * big-endian floats, four at a time where the host has SIMD, equal byte for
 * byte to each float's bytes reversed one by one.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every length from 0 to 41 (the vector loop and its scalar tail), input
 * and output at every misalignment of a 16-byte vector, and values whose
 * bytes all differ (so that a swap of the wrong pair shows), NaNs with
 * payloads, infinities, -0 and denormals (copied as bits, never as
 * floats). The bytes after the output stay untouched.
 */
#include "afetfileformat.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

int
main ()
{
  std::vector<uint32_t> bits;
  for (uint32_t k = 0; k < 41; k++)
    bits.push_back (0x01020304u * (k + 1) ^ (k << 27));
  const float specials[] = { std::numeric_limits<float>::quiet_NaN (),
    -std::numeric_limits<float>::infinity (), -0.0f,
    std::numeric_limits<float>::denorm_min (), 1.0f, -3.5e-38f };
  for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++)
    std::memcpy (&bits[3 * k], &specials[k], 4);
  bits[20] = 0x7fc12345u;       /* a NaN with a payload */

  bool all = true;
  for (size_t n = 0; n <= bits.size (); n++) {
    for (size_t in_off = 0; in_off < 16; in_off += 4) {
      for (size_t out_off = 0; out_off < 16; out_off++) {
        std::vector<uint8_t> in_bytes (16 + 4 * n), out (16 + 4 * n + 8, 0xa5);
        std::memcpy (in_bytes.data () + in_off, bits.data (), 4 * n);
        const float *in = (const float *) (in_bytes.data () + in_off);
        afetfile::to_big_endian (in, n, out.data () + out_off);
        bool ok = true;
        for (size_t i = 0; i < n; i++)
          for (int b = 0; b < 4; b++)
            ok = ok && out[out_off + 4 * i + b] ==
                (uint8_t) (bits[i] >> (24 - 8 * b));
        for (size_t j = 0; j < out_off; j++)
          ok = ok && out[j] == 0xa5;
        for (size_t j = out_off + 4 * n; j < out.size (); j++)
          ok = ok && out[j] == 0xa5;
        if (!ok) {
          std::printf ("n %zu, input at +%zu, output at +%zu: wrong bytes\n",
              n, in_off, out_off);
          all = false;
        }
      }
    }
  }
  std::printf ("%s: every length and alignment gives each float's bytes in "
      "reverse, and nothing beyond the output\n%d passed, %d failed, 0 "
      "skipped\n", all ? "PASS" : "FAIL", all ? 1 : 0, all ? 0 : 1);
  return all ? 0 : 1;
}
