/* afet — speech features on OpenCL
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:gstafetbase
 * @title: GstAfetBase
 * @short_description: base class of afet's feature elements
 *
 * Owns what every afet element does: choosing the OpenCL device, taking
 * audio or feature streams in, cutting them into whole frames across
 * buffers, batching, timestamps, draining on EOS and DISCONT, negotiation
 * messages and the latency answer. Subclasses only describe their output
 * and compute frames.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetbase.h"
#include "gstafetclmemory.h"
#include "gstafetcontext.h"

#include "clutil.h"
#include "stream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <mutex>
#include <vector>

GST_DEBUG_CATEGORY_STATIC (gst_afet_base_debug);
GST_DEBUG_CATEGORY_STATIC (afet_transfer_debug);
#define GST_CAT_DEFAULT gst_afet_base_debug

#define DEFAULT_DEVICE "auto"
#define DEFAULT_MAX_BATCH 4096
#define DEFAULT_FRAME_LENGTH 25.0
#define DEFAULT_FRAME_SHIFT 10.0
#define DEFAULT_WINDOW GST_AFET_WINDOW_HAMMING
#define DEFAULT_PREEMPHASIS 0.97
#define DEFAULT_PAD FALSE
#define DEFAULT_DEVICE_MEMORY TRUE

enum
{
  PROP_0,
  PROP_DEVICE,
  PROP_DEVICE_NAME,
  PROP_MAX_BATCH,
  PROP_DEVICE_MEMORY,
  PROP_UPLOADS,
  PROP_UPLOAD_BYTES,
  PROP_DOWNLOADS,
  PROP_DOWNLOAD_BYTES,
};

enum
{
  PROP_FRAMING_FIRST = 0x1000,
  PROP_FRAME_LENGTH = PROP_FRAMING_FIRST,
  PROP_FRAME_SHIFT,
  PROP_WINDOW,
  PROP_PREEMPHASIS,
  PROP_PAD,
};

GType
gst_afet_window_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {GST_AFET_WINDOW_HAMMING, "Hamming (0.54 - 0.46 cos)", "hamming"},
    {GST_AFET_WINDOW_HANN, "Hann (0.5 - 0.5 cos)", "hann"},
    {GST_AFET_WINDOW_POVEY, "Povey (Hann to the power 0.85, as Kaldi)",
        "povey"},
    {GST_AFET_WINDOW_RECTANGULAR, "Rectangular (no window)", "rectangular"},
    {GST_AFET_WINDOW_BLACKMAN, "Blackman (0.42, 0.5, 0.08)", "blackman"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&id))
    g_once_init_leave (&id, g_enum_register_static ("GstAfetWindow", values));
  return (GType) id;
}

GType
gst_afet_preset_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {GST_AFET_PRESET_HTK, "HTK 3.4 HCopy conventions and column order",
        "htk"},
    {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&id))
    g_once_init_leave (&id, g_enum_register_static ("GstAfetPreset", values));
  return (GType) id;
}

/* *INDENT-OFF* */
struct GstAfetBaseState
{
  /* properties, guarded by the object lock */
  std::string device_request = DEFAULT_DEVICE;
  bool device_explicit = false;      /* device set to other than auto */
  guint max_batch = DEFAULT_MAX_BATCH;
  gboolean device_memory = DEFAULT_DEVICE_MEMORY;
  gdouble frame_length = DEFAULT_FRAME_LENGTH;
  gdouble frame_shift = DEFAULT_FRAME_SHIFT;
  GstAfetWindow window = DEFAULT_WINDOW;
  gdouble preemphasis = DEFAULT_PREEMPHASIS;
  gboolean pad = DEFAULT_PAD;
  guint framing_set = 0;             /* 1 << (prop - PROP_FRAMING_FIRST) */

  /* the shared device context (set by the application, found through a
   * neighbour, or made in start), object lock */
  GstAfetContext *context = nullptr;

  /* between start and stop */
  std::shared_ptr<afet::Device> device;
  std::string device_name;
  afet::ClQueue queue;               /* this element's own queue */
  std::shared_ptr<afet::TransferStats> stats =
      std::make_shared<afet::TransferStats> ();

  /* negotiated */
  bool configured = false;
  GstAfetInput in;
  AfetFeaturesInfo out;
  bool in_device = false;            /* input caps: memory:AfetCLMemory */
  bool out_device = false;           /* output caps: memory:AfetCLMemory */
  GstBufferPool *pool = nullptr;     /* device output */
  afet::ClMem staging;               /* system output: max_batch x dims */

  /* window elements: what they declared in configure, and their input
   * rows on the device */
  bool windowed = false;
  afet::RowHistory::Extent extent;
  afet::RowHistory history;

  /* streaming state */
  afet::FrameStream stream;          /* input not yet computed */
  GstClockTime t0 = GST_CLOCK_TIME_NONE;
  guint64 frames_out = 0;
  bool have_data = false;            /* anything taken since t0 */
  guint64 units_in = 0;              /* samples (audio) or frames taken
                                      * since t0 */
  GstClockTime run_end = 0;          /* where a run without timestamps
                                      * starts: the previous run's end */
  bool warned_nonfinite = false;     /* once per run */
  std::string last_refusal;          /* the negotiation error last posted */
  guint refusals = 0;                /* negotiation errors posted */
  std::deque<GstBuffer *> outq;
  bool live = false;
  bool live_checked = false;
};
/* *INDENT-ON* */

typedef struct
{
  GstAfetBaseState *state;      /* C++ state: new in init, delete in finalize */
} GstAfetBasePrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstAfetBase, gst_afet_base,
    GST_TYPE_BASE_TRANSFORM);

static inline GstAfetBaseState *
PRIV (GstAfetBase * self)
{
  return ((GstAfetBasePrivate *)
      gst_afet_base_get_instance_private (self))->state;
}

static void gst_afet_base_finalize (GObject * object);
static void gst_afet_base_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_afet_base_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static gboolean gst_afet_base_start (GstBaseTransform * trans);
static gboolean gst_afet_base_stop (GstBaseTransform * trans);
static GstCaps *gst_afet_base_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);
static GstCaps *gst_afet_base_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps);
static gboolean gst_afet_base_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static gboolean gst_afet_base_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static gboolean gst_afet_base_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);
static GstFlowReturn gst_afet_base_submit_input_buffer (GstBaseTransform *
    trans, gboolean is_discont, GstBuffer * input);
static GstFlowReturn gst_afet_base_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf);
static gboolean gst_afet_base_decide_allocation (GstBaseTransform * trans,
    GstQuery * query);
static void gst_afet_base_set_context (GstElement * element,
    GstContext * context);

