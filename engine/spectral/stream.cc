/* The streaming state of one element (stream.h): FrameStream, buffers cut
 * into frames in batches, and RowHistory, the input rows kept on the device.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "stream.h"

#include "clutil.h"
#include "params.h"

#include <algorithm>
#include <cstring>

namespace afet {

/* ---- FrameStream -------------------------------------------------------- */

void
FrameStream::configure (const Shape &shape)
{
  shape_ = shape;
  if (!shape_.audio || shape_.unit < 1)
    shape_.unit = (int) sizeof (float);
  if (!shape_.audio)
    shape_.edges = Edges::SNIP;
  lead_ = edge_lead (shape_.edges, shape_.W, shape_.S);
  reset ();
}

void
FrameStream::reset ()
{
  held_.clear ();
  start_ = 0;
  partial_.clear ();
  consumed_ = 0;
  skip_ = 0;
  head_done_ = lead_ == 0;
  run_samples_ = 0;
}

void
FrameStream::settle () const
{
  const size_t unit = (size_t) shape_.unit;
  if (!head_done_ && held_units () > (size_t) lead_) {
    compact ();
    /* padded position j < lead_ is sample j - lead_ of the run, mirrored
     * or reflected into samples 0 .. lead_ (all here) */
    std::vector<uint8_t> head ((size_t) lead_ * unit);
    for (int j = 0; j < lead_; j++) {
      long long src = edge_source (shape_.edges, j - lead_, lead_ + 1);
      std::memcpy (head.data () + (size_t) j * unit, held_.data () +
          (size_t) src * unit, unit);
    }
    held_.insert (held_.begin (), head.begin (), head.end ());
    head_done_ = true;
  }
  const size_t have = held_units ();
  if (skip_ == 0 || have == 0)
    return;
  size_t drop = std::min (skip_, have);
  start_ += drop * unit;
  skip_ -= drop;
}

void
FrameStream::compact () const
{
  if (start_ == 0)
    return;
  held_.erase (held_.begin (), held_.begin () + start_);
  start_ = 0;
}

size_t
FrameStream::units () const
{
  settle ();
  return held_units ();
}

void *
FrameStream::append_samples (size_t n)
{
  compact ();
  size_t old = held_.size ();
  held_.resize (old + n * (size_t) shape_.unit);
  run_samples_ += (long long) n;
  return held_.data () + old;
}

void
FrameStream::append_row_bytes (const uint8_t *data, size_t bytes,
    float **fresh, size_t *fresh_floats)
{
  const size_t row_bytes = (size_t) shape_.row * sizeof (float);
  partial_.insert (partial_.end (), data, data + bytes);
  size_t whole = partial_.size () / row_bytes;
  *fresh = nullptr;
  *fresh_floats = whole * (size_t) shape_.row;
  if (!whole)
    return;
  compact ();
  size_t old = held_.size ();
  held_.resize (old + whole * row_bytes);
  std::memcpy (held_.data () + old, partial_.data (), whole * row_bytes);
  partial_.erase (partial_.begin (), partial_.begin () + whole * row_bytes);
  *fresh = (float *) (held_.data () + old);
}

long long
FrameStream::frames () const
{
  if (!shape_.audio)
    return (long long) (units () / (size_t) shape_.row);
  long long whole = num_frames ((long long) units (), shape_.W, shape_.S);
  if (shape_.edges == Edges::SNIP)
    return whole;
  if (!head_done_)
    return 0;
  /* no frame past the run's last, which the samples so far already give:
   * edge_frames grows with the run */
  long long last = edge_frames (shape_.edges, run_samples_, shape_.W,
      shape_.S) - (long long) consumed_;
  return std::max (0LL, std::min (whole, last));
}

int
FrameStream::next_batch (bool any) const
{
  long long n = frames ();
  if (n == 0 || (!any && n < shape_.max_batch))
    return 0;
  return (int) std::min<long long> (n, shape_.max_batch);
}

