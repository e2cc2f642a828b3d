/* libFuzzer target of afetfile::Reader, the feature file reader behind
 * afetparse.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* libFuzzer target for afetfile::Reader, the incremental feature file
 * reader behind afetparse (gst-libs/files/afetfileformat.h).
 *
 * Input: two control bytes, then the file.
 *
 *   byte 0, bits 0-2: the forced format (0 auto, 1 htk, 2 npy, 3 kaldi,
 *                     4 kaldi-text, 5 raw; 6 and 7 auto)
 *           bit 3:    the file size is known (total_bytes), as from filesrc
 *           bits 4-5: the pieces: 0 the whole file at once, 1 one byte at
 *                     a time, 2 pieces of (byte 1 & 63) + 1 bytes, 3
 *                     pseudo-random pieces of 1 to 64 bytes seeded by
 *                     byte 1
 *           bit 6:    the frames callback refuses its third call (as when
 *                     downstream stops)
 *           bit 7:    the entry callback refuses the second entry
 *   byte 1:           format=raw's values per frame ((byte 1 & 31) + 1),
 *                     and the piece size or seed
 *
 * The file goes in as afetparse hands it over: every piece appended to
 * what the reader left unconsumed, fed again with eos=false, then the rest
 * with eos=true.  Besides crashes, leaks and undefined behaviour, the
 * target checks the reader's contract and abort()s when it is broken:
 *
 *  - feed() consumes at most what it was given, or fails with a reason;
 *    after eos it succeeds only when the file ended at a boundary
 *    (complete()) and every byte was consumed;
 *  - offset() is the number of bytes consumed;
 *  - frames come only inside an entry, at least one at a time; an entry
 *    with a row count gets no more rows than that, and exactly that many
 *    before the next entry starts or the file ends well;
 *  - an entry has a format other than auto and at least one value per
 *    frame; a forced format is the format of every entry;
 *  - an HTK entry whose kind gives a frame layout (info_from_htk_kind())
 *    gives a consistent one, and htk_kind_for() writes that layout back
 *    as the same kind and period (the base kinds HTK's USER stands for
 *    aside); a frame shift htk_period_samples() finds at a common rate is
 *    within 100 ns of the period and comes back from the period written
 *    for it;
 *  - a Kaldi entry's key is non-empty with no white space or NUL
 *    (kaldi_key_ok()).
 *
 * It also checks two promises of afetfileformat.h that the first version of
 * the reader broke (both fixed, with tests in afetfile.c); AFET_FUZZ_STRICT=0
 * in the environment turns these two off:
 *
 *  - "feed() it the bytes of a file in any pieces": the same file at once
 *    gives the same outcome and, when it ends well, the same entries and
 *    values (a raw file that arrives in one piece is refused; a Kaldi key
 *    cut before its end can be taken for an HTK header);
 *  - "Every error names the byte offset in the file where it was found"
 *    (not those of a size that disagrees with a header, of a first header
 *    cut short, or of a file that is none of the formats).
 *
 * Build and run: tools/fuzz.sh (see tests/fuzz/meson.build).
 */

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "afetfileformat.h"

/* longest input tried: tools/fuzz.sh fuzzes with -max_len=16384, the
 * seeds replay (meson test --suite fuzz) with -max_len=65536 */
#define FUZZ_MAX_LEN 65536

