/* Tests of GstAfetCLMemory's release (gst-libs/device/gstafetclmemory.h):
 * freeing device memory whose reads are still queued never waits, and a
 * region's block goes back to its pool only to be reused after them.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A stream's thread drops its input as soon as the next launch that reads
 * it is queued; freeing the memory used to wait for that read, so every
 * live stream's thread of afetdelta waited for the device. Here the read
 * is held back by a user event: the free must return while it is pending
 * (a thread that frees it and a 60 s guard against a hang), for a memory
 * of its own and for a region of a pool block, and the block must not be
 * handed out again before the read completes.
 */
#include "../../engine/enginecheck.h"
#include "clutil.h"
#include "gstafetclmemory.h"

#include <gst/gst.h>

#include <chrono>
#include <future>
#include <thread>

using enginecheck::check;

/* Frees mem in a thread of its own: whether that returned within 60 s
 * while the read it records is held back; then lets the read run. */
static bool
free_returns (GstMemory * mem, cl_event gate)
{
  std::packaged_task<void ()> task ([mem] { gst_memory_unref (mem); });
  std::future<void> done = task.get_future ();
  std::thread t (std::move (task));
  bool returned = done.wait_for (std::chrono::seconds (60)) ==
      std::future_status::ready;
  clSetUserEventStatus (gate, CL_COMPLETE);
  t.join ();
  return returned;
}

/* A read of mem's buffer on queue, held back by a new user event (*gate),
 * recorded on mem as a read. */
static bool
held_read (std::shared_ptr<afet::Device> &device, cl_command_queue queue,
    GstMemory * mem, afet::ClMem *dst, cl_event *gate)
{
  cl_int err = CL_SUCCESS;
  *gate = clCreateUserEvent (device->context (), &err);
  afet::Status st = afet::make_buffer (device->context (), CL_MEM_READ_WRITE,
      mem->size, nullptr, dst);
  GstMapInfo map;
  if (err != CL_SUCCESS || !st.ok () || !gst_memory_map (mem, &map,
          (GstMapFlags) (GST_MAP_READ | GST_MAP_AFET_CL)))
    return false;
  cl_event read = nullptr;
  err = clEnqueueCopyBuffer (queue, (cl_mem) map.data, dst->get (),
      gst_afet_cl_memory_get_origin (mem), 0, mem->size, 1, gate, &read);
  gst_memory_unmap (mem, &map);
  clFlush (queue);
  if (err != CL_SUCCESS)
    return false;
  gst_afet_cl_memory_add_read_event (mem, read);
  return true;
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  std::shared_ptr<afet::Device> device;
  afet::Status st = afet::acquire_device ("auto", &device);
  if (!st.ok ()) {
    std::printf ("no OpenCL device: %s\n0 passed, 1 failed\n",
        st.message ().c_str ());
    return 1;
  }
  afet::ClQueue queue;
  st = device->create_queue (&queue);
  check (st.ok (), "a queue");
  if (!st.ok ())
    return enginecheck::finish ();
  auto stats = std::make_shared<afet::TransferStats> ();
  const gsize bytes = 4096;

  /* a memory of its own */
  GstMemory *own = gst_afet_cl_memory_new (device, queue.get (), stats,
      bytes, &st);
  check (own != nullptr, "a device memory");
  afet::ClMem dst;
  cl_event gate = nullptr;
  bool ok = own && held_read (device, queue.get (), own, &dst, &gate);
  check (ok, "a read of it held back");
  if (ok)
    check (free_returns (own, gate), "freeing a device memory does not "
        "wait for its queued reads");
  if (gate)
    clReleaseEvent (gate);
  clFinish (queue.get ());

  /* a region of a pool block: the block is not handed out again before
   * the region's read is done, then it is */
  auto pool = afet::BlockPool::make (device->context ());
  std::shared_ptr<afet::DeviceBlock> block;
  st = pool->acquire (2 * bytes, queue.get (), &block);
  check (st.ok (), "a pool block");
  if (!st.ok ())
    return enginecheck::finish ();
  GstMemory *region = gst_afet_cl_memory_new_region (device, queue.get (),
      stats, block, bytes, bytes, nullptr);
  block.reset ();
  gate = nullptr;
  ok = held_read (device, queue.get (), region, &dst, &gate);
  check (ok, "a read of a region held back");
  std::shared_ptr<afet::DeviceBlock> next;
  if (ok) {
    /* free the region while the read waits: the block's use is pending */
    std::packaged_task<void ()> task ([region] { gst_memory_unref (region); });
    std::future<void> done = task.get_future ();
    std::thread t (std::move (task));
    bool returned = done.wait_for (std::chrono::seconds (60)) ==
        std::future_status::ready;
    check (returned, "freeing a region does not wait for its queued reads");
    if (returned) {
      st = pool->acquire (2 * bytes, queue.get (), &next);
      check (st.ok () && pool->reused () == 0, "the region's block is not "
          "handed out again while its read is queued");
      next.reset ();
    }
    clSetUserEventStatus (gate, CL_COMPLETE);
    t.join ();
    clFinish (queue.get ());
    st = pool->acquire (2 * bytes, queue.get (), &next);
    check (st.ok () && pool->reused () == 1, "once the read is done, the "
        "block is handed out again");
  }
  if (gate)
    clReleaseEvent (gate);
  return enginecheck::finish ();
}