static void
gst_afet_base_class_init (GstAfetBaseClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_afet_base_debug, "afetbase", 0,
      "afet base class");
  GST_DEBUG_CATEGORY_INIT (afet_transfer_debug, "afettransfer", 0,
      "afet host <-> device transfers");

  gobject_class->finalize = gst_afet_base_finalize;
  gobject_class->set_property = gst_afet_base_set_property;
  gobject_class->get_property = gst_afet_base_get_property;

  g_object_class_install_property (gobject_class, PROP_DEVICE,
      g_param_spec_string ("device", "Device",
          "OpenCL device: auto (AFET_DEVICE if set, else the first GPU, else "
          "the first CPU device), gpu, cpu, P:D (platform:device indices as "
          "clinfo -l lists them) or part of a device name",
          DEFAULT_DEVICE, (GParamFlags) (G_PARAM_READWRITE |
              G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property (gobject_class, PROP_DEVICE_NAME,
      g_param_spec_string ("device-name", "Device name",
          "Name of the OpenCL device in use (empty before READY->PAUSED)",
          "", (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
  g_object_class_install_property (gobject_class, PROP_MAX_BATCH,
      g_param_spec_uint ("max-batch", "Maximum batch",
          "Most frames computed in one device launch. A live source is "
          "processed buffer by buffer; otherwise frames are gathered up to "
          "this many before a launch", 8, 1 << 20, DEFAULT_MAX_BATCH,
          (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
              GST_PARAM_MUTABLE_READY)));

  g_object_class_install_property (gobject_class, PROP_DEVICE_MEMORY,
      g_param_spec_boolean ("device-memory", "Device memory",
          "Hand buffers to other afet elements in OpenCL device memory "
          "(memory:AfetCLMemory) when they take it; false: always system "
          "memory", DEFAULT_DEVICE_MEMORY, (GParamFlags) (G_PARAM_READWRITE |
              G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property (gobject_class, PROP_UPLOADS,
      g_param_spec_uint64 ("uploads", "Uploads",
          "Host-to-device copies this element made so far", 0, G_MAXUINT64,
          0, (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
  g_object_class_install_property (gobject_class, PROP_UPLOAD_BYTES,
      g_param_spec_uint64 ("upload-bytes", "Upload bytes",
          "Bytes copied from host to device so far", 0, G_MAXUINT64, 0,
          (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
  g_object_class_install_property (gobject_class, PROP_DOWNLOADS,
      g_param_spec_uint64 ("downloads", "Downloads",
          "Device-to-host copies of this element's data so far (its own, "
          "and those made when others map its device memory)", 0,
          G_MAXUINT64, 0, (GParamFlags) (G_PARAM_READABLE |
              G_PARAM_STATIC_STRINGS)));
  g_object_class_install_property (gobject_class, PROP_DOWNLOAD_BYTES,
      g_param_spec_uint64 ("download-bytes", "Download bytes",
          "Bytes copied from device to host so far", 0, G_MAXUINT64, 0,
          (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));

  GST_ELEMENT_CLASS (klass)->set_context =
      GST_DEBUG_FUNCPTR (gst_afet_base_set_context);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_afet_base_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_afet_base_stop);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_afet_base_transform_caps);
  trans_class->fixate_caps = GST_DEBUG_FUNCPTR (gst_afet_base_fixate_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_afet_base_set_caps);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_afet_base_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_afet_base_query);
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_afet_base_submit_input_buffer);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_afet_base_generate_output);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_afet_base_decide_allocation);
  trans_class->passthrough_on_same_caps = FALSE;

  gst_type_mark_as_plugin_api (GST_TYPE_AFET_BASE, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_AFET_WINDOW, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_AFET_PRESET, (GstPluginAPIFlags) 0);
}

static void
gst_afet_base_init (GstAfetBase * self)
{
  ((GstAfetBasePrivate *) gst_afet_base_get_instance_private (self))->state =
      new GstAfetBaseState ();
}

static void
clear_queue (GstAfetBaseState * p)
{
  for (GstBuffer *b : p->outq)
    gst_buffer_unref (b);
  p->outq.clear ();
}

static void
gst_afet_base_finalize (GObject * object)
{
  GstAfetBase *self = GST_AFET_BASE (object);
  GstAfetBaseState *p = PRIV (self);
  clear_queue (p);
  gst_clear_object (&p->context);
  delete p;
  G_OBJECT_CLASS (gst_afet_base_parent_class)->finalize (object);
}

void
gst_afet_base_class_install_framing_properties (GObjectClass * klass)
{
  GstAfetBaseClass *base = (GstAfetBaseClass *) klass;
  base->frames_audio = TRUE;

  g_object_class_install_property (klass, PROP_FRAME_LENGTH,
      g_param_spec_double ("frame-length", "Frame length",
          "Analysis window in milliseconds; W = (int) (ms x rate / 1000) "
          "samples, as HTK truncates it", 1.0, 1000.0, DEFAULT_FRAME_LENGTH,
          (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
              GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property (klass, PROP_FRAME_SHIFT,
      g_param_spec_double ("frame-shift", "Frame shift",
          "Frame period in milliseconds; S = (int) (ms x rate / 1000) "
          "samples", 0.1, 1000.0, DEFAULT_FRAME_SHIFT,
          (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
              GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property (klass, PROP_WINDOW,
      g_param_spec_enum ("window", "Window", "Window function",
          GST_TYPE_AFET_WINDOW, DEFAULT_WINDOW,
          (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
              GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property (klass, PROP_PREEMPHASIS,
      g_param_spec_double ("preemphasis", "Pre-emphasis",
          "Pre-emphasis coefficient k, applied inside each frame as HTK "
          "does: y[i] = x[i] - k x[i-1], y[0] = (1 - k) x[0]; 0 = none",
          0.0, 1.0, DEFAULT_PREEMPHASIS,
          (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
              GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property (klass, PROP_PAD,
      g_param_spec_boolean ("pad", "Pad",
          "At EOS or DISCONT, zero-fill the incomplete last frame and emit "
          "it (false: drop it, as HTK does)", DEFAULT_PAD,
          (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
              GST_PARAM_MUTABLE_READY)));
}

gboolean
gst_afet_base_set_framing_property (GObject * object, guint prop_id,
    const GValue * value)
{
  GstAfetBase *self = GST_AFET_BASE (object);
  GstAfetBaseState *p = PRIV (self);
  gboolean handled = TRUE;

  GST_OBJECT_LOCK (self);
  if (prop_id >= PROP_FRAME_LENGTH && prop_id <= PROP_PAD)
    p->framing_set |= 1u << (prop_id - PROP_FRAMING_FIRST);
  switch (prop_id) {
    case PROP_FRAME_LENGTH:
      p->frame_length = g_value_get_double (value);
      break;
    case PROP_FRAME_SHIFT:
      p->frame_shift = g_value_get_double (value);
      break;
    case PROP_WINDOW:
      p->window = (GstAfetWindow) g_value_get_enum (value);
      break;
    case PROP_PREEMPHASIS:
      p->preemphasis = g_value_get_double (value);
      break;
    case PROP_PAD:
      p->pad = g_value_get_boolean (value);
      break;
    default:
      handled = FALSE;
      break;
  }
  GST_OBJECT_UNLOCK (self);
  return handled;
}

gboolean
gst_afet_base_get_framing_property (GObject * object, guint prop_id,
    GValue * value)
{
  GstAfetBase *self = GST_AFET_BASE (object);
  GstAfetBaseState *p = PRIV (self);
  gboolean handled = TRUE;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_FRAME_LENGTH:
      g_value_set_double (value, p->frame_length);
      break;
    case PROP_FRAME_SHIFT:
      g_value_set_double (value, p->frame_shift);
      break;
    case PROP_WINDOW:
      g_value_set_enum (value, p->window);
      break;
    case PROP_PREEMPHASIS:
      g_value_set_double (value, p->preemphasis);
      break;
    case PROP_PAD:
      g_value_set_boolean (value, p->pad);
      break;
    default:
      handled = FALSE;
      break;
  }
  GST_OBJECT_UNLOCK (self);
  return handled;
}

static void
gst_afet_base_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAfetBase *self = GST_AFET_BASE (object);
  GstAfetBaseState *p = PRIV (self);

  switch (prop_id) {
    case PROP_DEVICE:{
      const gchar *s = g_value_get_string (value);
      GST_OBJECT_LOCK (self);
      p->device_request = s ? s : DEFAULT_DEVICE;
      p->device_explicit = s && *s && g_ascii_strcasecmp (s, "auto") != 0;
      GST_OBJECT_UNLOCK (self);
      break;
    }
    case PROP_MAX_BATCH:
      GST_OBJECT_LOCK (self);
      p->max_batch = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_DEVICE_MEMORY:
      GST_OBJECT_LOCK (self);
      p->device_memory = g_value_get_boolean (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_afet_base_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstAfetBase *self = GST_AFET_BASE (object);
  GstAfetBaseState *p = PRIV (self);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_DEVICE:
      g_value_set_string (value, p->device_request.c_str ());
      break;
    case PROP_DEVICE_NAME:
      g_value_set_string (value, p->device_name.c_str ());
      break;
    case PROP_MAX_BATCH:
      g_value_set_uint (value, p->max_batch);
      break;
    case PROP_DEVICE_MEMORY:
      g_value_set_boolean (value, p->device_memory);
      break;
    case PROP_UPLOADS:
      g_value_set_uint64 (value, p->stats->uploads);
      break;
    case PROP_UPLOAD_BYTES:
      g_value_set_uint64 (value, p->stats->upload_bytes);
      break;
    case PROP_DOWNLOADS:
      g_value_set_uint64 (value, p->stats->downloads);
      break;
    case PROP_DOWNLOAD_BYTES:
      g_value_set_uint64 (value, p->stats->download_bytes);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

std::shared_ptr<afet::Device>
gst_afet_base_get_device (GstAfetBase * self)
{
  return PRIV (self)->device;
}

void
gst_afet_base_set_window (GstAfetBase * self, gint back, gint ahead,
    gint row_dims)
{
  GstAfetBaseState *p = PRIV (self);
  p->windowed = true;
  p->extent = afet::RowHistory::Extent ();
  p->extent.back = back;
  p->extent.ahead = ahead;
  p->extent.row_dims = row_dims;
}

void
gst_afet_base_set_window_start (GstAfetBase * self, gint start_need)
{
  PRIV (self)->extent.start_need = start_need;
}

/* ---- state ------------------------------------------------------------ */

/* Ends the current run's state. A run without timestamps after it starts
 * where this one's input ended. */
static void
reset_stream (GstAfetBaseState * p)
{
  if (GST_CLOCK_TIME_IS_VALID (p->t0) && p->in.rate > 0) {
    guint64 samples = p->in.audio ? p->units_in :
        p->units_in * (guint64) p->in.S;
    p->run_end = p->t0 + gst_util_uint64_scale (samples, GST_SECOND,
        (guint64) p->in.rate);
  }
  p->units_in = 0;
  p->warned_nonfinite = false;
  p->stream.reset ();
  p->history.reset ();
  p->t0 = GST_CLOCK_TIME_NONE;
  p->frames_out = 0;
  p->have_data = false;
}

static void
release_engine (GstAfetBase * self)
{
  GstAfetBaseClass *klass = GST_AFET_BASE_GET_CLASS (self);
  GstAfetBaseState *p = PRIV (self);
  if (p->configured && klass->release)
    klass->release (self);
  p->configured = false;
  if (p->pool) {
    gst_buffer_pool_set_active (p->pool, FALSE);
    gst_clear_object (&p->pool);
  }
  p->staging.reset ();
  p->windowed = false;
  p->history.release ();
}

static void
gst_afet_base_set_context (GstElement * element, GstContext * context)
{
  GstAfetBase *self = GST_AFET_BASE (element);
  gst_afet_handle_set_context (element, context, &PRIV (self)->context);
  GST_ELEMENT_CLASS (gst_afet_base_parent_class)->set_context (element,
      context);
}

static void
post_device_error (GstAfetBase * self, const std::string & request,
    const afet::Status & st)
{
  if (st.code () == afet::Status::NO_PLATFORM)
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No OpenCL platform found: install an OpenCL driver (ICD), "
            "e.g. the pocl-opencl-icd package for the CPU."),
        ("%s", st.message ().c_str ()));
  else if (g_ascii_strcasecmp (request.c_str (), "auto") == 0 &&
      g_getenv ("AFET_DEVICE") && *g_getenv ("AFET_DEVICE"))
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No usable OpenCL device for the environment variable "
            "AFET_DEVICE=\"%s\" (the device property is auto): unset it or "
            "set it to auto, gpu, cpu, P:D or part of a device name.",
            g_getenv ("AFET_DEVICE")), ("%s", st.message ().c_str ()));
  else
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No usable OpenCL device for device=\"%s\".", request.c_str ()),
        ("%s", st.message ().c_str ()));
}

/* An OpenCL failure while running: the cause (the call, the OpenCL error
 * and what to do) is the error's own text. */
static void
post_engine_error (GstAfetBase * self, const gchar * what)
{
  GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
      ("%s: the OpenCL device failed: %s", GST_ELEMENT_NAME (self), what),
      (nullptr));
}

/* Device precedence: an explicit device property, then a context set by the
 * application (or shared by a neighbour), then AFET_DEVICE, then auto. */
static gboolean
gst_afet_base_start (GstBaseTransform * trans)
{
  GstAfetBase *self = GST_AFET_BASE (trans);
  GstAfetBaseState *p = PRIV (self);

  GST_OBJECT_LOCK (self);
  std::string request = p->device_request;
  bool explicit_device = p->device_explicit;
  GST_OBJECT_UNLOCK (self);

  afet::Status st;
  if (explicit_device) {
    std::shared_ptr<afet::Device> device;
    bool created = false;
    st = afet::acquire_device (request, &device, &created);
    if (!st.ok ()) {
      post_device_error (self, request, st);
      return FALSE;
    }
    if (created)
      GST_INFO_OBJECT (self, "created the shared OpenCL context on %s "
          "(request \"%s\")", device->info ().describe ().c_str (),
          request.c_str ());
    GstAfetContext *ctx = gst_afet_context_new (device);
    GST_OBJECT_LOCK (self);
    GstAfetContext *old = p->context;
    p->context = ctx;
    GST_OBJECT_UNLOCK (self);
    if (old)
      gst_object_unref (old);
  } else if (!gst_afet_ensure_element_context (GST_ELEMENT (self),
          request.c_str (), &p->context, &st)) {
    post_device_error (self, request, st);
    return FALSE;
  }

  std::shared_ptr<afet::Device> device =
      gst_afet_context_get_device (p->context);
  st = device->create_queue (&p->queue);
  if (!st.ok ()) {
    post_engine_error (self, st.message ().c_str ());
    return FALSE;
  }
  GST_DEBUG_OBJECT (self, "running on %s", device->info ().describe ().
      c_str ());
  GST_OBJECT_LOCK (self);
  p->device = device;
  p->device_name = device->info ().device_name;
  GST_OBJECT_UNLOCK (self);
  reset_stream (p);
  p->run_end = 0;
  p->last_refusal.clear ();
  p->live_checked = false;
  return TRUE;
}

static gboolean
gst_afet_base_stop (GstBaseTransform * trans)
{
  GstAfetBase *self = GST_AFET_BASE (trans);
  GstAfetBaseState *p = PRIV (self);

  release_engine (self);
  clear_queue (p);
  reset_stream (p);
  if (p->queue)
    clFinish (p->queue.get ());
  p->queue.reset ();
  GST_OBJECT_LOCK (self);
  p->device.reset ();
  GstAfetContext *ctx = p->context;
  p->context = nullptr;
  GST_OBJECT_UNLOCK (self);
  /* an application-set context is set again by the application; ours and a
   * neighbour's are found again at the next start */
  if (ctx)
    gst_object_unref (ctx);
  return TRUE;
}

/* ---- negotiation ------------------------------------------------------ */

static afet::Window
to_engine_window (GstAfetWindow w)
{
  switch (w) {
    case GST_AFET_WINDOW_HANN:
      return afet::Window::HANN;
    case GST_AFET_WINDOW_POVEY:
      return afet::Window::POVEY;
    case GST_AFET_WINDOW_RECTANGULAR:
      return afet::Window::RECTANGULAR;
    case GST_AFET_WINDOW_BLACKMAN:
      return afet::Window::BLACKMAN;
    default:
      return afet::Window::HAMMING;
  }
}

afet::FramingConfig
gst_afet_base_framing_config (const GstAfetInput * in)
{
  afet::FramingConfig f;
  f.rate = in->rate;
  f.W = in->W;
  f.S = in->S;
  f.window = in->window;
  f.preemph = in->preemph;
  return f;
}

static afet::Window to_engine_window (GstAfetWindow w);

/* Framing properties set on an element fed frames: the frames were cut
 * upstream, so a value that differs from theirs (or one the caps do not
 * record) would be silently ignored. NULL if none conflicts. */
static gchar *
framing_conflict (GstAfetBase * self, const GstAfetInput * in)
{
  GstAfetBaseState *p = PRIV (self);
  GST_OBJECT_LOCK (self);
  guint set = p->framing_set;
  double length = p->frame_length, shift = p->frame_shift;
  afet::Window window = to_engine_window (p->window);
  GST_OBJECT_UNLOCK (self);
  auto is_set = [set](guint prop) {
    return (set & (1u << (prop - PROP_FRAMING_FIRST))) != 0;
  };
  const char *what = nullptr;
  if (is_set (PROP_FRAME_LENGTH) &&
      afet::frame_samples (length, in->rate) != in->W)
    what = "frame-length";
  else if (is_set (PROP_FRAME_SHIFT) &&
      afet::frame_samples (shift, in->rate) != in->S)
    what = "frame-shift";
  else if (is_set (PROP_WINDOW) && window != in->window)
    what = "window";
  else if (is_set (PROP_PREEMPHASIS))
    what = "preemphasis";
  else if (is_set (PROP_PAD))
    what = "pad";
  if (!what)
    return nullptr;
  return g_strdup_printf ("%s is set on %s, but its input is frames already "
      "cut upstream (%d samples every %d at %d Hz), which it would ignore: "
      "set %s on the element that frames the audio (afetframer), or unset "
      "it here", what, GST_ELEMENT_NAME (self), in->W, in->S, in->rate,
      what);
}

gboolean
gst_afet_base_check_frames_input (GstAfetBase * self, const GstAfetInput * in,
    gchar ** why)
{
  if (in->audio)
    return TRUE;
  if (in->features.kind != AFET_FEATURES_KIND_FRAMES ||
      in->features.statics < in->W || in->features.delta_order != 0) {
    *why = g_strdup_printf ("%s takes audio or afetframer's kind=frames "
        "stream", GST_ELEMENT_NAME (self));
    return FALSE;
  }
  *why = framing_conflict (self, in);
  return *why == nullptr;
}

AfetFeaturesWindow
gst_afet_base_caps_window (afet::Window w)
{
  switch (w) {
    case afet::Window::HANN:
      return AFET_FEATURES_WINDOW_HANN;
    case afet::Window::POVEY:
      return AFET_FEATURES_WINDOW_POVEY;
    case afet::Window::RECTANGULAR:
      return AFET_FEATURES_WINDOW_RECTANGULAR;
    case afet::Window::BLACKMAN:
      return AFET_FEATURES_WINDOW_BLACKMAN;
    default:
      return AFET_FEATURES_WINDOW_HAMMING;
  }
}

static afet::Window
features_window (AfetFeaturesWindow w)
{
  switch (w) {
    case AFET_FEATURES_WINDOW_HANN:
      return afet::Window::HANN;
    case AFET_FEATURES_WINDOW_POVEY:
      return afet::Window::POVEY;
    case AFET_FEATURES_WINDOW_RECTANGULAR:
      return afet::Window::RECTANGULAR;
    case AFET_FEATURES_WINDOW_BLACKMAN:
      return afet::Window::BLACKMAN;
    default:
      return afet::Window::HAMMING;
  }
}

/* Parses fixed sink caps into an input description; FALSE with a reason. */
static gboolean
parse_input (GstAfetBase * self, GstCaps * caps, GstAfetInput * in,
    gchar ** why)
{
  GstAfetBaseClass *klass = GST_AFET_BASE_GET_CLASS (self);
  GstAfetBaseState *p = PRIV (self);
  GstStructure *s = gst_caps_get_structure (caps, 0);

  GST_OBJECT_LOCK (self);
  double frame_length = p->frame_length, frame_shift = p->frame_shift;
  in->window = to_engine_window (p->window);
  in->preemph = (float) p->preemphasis;
  in->pad = p->pad;
  in->max_batch = (int) p->max_batch;
  GST_OBJECT_UNLOCK (self);

  if (gst_structure_has_name (s, "audio/x-raw")) {
    if (!gst_audio_info_from_caps (&in->audio_info, caps)) {
      *why = g_strdup ("cannot parse the audio caps");
      return FALSE;
    }
    if (GST_AUDIO_INFO_CHANNELS (&in->audio_info) != 1) {
      *why = g_strdup_printf ("%s takes mono audio, got %d channels: put "
          "audioconvert before it", GST_ELEMENT_NAME (self),
          GST_AUDIO_INFO_CHANNELS (&in->audio_info));
      return FALSE;
    }
    in->audio = true;
    in->rate = GST_AUDIO_INFO_RATE (&in->audio_info);
    in->W = afet::frame_samples (frame_length, in->rate);
    in->S = afet::frame_samples (frame_shift, in->rate);
    in->in_dims = 1;
    if (in->W < 2 || in->S < 1) {
      *why = g_strdup_printf ("frame-length %.3f ms / frame-shift %.3f ms "
          "give %d / %d samples at %d Hz: each must be at least 2 / 1",
          frame_length, frame_shift, in->W, in->S, in->rate);
      return FALSE;
    }
    if (!klass->frames_audio) {
      *why = g_strdup_printf ("%s takes feature streams, not audio",
          GST_ELEMENT_NAME (self));
      return FALSE;
    }
    return TRUE;
  }

  afet_features_info_init (&in->features);
  if (!afet_features_info_from_caps (&in->features, caps)) {
    *why = g_strdup ("invalid application/x-afet-features caps (see the "
        "afetfeatures debug log for the field)");
    return FALSE;
  }
  in->audio = false;
  in->rate = in->features.rate;
  in->W = in->features.frame_length;
  in->S = in->features.frame_shift;
  in->in_dims = in->features.dims;
  in->window = features_window (in->features.window);
  return TRUE;
}

static gboolean
describe (GstAfetBase * self, GstCaps * caps, GstAfetInput * in,
    AfetFeaturesInfo * out, gchar ** why)
{
  GstAfetBaseClass *klass = GST_AFET_BASE_GET_CLASS (self);
  if (!parse_input (self, caps, in, why))
    return FALSE;
  afet_features_info_init (out);
  return klass->describe (self, in, out, why);
}

static gboolean
caps_have_cl_feature (const GstCaps * caps, guint idx)
{
  GstCapsFeatures *f = gst_caps_get_features (caps, idx);
  return f && !gst_caps_features_is_any (f) &&
      gst_caps_features_contains (f, AFET_CAPS_FEATURE_MEMORY_CL);
}

static gboolean
caps_name_cl_feature (const GstCaps * caps)
{
  if (!caps || gst_caps_is_any (caps))
    return FALSE;
  for (guint i = 0; i < gst_caps_get_size (caps); i++)
    if (caps_have_cl_feature (caps, i))
      return TRUE;
  return FALSE;
}

/* The exact output caps for fixed input caps, device memory first when
 * allowed, then system memory. */
static GstCaps *
output_caps (GstAfetBase * self, GstCaps * caps)
{
  GstAfetInput in;
  AfetFeaturesInfo out;
  gchar *why = nullptr;
  if (!describe (self, caps, &in, &out, &why)) {
    GST_DEBUG_OBJECT (self, "no output for %" GST_PTR_FORMAT ": %s", caps,
        why);
    g_free (why);
    return nullptr;
  }
  GstCaps *sys = afet_features_info_to_caps (&out);
  GST_OBJECT_LOCK (self);
  gboolean device_memory = PRIV (self)->device_memory;
  GST_OBJECT_UNLOCK (self);
  if (!device_memory)
    return sys;
  GstCaps *dev = gst_caps_copy (sys);
  gst_caps_set_features (dev, 0,
      gst_caps_features_new (AFET_CAPS_FEATURE_MEMORY_CL, nullptr));
  gst_caps_append (dev, sys);
  return dev;
}

/* Drops the device-memory structures of caps if device memory is off. */
static GstCaps *
filter_memory (GstAfetBase * self, GstCaps * caps)
{
  GST_OBJECT_LOCK (self);
  gboolean device_memory = PRIV (self)->device_memory;
  GST_OBJECT_UNLOCK (self);
  if (device_memory)
    return caps;
  GstCaps *res = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++)
    if (!caps_have_cl_feature (caps, i))
      gst_caps_append_structure_full (res,
          gst_structure_copy (gst_caps_get_structure (caps, i)),
          gst_caps_features_copy (gst_caps_get_features (caps, i)));
  gst_caps_unref (caps);
  return res;
}

static GstCaps *
gst_afet_base_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstAfetBase *self = GST_AFET_BASE (trans);
  GstPad *other = direction == GST_PAD_SINK ?
      GST_BASE_TRANSFORM_SRC_PAD (trans) : GST_BASE_TRANSFORM_SINK_PAD (trans);
  GstCaps *result = nullptr;

  if (direction == GST_PAD_SINK && gst_caps_is_fixed (caps))
    result = output_caps (self, caps);
  if (!result)
    result = filter_memory (self, gst_pad_get_pad_template_caps (other));

  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, result,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (result);
    result = tmp;
  }
  GST_LOG_OBJECT (self, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, result);
  return result;
}

/* Device memory only when downstream names our memory feature explicitly:
 * a peer that takes ANY caps (fakesink, filesink, appsink) would otherwise
 * be handed the first structure, device memory it cannot read directly. */
static GstCaps *
gst_afet_base_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps)
{
  GstAfetBase *self = GST_AFET_BASE (trans);
  if (direction == GST_PAD_SINK && gst_caps_is_fixed (caps)) {
    GstCaps *exact = output_caps (self, caps);
    if (exact) {
      GstCaps *peer = gst_pad_peer_query_caps (GST_BASE_TRANSFORM_SRC_PAD
          (trans), nullptr);
      gboolean device = caps_name_cl_feature (peer) &&
          caps_name_cl_feature (exact);
      if (peer)
        gst_caps_unref (peer);
      GstCaps *res = gst_caps_copy_nth (exact, device ? 0 :
          gst_caps_get_size (exact) - 1);
      gst_caps_unref (exact);
      gst_caps_unref (othercaps);
      GST_DEBUG_OBJECT (self, "output in %s memory: %" GST_PTR_FORMAT,
          device ? "device" : "system", res);
      return res;
    }
  }
  return GST_BASE_TRANSFORM_CLASS (gst_afet_base_parent_class)->fixate_caps
      (trans, direction, caps, othercaps);
}

/* Posts why an input format cannot be taken, as the pipeline's error (the
 * not-negotiated that follows says only that it failed); once for the same
 * reason, however often GstBaseTransform or the pads ask again. */
static void
post_refusal (GstAfetBase * self, GstCaps * caps, const gchar * reason)
{
  GstAfetBaseState *p = PRIV (self);
  GST_OBJECT_LOCK (self);
  bool again = p->last_refusal == reason;
  p->last_refusal = reason;
  GST_OBJECT_UNLOCK (self);
  if (again)
    return;
  GST_OBJECT_LOCK (self);
  p->refusals++;
  GST_OBJECT_UNLOCK (self);
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", reason),
      ("input caps %" GST_PTR_FORMAT, caps));
}

static gboolean
gst_afet_base_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstAfetBase *self = GST_AFET_BASE (trans);
  GstAfetBaseClass *klass = GST_AFET_BASE_GET_CLASS (self);
  GstAfetBaseState *p = PRIV (self);
  GstAfetInput in;
  AfetFeaturesInfo out;
  gchar *why = nullptr;

  GST_DEBUG_OBJECT (self, "in %" GST_PTR_FORMAT " out %" GST_PTR_FORMAT,
      incaps, outcaps);
  release_engine (self);
  reset_stream (p);

  if (!describe (self, incaps, &in, &out, &why)) {
    gchar *msg = g_strdup_printf ("%s cannot take this input: %s",
        GST_ELEMENT_NAME (self), why);
    post_refusal (self, incaps, msg);
    g_free (msg);
    g_free (why);
    return FALSE;
  }
  AfetFeaturesInfo negotiated;
  if (!afet_features_info_from_caps (&negotiated, outcaps) ||
      !afet_features_info_is_equal (&negotiated, &out)) {
    gchar *msg = g_strdup_printf ("%s: downstream refused the output format "
        "%" GST_PTR_FORMAT, GST_ELEMENT_NAME (self), outcaps);
    post_refusal (self, incaps, msg);
    g_free (msg);
    return FALSE;
  }
  if (!p->device) {
    GST_ELEMENT_ERROR (self, CORE, STATE_CHANGE, ("No OpenCL device"),
        ("set_caps before start"));
    return FALSE;
  }
  /* every buffer of a batch must fit one device allocation */
  size_t row_floats = (size_t) MAX (in.in_dims, out.dims);
  if (klass->frames_audio)
    row_floats = MAX (row_floats, (size_t) MAX (in.S,
            afet::next_pow2 (in.W) + 2));
  int limit = p->device->info ().batch_limit (2 * row_floats *
      sizeof (float), in.max_batch);
  if (limit < in.max_batch) {
    GST_INFO_OBJECT (self, "max-batch %d clamped to %d: the device "
        "allocates at most %" G_GSIZE_FORMAT " bytes at once", in.max_batch,
        limit, p->device->info ().max_alloc_bytes);
    in.max_batch = limit;
  }
  p->windowed = false;
  if (!klass->configure (self, p->device, p->queue.get (), p->stats.get (),
          &in, &out, &why)) {
    gchar *msg = g_strdup_printf ("%s cannot run with these settings: %s",
        GST_ELEMENT_NAME (self), why);
    post_refusal (self, incaps, msg);
    g_free (msg);
    g_free (why);
    return FALSE;
  }
  p->in = in;
  p->out = out;
  p->in_device = caps_have_cl_feature (incaps, 0);
  p->out_device = caps_have_cl_feature (outcaps, 0);

  /* where outputs are computed: our pool of device buffers, or one staging
   * buffer downloaded into system memory */
  const gsize batch_bytes = (gsize) in.max_batch * out.dims * sizeof (float);
  afet::Status st;
  if (p->out_device) {
    p->pool = gst_afet_cl_buffer_pool_new (p->device, p->queue.get (),
        p->stats);
    GstStructure *config = gst_buffer_pool_get_config (p->pool);
    gst_buffer_pool_config_set_params (config, outcaps, (guint) batch_bytes,
        0, 0);
    if (!gst_buffer_pool_set_config (p->pool, config) ||
        !gst_buffer_pool_set_active (p->pool, TRUE))
      st = afet::Status (afet::Status::OPENCL, "cannot start the device "
          "buffer pool");
  } else {
    st = afet::make_buffer (p->device->context (), CL_MEM_READ_WRITE,
        batch_bytes, nullptr, &p->staging);
  }
  if (st.ok () && p->windowed)
    st = p->history.init (p->device->context (), p->queue.get (), p->extent,
        in.max_batch);
  afet::FrameStream::Shape shape;
  shape.audio = in.audio;
  shape.W = in.W;
  shape.S = in.S;
  shape.row = in.in_dims;
  shape.max_batch = in.max_batch;
  shape.pad = in.pad;
  p->stream.configure (shape);
  if (!st.ok ()) {
    post_engine_error (self, st.message ().c_str ());
    return FALSE;
  }
  p->configured = true;
  GST_OBJECT_LOCK (self);
  p->last_refusal.clear ();
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "input in %s memory, output in %s memory",
      p->in_device ? "device" : "system", p->out_device ? "device" : "system");
  return TRUE;
}

static gboolean
gst_afet_base_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstAfetBaseState *p = PRIV (GST_AFET_BASE (trans));
  GstCaps *caps = nullptr;
  gst_query_parse_allocation (query, &caps, nullptr);
  if (caps && caps_have_cl_feature (caps, 0)) {
    /* device buffers come from our own pool (made at set_caps, which runs
     * after this): tell downstream nothing else */
    while (gst_query_get_n_allocation_pools (query) > 0)
      gst_query_remove_nth_allocation_pool (query, 0);
    return TRUE;
  }
  (void) p;
  return GST_BASE_TRANSFORM_CLASS (gst_afet_base_parent_class)->
      decide_allocation (trans, query);
}

/* ---- streaming -------------------------------------------------------- */

static void
log_transfers (GstAfetBase * self, const char *what)
{
  GstAfetBaseState *p = PRIV (self);
  GST_CAT_LOG_OBJECT (afet_transfer_debug, self, "%s: uploads %"
      G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT " bytes), downloads %"
      G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT " bytes)", what,
      (guint64) p->stats->uploads, (guint64) p->stats->upload_bytes,
      (guint64) p->stats->downloads, (guint64) p->stats->download_bytes);
}

/* Computes n frames into a new output buffer: input from the host (pending)
 * or from rows of a device buffer (device input, already synchronised).
 * Device output is left on the device with its completion event; system
 * output is downloaded batch by batch. */
static GstFlowReturn
compute (GstAfetBase * self, gint64 n, const GstAfetBatch * proto,
    GstMemory * in_mem, GstBuffer ** out)
{
  GstAfetBaseClass *klass = GST_AFET_BASE_GET_CLASS (self);
  GstAfetBaseState *p = PRIV (self);
  const int dims = p->out.dims;
  const gint64 max_batch = p->in.max_batch;
  const gsize bytes = (gsize) n * dims * sizeof (float);
  cl_command_queue q = p->queue.get ();
  afet::Status st;
  GstBuffer *buf = nullptr;
  GstMemory *out_mem = nullptr;
  cl_mem target = p->staging.get ();
  GstMapInfo map = GST_MAP_INFO_INIT;
  gchar *why = nullptr;
  gboolean ok = TRUE;

  if (p->out_device) {
    if (n <= max_batch) {
      if (gst_buffer_pool_acquire_buffer (p->pool, &buf, nullptr) !=
          GST_FLOW_OK) {
        post_engine_error (self, "no buffer from the device pool");
        return GST_FLOW_ERROR;
      }
      gst_buffer_set_size (buf, bytes);
    } else {
      GstMemory *m = gst_afet_cl_memory_new (p->device, q, p->stats, bytes,
          &st);
      if (!m) {
        post_engine_error (self, st.message ().c_str ());
        return GST_FLOW_ERROR;
      }
      buf = gst_buffer_new ();
      gst_buffer_append_memory (buf, m);
    }
    out_mem = gst_buffer_peek_memory (buf, 0);
    /* the buffer may come back from the pool while a reader's kernels
     * still use it */
    st = gst_afet_cl_memory_sync (out_mem, q, TRUE);
    if (gst_memory_map (out_mem, &map, (GstMapFlags) (GST_MAP_WRITE |
                GST_MAP_AFET_CL))) {
      target = (cl_mem) map.data;
    } else {
      ok = FALSE;
      why = g_strdup ("cannot map the output device memory");
    }
  } else {
    buf = gst_buffer_new_allocate (nullptr, bytes, nullptr);
    if (!gst_buffer_map (buf, &map, GST_MAP_WRITE)) {
      ok = FALSE;
      why = g_strdup ("cannot map an output buffer");
    }
  }
  if (ok && !st.ok ()) {
    ok = FALSE;
    why = g_strdup (st.message ().c_str ());
  }

  cl_mem in_cl = nullptr;
  GstMapInfo in_map = GST_MAP_INFO_INIT;
  if (ok && in_mem) {
    if (gst_memory_map (in_mem, &in_map, (GstMapFlags) (GST_MAP_READ |
                GST_MAP_AFET_CL))) {
      in_cl = (cl_mem) in_map.data;
    } else {
      ok = FALSE;
      why = g_strdup ("cannot map the input device memory");
    }
  }

  for (gint64 done = 0; ok && done < n;) {
    gint b = (gint) MIN (n - done, max_batch);
    GstAfetBatch batch = *proto;
    if (in_cl) {
      batch.device = in_cl;
      batch.in_row = (size_t) done;
    } else if (proto->host) {
      size_t step = p->in.audio ? (size_t) p->in.S : (size_t) p->in.in_dims;
      batch.host = proto->host + (size_t) done * step;
    } else {
      batch.out_first = proto->out_first + done;
    }
    gsize out_row = p->out_device ? (gsize) done : 0;
    ok = klass->process (self, &batch, b, target, out_row, &why);
    if (ok && !p->out_device) {
      st = afet::download (q, target, 0, (size_t) b * dims * sizeof (float),
          map.data + (gsize) done * dims * sizeof (float), p->stats.get ());
      if (!st.ok ()) {
        ok = FALSE;
        why = g_strdup (st.message ().c_str ());
      }
    }
    done += b;
  }

  /* completion of this work: the output's write, the input's read */
  if (ok && (p->out_device || in_cl)) {
    cl_event ev = nullptr;
    cl_int err = clEnqueueMarkerWithWaitList (q, 0, nullptr, &ev);
    if (err != CL_SUCCESS) {
      ok = FALSE;
      why = g_strdup_printf ("clEnqueueMarkerWithWaitList: %s",
          afet::cl_error_name (err));
    } else {
      clFlush (q);
      if (in_cl) {
        clRetainEvent (ev);
        gst_afet_cl_memory_add_read_event (in_mem, ev);
      }
      if (p->out_device)
        gst_afet_cl_memory_set_write_event (out_mem, ev);
      else
        clReleaseEvent (ev);
    }
  }
  if (in_cl)
    gst_memory_unmap (in_mem, &in_map);
  if (p->out_device) {
    if (map.data)
      gst_memory_unmap (out_mem, &map);
  } else if (map.data) {
    gst_buffer_unmap (buf, &map);
  }

  if (!ok) {
    gst_buffer_unref (buf);
    post_engine_error (self, why);
    g_free (why);
    return GST_FLOW_ERROR;
  }
  *out = buf;
  return GST_FLOW_OK;
}

/* Timestamps an output buffer of n frames and queues it for
 * generate_output / the EOS push. */
static void
queue_output (GstAfetBase * self, GstBuffer * buf, gint64 n)
{
  GstAfetBaseState *p = PRIV (self);
  const guint64 first = p->frames_out;
  const GstClockTime t0 = GST_CLOCK_TIME_IS_VALID (p->t0) ? p->t0 : 0;
  const guint64 S = (guint64) p->in.S, rate = (guint64) p->in.rate;
  GstClockTime start = t0 + gst_util_uint64_scale (first * S, GST_SECOND,
      rate);
  GstClockTime end = t0 + gst_util_uint64_scale ((first + n) * S,
      GST_SECOND, rate);
  GST_BUFFER_PTS (buf) = start;
  GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (buf) = end - start;
  GST_BUFFER_OFFSET (buf) = first;
  GST_BUFFER_OFFSET_END (buf) = first + n;
  if (first == 0)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  p->frames_out += n;
  GST_LOG_OBJECT (self, "%" G_GINT64_FORMAT " frames %" G_GUINT64_FORMAT
      "..%" G_GUINT64_FORMAT " at %" GST_TIME_FORMAT, n, first, first + n,
      GST_TIME_ARGS (start));
  log_transfers (self, "after a batch");
  p->outq.push_back (buf);
}

static GstFlowReturn window_emit (GstAfetBase * self, bool drain,
    bool force);

/* Window elements: makes room for m more rows in the device history,
 * computing what can be computed first, then growing it. */
static GstFlowReturn
window_room (GstAfetBase * self, gint64 m)
{
  GstAfetBaseState *p = PRIV (self);
  if (p->history.fits (m))
    return GST_FLOW_OK;
  GstFlowReturn ret = window_emit (self, false, true);
  if (ret != GST_FLOW_OK || p->history.fits (m))
    return ret;
  /* nothing can go yet (whole-run statistics) */
  afet::Status st = p->history.grow (m);
  if (!st.ok ()) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("%s: %s: use a sliding or running scope for runs this long.",
            GST_ELEMENT_NAME (self), st.message ().c_str ()), (nullptr));
    return GST_FLOW_ERROR;
  }
  GST_DEBUG_OBJECT (self, "frame history grown for %" G_GINT64_FORMAT
      " more rows", m);
  return GST_FLOW_OK;
}

/* Window elements with audio input: n frames of audio become rows of the
 * history through the subclass' pre_process. */
static GstFlowReturn
window_pre_process (GstAfetBase * self, gint64 n)
{
  GstAfetBaseClass *klass = GST_AFET_BASE_GET_CLASS (self);
  GstAfetBaseState *p = PRIV (self);
  for (gint64 done = 0; done < n;) {
    gint b = (gint) MIN (n - done, (gint64) p->in.max_batch);
    GstFlowReturn ret = window_room (self, b);
    if (ret != GST_FLOW_OK)
      return ret;
    GstAfetBatch batch;
    batch.host = p->stream.data () + (size_t) done * p->stream.step ();
    gchar *why = nullptr;
    if (!klass->pre_process (self, &batch, b, p->history.tail (),
            p->history.tail_row (), &why)) {
      post_engine_error (self, why);
      g_free (why);
      return GST_FLOW_ERROR;
    }
    p->history.commit (b);
    done += b;
  }
  return GST_FLOW_OK;
}

/* Window elements: m input rows from the host, or from rows of a device
 * buffer (already synchronised), appended to the history. */
static GstFlowReturn
window_push_rows (GstAfetBase * self, const float *host, cl_mem dev,
    gint64 m)
{
  GstAfetBaseState *p = PRIV (self);
  GST_LOG_OBJECT (self, "window: %" G_GINT64_FORMAT " rows in", m);
  const int row_dims = p->history.extent ().row_dims;
  gint64 src_row = 0;
  while (m > 0) {
    GstFlowReturn ret = window_room (self, 1);
    if (ret != GST_FLOW_OK)
      return ret;
    gint64 take = MIN (m, p->history.space ());
    afet::Status st = host ?
        p->history.append_host (host + src_row * row_dims, take,
        p->stats.get ()) : p->history.append_device (dev, (size_t) src_row,
        take);
    if (!st.ok ()) {
      post_engine_error (self, st.message ().c_str ());
      return GST_FLOW_ERROR;
    }
    src_row += take;
    m -= take;
    ret = window_emit (self, false, false);
    if (ret != GST_FLOW_OK)
      return ret;
  }
  return GST_FLOW_OK;
}

/* Window elements: computes the output frames whose look-ahead has arrived
 * (all of them when draining), in batches; then drops the rows no later
 * frame needs. force: compute even a small batch (the history is full). */
static GstFlowReturn
window_emit (GstAfetBase * self, bool drain, bool force)
{
  GstAfetBaseState *p = PRIV (self);
  const gint64 max_batch = p->in.max_batch;
  for (;;) {
    gint64 ready = p->history.ready (p->frames_out, drain);
    gint64 threshold = (drain || force || p->live) ? 1 : max_batch;
    if (ready <= 0 || ready < threshold)
      break;
    gint64 k = MIN (ready, max_batch);
    GST_LOG_OBJECT (self, "window: %" G_GINT64_FORMAT " rows received, "
        "computing %" G_GINT64_FORMAT " from %" G_GUINT64_FORMAT "%s",
        (gint64) p->history.received (), k, p->frames_out,
        drain ? " (end)" : "");
    GstAfetBatch batch;
    batch.block = p->history.block (drain);
    batch.device = batch.block.rows;
    batch.out_first = (gint64) p->frames_out;
    GstBuffer *buf = nullptr;
    GstFlowReturn ret = compute (self, k, &batch, nullptr, &buf);
    if (ret != GST_FLOW_OK)
      return ret;
    queue_output (self, buf, k);
    force = false;
    afet::Status st = p->history.drop_done (p->frames_out);
    if (!st.ok ()) {
      post_engine_error (self, st.message ().c_str ());
      return GST_FLOW_ERROR;
    }
  }
  return GST_FLOW_OK;
}

/* Computes the first n held frames. */
static GstFlowReturn
emit_frames (GstAfetBase * self, gint64 n)
{
  GstAfetBaseState *p = PRIV (self);
  GstBuffer *buf = nullptr;
  GstFlowReturn ret;
  if (p->windowed) {
    /* audio into history rows; output frames come from window_emit */
    ret = window_pre_process (self, n);
  } else {
    GstAfetBatch batch;
    batch.host = p->stream.data ();
    ret = compute (self, n, &batch, nullptr, &buf);
  }
  if (ret != GST_FLOW_OK)
    return ret;
  p->stream.consume (n);
  if (p->windowed)
    return window_emit (self, false, false);
  queue_output (self, buf, n);
  return GST_FLOW_OK;
}

/* Processes held frames: all of them when draining, otherwise batches of
 * max-batch (or, live, whatever is complete). */
static GstFlowReturn
process_pending (GstAfetBase * self, bool drain)
{
  GstAfetBaseState *p = PRIV (self);
  if (p->windowed && !p->in.audio) {
    /* feature input: every whole frame goes to the device history */
    gint64 m = p->stream.frames ();
    GstFlowReturn ret = GST_FLOW_OK;
    if (m > 0) {
      ret = window_push_rows (self, p->stream.data (), nullptr, m);
      p->stream.consume (m);
    }
    return ret;
  }
  for (;;) {
    gint n = p->stream.next_batch (drain || p->live);
    if (n == 0)
      break;
    GstFlowReturn ret = emit_frames (self, n);
    if (ret != GST_FLOW_OK)
      return ret;
  }
  return GST_FLOW_OK;
}

/* Ends the current run of frames (EOS, DISCONT, caps change): computes every
 * complete frame, then the zero-filled tail if pad is set. */
static GstFlowReturn
drain (GstAfetBase * self)
{
  GstAfetBaseState *p = PRIV (self);
  if (!p->configured)
    return GST_FLOW_OK;
  GstFlowReturn ret = process_pending (self, true);
  if (ret == GST_FLOW_OK && p->have_data && p->stream.pad_tail ())
    ret = emit_frames (self, 1);
  if (ret == GST_FLOW_OK && p->windowed)
    ret = window_emit (self, true, false);
  if (ret != GST_FLOW_OK)
    return ret;
  p->stream.reset ();
  p->have_data = false;
  return GST_FLOW_OK;
}

static GstFlowReturn
push_queued (GstAfetBase * self)
{
  GstAfetBaseState *p = PRIV (self);
  GstFlowReturn ret = GST_FLOW_OK;
  while (!p->outq.empty ()) {
    GstBuffer *b = p->outq.front ();
    p->outq.pop_front ();
    if (ret == GST_FLOW_OK)
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), b);
    else
      gst_buffer_unref (b);
  }
  return ret;
}

/* Drains and pushes the current run from an event handler (EOS, caps
 * change), where no flow return reaches upstream: a failure downstream is
 * posted as the pipeline's error, as a streaming thread's would be. */
static void
finish_run (GstAfetBase * self, const char *why)
{
  GstFlowReturn ret = drain (self);
  if (ret == GST_FLOW_OK) {
    ret = push_queued (self);
    if (ret == GST_FLOW_NOT_LINKED || ret < GST_FLOW_EOS) {
      GST_DEBUG_OBJECT (self, "pushing at %s: %s", why,
          gst_flow_get_name (ret));
      GST_ELEMENT_FLOW_ERROR (self, ret);
    }
  } else {
    /* drain posted its own error */
    clear_queue (PRIV (self));
  }
}

static void
check_live (GstAfetBase * self)
{
  GstAfetBaseState *p = PRIV (self);
  if (p->live_checked)
    return;
  p->live_checked = true;
  GstQuery *q = gst_query_new_latency ();
  gboolean live = FALSE;
  if (gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (self), q))
    gst_query_parse_latency (q, &live, nullptr, nullptr);
  gst_query_unref (q);
  p->live = live;
  GST_DEBUG_OBJECT (self, "upstream is %slive: %s", live ? "" : "not ",
      live ? "computing each buffer as it comes" : "batching");
}

/* Non-finite input (NaN, +-Inf, or float samples whose 16-bit scale
 * overflows) would spread through the FFT, the statistics and every later
 * frame: such values are taken as 0, and the application is warned once a
 * run, with the stream time of the first one. */
static void
replace_nonfinite (GstAfetBase * self, float *x, size_t n, guint64 first_unit)
{
  GstAfetBaseState *p = PRIV (self);
  size_t bad = 0, first_bad = 0;
  for (size_t i = 0; i < n; i++) {
    if (G_UNLIKELY (!std::isfinite (x[i]))) {
      if (bad++ == 0)
        first_bad = i;
      x[i] = 0.0f;
    }
  }
  if (G_LIKELY (bad == 0) || p->warned_nonfinite)
    return;
  p->warned_nonfinite = true;
  guint64 sample = p->in.audio ? first_unit + first_bad :
      (first_unit + first_bad / (size_t) p->in.in_dims) * (guint64) p->in.S;
  GstClockTime at = p->t0 + gst_util_uint64_scale (sample, GST_SECOND,
      (guint64) p->in.rate);
  GST_ELEMENT_WARNING (self, STREAM, FORMAT,
      ("%s: the input holds NaN or infinite values (first at %"
          GST_TIME_FORMAT "); they are taken as 0. Told once per run.",
          GST_ELEMENT_NAME (self), GST_TIME_ARGS (at)),
      ("%" G_GSIZE_FORMAT " non-finite values in one buffer", bad));
}

/* Appends an input buffer to the stream, as floats in 16-bit integer
 * scale. */
static gboolean
append_input (GstAfetBase * self, GstBuffer * buf)
{
  GstAfetBaseState *p = PRIV (self);
  GstMapInfo map;
  if (!gst_buffer_map (buf, &map, GST_MAP_READ))
    return FALSE;

  if (p->in.audio) {
    const GstAudioInfo *ai = &p->in.audio_info;
    size_t n = map.size / (size_t) GST_AUDIO_INFO_BPF (ai);
    float *dst = p->stream.append_samples (n);
    switch (GST_AUDIO_INFO_FORMAT (ai)) {
      case GST_AUDIO_FORMAT_S16LE:{
        const gint16 *s = (const gint16 *) map.data;
        for (size_t i = 0; i < n; i++)
          dst[i] = (float) GINT16_FROM_LE (s[i]);
        break;
      }
      case GST_AUDIO_FORMAT_S32LE:{
        const gint32 *s = (const gint32 *) map.data;
        for (size_t i = 0; i < n; i++)
          dst[i] = (float) ((double) GINT32_FROM_LE (s[i]) / 65536.0);
        break;
      }
      case GST_AUDIO_FORMAT_F32LE:{
        const float *s = (const float *) map.data;
        for (size_t i = 0; i < n; i++)
          dst[i] = s[i] * 32768.0f;
        break;
      }
      case GST_AUDIO_FORMAT_F64LE:{
        const double *s = (const double *) map.data;
        for (size_t i = 0; i < n; i++)
          dst[i] = (float) (s[i] * 32768.0);
        break;
      }
      default:
        gst_buffer_unmap (buf, &map);
        return FALSE;
    }
    if (GST_AUDIO_INFO_IS_FLOAT (ai))
      replace_nonfinite (self, dst, n, p->units_in);
    p->units_in += n;
  } else {
    /* whole frames of in_dims floats; a trailing partial frame waits */
    float *fresh;
    size_t floats;
    p->stream.append_row_bytes (map.data, map.size, &fresh, &floats);
    replace_nonfinite (self, fresh, floats, p->units_in);
    p->units_in += floats / (size_t) p->in.in_dims;
  }
  gst_buffer_unmap (buf, &map);
  return TRUE;
}

/* A buffer of whole frames in device memory of our device: computed as it
 * is, without a copy to the host (upstream has batched it already). */
static bool
take_on_device (GstAfetBase * self, GstBuffer * input)
{
  GstAfetBaseState *p = PRIV (self);
  if (p->in.audio || !p->stream.empty () || gst_buffer_n_memory (input) != 1)
    return false;
  GstMemory *mem = gst_buffer_peek_memory (input, 0);
  return gst_is_afet_cl_memory (mem) && mem->offset == 0 &&
      gst_afet_cl_memory_get_device (mem) == p->device.get () &&
      mem->size % ((gsize) p->in.in_dims * sizeof (float)) == 0;
}

static GstFlowReturn
gst_afet_base_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * input)
{
  GstAfetBase *self = GST_AFET_BASE (trans);
  GstAfetBaseState *p = PRIV (self);
  GstFlowReturn ret = GST_FLOW_OK;

  if (!p->configured) {
    gst_buffer_unref (input);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (nullptr),
        ("buffer before caps"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  check_live (self);
  if (p->windowed && p->extent.start_need < 0 && p->live) {
    gst_buffer_unref (input);
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("%s needs the whole stream before its first output, which a live "
            "source never ends: use a sliding or running scope there.",
            GST_ELEMENT_NAME (self)), ("live upstream"));
    return GST_FLOW_ERROR;
  }

  /* is_discont is GstBaseTransform's own flag: it stays set until the
   * base class outputs a buffer itself, which we never let it do, so only
   * the buffer's flag counts */
  if (GST_BUFFER_IS_DISCONT (input)) {
    if (p->have_data) {
      /* the old run's last frames go now, as its own: the DISCONT that
       * GstBaseTransform marks on our next output belongs to the new run */
      GST_DEBUG_OBJECT (self, "DISCONT: draining and restarting at %"
          GST_TIME_FORMAT, GST_TIME_ARGS (GST_BUFFER_PTS (input)));
      ret = drain (self);
      if (ret == GST_FLOW_OK)
        ret = push_queued (self);
      else
        clear_queue (p);
    }
    reset_stream (p);
  }
  if (!GST_CLOCK_TIME_IS_VALID (p->t0)) {
    p->t0 = GST_BUFFER_PTS_IS_VALID (input) ? GST_BUFFER_PTS (input) :
        p->run_end;
    p->frames_out = 0;
  }
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (input);
    return ret;
  }
  if (gst_buffer_get_size (input) > 0)
    p->have_data = true;

  if (take_on_device (self, input)) {
    GstMemory *mem = gst_buffer_peek_memory (input, 0);
    gint64 n = (gint64) (mem->size / ((gsize) p->in.in_dims *
            sizeof (float)));
    p->units_in += (guint64) n;
    GstBuffer *out = nullptr;
    afet::Status st = gst_afet_cl_memory_sync (mem, p->queue.get (), FALSE);
    if (!st.ok ()) {
      gst_buffer_unref (input);
      post_engine_error (self, st.message ().c_str ());
      return GST_FLOW_ERROR;
    }
    if (p->windowed) {
      GstMapInfo map;
      if (!gst_memory_map (mem, &map, (GstMapFlags) (GST_MAP_READ |
                  GST_MAP_AFET_CL))) {
        gst_buffer_unref (input);
        post_engine_error (self, "cannot map the input device memory");
        return GST_FLOW_ERROR;
      }
      ret = window_push_rows (self, nullptr, (cl_mem) map.data, n);
      cl_event ev = nullptr;
      if (clEnqueueMarkerWithWaitList (p->queue.get (), 0, nullptr, &ev) ==
          CL_SUCCESS)
        gst_afet_cl_memory_add_read_event (mem, ev);
      gst_memory_unmap (mem, &map);
      gst_buffer_unref (input);
      return ret;
    }
    GstAfetBatch batch;
    if (n > 0)
      ret = compute (self, n, &batch, mem, &out);
    gst_buffer_unref (input);
    if (ret == GST_FLOW_OK && out)
      queue_output (self, out, n);
    return ret;
  }

  if (!append_input (self, input)) {
    gst_buffer_unref (input);
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, (nullptr),
        ("cannot read an input buffer"));
    return GST_FLOW_ERROR;
  }
  gst_buffer_unref (input);
  return process_pending (self, false);
}

