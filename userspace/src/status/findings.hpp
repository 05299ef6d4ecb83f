#pragma once
// The check catalogue and the decision function: snapshot in, findings out.
// No I/O.
#include "machine/snapshot.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::status {

// The machine records the checks read (moved to machine/; names kept here).
using machine::Access;
using machine::Device;
using machine::DevNode;
using machine::Param;
using machine::Snapshot;
using machine::Unreadable;
using machine::VisibleVar;

enum class Severity { info, warn, error };
std::string_view severity_name(Severity s);

struct CheckInfo {
	std::string_view id;    // stable, e.g. "RDNA-ENV-001"
	Severity severity;      // severity when it fires
	std::string_view title; // short name, also the docs/checks.md heading
};
// Every check that evaluate() can emit, in id order.
const std::vector<CheckInfo> &catalogue();

struct Finding {
	std::string id;
	Severity severity = Severity::info;
	std::string subject; // device BDF, variable name, node path, module ... ("" = machine)
	std::string finding; // what is wrong, with the values seen
	std::string why;     // why it matters
	std::string fix;     // the exact fix (command, line or export)
};

std::vector<Finding> evaluate(const Snapshot &snap);

// One line of `rdnactl env`: export NAME=value, or unset NAME (value empty + unset).
struct Export {
	std::string name;
	std::string value;
	bool unset = false;
	std::string comment;  // one line: why
	std::string check_id; // the finding that asks for it
};
std::vector<Export> recommend_env(const Snapshot &snap);

// 0 nothing to warn about, 1 a warning or error.
int exit_code_for(const std::vector<Finding> &findings);

} // namespace rdnafix::status
