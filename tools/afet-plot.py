#!/usr/bin/python3
# afet-plot: renders a feature file, a recording or a pipeline's features as a
# PNG, one panel for the statics and one for each dynamic block.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Renders features as a PNG: time in seconds across, coefficients or bands
up, one panel for the statics and one for each dynamic block (deltas,
accelerations, third differences), each with its colour bar, under a title
with the kind and the settings the caps state.

  afet-plot.py FILE [-o OUT.png]                  HTK, NumPy .npy, Kaldi ark
  afet-plot.py --audio WAV [--pipeline CHAIN] [-o OUT.png]
  afet-plot.py --gst 'DESCRIPTION ending in features' [-o OUT.png]

Feature files are read by afetparse (a Kaldi archive: --key picks the
entry, else the first), .npy files by NumPy (no layout in the file: give
--delta-order, --rate, --frame-shift); --audio runs
'filesrc ! decodebin ! audioconvert ! audioresample ! CHAIN' (afet.extract),
--gst any pipeline whose last element gives a feature stream (afet.run).

Filter banks are labelled with their bands' centre frequencies when the
caps carry the bank (filter-bank, num-filters, low-freq, high-freq), and
spectrograms with their bins' frequencies; cepstra with their names (c1..,
c0, E).  The c0 and energy columns of the statics are drawn as curves in a
strip above the image (--no-strip keeps them in it), since their scale
would swamp the other columns' colours.  Colours span the 1st to 99th
percentile of each panel; signed panels use a diverging map centred on 0.

Needs python3-matplotlib, python3-numpy and, except for .npy files,
PyGObject with GStreamer and the afet plugin (GST_PLUGIN_PATH, or the
build tree next to this script).
"""

import argparse
import io
import os
import sys

import numpy as np

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

BLOCK_NAMES = ["statics", "deltas", "accelerations", "third differences"]


def load_afet():
    """The afet module, from python/ next to this script if it is not
    installed, with the build tree's plugin if GStreamer has none."""
    try:
        import afet
    except ImportError:
        sys.path.insert(0, os.path.join(TOP, "python"))
        import afet
    afet.init()
    from gi.repository import Gst
    build = os.path.join(TOP, "build", "gst")
    if Gst.ElementFactory.find("afetmfcc") is None and os.path.isdir(build):
        afet.init(plugin_path=build)
    return afet


# ---------------------------------------------------------------- input

def read_npy(path, args):
    """A .npy file through NumPy: (data, info, times) with the layout from
    the options (the file records none)."""
    data = np.load(path)
    if data.ndim == 1:
        data = data[:, None]
    if data.ndim != 2:
        raise SystemExit("afet-plot: %s: a %d-D array; want frames x dims" %
                         (path, data.ndim))
    data = data.astype(np.float32)
    order = args.delta_order or 0
    if data.shape[1] % (order + 1):
        raise SystemExit("afet-plot: %d columns do not split into %d "
                         "blocks" % (data.shape[1], order + 1))
    afet = load_afet()
    rate = args.rate or 16000
    info = afet.FeatureInfo.make(
        data.shape[1], kind=args.kind or "user", rate=rate,
        frame_shift=args.frame_shift or rate // 100, delta_order=order,
        c0_index=args.c0_index, energy_index=args.energy_index)
    return data, info, np.arange(len(data)) * info.frame_period


def load(args):
    """(data, info, times, source label) from the command line."""
    if args.input and args.input.lower().endswith(".npy"):
        data, info, times = read_npy(args.input, args)
        return data, info, times, os.path.basename(args.input)
    afet = load_afet()
    if args.audio:
        f = afet.extract(args.audio, pipeline=args.pipeline, rate=args.rate)
        label = "%s | %s" % (os.path.basename(args.audio), args.pipeline)
    elif args.gst:
        f = afet.run(args.gst)
        label = args.gst if len(args.gst) < 70 else args.gst[:67] + "..."
    else:
        props = {}
        for p in args.parse or []:
            k, _, v = p.partition("=")
            props[k] = v
        if args.rate:
            props["rate"] = args.rate
        entries = afet.read_archive(args.input, **props)
        if args.key is not None:
            if args.key not in entries:
                raise SystemExit("afet-plot: no key %r in %s (it has: %s)" %
                                 (args.key, args.input,
                                  " ".join(map(str, list(entries)[:10]))))
            f = entries[args.key]
        else:
            f = next(iter(entries.values()))
        label = os.path.basename(args.input) + (
            " [%s]" % f.key if f.key else "")
    info = f.info
    if args.delta_order is not None or args.c0_index != -1 or \
            args.energy_index != -1 or args.kind:
        # a file that does not record its layout (NumPy, Kaldi): the
        # options say what afetparse could not
        info = afet.FeatureInfo.make(
            info.dims, kind=args.kind or info.kind, rate=info.rate,
            frame_shift=info.frame_shift, frame_length=info.frame_length,
            delta_order=(args.delta_order if args.delta_order is not None
                         else info.delta_order),
            c0_index=args.c0_index if args.c0_index != -1 else info.c0_index,
            energy_index=(args.energy_index if args.energy_index != -1
                          else info.energy_index))
    return f.data, info, f.times - f.times[0] if len(f.times) else f.times, \
        label


