/* The installed caps API (gstreamer-afet-features-1.0): AfetFeaturesInfo and
 * the application/x-afet-features caps contract.
 * Copyright (C) 2026 the afet authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Lesser General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * This library is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
 * Lesser General Public License for more details.
 *
 * You should have received a copy of the GNU Lesser General Public
 * License along with this library; if not, see
 * <https://www.gnu.org/licenses/>.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifndef __AFET_FEATURES_H__
#define __AFET_FEATURES_H__

#include <gst/gst.h>
#include "afet-features-prelude.h"

G_BEGIN_DECLS

/**
 * AFET_FEATURES_MEDIA_TYPE:
 *
 * The media type of every feature stream produced by afet elements.
 *
 * Since: 0.1
 */
#define AFET_FEATURES_MEDIA_TYPE "application/x-afet-features"

/**
 * AFET_FEATURES_FORMAT_F32LE:
 *
 * The value of the `format` caps field: row-major 32-bit IEEE floats in
 * little-endian byte order.  It is the only sample format defined so far.
 *
 * Since: 0.1
 */
#define AFET_FEATURES_FORMAT_F32LE "F32LE"

/**
 * AFET_FEATURES_DRAIN_EVENT:
 *
 * The name of the structure of a custom downstream serialized event
 * (GST_EVENT_CUSTOM_DOWNSTREAM) that ends the current utterance without
 * ending the stream: each afet element that takes audio or features
 * (GstAfetBase's elements) outputs the utterance's last frames, as at
 * end-of-stream, forwards the event after them and counts what follows as
 * a new utterance from its first sample, as after a DISCONT.  An
 * application sends it after an utterance's last buffer (appsrc queues it
 * in order: gst_element_send_event ()) and knows the utterance complete
 * when the event reaches its sink; the pipeline stays PLAYING.  afetpitch,
 * afetpaste, afetparse and afetenc do not end an utterance at it.
 *
 * Since: 0.1
 */
#define AFET_FEATURES_DRAIN_EVENT "afet-drain"

/**
 * AFET_CAPS_FEATURE_MEMORY_CL:
 *
 * Caps feature announcing that buffers carry afet OpenCL device memory
 * instead of system memory.  Reserved; the field layout of such streams is
 * the same as for system memory streams.
 *
 * Since: 0.1
 */
#define AFET_CAPS_FEATURE_MEMORY_CL "memory:AfetCLMemory"

/**
 * AFET_FEATURES_KINDS_ALL:
 *
 * A caps string fragment listing every known value of the `kind` field,
 * for use with AFET_FEATURES_CAPS_MAKE().
 *
 * Since: 0.1
 */
#define AFET_FEATURES_KINDS_ALL \
    "{ frames, fbank, mfcc, plp, traps, user, spectrogram }"

/* the mandatory fields shared by the two template macros */
#define _AFET_FEATURES_CAPS_FIELDS(kinds)                 \
    "format = (string) " AFET_FEATURES_FORMAT_F32LE ", "  \
    "kind = (string) " kinds ", "                         \
    "dims = (int) [ 1, MAX ], "                           \
    "rate = (int) [ 1, MAX ], "                           \
    "frame-length = (int) [ 1, MAX ], "                   \
    "frame-shift = (int) [ 1, MAX ], "                    \
    "framerate = (fraction) [ 0/1, MAX ]"

/**
 * AFET_FEATURES_CAPS_MAKE:
 * @kinds: a caps string fragment for the `kind` field, such as `"mfcc"` or
 *   `"{ fbank, mfcc }"`
 *
 * Builds a caps string suitable for a pad template of an element that
 * produces or consumes feature streams of the given kinds.
 *
 * Since: 0.1
 */
#define AFET_FEATURES_CAPS_MAKE(kinds)                    \
    AFET_FEATURES_MEDIA_TYPE ", "                         \
    _AFET_FEATURES_CAPS_FIELDS (kinds)