size_t
FrameStream::step_bytes () const
{
  return (shape_.audio ? (size_t) shape_.S : (size_t) shape_.row) *
      (size_t) shape_.unit;
}

void
FrameStream::consume (long long n)
{
  settle ();
  const size_t want = (size_t) n * step_bytes ();
  size_t used = std::min (held_.size () - start_, want);
  /* dropped from the front lazily (compact): erasing here would move the
   * rest of a long buffer once a batch */
  start_ += used;
  /* frames start every S samples: with S > W the last frame was complete
   * before the next one's start arrived */
  skip_ += (want - used) / (size_t) shape_.unit;
  consumed_ += (unsigned long long) n;
}

bool
FrameStream::finish ()
{
  if (!shape_.audio)
    return false;
  return shape_.edges == Edges::SNIP ? pad_tail () : finish_edges ();
}

bool
FrameStream::finish_edges ()
{
  const long long n = run_samples_;
  const int W = shape_.W, S = shape_.S;
  const long long total = edge_frames (shape_.edges, n, W, S);
  if ((long long) consumed_ >= total || n == 0)
    return false;
  settle ();
  compact ();
  const size_t unit = (size_t) shape_.unit;
  /* held_ starts at padded position consumed_ S (S <= W: nothing skipped)
   * once the head is in; before that (a run shorter than the head) it
   * holds the run's samples from 0, at padded position lead_ */
  const long long start = head_done_ ? (long long) consumed_ * S : lead_;
  const long long from = (long long) consumed_ * S;
  const long long to = (total - 1) * S + W;
  const long long have = (long long) (held_.size () / unit);
  std::vector<uint8_t> out ((size_t) (to - from) * unit, 0);
  for (long long j = from; j < to; j++) {
    long long pos = edge_source (shape_.edges, j - lead_, n) + lead_ - start;
    /* the samples a mirrored position reads are held (see stream.h) */
    if (pos >= 0 && pos < have)
      std::memcpy (out.data () + (size_t) (j - from) * unit,
          held_.data () + (size_t) pos * unit, unit);
  }
  held_.swap (out);
  head_done_ = true;
  return true;
}

bool
FrameStream::pad_tail ()
{
  if (!shape_.audio || !shape_.pad)
    return false;
  /* after frame n - 1 the held samples start at n S, and the first W - S
   * of them were covered by it */
  size_t covered = consumed_ > 0 && shape_.W > shape_.S ?
      (size_t) (shape_.W - shape_.S) : 0;
  if (units () <= covered)
    return false;
  compact ();
  /* zero bytes: 0.0f or 0 */
  held_.resize ((size_t) shape_.W * (size_t) shape_.unit, 0);
  return true;
}

/* ---- RowHistory --------------------------------------------------------- */

Status
RowHistory::init (cl_context context, cl_command_queue queue,
    const Extent &extent, int max_batch)
{
  context_ = context;
  queue_ = queue;
  extent_ = extent;
  cap_ = 2 * (long long) max_batch + extent.back + extent.ahead;
  cur_ = 0;
  reset ();
  for (int i = 0; i < 2; i++)
    AFET_RETURN_IF_ERROR (make_buffer (context, CL_MEM_READ_WRITE,
            (size_t) cap_ * extent.row_dims * sizeof (float), nullptr,
            &buf_[i]));
  return Status::Ok ();
}

void
RowHistory::release ()
{
  buf_[0].reset ();
  buf_[1].reset ();
  cap_ = 0;
  reset ();
}

void
RowHistory::reset ()
{
  first_ = 0;
  rows_ = 0;
  received_ = 0;
  adopted_ = nullptr;
}

void
RowHistory::adopt (cl_mem rows, long long m)
{
  reset ();
  adopted_ = rows;
  rows_ = m;
  received_ = m;
}

void
RowHistory::unadopt ()
{
  reset ();
}