# ---------------------------------------------------------------- text

def fmt_hz(v):
    v = float(v)
    return "%g kHz" % (v / 1000) if v >= 1000 and v % 100 == 0 else \
        "%g Hz" % v


def ms(samples, rate):
    return "%g ms" % round(1000.0 * samples / rate, 3)


def settings_line(info, frames):
    """What the caps say about how the numbers were made, briefly."""
    f = info.fields
    parts = []
    if info.preset:
        parts.append("preset %s" % info.preset)
    win = "%s window %s" % (info.window, ms(info.frame_length, info.rate)) \
        if info.window else "window %s" % ms(info.frame_length, info.rate)
    parts.append("%s, shift %s at %s" % (win, ms(info.frame_shift,
                                                  info.rate),
                                          fmt_hz(info.rate)))
    if "num-filters" in f and info.kind in ("mfcc", "fbank", "plp"):
        bank = "%d %s filters" % (f["num-filters"], f.get("filter-bank", ""))
        if "low-freq" in f and "high-freq" in f:
            bank += " %g-%g Hz" % (f["low-freq"], f["high-freq"])
        parts.append(bank)
    if info.kind in ("mfcc", "plp") and f.get("lifter"):
        parts.append("lifter %d" % f["lifter"])
    if f.get("log") and info.kind in ("fbank", "spectrogram"):
        parts.append("%s %s" % (f.get("log"), f.get("spectrum", "")))
    if info.normalization and info.normalization != "none":
        parts.append("%s normalised (%s)" % (info.normalization,
                                             info.normalization_columns))
    parts.append("%d frames x %d dims" % (frames, info.dims))
    return ", ".join(p.strip() for p in parts)


# ---------------------------------------------------------------- drawing

def colour_limits(values, sequential):
    v = values[np.isfinite(values)]
    if v.size == 0:
        return "viridis", 0.0, 1.0
    lo, hi = np.percentile(v, [1, 99])
    if hi <= lo:
        lo, hi = float(v.min()), float(v.max()) + 1e-6
    if not sequential and lo < 0 < hi:
        m = max(-lo, hi)
        return "RdBu_r", -m, m
    return "magma", lo, hi


def row_ticks(info, rows, names, traps_dct=None):
    """(positions, labels, axis label) for the image's rows (the static
    columns in `rows`)."""
    hz = info.band_frequencies()
    n = len(rows)
    if info.kind == "traps" and traps_dct and n % (2 * traps_dct) == 0:
        bands = n // (2 * traps_dct)
        step = max(1, int(np.ceil(bands / 8.0)))
        pos = np.arange(0, bands, step) * 2 * traps_dct + traps_dct - 0.5
        return pos, ["%d" % b for b in range(0, bands, step)], \
            "band (left | right DCT)"
    if hz is not None and np.all(np.isfinite(hz[rows])):
        k = min(n, 7)
        pos = np.unique(np.round(np.linspace(0, n - 1, k)).astype(int))
        return pos, ["%d" % round(hz[rows][p]) for p in pos], \
            "band centre (Hz)" if info.kind == "fbank" else "frequency (Hz)"
    if n <= 26 and info.kind in ("mfcc", "plp", "fbank", "user",
                                 "spectrogram"):
        step = 1 if n <= 14 else 2
        pos = np.arange(0, n, step)
        return pos, [names[rows[p]] for p in pos], \
            "coefficient" if info.kind in ("mfcc", "plp") else "column"
    return None, None, "column" if info.kind != "fbank" else "channel"


