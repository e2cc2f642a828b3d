/* The device one pipeline's elements share (gstafetcontext.h): the object
 * that holds it, its GstContext, and how elements find, set and answer for
 * it.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstafetcontext.h"
#include "gstafetdebug.h"

#include <mutex>

GST_AFET_DEBUG_CATEGORY_LAZY (ensure_debug_category, "afetcontext",
    "afet device context sharing");
#define GST_CAT_DEFAULT ensure_debug_category ()

enum
{
  PROP_0,
  PROP_DEVICE_NAME,
  PROP_CL_CONTEXT,
};

/* *INDENT-OFF* */
struct GstAfetContextState
{
  std::shared_ptr<afet::Device> device;
};
/* *INDENT-ON* */

struct _GstAfetContext
{
  GstObject parent;
  GstAfetContextState *state;
};

G_DEFINE_TYPE (GstAfetContext, gst_afet_context, GST_TYPE_OBJECT);

static void
gst_afet_context_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstAfetContext *self = GST_AFET_CONTEXT (object);
  auto &dev = self->state->device;
  switch (prop_id) {
    case PROP_DEVICE_NAME:
      g_value_set_string (value, dev ? dev->info ().device_name.c_str () :
          nullptr);
      break;
    case PROP_CL_CONTEXT:
      g_value_set_pointer (value, dev ? (gpointer) dev->context () : nullptr);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_afet_context_finalize (GObject * object)
{
  delete GST_AFET_CONTEXT (object)->state;
  G_OBJECT_CLASS (gst_afet_context_parent_class)->finalize (object);
}

static void
gst_afet_context_class_init (GstAfetContextClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  gobject_class->get_property = gst_afet_context_get_property;
  gobject_class->finalize = gst_afet_context_finalize;
  g_object_class_install_property (gobject_class, PROP_DEVICE_NAME,
      g_param_spec_string ("device-name", "Device name",
          "Name of the OpenCL device", nullptr,
          (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
  g_object_class_install_property (gobject_class, PROP_CL_CONTEXT,
      g_param_spec_pointer ("cl-context", "OpenCL context",
          "The shared cl_context", (GParamFlags) (G_PARAM_READABLE |
              G_PARAM_STATIC_STRINGS)));
}

static void
gst_afet_context_init (GstAfetContext * self)
{
  self->state = new GstAfetContextState ();
}

GstAfetContext *
gst_afet_context_new (const std::shared_ptr<afet::Device> &device)
{
  GstAfetContext *ctx = (GstAfetContext *) g_object_new
      (GST_TYPE_AFET_CONTEXT, nullptr);
  gst_object_ref_sink (ctx);
  ctx->state->device = device;
  return ctx;
}

std::shared_ptr<afet::Device>
gst_afet_context_get_device (GstAfetContext * ctx)
{
  return ctx->state->device;
}

GstContext *
gst_afet_context_to_gst (GstAfetContext * ctx)
{
  GstContext *context = gst_context_new (GST_AFET_CONTEXT_TYPE, TRUE);
  GstStructure *s = gst_context_writable_structure (context);
  gst_structure_set (s, "context", GST_TYPE_AFET_CONTEXT, ctx,
      "device-name", G_TYPE_STRING,
      ctx->state->device->info ().device_name.c_str (), nullptr);
  return context;
}

static GstAfetContext *
context_from_gst (GstContext * context)
{
  if (g_strcmp0 (gst_context_get_context_type (context),
          GST_AFET_CONTEXT_TYPE) != 0)
    return nullptr;
  const GstStructure *s = gst_context_get_structure (context);
  GstAfetContext *ctx = nullptr;
  if (!gst_structure_get (s, "context", GST_TYPE_AFET_CONTEXT, &ctx, nullptr))
    return nullptr;
  return ctx;                   /* a new reference */
}

void
gst_afet_handle_set_context (GstElement * element, GstContext * context,
    GstAfetContext ** ctx)
{
  GstAfetContext *other = context_from_gst (context);
  if (!other)
    return;
  GST_OBJECT_LOCK (element);
  if (!*ctx) {
    GST_DEBUG_OBJECT (element, "using the context set on us (%s)",
        other->state->device->info ().device_name.c_str ());
    *ctx = other;
    other = nullptr;
  }
  GST_OBJECT_UNLOCK (element);
  if (other)
    gst_object_unref (other);
}

gboolean
gst_afet_handle_context_query (GstElement * element, GstQuery * query,
    GstAfetContext * ctx)
{
  const gchar *type;
  if (!ctx || !gst_query_parse_context_type (query, &type) ||
      g_strcmp0 (type, GST_AFET_CONTEXT_TYPE) != 0)
    return FALSE;
  GstContext *context = gst_afet_context_to_gst (ctx);
  gst_query_set_context (query, context);
  gst_context_unref (context);
  GST_LOG_OBJECT (element, "answered a context query");
  return TRUE;
}

static gboolean
query_pads (GstElement * element, GstPadDirection direction,
    GstAfetContext ** ctx)
{
  GstIterator *it = direction == GST_PAD_SRC ?
      gst_element_iterate_src_pads (element) :
      gst_element_iterate_sink_pads (element);
  GValue item = G_VALUE_INIT;
  gboolean found = FALSE;
  while (!found && gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    GstPad *pad = (GstPad *) g_value_get_object (&item);
    GstQuery *q = gst_query_new_context (GST_AFET_CONTEXT_TYPE);
    if (gst_pad_peer_query (pad, q)) {
      GstContext *context = nullptr;
      gst_query_parse_context (q, &context);
      if (context) {
        GstAfetContext *other = context_from_gst (context);
        if (other) {
          *ctx = other;
          found = TRUE;
          gst_element_set_context (element, context);
        }
      }
    }
    gst_query_unref (q);
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  return found;
}

gboolean
gst_afet_ensure_element_context (GstElement * element, const char *request,
    GstAfetContext ** ctx, afet::Status * err)
{
  /* two elements starting at once must not both create one */
  static std::mutex lock;
  std::lock_guard<std::mutex> guard (lock);

  if (*ctx)
    return TRUE;
  GstAfetContext *found = nullptr;
  if (query_pads (element, GST_PAD_SRC, &found) ||
      query_pads (element, GST_PAD_SINK, &found)) {
    GST_DEBUG_OBJECT (element, "sharing a neighbour's context");
    GST_OBJECT_LOCK (element);
    if (!*ctx)
      *ctx = found;
    else
      gst_object_unref (found);
    GST_OBJECT_UNLOCK (element);
    return TRUE;
  }

  /* ask the application; it may call gst_element_set_context () on us */
  GstMessage *msg = gst_message_new_need_context (GST_OBJECT (element),
      GST_AFET_CONTEXT_TYPE);
  gst_element_post_message (element, msg);
  if (*ctx) {
    GST_DEBUG_OBJECT (element, "the application gave a context");
    return TRUE;
  }

  std::shared_ptr<afet::Device> device;
  bool created = false;
  *err = afet::acquire_device (request, &device, &created);
  if (!err->ok ())
    return FALSE;
  if (created)
    GST_INFO_OBJECT (element, "created the shared OpenCL context on %s "
        "(request \"%s\", resolved as \"%s\")",
        device->info ().describe ().c_str (), request,
        afet::effective_device_request (request).c_str ());
  GstAfetContext *mine = gst_afet_context_new (device);
  GstContext *context = gst_afet_context_to_gst (mine);
  GST_OBJECT_LOCK (element);
  *ctx = mine;
  GST_OBJECT_UNLOCK (element);
  gst_element_set_context (element, context);
  gst_element_post_message (element,
      gst_message_new_have_context (GST_OBJECT (element), context));
  return TRUE;
}

static void
post_device_error (GstElement * element, const std::string & request,
    const afet::Status & st)
{
  const gchar *env = g_getenv ("AFET_DEVICE");
  if (st.code () == afet::Status::NO_PLATFORM)
    GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
        ("No OpenCL platform found: install an OpenCL driver (ICD), "
            "e.g. the pocl-opencl-icd package for the CPU."),
        ("%s", st.message ().c_str ()));
  else if (g_ascii_strcasecmp (request.c_str (), "auto") == 0 && env && *env)
    GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
        ("No usable OpenCL device for the environment variable "
            "AFET_DEVICE=\"%s\" (the device property is auto): unset it or "
            "set it to auto, gpu, cpu, P:D or part of a device name.", env),
        ("%s", st.message ().c_str ()));
  else
    GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
        ("No usable OpenCL device for device=\"%s\".", request.c_str ()),
        ("%s", st.message ().c_str ()));
}

gboolean
gst_afet_acquire_element_context (GstElement * element,
    const std::string & request, bool explicit_device, GstAfetContext ** ctx)
{
  afet::Status st;
  if (!explicit_device) {
    if (gst_afet_ensure_element_context (element, request.c_str (), ctx, &st))
      return TRUE;
    post_device_error (element, request, st);
    return FALSE;
  }
  std::shared_ptr<afet::Device> device;
  bool created = false;
  st = afet::acquire_device (request, &device, &created);
  if (!st.ok ()) {
    post_device_error (element, request, st);
    return FALSE;
  }
  if (created)
    GST_INFO_OBJECT (element, "created the shared OpenCL context on %s "
        "(request \"%s\")", device->info ().describe ().c_str (),
        request.c_str ());
  GstAfetContext *fresh = gst_afet_context_new (device);
  GST_OBJECT_LOCK (element);
  GstAfetContext *old = *ctx;
  *ctx = fresh;
  GST_OBJECT_UNLOCK (element);
  if (old)
    gst_object_unref (old);
  return TRUE;
}
