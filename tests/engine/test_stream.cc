/* Tests of the engine's streaming state without GStreamer: FrameStream
 * (framing across buffers of any size, batches, pad, rows split inside a
 * float) and RowHistory (rows kept on the device for context elements: the
 * block each batch reads, dropping, growing, restarting a run).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "enginecheck.h"
#include "params.h"
#include "stream.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using enginecheck::check;

/* The first sample of held frame t (16-bit samples hold the index modulo
 * 2^15). */
static long long
sample_at (const afet::FrameStream &fs, long long t)
{
  if (fs.shape ().unit == 2)
    return *(const int16_t *) fs.at (t);
  return (long long) *(const float *) fs.at (t);
}

/* Feeds n samples (sample i has the value i) in random splits (whole: in
 * one buffer, as afet-extract pushes a WAV file, so that many batches are
 * taken from one append); takes batches as the base class does; returns
 * the first sample of every frame computed, and checks the batch sizes. */
static std::vector<long long>
frame_starts (const afet::FrameStream::Shape &shape, long long n,
    unsigned seed, bool live, bool *batches_ok, bool whole = false)
{
  afet::FrameStream fs;
  fs.configure (shape);
  std::mt19937 rng (seed);
  std::vector<long long> starts;
  *batches_ok = true;
  auto take = [&](bool any) {
    for (int b; (b = fs.next_batch (any)) > 0;) {
      if (b > shape.max_batch || (!any && b != shape.max_batch))
        *batches_ok = false;
      for (int t = 0; t < b; t++)
        starts.push_back (sample_at (fs, t));
      fs.consume (b);
    }
  };
  for (long long done = 0; done < n;) {
    long long len = whole ? n : std::min<long long> (n - done,
        1 + rng () % 700);
    void *dst = fs.append_samples ((size_t) len);
    for (long long i = 0; i < len; i++)
      if (shape.unit == 2)
        ((int16_t *) dst)[i] = (int16_t) ((done + i) & 0x7fff);
      else
        ((float *) dst)[i] = (float) (done + i);
    done += len;
    take (live);
  }
  take (true);
  if (fs.finish ()) {
    starts.push_back (sample_at (fs, 0));
    fs.consume (1);
  }
  return starts;
}

static void
test_frame_stream ()
{
  afet::FrameStream::Shape sh;
  sh.W = 400;
  sh.S = 160;
  sh.max_batch = 16;
  for (int unit : {4, 2})
  for (long long n : {0LL, 399LL, 400LL, 401LL, 560LL, 10000LL, 54321LL})
  for (bool whole : {false, true}) {
    for (bool live : {false, true}) {
      bool ok;
      sh.unit = unit;
      std::vector<long long> got = frame_starts (sh, n, (unsigned) n, live,
          &ok, whole);
      long long want = afet::num_frames (n, sh.W, sh.S);
      bool order = (long long) got.size () == want;
      for (long long t = 0; order && t < want; t++)
        order = got[(size_t) t] == (unit == 2 ? (t * sh.S) & 0x7fff :
            t * sh.S);
      check (order && ok, "FrameStream: " + std::to_string (n) + " " +
          (unit == 2 ? "16-bit" : "float") + " samples" + (whole ?
              " in one buffer" : "") + ", " + (live ? "live" : "batched") +
          ": " + std::to_string (got.size ()) + " frames in "
          "order, batches of max-batch until the end");
    }
  }
  sh.unit = 4;
  /* frame-shift longer than the frame: the samples between frames are
   * skipped even when they arrive after the frame was computed */
  for (bool whole : {false, true})
  for (bool live : {false, true}) {
    afet::FrameStream::Shape gap = sh;
    gap.W = 160;
    gap.S = 400;
    bool ok;
    long long n = 54321;
    std::vector<long long> got = frame_starts (gap, n, 5, live, &ok, whole);
    long long want = afet::num_frames (n, gap.W, gap.S);
    bool order = (long long) got.size () == want;
    for (long long t = 0; order && t < want; t++)
      order = got[(size_t) t] == t * gap.S;
    check (order && ok, std::string ("FrameStream: frame-shift > "
            "frame-length, ") + (whole ? "one buffer, " : "") + (live ? "live" : "batched") + ": " +
        std::to_string (got.size ()) + " frames (want " +
        std::to_string (want) + ") in order");
  }
  /* pad: the samples no frame covered make one more zero-filled frame */
  sh.pad = true;
  struct
  {
    long long n, frames;
  } pads[] = { {0, 0}, {100, 1}, {400, 1}, {401, 2}, {560, 2}, {561, 3} };
  for (auto c : pads) {
    bool ok;
    std::vector<long long> got = frame_starts (sh, c.n, 7, false, &ok);
    check ((long long) got.size () == c.frames, "FrameStream pad: " +
        std::to_string (c.n) + " samples give " + std::to_string (c.frames) +
        " frames (got " + std::to_string (got.size ()) + ")");
  }

  /* rows split anywhere, even inside a float */
  afet::FrameStream rows;
  afet::FrameStream::Shape rs;
  rs.audio = false;
  rs.row = 3;
  rs.max_batch = 4;
  rows.configure (rs);
  std::vector<float> src (3 * 11);
  for (size_t i = 0; i < src.size (); i++)
    src[i] = (float) i;
  const uint8_t *bytes = (const uint8_t *) src.data ();
  size_t total = src.size () * sizeof (float), done = 0, fresh_total = 0;
  std::vector<float> out;
  for (size_t cut : {5u, 1u, 13u, 2u, 40u, 7u, 64u}) {
    size_t len = std::min (cut, total - done);
    float *fresh;
    size_t nf;
    rows.append_row_bytes (bytes + done, len, &fresh, &nf);
    fresh_total += nf;
    done += len;
    for (int b; (b = rows.next_batch (false)) > 0;) {
      const float *r = (const float *) rows.at (0);
      out.insert (out.end (), r, r + b * 3);
      rows.consume (b);
    }
  }
  for (int b; (b = rows.next_batch (true)) > 0;) {
    const float *r = (const float *) rows.at (0);
    out.insert (out.end (), r, r + b * 3);
    rows.consume (b);
  }
  check (done == total && out == src && fresh_total == src.size () &&
      rows.empty (), "FrameStream rows: 11 rows split inside floats come "
      "out whole and in order");
  float *fresh;
  size_t nf;
  rows.append_row_bytes (bytes, 5, &fresh, &nf);
  check (!rows.empty () && nf == 0, "FrameStream rows: a partial row is "
      "held");
  rows.reset ();
  check (rows.empty () && rows.consumed () == 0, "FrameStream: reset drops "
      "partial rows and the count");
}

