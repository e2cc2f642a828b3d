/* GstAfetCLMemory (gstafetclmemory.h): device memory between afet elements,
 * its allocator, maps with host copies made on demand, and its buffer pool.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetclmemory.h"
#include "gstafetdebug.h"

#include "clutil.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

GST_AFET_DEBUG_CATEGORY_LAZY (ensure_debug_category, "afetclmemory",
    "afet OpenCL device memory");
#define GST_CAT_DEFAULT ensure_debug_category ()

/* *INDENT-OFF* */
struct AfetCLMemoryState
{
  std::shared_ptr<afet::Device> device;
  cl_command_queue queue = nullptr;          /* retained */
  std::shared_ptr<afet::TransferStats> stats;
  cl_mem buffer = nullptr;
  /* a region: the block of a combined launch that buffer is (not owned
   * apart from it) */
  std::shared_ptr<afet::DeviceBlock> block;
  size_t origin = 0;            /* of the memory in buffer (a region) */
  void *host = nullptr;
  bool host_valid = false;
  bool device_valid = true;
  cl_event write_event = nullptr;
  /* the queue of the last write (retained), when set_write_event or
   * set_written said */
  cl_command_queue write_queue = nullptr;
  /* set_written: the write is everything enqueued on write_queue so far,
   * with no event yet (made when a reader needs one: mark_write) */
  bool write_unmarked = false;
  std::vector<cl_event> read_events;
  /* add_read_queue: queues (retained) with reads and no event for them */
  std::vector<cl_command_queue> read_queues;
  std::mutex lock;

  ~AfetCLMemoryState ()
  {
    /* Nothing waits here (a stream's thread drops its input while the
     * next launch still reads it). OpenCL deletes a released buffer only
     * once the queued work using it has finished; a region's block goes
     * back to its pool with the events of the work that used this memory,
     * and is written again only when they have completed. */
    if (block) {
      /* the pool must know when the unmarked work is done; where no
       * marker could be made, that work is waited for here */
      if (!mark_write ().ok () && write_unmarked)
        clFinish (write_queue);
      if (!mark_reads (nullptr).ok ())
        for (cl_command_queue q : read_queues)
          clFinish (q);
      if (write_event)
        block->add_use (write_event);
      for (cl_event e : read_events)
        block->add_use (e);
      block.reset ();
    } else {
      if (write_event)
        clReleaseEvent (write_event);
      for (cl_event e : read_events)
        clReleaseEvent (e);
      if (buffer)
        clReleaseMemObject (buffer);
    }
    for (cl_command_queue q : read_queues)
      clReleaseCommandQueue (q);
    if (write_queue)
      clReleaseCommandQueue (write_queue);
    if (queue)
      clReleaseCommandQueue (queue);
    std::free (host);
  }

  /* A device write, done when event completes or, with no event, by the
   * work enqueued on queue so far (unmarked: mark_write makes its event
   * when a reader needs one); an earlier write is before it, as its
   * writer synchronised first (lock held). */
  void written (cl_event event, cl_command_queue queue)
  {
    if (write_event)
      clReleaseEvent (write_event);
    write_event = event;
    write_unmarked = event == nullptr;
    if (queue != write_queue) {
      /* held, so that its address cannot name another queue later */
      if (queue)
        clRetainCommandQueue (queue);
      if (write_queue)
        clReleaseCommandQueue (write_queue);
      write_queue = queue;
    }
    device_valid = true;
    host_valid = false;
  }

  /* An event for the work enqueued on q so far (a marker), q flushed so
   * that another queue or the host may wait for it. */
  static afet::Status marker (cl_command_queue q, cl_event *ev)
  {
    const cl_int err = clEnqueueMarkerWithWaitList (q, 0, nullptr, ev);
    if (err != CL_SUCCESS)
      return afet::cl_fail ("clEnqueueMarkerWithWaitList", err);
    clFlush (q);
    return afet::Status::Ok ();
  }

  /* The unmarked write gets its event (lock held). A marker enqueued now
   * also covers what write_queue received after the write: waiting for it
   * waits as long or longer, never too little. */
  afet::Status mark_write ()
  {
    if (!write_unmarked)
      return afet::Status::Ok ();
    cl_event ev = nullptr;
    afet::Status st = marker (write_queue, &ev);
    if (!st.ok ())
      return st;
    if (write_event)
      clReleaseEvent (write_event);
    write_event = ev;
    write_unmarked = false;
    return afet::Status::Ok ();
  }