/**
 * AFET_FEATURES_CAPS_MAKE_WITH_FEATURES:
 * @features: a caps features string, such as AFET_CAPS_FEATURE_MEMORY_CL
 * @kinds: a caps string fragment for the `kind` field
 *
 * Like AFET_FEATURES_CAPS_MAKE(), with the caps features @features
 * attached to the structure.
 *
 * Since: 0.1
 */
#define AFET_FEATURES_CAPS_MAKE_WITH_FEATURES(features, kinds) \
    AFET_FEATURES_MEDIA_TYPE "(" features "), "                \
    _AFET_FEATURES_CAPS_FIELDS (kinds)

/**
 * AFET_FEATURES_MAX_DELTA_ORDER:
 *
 * The highest value allowed in the `delta-order` caps field.
 *
 * Since: 0.1
 */
#define AFET_FEATURES_MAX_DELTA_ORDER 3

/**
 * AfetFeaturesKind:
 * @AFET_FEATURES_KIND_UNKNOWN: not set, or a kind this version does not know
 * @AFET_FEATURES_KIND_FRAMES: windowed audio samples (afetframer)
 * @AFET_FEATURES_KIND_FBANK: log mel filter bank energies
 * @AFET_FEATURES_KIND_MFCC: mel frequency cepstral coefficients
 * @AFET_FEATURES_KIND_PLP: perceptual linear prediction coefficients
 * @AFET_FEATURES_KIND_TRAPS: TempoRAl PatternS
 * @AFET_FEATURES_KIND_USER: features whose nature the stream does not
 *   record, e.g. read back from a NumPy or Kaldi file (HTK's `USER` kind)
 * @AFET_FEATURES_KIND_SPECTROGRAM: log power spectrum, bins 0 .. N/2 (Kaldi's
 *   compute-spectrogram-feats; column 0 holds the frame's log energy)
 *
 * What the values of a frame represent (the `kind` caps field).
 *
 * Since: 0.1
 */
typedef enum {
  AFET_FEATURES_KIND_UNKNOWN = 0,
  AFET_FEATURES_KIND_FRAMES,
  AFET_FEATURES_KIND_FBANK,
  AFET_FEATURES_KIND_MFCC,
  AFET_FEATURES_KIND_PLP,
  AFET_FEATURES_KIND_TRAPS,
  AFET_FEATURES_KIND_USER,
  AFET_FEATURES_KIND_SPECTROGRAM
} AfetFeaturesKind;

/**
 * AfetFeaturesNorm:
 * @AFET_FEATURES_NORM_UNKNOWN: returned by afet_features_norm_from_string()
 *   for a string it does not know; never valid in an #AfetFeaturesInfo
 * @AFET_FEATURES_NORM_NONE: the values are not normalised
 * @AFET_FEATURES_NORM_MEAN: the mean of every column was subtracted
 * @AFET_FEATURES_NORM_MEANVAR: mean subtracted and scaled to unit variance
 * @AFET_FEATURES_NORM_MINMAX: every column was scaled into a fixed range
 *
 * The normalisation applied to the values (the `normalization` caps field).
 *
 * Since: 0.1
 */
typedef enum {
  AFET_FEATURES_NORM_UNKNOWN = -1,
  AFET_FEATURES_NORM_NONE = 0,
  AFET_FEATURES_NORM_MEAN,
  AFET_FEATURES_NORM_MEANVAR,
  AFET_FEATURES_NORM_MINMAX
} AfetFeaturesNorm;

/**
 * AfetFeaturesPreset:
 * @AFET_FEATURES_PRESET_NONE: no preset, or one this version does not know
 * @AFET_FEATURES_PRESET_HTK: configured to match HTK's HCopy
 * @AFET_FEATURES_PRESET_KALDI: configured to match Kaldi's feature tools
 * @AFET_FEATURES_PRESET_WHISPER: configured to match the Whisper front end
 * @AFET_FEATURES_PRESET_LHOTSE: configured to match lhotse's Kaldi-style
 *   extractors (icefall, sherpa-onnx)
 *
 * The reference tool whose conventions the producer followed (the `preset`
 * caps field).  Informational only.
 *
 * Since: 0.1
 */
