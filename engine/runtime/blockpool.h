/* BlockPool: device buffers recycled among the launches of a combiner, each
 * handed out to many readers and reused only when their work has finished.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "clhandle.h"
#include "status.h"

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace afet {

/* A device buffer of a BlockPool: one launch's rows, shared by everything
 * that holds a reference to it (shared_ptr). When the last reference goes
 * it returns to its pool (or is released, the pool gone) with the events
 * of the device work that used it; it is handed out again only when all
 * of them have completed. Nothing waits for them. */
class DeviceBlock
{
public:
  ~DeviceBlock ();
  cl_mem buffer () const { return buffer_.get (); }
  /* bytes the buffer holds (at least what was asked for) */
  size_t bytes () const { return bytes_; }
  /* Device work that writes or reads the block (its completion event;
   * the block takes over the reference): the block is not written again
   * before it completes. Any thread; never waits. */
  void add_use (cl_event event);

private:
  friend class BlockPool;
  DeviceBlock (ClMem buffer, size_t bytes)
    : buffer_ (std::move (buffer)), bytes_ (bytes) {}
  /* whether every use has completed (the completed ones are dropped) */
  bool idle ();

  ClMem buffer_;
  size_t bytes_;
  std::mutex lock_;
  std::vector<cl_event> uses_;
};

/* Device buffers for the launches of one combiner, so that a launch does not
 * create a buffer (with a GPU driver, creating and releasing buffers are
 * system calls that cost more than the launch). Buffers come in powers of
 * two bytes; of each size the pool keeps the blocks that came back, oldest
 * first, up to kKeep. */
class BlockPool : public std::enable_shared_from_this<BlockPool>
{
public:
  /* free blocks kept of one size */
  static constexpr size_t kKeep = 32;

  static std::shared_ptr<BlockPool> make (cl_context context);
  ~BlockPool ();

  /* A block of at least bytes that no device work uses any more: the
   * oldest one returned if its uses have completed, else a new one. With
   * AFET_POOL_POISON=1 in the environment, a reused block is first filled
   * with NaNs on queue, so that a reader still reading it (a bug) would
   * see them. */
  Status acquire (size_t bytes, cl_command_queue queue,
      std::shared_ptr<DeviceBlock> *out);

  /* blocks made and blocks handed out again so far */
  uint64_t made () const { return made_; }
  uint64_t reused () const { return reused_; }

private:
  explicit BlockPool (cl_context context);
  void give_back (DeviceBlock *block);
  std::shared_ptr<DeviceBlock> wrap (DeviceBlock *block);

  cl_context context_;
  bool poison_ = false;
  std::mutex lock_;
  std::map<size_t, std::deque<DeviceBlock *>> free_;
  std::atomic<uint64_t> made_ { 0 }, reused_ { 0 };
};

}  /* namespace afet */