  /* The same for a reader on reader's queue: none on the writer's own
   * queue, which runs the write first anyway (lock held). */
  afet::Status mark_write_for (cl_command_queue reader)
  {
    return reader == write_queue ? afet::Status::Ok () : mark_write ();
  }

  /* The unmarked reads get events, but those on same (a writer's own
   * in-order queue, after them anyway), which are dropped (lock held). */
  afet::Status mark_reads (cl_command_queue same)
  {
    while (!read_queues.empty ()) {
      cl_command_queue q = read_queues.back ();
      if (q != same) {
        cl_event ev = nullptr;
        afet::Status st = marker (q, &ev);
        if (!st.ok ())
          return st;            /* the queues not marked stay recorded */
        read_events.push_back (ev);
      }
      clReleaseCommandQueue (q);
      read_queues.pop_back ();
    }
    return afet::Status::Ok ();
  }
};
/* *INDENT-ON* */

typedef struct
{
  GstAllocator parent;
} GstAfetCLAllocator;

typedef struct
{
  GstAllocatorClass parent_class;
} GstAfetCLAllocatorClass;

GType gst_afet_cl_allocator_get_type (void);
G_DEFINE_TYPE (GstAfetCLAllocator, gst_afet_cl_allocator, GST_TYPE_ALLOCATOR);

static GstAllocator *the_allocator;

static GstMemory *
afet_cl_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  g_warning ("AfetCLMemory is allocated with gst_afet_cl_memory_new () or a "
      "GstAfetCLBufferPool, not gst_allocator_alloc ()");
  return nullptr;
}

static void
afet_cl_free (GstAllocator * allocator, GstMemory * mem)
{
  GstAfetCLMemory *m = (GstAfetCLMemory *) mem;
  delete m->state;
  g_free (m);
}

/* called with state->lock held */
static bool
ensure_host (GstAfetCLMemory * m)
{
  AfetCLMemoryState *s = m->state;
  if (!s->host &&
      posix_memalign (&s->host, 64, MAX (m->mem.maxsize, (gsize) 64)) != 0) {
    s->host = nullptr;
    return false;
  }
  if (s->host_valid)
    return true;
  /* the download runs on the memory's own queue */
  afet::Status mark = s->mark_write_for (s->queue);
  if (!mark.ok ()) {
    GST_ERROR ("download failed: %s", mark.message ().c_str ());
    return false;
  }
  if (s->write_event) {
    clWaitForEvents (1, &s->write_event);
  }
  afet::Status st = afet::download (s->queue, s->buffer, s->origin,
      m->mem.maxsize, s->host, s->stats.get ());
  if (!st.ok ()) {
    GST_ERROR ("download failed: %s", st.message ().c_str ());
    return false;
  }
  GST_LOG ("downloaded %" G_GSIZE_FORMAT " bytes", m->mem.maxsize);
  s->host_valid = true;
  return true;
}

/* called with state->lock held */
static bool
ensure_device (GstAfetCLMemory * m)
{
  AfetCLMemoryState *s = m->state;
  if (s->device_valid)
    return true;
  afet::Status st = afet::upload (s->queue, s->buffer, s->origin,
      m->mem.maxsize, s->host, true, s->stats.get ());
  if (!st.ok ()) {
    GST_ERROR ("upload failed: %s", st.message ().c_str ());
    return false;
  }
  GST_LOG ("uploaded %" G_GSIZE_FORMAT " bytes", m->mem.maxsize);
  s->device_valid = true;
  return true;
}

static gpointer
afet_cl_map_full (GstMemory * mem, GstMapInfo * info, gsize maxsize)
{
  GstAfetCLMemory *m = (GstAfetCLMemory *) mem;
  AfetCLMemoryState *s = m->state;
  std::lock_guard<std::mutex> guard (s->lock);

  if (info->flags & GST_MAP_AFET_CL) {
    if (mem->offset != 0) {
      GST_ERROR ("device mapping of a memory with an offset");
      return nullptr;
    }
    if (!ensure_device (m))
      return nullptr;
    return (gpointer) s->buffer;
  }
  if (!ensure_host (m))
    return nullptr;
  return s->host;
}

static void
afet_cl_unmap_full (GstMemory * mem, GstMapInfo * info)
{
  GstAfetCLMemory *m = (GstAfetCLMemory *) mem;
  AfetCLMemoryState *s = m->state;
  std::lock_guard<std::mutex> guard (s->lock);
  if (!(info->flags & GST_MAP_WRITE))
    return;
  if (info->flags & GST_MAP_AFET_CL)
    s->host_valid = false;
  else
    s->device_valid = false;
}

