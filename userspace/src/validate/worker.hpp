#pragma once
// How `rdnactl validate` runs its cases: in order, through ONE worker process
// (`rdnactl __child worker`, protocol.hpp) that keeps its GPU session from
// case to case, instead of a new process and a new GPU context per case.
//
// Isolation stays a guarantee of the results: each case still has its own
// deadline (--timeout, then SIGTERM, --kill-grace, SIGKILL), its own captured
// output and kernel-log lines, and is judged by classify_child exactly as a
// one-shot child was.  A case whose worker crashed, hung, wrote an unusable or
// oversized result, or reported an error fails alone: that worker is ended and
// the next case starts a fresh one.  The torch case runs python3 as before.
#include <optional>
#include <string>

#include "cases.hpp"
#include "io/worker_process.hpp"
#include "protocol.hpp"
#include "history/result.hpp"
#include "run.hpp"

namespace rdnafix::validate {

// The request every case of this run gets (--inject-error, --capacity-fraction,
// --device, --api; quick transfer sweeps for the quick selection or --quick).
CaseRequest case_request(const CaseDef &c, const ValidateOptions &o);

class CaseRunner {
public:
	// `exe`: the rdnactl to start as the worker (io::self_exe() in rdnactl).
	CaseRunner(const ValidateOptions &o, std::string exe);

	// The GPU runtime probe, answered by the worker that then runs the cases.
	io::ChildOutcome probe(const ProbeRequest &req, double timeout_s);
	// One case: its result, with output tail and kernel-log lines attached.
	CaseResult run(const CaseDef &c);
	// Ends the worker (after the last case).
	void stop() { worker_.stop(o_.grace); }
	// Worker processes started so far (1 for a run where nothing failed hard).
	int workers_started() const { return worker_.starts(); }

private:
	const ValidateOptions &o_;
	io::WorkerProcess worker_;
};

} // namespace rdnafix::validate
