#pragma once
// The internal child protocol of `rdnactl validate`, apart from the user's
// flags.  A run (worker.cpp) starts ONE `rdnactl __child worker {}` through
// io::WorkerProcess and sends it one request per line on fd 0:
// {"probe": ProbeRequest} or {"case": CaseRequest}; the worker answers each
// with one JSON object on fd 3 (io::kResultFd) and a NUL byte (io::kReplyEnd).
// `rdnactl __child case|probe <request JSON>` run a single request in a
// one-shot child (io::run_child).  app/main.cpp routes argv[1] == "__child"
// to app/child_main.cpp before CLI11 sees argv, which calls the entries of
// child_entry.hpp.  Replies: a CaseResult (result.hpp) for a case, a
// ProbeReply for the probe.  Request and reply are typed both ways (to_json /
// from_json per record); a reply's text is made valid UTF-8 before it is sent.
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace rdnafix::validate {

// argv[1] of an internal child.
inline constexpr const char *kChildVerb = "__child";

// Run one case in the child.
struct CaseRequest {
	std::string case_name;
	bool inject_error = false;
	double capacity_fraction = 0.5;
	int device = 0;
	std::string api;    // "", "hip", "cuda"
	bool quick = false; // the quick selection: transfer sweeps sized for it (transfer_sizes)
};

// Probe the GPU runtime in the child (loading it may crash or hang).
struct ProbeRequest {
	std::string api; // "", "hip", "cuda"
};

struct ProbeReply {
	enum class State { ok, no_runtime, runtime_no_device, init_failed, no_backend };
	State state = State::no_runtime;
	std::string report; // multi-line text: what was found, or every path looked in
	std::string api;    // "HIP" / "CUDA" (ok only)
	std::string device; // "AMD Radeon RX 6700 XT (gfx1031)" (ok only)
	std::string runtime_version;
	std::string driver_version;
};
const char *probe_state_name(ProbeReply::State s);

// from_json throws std::runtime_error (or nlohmann's type_error) naming the bad field.
void to_json(nlohmann::json &j, const CaseRequest &r);
void from_json(const nlohmann::json &j, CaseRequest &r);
void to_json(nlohmann::json &j, const ProbeRequest &r);
void from_json(const nlohmann::json &j, ProbeRequest &r);
void to_json(nlohmann::json &j, const ProbeReply &r);
void from_json(const nlohmann::json &j, ProbeReply &r);

// argv[1..] of the child: {kChildVerb, "case" | "probe", request JSON}.
std::vector<std::string> child_args(const CaseRequest &r);
std::vector<std::string> child_args(const ProbeRequest &r);

// The worker: argv[1..] {kChildVerb, "worker", "{}"}; one request line each.
std::vector<std::string> worker_args();
std::string worker_request(const CaseRequest &r);
std::string worker_request(const ProbeRequest &r);
using WorkerRequest = std::variant<CaseRequest, ProbeRequest>;
// Throws std::runtime_error (or nlohmann's errors) naming what is wrong with the line.
WorkerRequest parse_worker_request(std::string_view line);

// Every string in `j` (keys too) as valid UTF-8 (core::utf8_valid): dump() cannot throw after it.
void make_utf8_valid(nlohmann::json &j);
// The child side: writes `reply` as one JSON object to fd 3 (text made valid UTF-8 first).
void send_reply(nlohmann::json reply);

} // namespace rdnafix::validate