def render(data, info, times, label, out, args):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    S = info.statics
    names = info.static_names()
    lead = [c for c in (info.c0_index, info.energy_index) if c >= 0]
    strip = bool(not args.no_strip and lead and S - len(lead) >= 2)
    # the statics without c0 and E when those go in the strip; the
    # dynamic blocks whole (their c0 and E are on the others' scale)
    static_rows = [j for j in range(S) if not (strip and j in lead)]
    all_rows = list(range(S))
    scale = args.scale or ("column" if info.kind == "traps" else "value")
    dct = args.traps_dct
    if dct and (info.kind != "traps" or S % (2 * dct)):
        raise SystemExit("afet-plot: --traps-dct %d does not divide %d "
                         "TRAPS columns into bands" % (dct, S))
    period = info.frame_period
    t0 = float(times[0]) if len(times) else 0.0
    t1 = float(times[-1]) + period if len(times) else period
    if args.start is not None or args.end is not None:
        lo = args.start if args.start is not None else -np.inf
        hi = args.end if args.end is not None else np.inf
        keep = (times >= lo) & (times < hi)
        data, times = data[keep], times[keep]
        if not len(times):
            raise SystemExit("afet-plot: no frames between %s and %s s" %
                             (args.start, args.end))
        t0, t1 = float(times[0]), float(times[-1]) + period

    # panel heights (inches): a strip for c0/E, then the blocks
    img_h = float(np.clip(S / 12.0, 1.6, 3.4))
    heights = ([0.9] if strip else []) + [img_h] * (info.delta_order + 1)
    fig_h = sum(heights) + 0.35 * len(heights) + 1.0
    fig = plt.figure(figsize=(args.width, fig_h), dpi=args.dpi)
    gs = fig.add_gridspec(len(heights), 2, height_ratios=heights,
                          width_ratios=[1, 0.018], hspace=0.32,
                          wspace=0.015, left=0.085, right=0.93,
                          top=1 - 0.75 / fig_h, bottom=0.5 / fig_h)
    plt.rcParams.update({"font.size": 8})
    axes = []
    r = 0
    if strip:
        ax = fig.add_subplot(gs[r, 0])
        fig.add_subplot(gs[r, 1]).axis("off")
        for c in lead:
            ax.plot(times + period / 2, data[:, c], lw=0.8, label=names[c])
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7,
                  frameon=False, handlelength=1.2)
        ax.set_ylabel(" / ".join(names[c] for c in lead))
        ax.set_xlim(t0, t1)
        ax.grid(True, lw=0.3, alpha=0.5)
        axes.append(ax)
        r += 1
    for k in range(info.delta_order + 1):
        rows = static_rows if k == 0 else all_rows
        block = data[:, k * S:(k + 1) * S][:, rows]
        sequential = (k == 0 and info.kind in ("fbank", "spectrogram",
                                               "frames") and
                      info.normalization in (None, "none"))
        if scale == "column":         # each column to zero mean, unit sd
            sd = block.std(axis=0)
            block = (block - block.mean(axis=0)) / np.where(sd > 0, sd, 1)
            sequential = False
        cmap, vmin, vmax = colour_limits(block, sequential)
        ax = fig.add_subplot(gs[r, 0], sharex=axes[0] if axes else None)
        # nearest-neighbour pixels while each row and frame gets at least
        # one; smoothed when there are more than pixels (TRAPS)
        box = ax.get_window_extent()
        smooth = len(rows) > box.height or len(block) > box.width
        im = ax.imshow(block.T, origin="lower", aspect="auto",
                       interpolation="antialiased" if smooth else "nearest",
                       cmap=plt.get_cmap(cmap, args.levels), vmin=vmin,
                       vmax=vmax, extent=(t0, t1, -0.5, len(rows) - 0.5))
        pos, labels, ylabel = row_ticks(info, rows, names, dct)
        if pos is not None:
            ax.set_yticks(pos)
            ax.set_yticklabels(labels, fontsize=6.5)
        if dct:
            for b in range(1, S // (2 * dct)):
                ax.axhline(b * 2 * dct - 0.5, color="k", lw=0.3)
        ax.set_ylabel(ylabel)
        title = BLOCK_NAMES[k] if info.delta_order else ""
        if k == 0 and strip:
            title = (title + " " if title else "") + "(%s above)" % \
                " and ".join(names[c] for c in lead)
        if title:
            ax.set_title(title, fontsize=8, loc="left", pad=2)
        cb = fig.colorbar(im, cax=fig.add_subplot(gs[r, 1]))
        cb.ax.tick_params(labelsize=6.5)
        if scale == "column":
            cb.set_label("z-score per column", fontsize=7)
        axes.append(ax)
        r += 1
    for ax in axes[:-1]:
        plt.setp(ax.get_xticklabels(), visible=False)
    axes[-1].set_xlabel("time (s)")
    axes[-1].set_xlim(t0, t1)
    title = args.title or "%s (%s): %s" % (info.htk_name(), info.kind, label)
    fig.suptitle(title, fontsize=10, x=0.085, ha="left",
                 y=1 - 0.12 / fig_h)
    fig.text(0.085, 1 - 0.42 / fig_h, settings_line(info, len(data)),
             fontsize=7.5, ha="left", color="0.25")
    save_png(fig, out, args.dpi)
    plt.close(fig)


def save_png(fig, out, dpi):
    """Saves the figure as a PNG, as a 256-colour palette image when Pillow
    is there (a third the size, and the colour maps have 256 entries)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    png = buf.getvalue()
    try:
        from PIL import Image
        im = Image.open(io.BytesIO(png)).convert("RGB")
        q = im.quantize(colors=256, method=Image.Quantize.MEDIANCUT,
                        dither=Image.Dither.NONE)
        b2 = io.BytesIO()
        q.save(b2, format="PNG", optimize=True)
        if len(b2.getvalue()) < len(png):
            png = b2.getvalue()
    except Exception:
        pass
    with open(out, "wb") as f:
        f.write(png)


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Render afet features (a file, audio through a chain, "
        "or a pipeline) as a PNG.")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("input", nargs="?",
                     help="feature file: HTK, NumPy .npy, Kaldi archive")
    src.add_argument("--audio", metavar="FILE",
                     help="audio file, through --pipeline")
    src.add_argument("--gst", metavar="DESCRIPTION",
                     help="a pipeline whose last element gives features")
    ap.add_argument("--pipeline", default="afetmfcc",
                    help="afet chain for --audio (default: afetmfcc)")
    ap.add_argument("-o", "--output", help="PNG to write (default: the "
                    "input's name with .png, or afet-plot.png)")
    ap.add_argument("--key", help="Kaldi archive entry (default: first)")
    ap.add_argument("--parse", action="append", metavar="PROP=VALUE",
                    help="afetparse property for a feature file "
                    "(format=raw, dims=N, kind=fbank, frame-shift=...)")
    ap.add_argument("--rate", type=int, help="--audio: resample to; files: "
                    "the sample rate they do not record")
    ap.add_argument("--frame-shift", type=int, metavar="SAMPLES",
                    help=".npy: frame shift in samples (default rate/100)")
    ap.add_argument("--delta-order", type=int, choices=range(4),
                    help="files without a layout: dynamic blocks in a frame")
    ap.add_argument("--c0-index", type=int, default=-1,
                    help="files without a layout: the c0 column")
    ap.add_argument("--energy-index", type=int, default=-1,
                    help="files without a layout: the energy column")
    ap.add_argument("--kind", help="files without a layout: mfcc, fbank, ...")
    ap.add_argument("--start", type=float, help="first second to draw")
    ap.add_argument("--end", type=float, help="last second to draw")
    ap.add_argument("--title", help="title instead of the generated one")
    ap.add_argument("--width", type=float, default=9.0, help="inches")
    ap.add_argument("--dpi", type=int, default=90)
    ap.add_argument("--scale", choices=("value", "column"),
                    help="colours of the values (default), or of each "
                    "column's z-score (default for TRAPS, whose 0th DCT "
                    "coefficients dwarf the others)")
    ap.add_argument("--traps-dct", type=int, metavar="K",
                    help="TRAPS: the num-dct the stream was made with (the "
                    "caps do not say): label and separate the bands")
    ap.add_argument("--levels", type=int, default=64,
                    help="colours in the colour maps (default 64: small "
                    "PNGs; 256 for a smooth map)")
    ap.add_argument("--no-strip", action="store_true",
                    help="keep c0 and E in the statics image")
    args = ap.parse_args(argv)

    out = args.output
    if not out:
        base = args.input or args.audio
        out = (os.path.splitext(os.path.basename(base))[0] + ".png") \
            if base else "afet-plot.png"
    try:
        data, info, times, label = load(args)
    except Exception as e:          # afet.Error and friends: one line
        if type(e).__module__ == "afet" or isinstance(e, OSError):
            raise SystemExit("afet-plot: %s" % e)
        raise
    if len(data) == 0:
        raise SystemExit("afet-plot: no frames")
    render(data, info, times, label, out, args)
    print("afet-plot: %s: %s, %d frames x %d dims -> %s" % (
        label, info.htk_name(), len(data), info.dims, out))


if __name__ == "__main__":
    main()
