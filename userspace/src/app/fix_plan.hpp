#pragma once
// `rdnactl fix` as data: the findings' remedies split into what `config`
// writes (module options, kernel command-line parameters) and what only a
// person can do (environment, group membership, packages, firmware setup).
// fix is the one verb made of two others (status decides, config writes), so
// it lives in app/, the only floor that may use both.  Pure: no I/O.
#include "config/apply.hpp"
#include "status/model.hpp"

#include <string>
#include <vector>

namespace rdnafix::app {

// What a person must do, from one finding.
struct Instruction {
	std::string check_id, subject;
	status::RemedyKind kind = status::RemedyKind::none;
	std::string text; // the command or setting, one line
};

struct FixPlan {
	std::vector<config::ModuleChange> modules;  // in finding order, the first per module.option
	std::vector<config::CmdlineChange> cmdline; // in finding order, the first per parameter
	std::vector<std::string> applied_by;        // the check ids whose remedies are in modules/cmdline
	std::vector<std::string> cmdline_by;        // the check ids whose remedies are in cmdline
	std::vector<std::string> modules_by;        // the check ids whose remedies are in modules
	std::vector<Instruction> instructions;      // the rest, in finding order
};

// The user a JoinGroup remedy with an empty user means ("" -> "$USER").
FixPlan plan_fix(const std::vector<status::Finding> &findings, const std::string &os_id);

} // namespace rdnafix::app
