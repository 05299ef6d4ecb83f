#pragma once
// What runs inside a case's child process (rdnactl validate --child-case NAME):
// the case itself, its reference check, and the report on fd 3.
#include <string>

#include <nlohmann/json.hpp>

#include "cases.hpp"
#include "result.hpp"

namespace rdnafix::validate {

struct ChildOptions {
	bool inject_error = false;
	double capacity_fraction = 0.5;
	int device = 0;
	std::string api; // "", "hip", "cuda"
};

// Runs the case, writes its JSON result to fd 3, returns the process exit code.
int run_child_case(const CaseDef &c, const ChildOptions &opt);

// CPU-only conv2d check used by the selftest cases: a float-accumulating direct
// convolution (what a simple GPU kernel does) against the double reference.
CaseResult cpu_conv_selfcheck(const CaseDef &c, bool inject_error);

// GPU side (gpu_bridge.cpp, or gpu_bridge_none.cpp when built without the backend).
bool gpu_backend_built();
CaseResult run_gpu_case(const CaseDef &c, const ChildOptions &opt);
// {"state": "ok"|"no_runtime"|"runtime_no_device"|"init_failed"|"no_backend",
//  "report": "<multi-line text>", "api", "device", "runtime_version", "driver_version"}
nlohmann::json run_gpu_probe(const std::string &api);
// Writes run_gpu_probe() to fd 3; exit code 0.
int run_child_probe(const std::string &api);

} // namespace rdnafix::validate
