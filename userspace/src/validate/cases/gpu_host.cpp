// The host half of the GPU cases, run inside the case worker (or probe) child:
// opens the GPU session (gpu/) once per process and keeps it for the next
// case with the same API and device, runs the kind's GPU half, and hands the
// figures to the kind's judge (cases/<kind>.cpp).  A case that ends in a GPU
// error drops the session (the runner also starts a fresh worker after it).
// Built with the GPU backend; without it gpu_host_none.cpp stands in.
#include <fmt/format.h>

#include "cases/kinds.hpp"

namespace rdnafix::validate {

namespace g = rdnafix::gpu;

namespace {

// One session per process: the worker runs every GPU case of a run in it.
std::unique_ptr<g::Session> g_session;
std::pair<std::string, int> opened_for;

std::optional<g::Api> api_from(const std::string &s)
{
	if (s == "hip")
		return g::Api::hip;
	if (s == "cuda")
		return g::Api::cuda;
	return std::nullopt;
}

ProbeReply::State reply_state(g::ProbeState s)
{
	switch (s) {
	case g::ProbeState::no_runtime:
		return ProbeReply::State::no_runtime;
	case g::ProbeState::runtime_no_device:
		return ProbeReply::State::runtime_no_device;
	case g::ProbeState::init_failed:
		return ProbeReply::State::init_failed;
	case g::ProbeState::ok:
		return ProbeReply::State::ok;
	}
	return ProbeReply::State::no_runtime;
}

nlohmann::json timing_json(const g::Timing &t)
{
	return {{"ms_median", t.ms_median},   {"ms_min", t.ms_min}, {"ms_max", t.ms_max},
		{"iterations", t.iterations}, {"gflops", t.gflops}, {"gbs", t.gbs}};
}

CaseResult conv_case(g::Session &s, const CaseDef &c, const CaseRequest &req)
{
	const auto &dev = s.backend().device();
	if (!s.backend().supports(c.mem)) {
		CaseResult r;
		r.name = c.name;
		r.status = Status::skip;
		r.reason = fmt::format("{} memory is not supported by {} on {}", memkind_name(c.mem),
				       g::api_name(s.backend().api()), dev.name);
		return r;
	}
	g::ConvDesc d;
	static_cast<ConvShape &>(d) = c.shape;
	d.dtype = c.dtype;
	const auto in = conv2d_inputs(c);
	std::vector<float> y;
	const auto res = g::run_conv2d(s, d, in.x, in.w, {}, y, c.mem);
	std::optional<std::size_t> injected;
	if (req.inject_error)
		injected = inject_error(y);
	const auto j = judge_conv2d(c, in.x, in.w, y);
	CaseResult r = j.result;
	r.gflops = res.timing.gflops;
	r.gbs = res.timing.gbs;
	r.details = {{"shape", c.shape.describe()},
		     {"origin", c.origin},
		     {"dtype", dtype_name(c.dtype)},
		     {"memory", memkind_name(c.mem)},
		     {"kernel", res.kernel},
		     {"timing", timing_json(res.timing)},
		     {"worst_bound_ratio", j.metrics.worst_bound_ratio},
		     {"worst_index", j.metrics.worst_index},
		     {"reference_seconds", j.reference_seconds},
		     {"device", dev.name},
		     {"arch", dev.arch_full},
		     {"code_object_cached", s.compile_info().from_cache}};
	if (injected)
		r.details["injected_error_index"] = *injected;
	return r;
}

CaseResult stream_case(g::Session &s, const CaseDef &c)
{
	const auto [free_b, total_b] = s.backend().mem_info();
	const auto sr = g::run_stream(s, stream_elements(free_b, total_b));
	CaseResult r = judge_stream(c, sr);
	r.details = {{"elements", sr.elements},
		     {"copy", timing_json(sr.copy)},
		     {"triad", timing_json(sr.triad)},
		     {"d2d_memcpy", timing_json(sr.d2d_memcpy)},
		     {"triad_vs_memcpy", sr.d2d_memcpy.gbs > 0 ? sr.triad.gbs / sr.d2d_memcpy.gbs : 0.0}};
	return r;
}

CaseResult capacity_case(g::Session &s, const CaseDef &c, const CaseRequest &req)
{
	const auto cr = g::run_capacity(s, req.capacity_fraction);
	CaseResult r = judge_capacity(c, cr, req.capacity_fraction);
	r.details = {{"reported_total", cr.reported_total},
		     {"reported_free", cr.reported_free},
		     {"target_bytes", cr.target_bytes},
		     {"allocated", cr.allocated},
		     {"chunks", cr.chunks},
		     {"fraction", req.capacity_fraction}};
	return r;
}

CaseResult transfer_case(g::Session &s, const CaseDef &c, const CaseRequest &req)
{
	const auto pts =
		g::run_transfers(s, transfer_sizes(!req.quick), c.pinned ? MemKind::host_coherent : MemKind::pageable);
	CaseResult r = judge_transfers(c, pts);
	nlohmann::json rows = nlohmann::json::array();
	for (const auto &p : pts)
		rows.push_back(
			{{"bytes", p.bytes}, {"h2d_gbs", p.h2d.gbs}, {"d2h_gbs", p.d2h.gbs}, {"verified", p.verified}});
	r.details = {{"host_memory", c.pinned ? "pinned" : "pageable"}, {"points", rows}};
	return r;
}

} // namespace

bool gpu_backend_built()
{
	return true;
}

void release_gpu_session()
{
	g_session.reset();
}

CaseResult run_gpu_case(const CaseDef &c, const CaseRequest &req)
{
	g::SessionOptions so;
	so.api = api_from(req.api);
	so.device = req.device;
	so.search = g::SearchConfig::from_environment(true);
	auto &s = g_session;
	CaseResult r;
	r.name = c.name;
	try {
		if (!s || opened_for != std::pair(req.api, req.device)) {
			s.reset();
			s = g::Session::open(so, nullptr);
			opened_for = {req.api, req.device};
		}
		switch (c.kind) {
		case CaseKind::conv2d:
			return conv_case(*s, c, req);
		case CaseKind::stream:
			return stream_case(*s, c);
		case CaseKind::capacity:
			return capacity_case(*s, c, req);
		case CaseKind::transfers:
			return transfer_case(*s, c, req);
		default:
			break;
		}
		r.status = Status::error;
		r.reason = "not a GPU case";
	} catch (const g::GpuError &e) {
		s.reset();
		r.status = Status::error;
		r.reason = e.what();
	}
	return r;
}

ProbeReply run_gpu_probe(const ProbeRequest &req)
{
	const auto cfg = g::SearchConfig::from_environment(true);
	std::vector<g::Api> apis;
	if (auto a = api_from(req.api))
		apis.push_back(*a);
	else
		apis = {g::Api::hip, g::Api::cuda};
	ProbeReply reply;
	g::ProbeState best = g::ProbeState::no_runtime;
	for (g::Api a : apis) {
		const auto p = g::probe(a, cfg);
		if (p.state == g::ProbeState::ok && !p.devices.empty()) {
			const auto &d = p.devices.front();
			reply.state = ProbeReply::State::ok;
			reply.api = g::api_name(a);
			reply.device = fmt::format("{} ({})", d.name, d.arch);
			reply.runtime_version = std::to_string(p.runtime_version);
			reply.driver_version = std::to_string(p.driver_version);
			reply.report = p.describe();
			return reply;
		}
		reply.report += p.describe();
		if (!reply.report.ends_with('\n'))
			reply.report += '\n';
		if (int(p.state) > int(best))
			best = p.state;
	}
	reply.state = reply_state(best);
	return reply;
}

} // namespace rdnafix::validate
