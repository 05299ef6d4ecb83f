#!/usr/bin/env python3
"""Baseline for rdnafix-gpu-bench, run in the same job on the same GPU.

Reads the bench's output (RESULT lines), runs torch.nn.functional.conv2d
(cuDNN; cudnn.benchmark on, TF32 off for fp32) on exactly the same shapes,
and prints GFLOP/s of both and the ratio rdnafix/cuDNN.  Also prints the
stream figures' ratio triad / device-to-device memcpy from the bench output.

    python3 torch_compare.py bench-output.txt
"""
import re
import statistics
import sys

import torch


def parse(path):
    convs, stream = [], None
    for line in open(path):
        if not line.startswith("RESULT "):
            continue
        f = line.split()
        if f[1] == "conv" and "ERROR" not in f:
            kv = dict(x.split("=") for x in f[4:15])
            rest = f[15:]
            d = dict(zip(rest[0::2], rest[1::2]))
            convs.append((f[2], f[3], {k: int(v) for k, v in kv.items()}, float(d["gflops"]), d["kernel"]))
        elif f[1] == "stream":
            stream = dict(zip(f[2::2], f[3::2]))
    return convs, stream


def bench_torch(p, dtype):
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = "cuda"
    x = torch.randn(p["n"], p["c"], p["h"], p["w"], device=dev, dtype=dtype)
    w = torch.randn(p["k"], p["c"] // p["g"], p["r"], p["s"], device=dev, dtype=dtype)
    b = torch.randn(p["k"], device=dev, dtype=dtype)
    st, pad, dil = p["st"], p["pad"], p["dil"]
    stride = (st, st)
    padding = (pad, pad)
    # the odd shape has stride (2,1) / padding (2,1): mirror the bench's definition
    if p["r"] != p["s"]:
        stride, padding = (2, 1), (2, 1)

    def run():
        return torch.nn.functional.conv2d(x, w, b, stride=stride, padding=padding, dilation=dil, groups=p["g"])

    for _ in range(5):
        y = run()
    torch.cuda.synchronize()
    times = []
    for _ in range(20):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        y = run()
        e1.record()
        e1.synchronize()
        times.append(e0.elapsed_time(e1))
    ms = statistics.median(times)
    P, Q = y.shape[2], y.shape[3]
    flops = 2.0 * p["n"] * p["k"] * P * Q * (p["c"] // p["g"]) * p["r"] * p["s"]
    return ms, flops / (ms * 1e6)


def main():
    convs, stream = parse(sys.argv[1])
    print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, {torch.cuda.get_device_name(0)}")
    print(f"{'shape':28s} {'dtype':5s} {'rdnafix GF/s':>12s} {'cuDNN GF/s':>11s} {'ratio':>6s}  kernel")
    ratios = {}
    for name, dt, p, gf, kern in convs:
        ms, tgf = bench_torch(p, torch.float32 if dt == "f32" else torch.float16)
        r = gf / tgf
        ratios.setdefault((dt, p["r"] == 3 and p["s"] == 3 and p["g"] == 1), []).append(r)
        print(f"{name:28s} {dt:5s} {gf:12.1f} {tgf:11.1f} {r:6.3f}  {kern}")
        print(f"RATIO conv {name} {dt} rdnafix_gflops {gf:.1f} cudnn_gflops {tgf:.1f} ratio {r:.3f}")
    for (dt, is3x3), rs in sorted(ratios.items()):
        if is3x3:
            gm = statistics.geometric_mean(rs)
            print(f"RATIO summary 3x3 dense {dt}: geomean {gm:.3f} min {min(rs):.3f} over {len(rs)} shapes")
    if stream:
        print(f"RATIO stream triad {stream['triad_gbs']} GB/s / d2d memcpy {stream['d2d_memcpy_gbs']} GB/s"
              f" = {stream['triad_over_d2d']}; copy/d2d = {stream['copy_over_d2d']}")
    # torch's own device-to-device copy for reference (bytes read + written)
    n = 1 << 27
    a = torch.empty(n, dtype=torch.float64, device="cuda").normal_()
    c = torch.empty_like(a)
    ts = []
    for _ in range(11):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        c.copy_(a)
        e1.record()
        e1.synchronize()
        ts.append(e0.elapsed_time(e1))
    ms = statistics.median(ts[1:])
    print(f"RATIO torch_d2d_copy_gbs {2 * n * 8 / (ms * 1e6):.1f}")


if __name__ == "__main__":
    main()