typedef enum {
  AFET_FEATURES_PRESET_NONE = 0,
  AFET_FEATURES_PRESET_HTK,
  AFET_FEATURES_PRESET_KALDI,
  AFET_FEATURES_PRESET_WHISPER,
  AFET_FEATURES_PRESET_LHOTSE
} AfetFeaturesPreset;

/**
 * AfetFeaturesWindow:
 * @AFET_FEATURES_WINDOW_UNKNOWN: not given, or a window this version does
 *   not know
 * @AFET_FEATURES_WINDOW_HAMMING: Hamming window
 * @AFET_FEATURES_WINDOW_HANN: Hann window
 * @AFET_FEATURES_WINDOW_POVEY: Kaldi's "povey" window
 * @AFET_FEATURES_WINDOW_RECTANGULAR: no tapering
 * @AFET_FEATURES_WINDOW_BLACKMAN: Blackman window
 * @AFET_FEATURES_WINDOW_HANN_PERIODIC: periodic Hann window (W in the
 *   denominator, as torch's and Whisper's)
 *
 * The analysis window applied to every frame (the `window` caps field).
 * Informational only.
 *
 * Since: 0.1
 */
typedef enum {
  AFET_FEATURES_WINDOW_UNKNOWN = 0,
  AFET_FEATURES_WINDOW_HAMMING,
  AFET_FEATURES_WINDOW_HANN,
  AFET_FEATURES_WINDOW_POVEY,
  AFET_FEATURES_WINDOW_RECTANGULAR,
  AFET_FEATURES_WINDOW_BLACKMAN,
  AFET_FEATURES_WINDOW_HANN_PERIODIC
} AfetFeaturesWindow;

/**
 * AfetFeaturesNormColumns:
 * @AFET_FEATURES_NORM_COLUMNS_UNKNOWN: returned by
 *   afet_features_norm_columns_from_string() for a string it does not
 *   know; never valid in an #AfetFeaturesInfo
 * @AFET_FEATURES_NORM_COLUMNS_ALL: every column was normalised
 * @AFET_FEATURES_NORM_COLUMNS_STATICS: the static block was normalised,
 *   the dynamic blocks were not
 * @AFET_FEATURES_NORM_COLUMNS_HTK: the statics except the log energy
 *   column were normalised (what HTK's `_Z` qualifier means)
 *
 * Which columns the normalisation in the `normalization` field covers (the
 * `normalization-columns` caps field).  Meaningful only when the
 * normalisation is not %AFET_FEATURES_NORM_NONE.
 *
 * Since: 0.1
 */
typedef enum {
  AFET_FEATURES_NORM_COLUMNS_UNKNOWN = -1,
  AFET_FEATURES_NORM_COLUMNS_ALL = 0,
  AFET_FEATURES_NORM_COLUMNS_STATICS,
  AFET_FEATURES_NORM_COLUMNS_HTK
} AfetFeaturesNormColumns;

/**
 * AfetFeaturesInfo:
 * @kind: what the values represent
 * @dims: number of floats per frame
 * @rate: sample rate of the source audio in Hz
 * @frame_length: analysis window length W in samples
 * @frame_shift: hop between consecutive frames S in samples
 * @fps_n: numerator of the frame rate (@rate / @frame_shift, reduced)
 * @fps_d: denominator of the frame rate
 * @statics: number of static values at the start of each frame
 * @c0_index: column of c0 within the statics, or -1
 * @energy_index: column of the log energy within the statics, or -1
 * @delta_order: number of dynamic blocks appended after the statics
 * @normalization: the normalisation applied to the values
 * @preset: the preset the producer followed
 * @window: the analysis window
 * @norm_columns: which columns @normalization covers
 *
 * The parsed form of `application/x-afet-features` caps.  Initialise it
 * with afet_features_info_init() or afet_features_info_set_format() before
 * use; it may be copied by value.
 *
 * Since: 0.1
 */