/* Rows of value (index, column) through a history; every batch's block
 * must hold each output frame's context, clamped to the run. */
static bool
run_history (afet::Device &device, cl_command_queue q, int back, int ahead,
    int start_need, long long n, int max_batch, unsigned seed,
    std::string *why)
{
  afet::RowHistory::Extent ext;
  ext.back = back;
  ext.ahead = ahead;
  ext.start_need = start_need;
  ext.row_dims = 2;
  afet::RowHistory h;
  afet::Status st = h.init (device.context (), q, ext, max_batch);
  if (!st.ok ()) {
    *why = st.message ();
    return false;
  }
  std::mt19937 rng (seed);
  unsigned long long out = 0;
  auto emit = [&](bool drain) -> bool {
    for (long long k; (k = std::min<long long> (h.ready (out, drain),
                max_batch)) > 0;) {
      afet::ContextBlock b = h.block (drain);
      long long lo = std::max (0LL, (long long) out - back);
      long long hi = (long long) out + k - 1 + ahead;
      if (drain)
        hi = std::min (hi, b.total - 1);
      if (b.first_row > lo) {
        *why = "block starts after a needed row";
        return false;
      }
      std::vector<float> rows ((size_t) (hi - b.first_row + 1) * 2);
      if (!afet::download (q, b.rows, 0, rows.size () * sizeof (float),
              rows.data (), nullptr).ok ())
        return false;
      for (long long r = lo; r <= hi; r++)
        if (rows[(size_t) (r - b.first_row) * 2] != (float) r ||
            rows[(size_t) (r - b.first_row) * 2 + 1] != (float) -r) {
          *why = "row " + std::to_string (r) + " wrong in the block";
          return false;
        }
      out += (unsigned long long) k;
      if (!h.drop_done (out).ok ())
        return false;
    }
    return true;
  };
  for (long long done = 0; done < n;) {
    long long m = std::min<long long> (n - done, 1 + rng () % 50);
    std::vector<float> rows ((size_t) m * 2);
    for (long long i = 0; i < m; i++) {
      rows[(size_t) i * 2] = (float) (done + i);
      rows[(size_t) i * 2 + 1] = (float) -(done + i);
    }
    for (long long put = 0; put < m;) {
      if (!h.fits (1) && !emit (false))
        return false;
      if (!h.fits (1) && !h.grow (1).ok ())
        return false;
      long long take = std::min (m - put, h.space ());
      if (!h.append_host (rows.data () + put * 2, take, nullptr).ok ())
        return false;
      put += take;
    }
    done += m;
    if (!emit (false))
      return false;
  }
  if (!emit (true))
    return false;
  if ((long long) out != n) {
    *why = std::to_string (out) + " frames out of " + std::to_string (n);
    return false;
  }
  return true;
}

