#pragma once
// How a case child ended, as a case result (pure; the I/O half, starting and
// watching the child, is io::run_child in io/child_runner.hpp).
//
// classify_child() turns a ChildOutcome into a CaseResult: a signal is a
// crash, the watchdog firing is a hang, a missing or unparsable reply is an
// error -- each a result of that case, never the end of rdnactl.  A usable
// reply (to_json/from_json of CaseResult, result.hpp) carries the figures and
// the verdict of the case kind's judge (cases/).
#include <string>
#include <string_view>

#include "io/child_runner.hpp"
#include "history/result.hpp"

namespace rdnafix::validate {

// `who` names the process in the reasons: "the case process" for a case,
// "the probe process" for the GPU runtime probe (validate/run.cpp).
CaseResult classify_child(const std::string &name, const io::ChildOutcome &o, double timeout_s,
			  std::string_view who = "the case process");

} // namespace rdnafix::validate