static GstFlowReturn
gst_afet_base_generate_output (GstBaseTransform * trans, GstBuffer ** outbuf)
{
  GstAfetBaseState *p = PRIV (GST_AFET_BASE (trans));
  *outbuf = nullptr;
  if (!p->outq.empty ()) {
    *outbuf = p->outq.front ();
    p->outq.pop_front ();
  }
  return GST_FLOW_OK;
}

/* The input was fine but no output could be agreed with downstream (which
 * GstBaseTransform does not explain): says what we would make and what the
 * element after us takes. */
static void
explain_output_refusal (GstAfetBase * self, GstCaps * caps)
{
  GstCaps *exact = output_caps (self, caps);
  if (!exact)
    return;
  GstCaps *ours = gst_caps_copy_nth (exact, gst_caps_get_size (exact) - 1);
  GstPad *src = GST_BASE_TRANSFORM_SRC_PAD (self);
  GstCaps *theirs = gst_pad_peer_query_caps (src, nullptr);
  GstPad *peer = gst_pad_get_peer (src);
  GstElement *next = peer ? gst_pad_get_parent_element (peer) : nullptr;
  gchar *ours_s = gst_caps_to_string (ours);
  gchar *theirs_s = theirs ? gst_caps_to_string (theirs) : g_strdup ("none");
  gchar *msg = g_strdup_printf ("%s makes %s from this input, which %s does "
      "not take (it takes %s)", GST_ELEMENT_NAME (self), ours_s,
      next ? GST_ELEMENT_NAME (next) : "the next element", theirs_s);
  post_refusal (self, caps, msg);
  g_free (msg);
  g_free (ours_s);
  g_free (theirs_s);
  if (next)
    gst_object_unref (next);
  if (peer)
    gst_object_unref (peer);
  if (theirs)
    gst_caps_unref (theirs);
  gst_caps_unref (ours);
  gst_caps_unref (exact);
}

