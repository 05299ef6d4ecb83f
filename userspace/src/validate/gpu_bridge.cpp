// The GPU side of a case, run inside the case's child process: calls the GPU
// backend (gpu/), then checks the numbers here (CPU reference + comparator).
#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "child.hpp"
#include "compare.hpp"
#include "conv_ref.hpp"
#include "gpu_cases.hpp"

namespace rdnafix::validate {

namespace g = rdnafix::gpu;

namespace {

std::optional<g::Api> api_from(const std::string &s)
{
	if (s == "hip")
		return g::Api::hip;
	if (s == "cuda")
		return g::Api::cuda;
	return std::nullopt;
}

const char *state_name(g::ProbeState s)
{
	switch (s) {
	case g::ProbeState::no_runtime:
		return "no_runtime";
	case g::ProbeState::runtime_no_device:
		return "runtime_no_device";
	case g::ProbeState::init_failed:
		return "init_failed";
	case g::ProbeState::ok:
		return "ok";
	}
	return "?";
}

g::MemKind memkind(MemPlace p)
{
	switch (p) {
	case MemPlace::device:
		return g::MemKind::device;
	case MemPlace::host_coherent:
		return g::MemKind::host_coherent;
	case MemPlace::host_noncoherent:
		return g::MemKind::host_noncoherent;
	case MemPlace::managed:
		return g::MemKind::managed;
	}
	return g::MemKind::device;
}

nlohmann::json timing_json(const g::Timing &t)
{
	return {{"ms_median", t.ms_median},   {"ms_min", t.ms_min}, {"ms_max", t.ms_max},
		{"iterations", t.iterations}, {"gflops", t.gflops}, {"gbs", t.gbs}};
}

CaseResult conv_case(g::Session &s, const CaseDef &c, const ChildOptions &opt)
{
	CaseResult r;
	r.name = c.name;
	const g::MemKind mk = memkind(c.mem);
	const auto &dev = s.backend().device();
	if (!s.backend().supports(mk)) {
		r.status = Status::skip;
		r.reason = fmt::format("{} memory is not supported by {} on {}", g::memkind_name(mk),
				       g::api_name(s.backend().api()), dev.name);
		return r;
	}
	const auto &sh = c.shape;
	g::ConvDesc d;
	d.n = sh.n, d.c = sh.c, d.h = sh.h, d.w = sh.w, d.k = sh.k, d.r = sh.r, d.s = sh.s;
	d.stride_h = sh.stride_h, d.stride_w = sh.stride_w, d.pad_h = sh.pad_h, d.pad_w = sh.pad_w;
	d.dil_h = sh.dil_h, d.dil_w = sh.dil_w, d.groups = sh.groups;
	d.dtype = c.dtype == DType::f16 ? g::DType::f16 : g::DType::f32;
	const auto x = random_inputs(sh.x_elems(), seed_from_name(c.name + "/x"), c.dtype);
	const auto w = random_inputs(sh.w_elems(), seed_from_name(c.name + "/w"), c.dtype);
	std::vector<float> y;
	const auto res = g::run_conv2d(s, d, x, w, {}, y, mk);
	std::optional<std::size_t> injected;
	if (opt.inject_error)
		injected = inject_error(y);
	const auto t0 = std::chrono::steady_clock::now();
	const auto ref = conv2d_reference(sh, x, w);
	const double ref_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	const auto tol = tolerance_for(c.dtype);
	const auto m = measure(ref.y, ref.absum, y, sh.reduction(), tol);
	const auto v = judge(m, tol);
	r.status = v.pass ? Status::pass : Status::fail;
	r.reason = v.reason;
	r.max_abs = m.max_abs;
	r.max_rel = m.max_rel;
	r.rms_range = m.rms_range;
	r.gflops = res.timing.gflops;
	r.gbs = res.timing.gbs;
	r.details = {{"shape", sh.describe()},
		     {"origin", c.origin},
		     {"dtype", dtype_name(c.dtype)},
		     {"memory", g::memkind_name(mk)},
		     {"kernel", res.kernel},
		     {"timing", timing_json(res.timing)},
		     {"worst_bound_ratio", m.worst_bound_ratio},
		     {"worst_index", m.worst_index},
		     {"reference_seconds", ref_s},
		     {"device", dev.name},
		     {"arch", dev.arch_full},
		     {"code_object_cached", s.compile_info().from_cache}};
	if (injected)
		r.details["injected_error_index"] = *injected;
	return r;
}

CaseResult stream_case(g::Session &s, const CaseDef &c)
{
	CaseResult r;
	r.name = c.name;
	const auto [free_b, total_b] = s.backend().mem_info();
	// three fp64 arrays; at most 2^25 elements (768 MiB in all), at most 1/8 of free memory
	std::size_t n = std::size_t(1) << 25;
	while (n > (std::size_t(1) << 16) && 3 * 8 * n > (free_b ? free_b : total_b) / 8)
		n /= 2;
	const auto sr = g::run_stream(s, n);
	r.status = sr.bad_elements == 0 ? Status::pass : Status::fail;
	if (sr.bad_elements)
		r.reason = fmt::format("{} of {} elements differ from the analytic values (max abs error {:.3g})",
				       sr.bad_elements, sr.elements, sr.max_abs_error);
	r.max_abs = sr.max_abs_error;
	r.gbs = sr.triad.gbs;
	r.details = {{"elements", sr.elements},
		     {"copy", timing_json(sr.copy)},
		     {"triad", timing_json(sr.triad)},
		     {"d2d_memcpy", timing_json(sr.d2d_memcpy)},
		     {"triad_vs_memcpy", sr.d2d_memcpy.gbs > 0 ? sr.triad.gbs / sr.d2d_memcpy.gbs : 0.0}};
	return r;
}

CaseResult capacity_case(g::Session &s, const CaseDef &c, const ChildOptions &opt)
{
	CaseResult r;
	r.name = c.name;
	const auto cr = g::run_capacity(s, opt.capacity_fraction);
	const double gib = double(1 << 30);
	if (cr.bad_words) {
		r.status = Status::fail;
		r.reason = fmt::format("{} 32-bit words did not read back in {:.2f} GiB", cr.bad_words,
				       double(cr.allocated) / gib);
	} else if (!cr.stop_reason.empty()) {
		r.status = Status::fail;
		r.reason = fmt::format("allocated only {:.2f} of {:.2f} GiB ({:.0f} % of the {:.2f} GiB reported): {}",
				       double(cr.allocated) / gib, double(cr.target_bytes) / gib,
				       opt.capacity_fraction * 100, double(cr.reported_total) / gib, cr.stop_reason);
	} else {
		r.status = Status::pass;
	}
	r.gbs = cr.fill_gbs;
	r.details = {{"reported_total", cr.reported_total},
		     {"reported_free", cr.reported_free},
		     {"target_bytes", cr.target_bytes},
		     {"allocated", cr.allocated},
		     {"chunks", cr.chunks},
		     {"fraction", opt.capacity_fraction}};
	return r;
}

CaseResult transfer_case(g::Session &s, const CaseDef &c)
{
	CaseResult r;
	r.name = c.name;
	const auto pts =
		g::run_transfers(s, transfer_sizes(true), c.pinned ? g::MemKind::host_coherent : g::MemKind::pageable);
	nlohmann::json rows = nlohmann::json::array();
	std::size_t bad = 0;
	for (const auto &p : pts) {
		bad += !p.verified;
		rows.push_back(
			{{"bytes", p.bytes}, {"h2d_gbs", p.h2d.gbs}, {"d2h_gbs", p.d2h.gbs}, {"verified", p.verified}});
	}
	r.status = bad == 0 && !pts.empty() ? Status::pass : Status::fail;
	if (pts.empty())
		r.reason = "no transfer sizes ran";
	else if (bad)
		r.reason = fmt::format("{} of {} transfer sizes did not round-trip bit-exactly", bad, pts.size());
	if (!pts.empty())
		r.gbs = std::min(pts.back().h2d.gbs, pts.back().d2h.gbs);
	r.details = {{"host_memory", c.pinned ? "pinned" : "pageable"}, {"points", rows}};
	return r;
}

} // namespace

bool gpu_backend_built()
{
	return true;
}

CaseResult run_gpu_case(const CaseDef &c, const ChildOptions &opt)
{
	g::SessionOptions so;
	so.api = api_from(opt.api);
	so.device = opt.device;
	so.search = g::SearchConfig::from_environment(true);
	std::vector<g::ProbeResult> probes;
	CaseResult r;
	r.name = c.name;
	try {
		auto s = g::Session::open(so, &probes);
		switch (c.kind) {
		case CaseKind::conv2d:
			return conv_case(*s, c, opt);
		case CaseKind::stream:
			return stream_case(*s, c);
		case CaseKind::capacity:
			return capacity_case(*s, c, opt);
		case CaseKind::transfers:
			return transfer_case(*s, c);
		default:
			break;
		}
		r.status = Status::error;
		r.reason = "not a GPU case";
	} catch (const g::GpuError &e) {
		r.status = Status::error;
		r.reason = e.what();
	}
	return r;
}

nlohmann::json run_gpu_probe(const std::string &api)
{
	const auto cfg = g::SearchConfig::from_environment(true);
	std::vector<g::Api> apis;
	if (auto a = api_from(api))
		apis.push_back(*a);
	else
		apis = {g::Api::hip, g::Api::cuda};
	std::string report;
	g::ProbeState best = g::ProbeState::no_runtime;
	for (g::Api a : apis) {
		const auto p = g::probe(a, cfg);
		if (p.state == g::ProbeState::ok && !p.devices.empty()) {
			const auto &d = p.devices.front();
			return {{"state", "ok"},
				{"api", g::api_name(a)},
				{"device", fmt::format("{} ({})", d.name, d.arch)},
				{"runtime_version", std::to_string(p.runtime_version)},
				{"driver_version", std::to_string(p.driver_version)},
				{"report", p.describe()}};
		}
		report += p.describe();
		if (!report.ends_with('\n'))
			report += '\n';
		if (int(p.state) > int(best))
			best = p.state;
	}
	return {{"state", state_name(best)}, {"report", report}};
}

} // namespace rdnafix::validate
