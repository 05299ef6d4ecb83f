#include "child_main.hpp"

#include <cstdio>
#include <exception>
#include <string_view>

#include <nlohmann/json.hpp>

#include "child_entry.hpp"
#include "protocol.hpp"

namespace rdnafix {

bool is_child_invocation(int argc, char **argv)
{
	return argc >= 2 && std::string_view(argv[1]) == validate::kChildVerb;
}

int child_main(int argc, char **argv)
{
	if (argc != 4) {
		std::fprintf(stderr, "rdnactl: %s is internal: %s <case|probe|worker> <request JSON>\n",
			     validate::kChildVerb, validate::kChildVerb);
		return 2;
	}
	const std::string_view what = argv[2];
	if (what == "worker")
		return validate::worker_child_main(); // requests arrive on fd 0 (protocol.hpp)
	if (what != "case" && what != "probe") {
		std::fprintf(stderr, "rdnactl: unknown internal child '%s' (case, probe, worker)\n", argv[2]);
		return 2;
	}
	nlohmann::json request;
	validate::CaseRequest case_req;
	validate::ProbeRequest probe_req;
	try {
		request = nlohmann::json::parse(argv[3]);
		if (what == "case")
			case_req = request.get<validate::CaseRequest>();
		else
			probe_req = request.get<validate::ProbeRequest>();
	} catch (const std::exception &e) {
		std::fprintf(stderr, "rdnactl: bad %s request: %s\n", argv[2], e.what());
		return 2;
	}
	return what == "case" ? validate::case_child_main(case_req) : validate::probe_child_main(probe_req);
}

} // namespace rdnafix