static void
test_row_history (afet::Device &device)
{
  afet::ClQueue q;
  if (!device.create_queue (&q).ok ()) {
    check (false, "RowHistory: a queue");
    return;
  }
  struct
  {
    int back, ahead, start_need;
    long long n;
    int max_batch;
    const char *what;
  } cases[] = {
    {2, 2, 0, 500, 16, "deltas (2 back, 2 ahead)"},
    {4, 4, 0, 1000, 7, "deltas + accelerations, odd batch"},
    {15, 15, 0, 300, 8, "TRAPS (15 either side)"},
    {299, 300, 100, 2000, 64, "sliding CMVN (600 frames, min 100)"},
    {0, 0, -1, 3000, 16, "whole-run statistics (the history grows)"},
    {3, 3, 0, 2, 16, "a run shorter than the context"},
  };
  for (auto c : cases) {
    std::string why;
    bool ok = run_history (device, q.get (), c.back, c.ahead, c.start_need,
        c.n, c.max_batch, (unsigned) c.n, &why);
    check (ok, std::string ("RowHistory: ") + c.what + (ok ? "" : ": " +
            why));
  }
}

/* Frames over a run's edges (Kaldi's mirror, lhotse's, Whisper's
 * reflection), fed in random splits, against frames cut directly from the
 * run with the samples outside it folded back in, as the tools describe
 * it: every sample of every frame, and the frame count. */
static void
test_frame_stream_edges ()
{
  const struct
  {
    afet::Edges edges;
    const char *name;
  } modes[] = {
    {afet::Edges::MIRROR, "mirror"},
    {afet::Edges::MIRROR_LHOTSE, "mirror (lhotse)"},
    {afet::Edges::REFLECT, "reflect"},
  };
  for (auto m : modes)
  for (int W : {400, 401, 200, 1102})
  for (long long n : {1LL, 50LL, 121LL, 250LL, 399LL, 400LL, 401LL, 1000LL,
          12345LL})
  for (bool whole : {false, true}) {
    const int S = W == 200 ? 80 : W == 1102 ? 441 : 160;
    if (m.edges == afet::Edges::REFLECT && n < 2)
      continue;
    int lead = m.edges == afet::Edges::REFLECT ? W / 2 :
        m.edges == afet::Edges::MIRROR ? W / 2 - S / 2 : (W - S) / 2;
    long long want = m.edges == afet::Edges::REFLECT ? n / S :
        (n + S / 2) / S;
    auto fold = [&](long long j) {
      while (j < 0 || j >= n) {
        if (m.edges == afet::Edges::REFLECT)
          j = j < 0 ? -j : 2 * n - 2 - j;
        else
          j = j < 0 ? -j - 1 : 2 * n - 1 - j;
      }
      return j;
    };
    afet::FrameStream::Shape sh;
    sh.W = W;
    sh.S = S;
    sh.max_batch = 7;
    sh.edges = m.edges;
    afet::FrameStream fs;
    fs.configure (sh);
    std::mt19937 rng ((unsigned) (n * 31 + W));
    long long got = 0;
    bool same = true;
    auto take = [&]() {
      for (int b; (b = fs.next_batch (true)) > 0;) {
        for (int t = 0; t < b; t++)
          for (int i = 0; i < W; i++) {
            float v = ((const float *) fs.at (t))[i];
            if (v != (float) fold ((got + t) * S - lead + i))
              same = false;
          }
        got += b;
        fs.consume (b);
      }
    };
    for (long long done = 0; done < n;) {
      long long len = whole ? n : std::min<long long> (n - done,
          1 + rng () % 300);
      float *dst = (float *) fs.append_samples ((size_t) len);
      for (long long i = 0; i < len; i++)
        dst[i] = (float) (done + i);
      done += len;
      take ();
    }
    fs.finish ();
    take ();
    check (got == want && same, std::string ("FrameStream ") + m.name +
        ", W " + std::to_string (W) + ", " + std::to_string (n) +
        " samples" + (whole ? " in one buffer" : "") + ": " + std::to_string (got) + " frames (want " +
        std::to_string (want) + ")" + (same ? "" : ", samples differ"));
  }
}

int
main ()
{
  test_frame_stream ();
  test_frame_stream_edges ();
  std::shared_ptr<afet::Device> device;
  afet::Status st = afet::acquire_device ("auto", &device, nullptr);
  if (!st.ok ())
    check (false, "an OpenCL device: " + st.message ());
  else
    test_row_history (*device);
  return enginecheck::finish ();
}
