/* Device buffers recycled among a combiner's launches (blockpool.h).
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "blockpool.h"
#include "clutil.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace afet {

DeviceBlock::~DeviceBlock ()
{
  /* OpenCL deletes the buffer only once the queued work using it has
   * finished: nothing to wait for */
  for (cl_event e : uses_)
    clReleaseEvent (e);
}

void
DeviceBlock::add_use (cl_event event)
{
  if (!event)
    return;
  std::lock_guard<std::mutex> l (lock_);
  /* the regions of one launch bring the same events: keep one */
  if (std::find (uses_.begin (), uses_.end (), event) != uses_.end ()) {
    clReleaseEvent (event);
    return;
  }
  uses_.push_back (event);
}

bool
DeviceBlock::idle ()
{
  std::lock_guard<std::mutex> l (lock_);
  for (auto it = uses_.begin (); it != uses_.end ();) {
    cl_int status = CL_QUEUED;
    cl_int err = clGetEventInfo (*it, CL_EVENT_COMMAND_EXECUTION_STATUS,
        sizeof (status), &status, nullptr);
    /* CL_COMPLETE or an error: the command will not run any more */
    if (err != CL_SUCCESS || status <= CL_COMPLETE) {
      clReleaseEvent (*it);
      it = uses_.erase (it);
    } else {
      return false;
    }
  }
  return true;
}

BlockPool::BlockPool (cl_context context) : context_ (context)
{
  const char *env = std::getenv ("AFET_POOL_POISON");
  poison_ = env && std::strcmp (env, "1") == 0;
}

std::shared_ptr<BlockPool>
BlockPool::make (cl_context context)
{
  return std::shared_ptr<BlockPool> (new BlockPool (context));
}

BlockPool::~BlockPool ()
{
  for (auto &size : free_)
    for (DeviceBlock *b : size.second)
      delete b;
}

std::shared_ptr<DeviceBlock>
BlockPool::wrap (DeviceBlock *block)
{
  std::weak_ptr<BlockPool> pool = shared_from_this ();
  return std::shared_ptr<DeviceBlock> (block, [pool] (DeviceBlock *b) {
        if (auto p = pool.lock ())
          p->give_back (b);
        else
          delete b;
      });
}

Status
BlockPool::acquire (size_t bytes, cl_command_queue queue,
    std::shared_ptr<DeviceBlock> *out)
{
  size_t size = 4096;
  while (size < bytes)
    size *= 2;
  DeviceBlock *block = nullptr;
  {
    std::lock_guard<std::mutex> l (lock_);
    auto found = free_.find (size);
    /* the oldest came back first: its readers are the likeliest done */
    if (found != free_.end () && !found->second.empty () &&
        found->second.front ()->idle ()) {
      block = found->second.front ();
      found->second.pop_front ();
    }
  }
  if (block) {
    reused_++;
    *out = wrap (block);
    if (poison_) {
      const float nan = std::nanf ("");
      cl_int err = clEnqueueFillBuffer (queue, block->buffer (), &nan,
          sizeof nan, 0, block->bytes (), 0, nullptr, nullptr);
      if (err != CL_SUCCESS)
        return cl_fail ("clEnqueueFillBuffer (AFET_POOL_POISON)", err);
    }
    return Status::Ok ();
  }
  ClMem buffer;
  AFET_RETURN_IF_ERROR (make_buffer (context_, CL_MEM_READ_WRITE, size,
          nullptr, &buffer));
  made_++;
  *out = wrap (new DeviceBlock (std::move (buffer), size));
  return Status::Ok ();
}

void
BlockPool::give_back (DeviceBlock *block)
{
  {
    std::lock_guard<std::mutex> l (lock_);
    std::deque<DeviceBlock *> &kept = free_[block->bytes ()];
    if (kept.size () < kKeep) {
      kept.push_back (block);
      return;
    }
  }
  delete block;
}

}  /* namespace afet */