static gboolean
gst_afet_base_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstAfetBase *self = GST_AFET_BASE (trans);
  GstAfetBaseState *p = PRIV (self);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
      GST_DEBUG_OBJECT (self, "EOS: draining");
      finish_run (self, "EOS");
      reset_stream (p);
      break;
    case GST_EVENT_FLUSH_STOP:
      clear_queue (p);
      reset_stream (p);
      break;
    case GST_EVENT_CAPS:{
      if (p->configured && p->have_data) {
        GstCaps *caps;
        gst_event_parse_caps (event, &caps);
        GstCaps *cur = gst_pad_get_current_caps
            (GST_BASE_TRANSFORM_SINK_PAD (trans));
        if (!cur || !gst_caps_is_equal (cur, caps)) {
          GST_DEBUG_OBJECT (self, "caps change: draining");
          finish_run (self, "a format change");
        }
        if (cur)
          gst_caps_unref (cur);
      }
      GstCaps *caps;
      gst_event_parse_caps (event, &caps);
      gst_caps_ref (caps);
      GST_OBJECT_LOCK (self);
      guint posted = p->refusals;
      GST_OBJECT_UNLOCK (self);
      gboolean ok = GST_BASE_TRANSFORM_CLASS
          (gst_afet_base_parent_class)->sink_event (trans, event);
      GST_OBJECT_LOCK (self);
      posted = p->refusals - posted;
      GST_OBJECT_UNLOCK (self);
      if (!ok && posted == 0)
        explain_output_refusal (self, caps);
      gst_caps_unref (caps);
      return ok;
    }
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_afet_base_parent_class)->sink_event
      (trans, event);
}

