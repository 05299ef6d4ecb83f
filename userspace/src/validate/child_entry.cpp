#include "child_entry.hpp"

#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

#include "cases/kinds.hpp"
#include "io/worker_process.hpp"

namespace rdnafix::validate {

namespace {

int run_case(const CaseRequest &req, bool keep_session)
{
	const CaseDef *c = find_case(req.case_name);
	if (!c) {
		std::fprintf(stderr, "rdnactl validate: unknown case '%s'\n", req.case_name.c_str());
		return 2;
	}
	if (c->kind == CaseKind::selftest)
		return selftest_child_main(*c, req.inject_error);
	CaseResult r;
	try {
		r = run_gpu_case(*c, req);
	} catch (const std::exception &e) {
		r.status = Status::error;
		r.reason = e.what();
	}
	if (!keep_session)
		release_gpu_session();
	r.name = c->name;
	send_reply(r);
	return 0;
}

} // namespace

int case_child_main(const CaseRequest &req)
{
	return run_case(req, false);
}

int probe_child_main(const ProbeRequest &req)
{
	send_reply(run_gpu_probe(req));
	return 0;
}

int worker_child_main()
{
	std::string line;
	while (std::getline(std::cin, line)) {
		int rc = 2;
		try {
			const auto req = parse_worker_request(line);
			rc = std::holds_alternative<CaseRequest>(req) ? run_case(std::get<CaseRequest>(req), true)
								      : probe_child_main(std::get<ProbeRequest>(req));
		} catch (const std::exception &e) {
			std::fprintf(stderr, "rdnactl: bad worker request: %s\n", e.what());
		}
		// What the case printed belongs to it: out before the reply ends.
		std::cout.flush();
		std::fflush(stdout);
		std::fflush(stderr);
		if (rc != 0) {
			release_gpu_session();
			return rc;
		}
		const char end = io::kReplyEnd;
		if (!io::write_all(io::kResultFd, std::string_view(&end, 1)))
			break;
	}
	release_gpu_session();
	return 0;
}

} // namespace rdnafix::validate