typedef struct {
  AfetFeaturesKind kind;
  gint dims, rate, frame_length, frame_shift;
  gint fps_n, fps_d;
  gint statics, c0_index, energy_index, delta_order;
  AfetFeaturesNorm normalization;
  AfetFeaturesPreset preset;
  AfetFeaturesWindow window;
  AfetFeaturesNormColumns norm_columns;

  /*< private >*/
  gpointer _afet_reserved[GST_PADDING_LARGE - 1];
} AfetFeaturesInfo;

/**
 * AFET_TYPE_FEATURES_INFO:
 *
 * The #GType of the #AfetFeaturesInfo boxed type.
 *
 * Since: 0.1
 */
#define AFET_TYPE_FEATURES_INFO (afet_features_info_get_type ())

/**
 * AFET_FEATURES_INFO_FRAME_BYTES:
 * @info: an #AfetFeaturesInfo
 *
 * The size in bytes of one frame.
 *
 * Since: 0.1
 */
#define AFET_FEATURES_INFO_FRAME_BYTES(info) \
    ((gsize) (info)->dims * sizeof (gfloat))

AFET_FEATURES_API
GType               afet_features_info_get_type       (void);

AFET_FEATURES_API
AfetFeaturesInfo *  afet_features_info_new            (void);

AFET_FEATURES_API
void                afet_features_info_init           (AfetFeaturesInfo * info);

AFET_FEATURES_API
AfetFeaturesInfo *  afet_features_info_copy           (const AfetFeaturesInfo * info);

AFET_FEATURES_API
void                afet_features_info_free           (AfetFeaturesInfo * info);

AFET_FEATURES_API
void                afet_features_info_set_format     (AfetFeaturesInfo * info,
                                                       AfetFeaturesKind kind,
                                                       gint rate,
                                                       gint frame_length,
                                                       gint frame_shift,
                                                       gint statics,
                                                       gint delta_order);

AFET_FEATURES_API
gboolean            afet_features_info_from_caps      (AfetFeaturesInfo * info,
                                                       const GstCaps * caps);

AFET_FEATURES_API
GstCaps *           afet_features_info_to_caps        (const AfetFeaturesInfo * info);

AFET_FEATURES_API
gboolean            afet_features_info_is_equal       (const AfetFeaturesInfo * a,
                                                       const AfetFeaturesInfo * b);

AFET_FEATURES_API
gboolean            afet_features_info_is_valid       (const AfetFeaturesInfo * info);

AFET_FEATURES_API
GstClockTime        afet_features_info_frames_to_time (const AfetFeaturesInfo * info,
                                                       guint64 frames);

AFET_FEATURES_API
guint64             afet_features_info_time_to_frames (const AfetFeaturesInfo * info,
                                                       GstClockTime time);

AFET_FEATURES_API
AfetFeaturesKind    afet_features_kind_from_string    (const gchar * str);

AFET_FEATURES_API
const gchar *       afet_features_kind_to_string      (AfetFeaturesKind kind);

AFET_FEATURES_API
AfetFeaturesNorm    afet_features_norm_from_string    (const gchar * str);

AFET_FEATURES_API
const gchar *       afet_features_norm_to_string      (AfetFeaturesNorm norm);

AFET_FEATURES_API
AfetFeaturesPreset  afet_features_preset_from_string  (const gchar * str);

AFET_FEATURES_API
const gchar *       afet_features_preset_to_string    (AfetFeaturesPreset preset);

AFET_FEATURES_API
AfetFeaturesWindow  afet_features_window_from_string  (const gchar * str);

AFET_FEATURES_API
const gchar *       afet_features_window_to_string    (AfetFeaturesWindow window);

AFET_FEATURES_API
AfetFeaturesNormColumns afet_features_norm_columns_from_string (const gchar * str);

AFET_FEATURES_API
const gchar *       afet_features_norm_columns_to_string (AfetFeaturesNormColumns columns);

AFET_FEATURES_API
gchar *             afet_features_htk_kind_name       (guint16 kind);

AFET_FEATURES_API
gchar *             afet_features_info_htk_name       (const AfetFeaturesInfo * info);

AFET_FEATURES_API
gchar *             afet_features_info_column_name    (const AfetFeaturesInfo * info,
                                                       guint column);