/* Explains, on the bus, why fixed caps are refused: the template rejects
 * them before any of our code runs, and "not-negotiated" alone says little. */
static void
explain_refusal (GstAfetBase * self, GstCaps * caps)
{
  GstStructure *s = gst_caps_get_structure (caps, 0);
  gchar *reason = nullptr;
  if (gst_structure_has_name (s, "audio/x-raw")) {
    gint channels = 0, rate = 0;
    const gchar *format = gst_structure_get_string (s, "format");
    gst_structure_get_int (s, "channels", &channels);
    gst_structure_get_int (s, "rate", &rate);
    if (channels != 1)
      reason = g_strdup_printf ("it takes mono audio, got %d channels: put "
          "audioconvert before it", channels);
    else if (!format || (strcmp (format, "S16LE") && strcmp (format, "S32LE")
            && strcmp (format, "F32LE") && strcmp (format, "F64LE")))
      reason = g_strdup_printf ("it takes S16LE, S32LE, F32LE or F64LE "
          "samples, got %s: put audioconvert before it",
          format ? format : "none");
    else if (rate < 8000 || rate > 192000)
      reason = g_strdup_printf ("it takes 8000 to 192000 Hz, got %d: put "
          "audioresample before it", rate);
    else
      reason = g_strdup ("interleaved layout only");
  } else if (gst_structure_has_name (s, AFET_FEATURES_MEDIA_TYPE)) {
    const gchar *kind = gst_structure_get_string (s, "kind");
    reason = g_strdup_printf ("it does not take kind=%s feature streams",
        kind ? kind : "(none)");
  } else {
    reason = g_strdup_printf ("it does not take %s",
        gst_structure_get_name (s));
  }
  gchar *msg = g_strdup_printf ("%s refused the input format: %s",
      GST_ELEMENT_NAME (self), reason);
  post_refusal (self, caps, msg);
  g_free (msg);
  g_free (reason);
}