Status
RowHistory::grow (long long m)
{
  long long cap = std::max (2 * cap_, rows_ + m);
  const size_t row_bytes = (size_t) extent_.row_dims * sizeof (float);
  ClMem grown[2];
  for (int i = 0; i < 2; i++) {
    Status st = make_buffer (context_, CL_MEM_READ_WRITE,
        (size_t) cap * row_bytes, nullptr, &grown[i]);
    if (!st.ok ())
      return Status (Status::OPENCL, "the run does not fit in device memory "
          "(" + std::to_string (cap) + " frames): " + st.message ());
  }
  if (rows_ > 0) {
    cl_int err = clEnqueueCopyBuffer (queue_, buf_[cur_].get (),
        grown[0].get (), 0, 0, (size_t) rows_ * row_bytes, 0, nullptr,
        nullptr);
    if (err != CL_SUCCESS)
      return cl_fail ("clEnqueueCopyBuffer (growing the frame history)", err);
    copies_++;
  }
  /* the old buffers are released only when the copy is done */
  clFinish (queue_);
  buf_[0] = std::move (grown[0]);
  buf_[1] = std::move (grown[1]);
  cur_ = 0;
  cap_ = cap;
  return Status::Ok ();
}

void
RowHistory::commit (long long m)
{
  rows_ += m;
  received_ += m;
}

Status
RowHistory::append_host (const float *rows, long long m, TransferStats *stats)
{
  const size_t row_bytes = (size_t) extent_.row_dims * sizeof (float);
  AFET_RETURN_IF_ERROR (upload (queue_, buf_[cur_].get (), (size_t) rows_ *
          row_bytes, (size_t) m * row_bytes, rows, true, stats));
  commit (m);
  return Status::Ok ();
}

Status
RowHistory::append_device (cl_mem src, size_t src_row, long long m)
{
  const size_t row_bytes = (size_t) extent_.row_dims * sizeof (float);
  cl_int err = clEnqueueCopyBuffer (queue_, src, buf_[cur_].get (),
      src_row * row_bytes, (size_t) rows_ * row_bytes, (size_t) m * row_bytes,
      0, nullptr, nullptr);
  if (err != CL_SUCCESS)
    return cl_fail ("clEnqueueCopyBuffer", err);
  copies_++;
  commit (m);
  return Status::Ok ();
}

long long
RowHistory::ready_of (const Extent &extent, long long received,
    unsigned long long frames_out, bool drain)
{
  long long limit = drain ? received : received - extent.ahead;
  if (!drain && (extent.start_need < 0 || received < extent.start_need))
    limit = 0;
  return std::max (0LL, limit - (long long) frames_out);
}

ContextBlock
RowHistory::block (bool drain) const
{
  ContextBlock b;
  b.rows = adopted_ ? adopted_ : buf_[cur_].get ();
  b.row_stride = extent_.row_dims;
  b.first_row = first_;
  b.total = drain ? received_ : -1;
  return b;
}

Status
RowHistory::drop_done (unsigned long long frames_out)
{
  /* adopted rows stay where they are, all of them */
  if (adopted_)
    return Status::Ok ();
  /* whole-run statistics keep every row until the run ends */
  long long keep = extent_.start_need < 0 ? first_ :
      std::max (0LL, (long long) frames_out - extent_.back);
  long long drop = keep - first_;
  if (drop <= 0)
    return Status::Ok ();
  const size_t row_bytes = (size_t) extent_.row_dims * sizeof (float);
  long long left = rows_ - drop;
  if (left > 0) {
    cl_int err = clEnqueueCopyBuffer (queue_, buf_[cur_].get (),
        buf_[1 - cur_].get (), (size_t) drop * row_bytes, 0,
        (size_t) left * row_bytes, 0, nullptr, nullptr);
    if (err != CL_SUCCESS)
      return cl_fail ("clEnqueueCopyBuffer", err);
    copies_++;
    cur_ = 1 - cur_;
  }
  first_ = keep;
  rows_ = std::max (left, 0LL);
  return Status::Ok ();
}

}  /* namespace afet */