#define CHECK(cond)                                                     \
  do {                                                                  \
    if (!(cond)) {                                                      \
      fprintf (stderr, "fuzz_parse: %s:%d: check failed: %s\n",         \
          __FILE__, __LINE__, #cond);                                   \
      abort ();                                                         \
    }                                                                   \
  } while (0)

namespace
{

bool strict = true;             /* AFET_FUZZ_STRICT=0 turns it off */

/* an error of the reader's own (not a callback's refusal) must name the
 * byte offset, in strict mode */
void
check_reason (const std::string & why)
{
  CHECK (!why.empty ());
  if (!strict || why == "refused by the fuzz target" ||
      why == "the frames could not be passed on")
    return;
  if (why.find ("byte offset") == std::string::npos) {
    fprintf (stderr, "fuzz_parse: no byte offset in \"%s\"\n", why.c_str ());
    abort ();
  }
}

struct State
{
  afetfile::Format forced;
  bool refuse_frames, refuse_entry;
  int n_entries = 0;
  int frames_calls = 0;
  bool in_entry = false;
  afetfile::Entry entry;
  int64_t rows_seen = 0;
  uint32_t sink = 0;            /* every value read, so ASan sees them */
  std::string trace;            /* the entries and values, for strict mode */
};

/* The HTK kind afetenc writes for a layout read from @kind: the same,
 * with the base kinds that afet has no name for written as USER. */
uint16_t
expected_htk_kind (uint16_t kind)
{
  const unsigned base = kind & 0x3f;
  const uint16_t quals = kind & ~0x3f;
  if (base == afetfile::kHtkMfcc || base == afetfile::kHtkFbank ||
      base == afetfile::kHtkPlp)
    return kind;
  return quals | afetfile::kHtkUser;
}

void
check_htk_layout (const afetfile::Entry & e)
{
  AfetFeaturesInfo info;
  afet_features_info_init (&info);
  std::string why;
  if (!afetfile::info_from_htk_kind (e.htk_kind, e.dims, &info, &why)) {
    CHECK (!why.empty ());
    return;
  }
  CHECK (info.dims == e.dims);
  CHECK (info.statics >= 1);
  CHECK (info.delta_order >= 0 && info.delta_order <= 3);
  CHECK (info.statics * (info.delta_order + 1) == info.dims);
  CHECK (info.energy_index < info.statics);
  CHECK (info.c0_index < info.statics);
  CHECK (info.c0_index < 0 || info.c0_index != info.energy_index);
  CHECK (afetfile::htk_kind_name (e.htk_kind).size () > 0);

  /* and back: a frame shift of period samples at 10 MHz is the period */
  info.rate = 10000000;
  info.frame_shift = e.htk_period;
  info.frame_length = e.htk_period;
  uint16_t kind = 0;
  int32_t period = 0;
  why.clear ();
  const bool ok = afetfile::htk_kind_for (info, &kind, &period, &why);
  if (!ok)
    fprintf (stderr, "fuzz_parse: %s (%d values) cannot be written back: "
        "%s\n", afetfile::htk_kind_name (e.htk_kind).c_str (), e.dims,
        why.c_str ());
  CHECK (ok);
  CHECK (kind == expected_htk_kind (e.htk_kind));
  CHECK (period == e.htk_period);

  /* the period in samples at the common rates (afetparse rate=): a shift
   * it gives is within one 100 ns unit of the period, and written back
   * (rounded, as afetenc writes it) it gives the same shift again */
  static const int rates[] = { 8000, 11025, 16000, 22050, 44100, 48000 };
  for (int rate : rates) {
    int shift = 0;
    if (!afetfile::htk_period_samples (e.htk_period, rate, &shift))
      continue;
    CHECK (shift >= 1);
    CHECK (std::fabs ((double) shift * 1e7 / rate - e.htk_period) < 1.0);
    info.rate = rate;
    info.frame_shift = shift;
    info.frame_length = shift;
    why.clear ();
    CHECK (afetfile::htk_kind_for (info, &kind, &period, &why));
    CHECK (period >= e.htk_period - 1 && period <= e.htk_period + 1);
    int again = 0;
    CHECK (afetfile::htk_period_samples (period, rate, &again));
    CHECK (again == shift);
  }
}

bool
on_entry (State * s, const afetfile::Entry & e, std::string * why)
{
  /* the entry before was complete */
  if (s->in_entry && s->entry.rows >= 0)
    CHECK (s->rows_seen == s->entry.rows);
  CHECK (e.format != afetfile::Format::Auto);
  CHECK (s->forced == afetfile::Format::Auto || e.format == s->forced);
  CHECK (e.dims >= 1);
  CHECK (e.rows >= -1);
  if (e.format == afetfile::Format::Kaldi ||
      e.format == afetfile::Format::KaldiText)
    CHECK (afetfile::kaldi_key_ok (e.key));
  if (e.format == afetfile::Format::Htk) {
    CHECK (e.htk_period > 0);
    check_htk_layout (e);
  }
  char line[160];
  snprintf (line, sizeof line, "entry %d rows %lld dims %d kind %u "
      "period %d %s key ", (int) e.format, (long long) e.rows, e.dims,
      e.htk_kind, e.htk_period, e.htk_little_endian ? "le" : "be");
  s->trace += line + e.key + "\n";
  s->n_entries++;
  s->in_entry = true;
  s->entry = e;
  s->rows_seen = 0;
  if (s->refuse_entry && s->n_entries == 2) {
    *why = "refused by the fuzz target";
    return false;
  }
  return true;
}

bool
on_frames (State * s, const float *f, size_t n)
{
  CHECK (s->in_entry);
  CHECK (n >= 1);
  CHECK (f != nullptr);
  const size_t vals = n * (size_t) s->entry.dims;
  for (size_t i = 0; i < vals; i++) {
    uint32_t u;
    memcpy (&u, &f[i], 4);
    s->sink += u;
  }
  s->trace.append ((const char *) f, vals * sizeof (float));
  s->rows_seen += (int64_t) n;
  if (s->entry.rows >= 0)
    CHECK (s->rows_seen <= s->entry.rows);
  s->frames_calls++;
  return !(s->refuse_frames && s->frames_calls == 3);
}

/* Reads the file in the given pieces; true when it ended well. */
bool
read_file (const uint8_t * data, size_t size, uint8_t c0, uint8_t c1,
    int pieces, State & s)
{
  static const afetfile::Format formats[] = {
    afetfile::Format::Auto, afetfile::Format::Htk, afetfile::Format::Npy,
    afetfile::Format::Kaldi, afetfile::Format::KaldiText,
    afetfile::Format::Raw, afetfile::Format::Auto, afetfile::Format::Auto
  };
  afetfile::Reader::Options opt;
  opt.format = formats[c0 & 7];
  opt.raw_dims = (c1 & 31) + 1;
  opt.total_bytes = (c0 & 8) ? (int64_t) size : -1;

  s.forced = opt.format;
  s.refuse_frames = c0 & 0x40;
  s.refuse_entry = c0 & 0x80;
  afetfile::Reader reader (opt);
  const afetfile::Reader::EntryFunc entry_cb =
      [&s] (const afetfile::Entry & e, std::string * why) {
        return on_entry (&s, e, why);
      };
  const afetfile::Reader::FramesFunc frames_cb =
      [&s] (const float *f, size_t n) {
        return on_frames (&s, f, n);
      };

  /* what the reader left, plus the next piece: a copy of its own, so that
   * ASan sees any read past what was handed over */
  std::vector<uint8_t> pending;
  uint64_t consumed = 0;
  size_t pos = 0;
  uint64_t x = c1 * 0x9E3779B97F4A7C15ull + 1;
  bool failed = false;
  while (pos < size && !failed) {
    size_t n;
    switch (pieces) {
      case 0:
        n = size;
        break;
      case 1:
        n = 1;
        break;
      case 2:
        n = (c1 & 63) + 1;
        break;
      default:
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        n = 1 + x % 64;
        break;
    }
    n = n < size - pos ? n : size - pos;
    pending.insert (pending.end (), data + pos, data + pos + n);
    pos += n;
    std::vector<uint8_t> piece (pending);
    std::string why;
    const size_t used = reader.feed (piece.data (), piece.size (), false,
        entry_cb, frames_cb, &why);
    if (used == (size_t) - 1) {
      check_reason (why);
      failed = true;
      break;
    }
    CHECK (used <= piece.size ());
    pending.erase (pending.begin (), pending.begin () + used);
    consumed += used;
    CHECK (reader.offset () == consumed);
  }
  if (failed)
    return false;
  std::vector<uint8_t> piece (pending);
  std::string why;
  const size_t used = reader.feed (piece.empty ()? nullptr : piece.data (),
      piece.size (), true, entry_cb, frames_cb, &why);
  if (used == (size_t) - 1) {
    check_reason (why);
    return false;
  }
  /* a good end: all of it read, at a boundary, every entry whole */
  CHECK (used == piece.size ());
  CHECK (reader.complete ());
  CHECK (reader.offset () == consumed + used);
  CHECK (reader.offset () == size);
  if (s.in_entry && s.entry.rows >= 0)
    CHECK (s.rows_seen == s.entry.rows);
  CHECK (!(s.refuse_frames && s.frames_calls >= 3));
  CHECK (!(s.refuse_entry && s.n_entries >= 2));
  return true;
}

}  /* namespace */

extern "C" int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  const char *env = getenv ("AFET_FUZZ_STRICT");
  strict = !(env && strcmp (env, "0") == 0);
  return 0;
}

extern "C" int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  if (size < 2 || size > FUZZ_MAX_LEN)
    return 0;
  const uint8_t c0 = data[0], c1 = data[1];
  const int pieces = (c0 >> 4) & 3;
  State s;
  const bool ok = read_file (data + 2, size - 2, c0, c1, pieces, s);

  /* the same file at once: the same outcome (callbacks that refuse
   * depend on how often they are called, so not with those) */
  if (strict && pieces != 0 && !(c0 & 0xc0)) {
    State whole;
    const bool whole_ok = read_file (data + 2, size - 2, c0, c1, 0, whole);
    if (ok != whole_ok || (ok && s.trace != whole.trace)) {
      fprintf (stderr, "fuzz_parse: in pieces (mode %d) the file %s, at "
          "once it %s%s\n", pieces, ok ? "ends well" : "fails",
          whole_ok ? "ends well" : "fails", ok == whole_ok ?
          ", with other entries or values" : "");
      abort ();
    }
  }
  /* keep the values alive */
  if (s.sink == 0xdeadbeef)
    fprintf (stderr, "%s", "");
  return 0;
}