/**
 * AFET_FEATURES_ANALYSIS_FIELDS:
 *
 * The caps fields of the analysis contract, beyond the layout: every
 * setting a producer used that changes the numbers (docs/caps.md lists
 * their types and values).  Producers write the ones that apply; elements
 * that transform a feature stream pass them on; a consumer names in its
 * sink template the ones its model depends on, and negotiation refuses a
 * stream made otherwise.
 *
 * `normalization-stats` (afetcmvn): where the normalisation's statistics
 * came from: `stream` (the stream's own frames, any scope), or Kaldi's
 * statistics read from an archive, `kaldi-utterance` (per key) or
 * `kaldi-speaker` (per speaker through utt2spk).
 *
 * Since: 0.2
 */
#define AFET_FEATURES_ANALYSIS_FIELDS \
    "preemphasis", "remove-dc", "snip-edges", "dither", "sample-range", \
    "filter-bank", "num-filters", "low-freq", "high-freq", "spectrum", \
    "log", "lifter", "clamp", "energy-floor", "raw-energy", "warp", \
    AFET_FEATURES_NORM_STATS_FIELDS

/* the normalisation's source (afetcmvn), apart to ease merging */
#define AFET_FEATURES_NORM_STATS_FIELDS "normalization-stats"

/**
 * AFET_FEATURES_CONTEXT_FIELDS:
 *
 * The caps fields the context steps of a recipe write (docs/caps.md,
 * "Deltas and splicing"): `deltas` (string, `htk` or `kaldi`: whose dynamic
 * blocks these are, afetdelta's preset), `delta-windows` (string: each
 * order's window, comma-separated, "2,2" for deltas and accelerations of
 * window 2) and `splice` (string: the offsets
 * of the input frames in each spliced frame, comma-separated, in the
 * frame's order, afetsplice).  Passed on as the analysis fields are
 * (afet_features_copy_analysis() copies both sets), so that a consumer
 * can name them in its sink template and refuse a stream made otherwise.
 *
 * Since: 0.2
 */
#define AFET_FEATURES_CONTEXT_FIELDS \
    "deltas", "delta-windows", "splice"

/**
 * AFET_FEATURES_TRANSFORM_FIELDS:
 *
 * The caps fields that record a linear or affine map applied to every
 * frame (afettransform: Kaldi's transform-feats, LDA, MLLT, fMLLR): a
 * `transform` string of one step per map, in the order applied, separated
 * by spaces; each step is `sha256:HEX:IN:OUT`, the SHA-256 of the
 * matrices (and the utterance-to-speaker map) applied, and the dims in and
 * out.  Part of the analysis contract: elements that transform a stream
 * pass it on (afet_features_copy_analysis), and a consumer whose model was
 * trained after a given matrix names it in its sink template.
 *
 * Since: 0.2
 */
#define AFET_FEATURES_TRANSFORM_FIELDS "transform"

/**
 * AFET_FEATURES_BLOCKS_FIELD:
 *
 * The caps field of a joined stream (afetpaste: Kaldi's paste-feats): a
 * string listing the blocks of columns of every frame in order, each the
 * kind of the stream it came from and its columns, comma-separated
 * (`mfcc:13,pitch:3`: 13 MFCC columns, then 3 of Kaldi's pitch, whose
 * columns the `pitch-columns` field names).  The kind is that of the
 * `kind` field, or `pitch` for afetpitch's stream.  Not an analysis field:
 * the elements after afetpaste do not pass it on (a consumer that needs
 * it reads it from afetpaste's output).
 *
 * Since: 0.2
 */
#define AFET_FEATURES_BLOCKS_FIELD "blocks"

AFET_FEATURES_API
void                afet_features_copy_analysis       (GstStructure * dst,
                                                       const GstStructure * src);

AFET_FEATURES_API
gchar *             afet_features_caps_explain_mismatch (const GstCaps * have,
                                                       const GstCaps * want);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AfetFeaturesInfo, afet_features_info_free)

G_END_DECLS

#endif /* __AFET_FEATURES_H__ */
