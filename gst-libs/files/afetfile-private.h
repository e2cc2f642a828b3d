/* What the feature file writers and the reader share: byte order, message
 * formatting, the bytes a Kaldi key may hold.  Not installed.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

#include <cstdarg>
#include <cstdint>
#include <string>

namespace afetfile
{

inline uint32_t
get_u32 (const uint8_t * p, bool big)
{
  return big ? (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 |
      (uint32_t) p[2] << 8 | p[3]
      : (uint32_t) p[3] << 24 | (uint32_t) p[2] << 16 |
      (uint32_t) p[1] << 8 | p[0];
}

inline uint16_t
get_u16 (const uint8_t * p, bool big)
{
  return big ? (uint16_t) (p[0] << 8 | p[1]) : (uint16_t) (p[1] << 8 | p[0]);
}

inline void
put_u32_be (std::string * s, uint32_t v)
{
  s->push_back ((char) (v >> 24));
  s->push_back ((char) (v >> 16));
  s->push_back ((char) (v >> 8));
  s->push_back ((char) v);
}

inline void
put_u32_le (std::string * s, uint32_t v)
{
  s->push_back ((char) v);
  s->push_back ((char) (v >> 8));
  s->push_back ((char) (v >> 16));
  s->push_back ((char) (v >> 24));
}

inline std::string fmt (const char *f, ...) G_GNUC_PRINTF (1, 2);

inline std::string
fmt (const char *f, ...)
{
  va_list ap;
  va_start (ap, f);
  gchar *s = g_strdup_vprintf (f, ap);
  va_end (ap);
  std::string r (s);
  g_free (s);
  return r;
}

/* Kaldi keys are any bytes but white space and NUL (kaldiio and Kaldi
 * itself write UTF-8 utterance ids as they are) */
inline bool
is_key_char (uint8_t c)
{
  return c != 0 && c != ' ' && c != '\t' && c != '\n' && c != '\r' &&
      c != '\f' && c != '\v';
}

/* Text from a file for a message: control bytes (NUL above all, which
 * would end the message where it stands) as \xNN, everything else as it
 * is, at most @max bytes of it. */
inline std::string
shown (const std::string & s, size_t max = 64)
{
  std::string r;
  for (size_t i = 0; i < s.size () && i < max; i++) {
    const unsigned char c = (unsigned char) s[i];
    if (c < 0x20 || c == 0x7f)
      r += fmt ("\\x%02x", c);
    else
      r.push_back ((char) c);
  }
  if (s.size () > max)
    r += "...";
  return r;
}

}  /* namespace afetfile */
