/* The arguments of the one-kernel fronts' kernels, shared by vframes.cl
 * (CPUs) and gframes.cl (GPUs), since the same host code sets them.
 * Copyright (C) 2026 the afet authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The host code (engine/spectral/spectral.cc, FramingKernel::enqueue_kernel)
 * sets the framing group (audio or given frames), then the FFT tables (tw,
 * rev), then the destination (spectra rows, or the MFCC / filter-bank
 * arguments). kernels/embed.py pastes this file where they #include it.
 */

#define AFET_AUDIO_ARGS \
    __global const afet_sample *samples, ulong origin, uint W, uint S, \
    float preemph, __global const float *window, float scale, \
    int remove_dc, float dither, ulong seed, long first_pos, \
    int energy_mode, float log_energy_floor, int energy_windowed, \
    int energy, __global float *energy_buf, uint energy_offset, \
    uint energy_stride, uint n_frames
#define AFET_GIVEN_ARGS \
    __global const float *in, uint in_offset, uint in_stride, uint W, \
    int energy, __global float *energy_buf, uint energy_offset, \
    uint energy_stride, uint n_frames
#define AFET_SPECTRA_ARGS \
    __global const float *tw, __global const int *rev, \
    __global float *spec, uint spec_stride
#define AFET_MFCC_ARGS \
    __global const float *tw, __global const int *rev, \
    __global const int *first, \
    __global const int *count, __global const int *offset, \
    __global const float *weights, uint M, int use_power, float floor_v, \
    float log_mul, __global const float *dct, uint ncols, \
    __global float *out, uint out_offset, uint out_stride
