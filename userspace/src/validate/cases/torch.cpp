// The torch kind (--torch): a child python3 runs torch.nn.functional.conv2d
// on the GPU (MIOpen / cuDNN) and on the CPU in float64 and reports unjudged
// figures on fd 3 (the host half is the embedded script); judge_torch decides.
#include <fmt/format.h>

#include "cases/kinds.hpp"
#include "io/child_runner.hpp"

namespace rdnafix::validate {

std::vector<CaseDef> torch_cases()
{
	CaseDef c;
	c.name = "torch.conv2d";
	c.kind = CaseKind::torch;
	c.origin = "PyTorch F.conv2d on the GPU (MIOpen/cuDNN) vs the CPU; only with --torch or --case";
	return {c};
}

const std::string &torch_script()
{
	static const std::string s = R"PY(
import json, os, sys, time
out = os.fdopen(int(sys.argv[1]), "w")
def emit(d):
    out.write(json.dumps(d)); out.flush(); sys.exit(0)
try:
    import torch
    import torch.nn.functional as F
except Exception as e:
    emit({"status": "skip", "reason": "torch not importable: %s: %s" % (type(e).__name__, e)})
if not torch.cuda.is_available():
    emit({"status": "skip", "reason": "torch %s imported but torch.cuda.is_available() is False (hip %s, cuda %s)"
          % (torch.__version__, torch.version.hip, torch.version.cuda)})
torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False
shapes = json.loads(sys.argv[2]); inject = sys.argv[3] == "1"
idx = int(sys.argv[4]) if len(sys.argv) > 4 else 0
count = torch.cuda.device_count()
if idx >= count:
    emit({"status": "error", "reason": "--device %d: torch sees %d device(s) (valid: 0..%d)" % (idx, count, count - 1)})
torch.cuda.set_device(idx)
dev = torch.device("cuda", idx)
g = torch.Generator().manual_seed(1234)
worst = {"max_abs": 0.0, "max_rel": 0.0, "rms_range": 0.0}
rows = []; total_flop = 0.0; total_ms = 0.0; nonfinite = 0
for sh in shapes:
    for dt in (torch.float32, torch.float16):
        x = torch.rand(sh["n"], sh["c"], sh["h"], sh["w"], generator=g) * 2 - 1
        w = torch.rand(sh["k"], sh["c"] // sh["groups"], sh["r"], sh["s"], generator=g) * 2 - 1
        x = x.to(dt).float(); w = w.to(dt).float()
        kw = dict(stride=sh["stride"], padding=sh["pad"], dilation=sh["dil"], groups=sh["groups"])
        ref = F.conv2d(x.double(), w.double(), **kw)
        xg = x.to(dev, dt); wg = w.to(dev, dt)
        F.conv2d(xg, wg, **kw); torch.cuda.synchronize()
        e0 = torch.cuda.Event(enable_timing=True); e1 = torch.cuda.Event(enable_timing=True)
        e0.record(); yg = F.conv2d(xg, wg, **kw); e1.record(); torch.cuda.synchronize()
        ms = e0.elapsed_time(e1)
        y = yg.double().cpu()
        if inject:
            flat = y.view(-1); i = flat.numel() // 2
            flat[i] += 1000.0 * (1.0 + abs(float(flat[i])))
        d = (y - ref).abs()
        nonfinite += int((~torch.isfinite(y)).sum())
        rng = float(ref.max() - ref.min()) or 1.0
        big = ref.abs() >= 1e-3 * float(ref.abs().max())
        m = {"max_abs": float(d.max()), "max_rel": float((d[big] / ref.abs()[big]).max()) if bool(big.any()) else 0.0,
             "rms_range": float(d.pow(2).mean().sqrt()) / rng}
        flop = 2.0 * y.numel() * (sh["c"] // sh["groups"]) * sh["r"] * sh["s"]
        rows.append(dict(shape=sh["id"], dtype=str(dt).replace("torch.", ""), ms=ms, gflops=flop / ms / 1e6, **m))
        total_flop += flop; total_ms += ms
        key = "f16" if dt == torch.float16 else "f32"
        for k in ("max_abs", "max_rel", "rms_range"):
            worst[k + "_" + key] = max(worst.get(k + "_" + key, 0.0), m[k])
            worst[k] = max(worst[k], m[k])
emit({"status": "error", "reason": "measured, not judged (rdnactl judges)", "max_abs": worst["max_abs"], "max_rel": worst["max_rel"], "rms_range": worst["rms_range"],
      "gflops": total_flop / total_ms / 1e6 if total_ms > 0 else None,
      "details": {"measured": True, "torch": torch.__version__, "hip": torch.version.hip, "cuda": torch.version.cuda,
                  "device": torch.cuda.get_device_name(idx), "device_index": idx, "nonfinite": nonfinite, "worst": worst, "rows": rows}})
)PY";
	return s;
}

nlohmann::json torch_shapes()
{
	nlohmann::json a = nlohmann::json::array();
	for (const char *id : {"resnet50-conv2x-3x3", "resnet50-conv1-7x7s2", "resnext50-conv2x-g32",
			       "mobilenetv2-dw3x3", "deeplabv3-dil2-3x3", "inception3-5x5"}) {
		const CaseDef *c = find_case(fmt::format("conv.{}.f32", id));
		if (!c)
			continue;
		const auto &s = c->shape;
		a.push_back({{"id", id},
			     {"n", s.n},
			     {"c", s.c},
			     {"h", s.h},
			     {"w", s.w},
			     {"k", s.k},
			     {"r", s.r},
			     {"s", s.s},
			     {"stride", {s.stride_h, s.stride_w}},
			     {"pad", {s.pad_h, s.pad_w}},
			     {"dil", {s.dil_h, s.dil_w}},
			     {"groups", s.groups}});
	}
	return a;
}

std::vector<std::string> torch_args(bool inject_error, int device)
{
	return {"-c",
		torch_script(),
		std::to_string(io::kResultFd),
		torch_shapes().dump(),
		inject_error ? "1" : "0",
		std::to_string(device)};
}

CaseResult judge_torch(const CaseResult &reported)
{
	CaseResult r = reported;
	// The script reports status "error" with details.measured = true: unjudged figures stay an
	// error unless this verdict runs.
	const bool measured = reported.details.is_object() && reported.details.value("measured", false) &&
			      reported.details.contains("worst");
	if (reported.status == Status::skip || !measured)
		return r;
	// Tolerances for the framework path (MIOpen/cuDNN may pick Winograd/FFT/implicit-GEMM
	// solvers, so no per-element product bound applies): RMS error / range, per dtype,
	// and no NaN/Inf.  docs/validate.md explains the figures.
	const auto &w = reported.details["worst"];
	const double f32 = w.value("rms_range_f32", 0.0), f16 = w.value("rms_range_f16", 0.0);
	const long nonfinite = reported.details.value("nonfinite", 0L);
	constexpr double tol32 = 1e-5, tol16 = 8.2e-3;
	if (nonfinite > 0) {
		r.status = Status::fail;
		r.reason = fmt::format("{} NaN/Inf values in the GPU results", nonfinite);
	} else if (f32 > tol32) {
		r.status = Status::fail;
		r.reason = fmt::format("fp32: RMS error / range {:.3g} > {:.3g}", f32, tol32);
	} else if (f16 > tol16) {
		r.status = Status::fail;
		r.reason = fmt::format("fp16: RMS error / range {:.3g} > {:.3g}", f16, tol16);
	} else {
		r.status = Status::pass;
		r.reason.clear();
	}
	return r;
}

} // namespace rdnafix::validate