/* Whether caps are the ones upstream is sending us now (its sticky CAPS
 * event), rather than a format it is only asking about. Through ghost
 * pads, the event waits on the pad outside the bin while the bin's pad
 * asks us. */
static gboolean
caps_being_sent (GstAfetBase * self, GstCaps * caps)
{
  GstPad *peer = gst_pad_get_peer (GST_BASE_TRANSFORM_SINK_PAD (self));
  gboolean same = FALSE;
  for (int depth = 0; peer && !same && depth < 8; depth++) {
    GstEvent *ev = gst_pad_get_sticky_event (peer, GST_EVENT_CAPS, 0);
    if (ev) {
      GstCaps *sent;
      gst_event_parse_caps (ev, &sent);
      same = gst_caps_is_equal (sent, caps);
      gst_event_unref (ev);
    }
    /* the inside of a ghost pad: go on with what feeds the ghost pad */
    GstPad *ghost = GST_IS_PROXY_PAD (peer) ?
        GST_PAD (gst_proxy_pad_get_internal (GST_PROXY_PAD (peer))) : nullptr;
    gst_object_unref (peer);
    peer = nullptr;
    if (ghost) {
      if (GST_IS_GHOST_PAD (ghost))
        peer = gst_pad_get_peer (ghost);
      gst_object_unref (ghost);
    }
  }
  if (peer)
    gst_object_unref (peer);
  return same;
}

