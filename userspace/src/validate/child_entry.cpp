#include "child_entry.hpp"

#include <cstdio>
#include <exception>

#include "cases/kinds.hpp"

namespace rdnafix::validate {

int case_child_main(const CaseRequest &req)
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
	r.name = c->name;
	send_reply(r);
	return 0;
}

int probe_child_main(const ProbeRequest &req)
{
	send_reply(run_gpu_probe(req));
	return 0;
}

} // namespace rdnafix::validate