static GstMemory *
afet_cl_copy (GstMemory * mem, gssize offset, gssize size)
{
  GstAfetCLMemory *m = (GstAfetCLMemory *) mem;
  AfetCLMemoryState *s = m->state;
  if (size < 0)
    size = (gssize) mem->size - offset;
  afet::Status st;
  GstMemory *copy = gst_afet_cl_memory_new (s->device, s->queue, s->stats,
      (gsize) size, &st);
  if (!copy)
    return nullptr;
  GstAfetCLMemory *c = (GstAfetCLMemory *) copy;
  std::lock_guard<std::mutex> guard (s->lock);
  size_t from = s->origin + mem->offset + (size_t) offset;
  if (s->device_valid && !s->mark_write_for (s->queue).ok ()) {
    gst_memory_unref (copy);
    return nullptr;
  }
  if (s->device_valid) {
    cl_uint n = s->write_event ? 1 : 0;
    cl_int err = clEnqueueCopyBuffer (s->queue, s->buffer, c->state->buffer,
        from, 0, (size_t) size, n, n ? &s->write_event : nullptr, nullptr);
    if (err == CL_SUCCESS)
      err = clFinish (s->queue);
    if (err != CL_SUCCESS) {
      gst_memory_unref (copy);
      return nullptr;
    }
  } else {
    st = afet::upload (s->queue, c->state->buffer, 0, (size_t) size,
        (const char *) s->host + from, true, s->stats.get ());
    if (!st.ok ()) {
      gst_memory_unref (copy);
      return nullptr;
    }
  }
  return copy;
}

static GstMemory *
afet_cl_share (GstMemory * mem, gssize offset, gssize size)
{
  return nullptr;
}

static void
gst_afet_cl_allocator_class_init (GstAfetCLAllocatorClass * klass)
{
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);
  allocator_class->alloc = afet_cl_alloc;
  allocator_class->free = afet_cl_free;
}

