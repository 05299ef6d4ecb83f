// The case runner of `rdnactl validate` (worker.hpp): one worker process for
// the cases of a run, a fresh one after a case that broke it.
#include "worker.hpp"

#include <cstdlib>

#include <unistd.h>

#include "cases/kinds.hpp"
#include "isolation.hpp"
#include "history/kmsg.hpp"

namespace rdnafix::validate {

namespace {

std::string find_in_path(const std::string &prog)
{
	const char *path = std::getenv("PATH");
	std::string p = path ? path : "/usr/local/bin:/usr/bin:/bin";
	std::size_t start = 0;
	while (start <= p.size()) {
		const auto end = p.find(':', start);
		const std::string dir = p.substr(start, end == std::string::npos ? std::string::npos : end - start);
		const std::string cand = (dir.empty() ? "." : dir) + "/" + prog;
		if (::access(cand.c_str(), X_OK) == 0)
			return cand;
		if (end == std::string::npos)
			break;
		start = end + 1;
	}
	return {};
}

// A worker that produced one of these may be broken (a crashed or hung
// process is gone anyway; an error may leave a GPU context in a sticky
// error state): the next case gets a fresh worker.
bool worker_suspect(Status s)
{
	return s != Status::pass && s != Status::fail && s != Status::skip;
}

} // namespace

CaseRequest case_request(const CaseDef &c, const ValidateOptions &o)
{
	CaseRequest r{c.name, o.inject, o.capacity_fraction, o.device, o.api};
	r.quick = o.cases.empty() ? !o.full : o.quick;
	return r;
}

CaseRunner::CaseRunner(const ValidateOptions &o, std::string exe) : o_(o), worker_(std::move(exe), worker_args()) {}

io::ChildOutcome CaseRunner::probe(const ProbeRequest &req, double timeout_s)
{
	auto out = worker_.ask(worker_request(req), timeout_s, o_.grace);
	if (!worker_.alive() || !out.exited || out.result.empty())
		worker_.stop();
	return out;
}

CaseResult CaseRunner::run(const CaseDef &c)
{
	KmsgWatch watch;
	CaseResult r;
	if (c.kind == CaseKind::torch) {
		io::ChildSpec spec;
		spec.timeout_s = o_.timeout;
		spec.grace_s = o_.grace;
		spec.exe = find_in_path("python3");
		if (spec.exe.empty()) {
			r.name = c.name;
			r.status = Status::skip;
			r.reason = "python3 not found in PATH";
			return r;
		}
		spec.args = torch_args(o_.inject, o_.device);
		r = judge_torch(classify_child(c.name, io::run_child(spec), o_.timeout));
	} else {
		const auto out = worker_.ask(worker_request(case_request(c, o_)), o_.timeout, o_.grace);
		r = classify_child(c.name, out, o_.timeout);
		if (worker_suspect(r.status))
			worker_.stop(o_.grace);
	}
	std::vector<std::string> lines;
	for (auto &rec : watch.read_new())
		lines.push_back(std::move(rec.message));
	r.kernel_log = extract_events(lines);
	if (!watch.note().empty())
		r.kernel_log_note = watch.note();
	return r;
}

} // namespace rdnafix::validate