static gboolean
gst_afet_base_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstAfetBase *self = GST_AFET_BASE (trans);
  GstAfetBaseClass *klass = GST_AFET_BASE_GET_CLASS (self);
  GstAfetBaseState *p = PRIV (self);

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_CONTEXT:{
      GST_OBJECT_LOCK (self);
      GstAfetContext *ctx = p->context ? (GstAfetContext *)
          gst_object_ref (p->context) : nullptr;
      GST_OBJECT_UNLOCK (self);
      gboolean answered = gst_afet_handle_context_query (GST_ELEMENT (self),
          query, ctx);
      if (ctx)
        gst_object_unref (ctx);
      if (answered)
        return TRUE;
      break;
    }
    case GST_QUERY_LATENCY:{
      if (direction != GST_PAD_SRC)
        break;
      if (!gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (trans), query))
        return FALSE;
      gboolean live;
      GstClockTime min, max;
      gst_query_parse_latency (query, &live, &min, &max);
      GstClockTime ours = 0;
      if (p->configured && p->in.audio && klass->frames_audio)
        ours = gst_util_uint64_scale ((guint64) p->in.W, GST_SECOND,
            (guint64) p->in.rate);
      if (p->configured && p->windowed)
        ours += gst_util_uint64_scale ((guint64) p->extent.ahead * p->in.S,
            GST_SECOND, (guint64) p->in.rate);
      GST_DEBUG_OBJECT (self, "latency: ours %" GST_TIME_FORMAT
          ", upstream min %" GST_TIME_FORMAT, GST_TIME_ARGS (ours),
          GST_TIME_ARGS (min));
      min += ours;
      if (GST_CLOCK_TIME_IS_VALID (max))
        max += ours;
      gst_query_set_latency (query, live, min, max);
      return TRUE;
    }
    case GST_QUERY_ACCEPT_CAPS:{
      if (direction != GST_PAD_SINK)
        break;
      gboolean ret = GST_BASE_TRANSFORM_CLASS
          (gst_afet_base_parent_class)->query (trans, direction, query);
      gboolean accepted = FALSE;
      GstCaps *caps;
      gst_query_parse_accept_caps (query, &caps);
      gst_query_parse_accept_caps_result (query, &accepted);
      if (!accepted && caps && gst_caps_is_fixed (caps)) {
        if (caps_being_sent (self, caps))
          explain_refusal (self, caps);
        else
          GST_DEBUG_OBJECT (self, "would refuse %" GST_PTR_FORMAT, caps);
      }
      return ret;
    }
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_afet_base_parent_class)->query (trans,
      direction, query);
}