static void
gst_afet_cl_allocator_init (GstAfetCLAllocator * self)
{
  GstAllocator *alloc = GST_ALLOCATOR (self);
  alloc->mem_type = GST_AFET_CL_MEMORY_TYPE;
  alloc->mem_map_full = afet_cl_map_full;
  alloc->mem_unmap_full = afet_cl_unmap_full;
  alloc->mem_copy = afet_cl_copy;
  alloc->mem_share = afet_cl_share;
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

static GstAllocator *
get_allocator (void)
{
  static gsize once = 0;
  if (g_once_init_enter (&once)) {
    the_allocator = (GstAllocator *) g_object_new
        (gst_afet_cl_allocator_get_type (), nullptr);
    gst_object_ref_sink (the_allocator);
    GST_OBJECT_FLAG_SET (the_allocator, GST_OBJECT_FLAG_MAY_BE_LEAKED);
    gst_allocator_register (GST_AFET_CL_MEMORY_TYPE,
        (GstAllocator *) gst_object_ref (the_allocator));
    g_once_init_leave (&once, 1);
  }
  return the_allocator;
}

gboolean
gst_is_afet_cl_memory (GstMemory * mem)
{
  return mem && mem->allocator && the_allocator &&
      mem->allocator == the_allocator;
}

GstMemory *
gst_afet_cl_memory_new (const std::shared_ptr<afet::Device> &device,
    cl_command_queue queue, const std::shared_ptr<afet::TransferStats> &stats,
    gsize size, afet::Status * err)
{
  GstAllocator *allocator = get_allocator ();
  afet::ClMem owned;
  *err = afet::make_buffer (device->context (), CL_MEM_READ_WRITE, size,
      nullptr, &owned);
  if (!err->ok ())
    return nullptr;
  cl_mem buffer = owned.release ();
  GstAfetCLMemory *m = g_new0 (GstAfetCLMemory, 1);
  m->state = new AfetCLMemoryState ();
  m->state->device = device;
  clRetainCommandQueue (queue);
  m->state->queue = queue;
  m->state->stats = stats;
  m->state->buffer = buffer;
  gst_memory_init (GST_MEMORY_CAST (m), GST_MEMORY_FLAG_NO_SHARE, allocator,
      nullptr, size, 0, 0, size);
  return GST_MEMORY_CAST (m);
}

GstMemory *
gst_afet_cl_memory_new_region (const std::shared_ptr<afet::Device> &device,
    cl_command_queue queue, const std::shared_ptr<afet::TransferStats> &stats,
    std::shared_ptr<afet::DeviceBlock> block, gsize origin, gsize size,
    cl_event write_event)
{
  GstAllocator *allocator = get_allocator ();
  GstAfetCLMemory *m = g_new0 (GstAfetCLMemory, 1);
  m->state = new AfetCLMemoryState ();
  m->state->device = device;
  clRetainCommandQueue (queue);
  m->state->queue = queue;
  m->state->stats = stats;
  m->state->buffer = block->buffer ();
  m->state->block = std::move (block);
  m->state->origin = origin;
  m->state->write_event = write_event;
  gst_memory_init (GST_MEMORY_CAST (m), GST_MEMORY_FLAG_NO_SHARE, allocator,
      nullptr, size, 0, 0, size);
  return GST_MEMORY_CAST (m);
}

gsize
gst_afet_cl_memory_get_origin (GstMemory * mem)
{
  return ((GstAfetCLMemory *) mem)->state->origin;
}

cl_event
gst_afet_cl_memory_get_write_event (GstMemory * mem, afet::Status * err)
{
  AfetCLMemoryState *s = ((GstAfetCLMemory *) mem)->state;
  std::lock_guard<std::mutex> guard (s->lock);
  afet::Status st = s->mark_write ();
  if (!st.ok ()) {
    if (err)
      *err = st;
    return nullptr;
  }
  if (s->write_event)
    clRetainEvent (s->write_event);
  return s->write_event;
}

afet::Device *
gst_afet_cl_memory_get_device (GstMemory * mem)
{
  return gst_is_afet_cl_memory (mem) ?
      ((GstAfetCLMemory *) mem)->state->device.get () : nullptr;
}

afet::Status
gst_afet_cl_memory_sync (GstMemory * mem, cl_command_queue queue,
    gboolean for_write, guint64 * waits)
{
  AfetCLMemoryState *s = ((GstAfetCLMemory *) mem)->state;
  std::lock_guard<std::mutex> guard (s->lock);
  std::vector<cl_event> wait;
  /* a write enqueued on this in-order queue is before whatever comes */
  if (s->write_queue != queue) {
    afet::Status st = s->mark_write ();
    if (!st.ok ())
      return st;
    if (s->write_event)
      wait.push_back (s->write_event);
  }
  if (for_write) {
    afet::Status st = s->mark_reads (queue);
    if (!st.ok ())
      return st;
    /* reads long done (a pool's buffer back from the input before) need
     * no barrier: their events are dropped */
    std::vector<cl_event> pending;
    for (cl_event e : s->read_events) {
      cl_int status = CL_QUEUED;
      if (clGetEventInfo (e, CL_EVENT_COMMAND_EXECUTION_STATUS,
              sizeof status, &status, nullptr) == CL_SUCCESS &&
          status == CL_COMPLETE) {
        clReleaseEvent (e);
        continue;
      }
      pending.push_back (e);
    }
    s->read_events.swap (pending);
    wait.insert (wait.end (), s->read_events.begin (), s->read_events.end ());
  }
  if (wait.empty ())
    return afet::Status::Ok ();
  if (waits)
    (*waits)++;
  cl_int err = clEnqueueBarrierWithWaitList (queue, (cl_uint) wait.size (),
      wait.data (), nullptr);
  if (err != CL_SUCCESS)
    return afet::Status (afet::Status::OPENCL,
        std::string ("clEnqueueBarrierWithWaitList: ") +
        afet::cl_error_name (err));
  if (for_write) {
    /* the barrier now orders everything after it on queue */
    for (cl_event e : s->read_events)
      clReleaseEvent (e);
    s->read_events.clear ();
  }
  return afet::Status::Ok ();
}

void
gst_afet_cl_memory_set_write_event (GstMemory * mem, cl_event event,
    cl_command_queue queue)
{
  AfetCLMemoryState *s = ((GstAfetCLMemory *) mem)->state;
  std::lock_guard<std::mutex> guard (s->lock);
  s->written (event, queue);
}

void
gst_afet_cl_memory_set_written (GstMemory * mem, cl_command_queue queue)
{
  AfetCLMemoryState *s = ((GstAfetCLMemory *) mem)->state;
  std::lock_guard<std::mutex> guard (s->lock);
  s->written (nullptr, queue);
}

void
gst_afet_cl_memory_add_read_queue (GstMemory * mem, cl_command_queue queue)
{
  AfetCLMemoryState *s = ((GstAfetCLMemory *) mem)->state;
  std::lock_guard<std::mutex> guard (s->lock);
  /* one marker made later covers every read on that queue before it */
  for (cl_command_queue q : s->read_queues)
    if (q == queue)
      return;
  clRetainCommandQueue (queue);
  s->read_queues.push_back (queue);
}

void
gst_afet_cl_memory_add_read_event (GstMemory * mem, cl_event event)
{
  AfetCLMemoryState *s = ((GstAfetCLMemory *) mem)->state;
  std::lock_guard<std::mutex> guard (s->lock);
  /* keep the list short: drop reads that have completed */
  for (auto it = s->read_events.begin (); it != s->read_events.end ();) {
    cl_int status = CL_QUEUED;
    clGetEventInfo (*it, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof (status),
        &status, nullptr);
    if (status == CL_COMPLETE) {
      clReleaseEvent (*it);
      it = s->read_events.erase (it);
    } else {
      ++it;
    }
  }
  s->read_events.push_back (event);
}

/* ---- buffer pool ------------------------------------------------------ */

/* *INDENT-OFF* */
struct GstAfetCLBufferPoolState
{
  std::shared_ptr<afet::Device> device;
  cl_command_queue queue = nullptr;
  std::shared_ptr<afet::TransferStats> stats;
  gsize size = 0;
};
/* *INDENT-ON* */

struct _GstAfetCLBufferPool
{
  GstBufferPool parent;
  GstAfetCLBufferPoolState *state;
};

G_DEFINE_TYPE (GstAfetCLBufferPool, gst_afet_cl_buffer_pool,
    GST_TYPE_BUFFER_POOL);

static const gchar **
pool_get_options (GstBufferPool * pool)
{
  static const gchar *options[] = { nullptr };
  return options;
}

static gboolean
pool_set_config (GstBufferPool * pool, GstStructure * config)
{
  GstAfetCLBufferPool *self = GST_AFET_CL_BUFFER_POOL (pool);
  GstCaps *caps;
  guint size, min, max;
  if (!gst_buffer_pool_config_get_params (config, &caps, &size, &min, &max))
    return FALSE;
  self->state->size = size;
  return GST_BUFFER_POOL_CLASS (gst_afet_cl_buffer_pool_parent_class)->
      set_config (pool, config);
}

static GstFlowReturn
pool_alloc_buffer (GstBufferPool * pool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  GstAfetCLBufferPool *self = GST_AFET_CL_BUFFER_POOL (pool);
  GstAfetCLBufferPoolState *s = self->state;
  afet::Status st;
  GstMemory *mem = gst_afet_cl_memory_new (s->device, s->queue, s->stats,
      s->size, &st);
  if (!mem) {
    GST_ERROR_OBJECT (pool, "%s", st.message ().c_str ());
    return GST_FLOW_ERROR;
  }
  *buffer = gst_buffer_new ();
  gst_buffer_append_memory (*buffer, mem);
  return GST_FLOW_OK;
}

static void
pool_finalize (GObject * object)
{
  GstAfetCLBufferPool *self = GST_AFET_CL_BUFFER_POOL (object);
  GstAfetCLBufferPoolState *s = self->state;
  if (s->queue)
    clReleaseCommandQueue (s->queue);
  delete s;
  G_OBJECT_CLASS (gst_afet_cl_buffer_pool_parent_class)->finalize (object);
}

static void
gst_afet_cl_buffer_pool_class_init (GstAfetCLBufferPoolClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);
  gobject_class->finalize = pool_finalize;
  pool_class->get_options = pool_get_options;
  pool_class->set_config = pool_set_config;
  pool_class->alloc_buffer = pool_alloc_buffer;
}

static void
gst_afet_cl_buffer_pool_init (GstAfetCLBufferPool * self)
{
  self->state = new GstAfetCLBufferPoolState ();
}

GstBufferPool *
gst_afet_cl_buffer_pool_new (const std::shared_ptr<afet::Device> &device,
    cl_command_queue queue, const std::shared_ptr<afet::TransferStats> &stats)
{
  GstAfetCLBufferPool *pool = (GstAfetCLBufferPool *) g_object_new
      (GST_TYPE_AFET_CL_BUFFER_POOL, nullptr);
  gst_object_ref_sink (pool);
  pool->state->device = device;
  clRetainCommandQueue (queue);
  pool->state->queue = queue;
  pool->state->stats = stats;
  return GST_BUFFER_POOL (pool);
}
