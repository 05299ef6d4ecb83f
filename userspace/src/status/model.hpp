#pragma once
// The status model: what rdnactl concludes from a machine::Snapshot.
//   assess(snap)          the verdicts the report shows next to the facts:
//                         effective noretry per device, access per node,
//                         override verdicts (enums from core::rules)
//   evaluate(snap[, a])   the findings, each with its catalogue id
// No I/O.
#include "core/remedy.hpp"

#include "machine/settings.hpp"
#include "machine/snapshot.hpp"

#include "software/libload.hpp"
#include "software/model.hpp"
#include "knowledge/known_bad.hpp"

#include "core/rules.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::status {

// The typed remedies a finding carries (core/remedy.hpp; explain uses them too).
using core::BiosSetting;
using core::ContainerOption;
using core::InstallPackage;
using core::JoinGroup;
using core::KernelParam;
using core::kind_of;
using core::ModuleOption;
using core::NoChange;
using core::Remedy;
using core::RemedyKind;
using core::SetEnv;
using core::UnsetEnv;

// The machine records the checks read.
using machine::Access;
using machine::Device;
using machine::DevNode;
using machine::OverrideVar;
using machine::Param;
using machine::Snapshot;
using machine::Unreadable;
using machine::VisibleVar;

enum class Severity { info, warn, error };
std::string_view severity_name(Severity s); // "info", "warn", "error"

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
	std::string fix;     // the exact fix (command, line or export), for a person
	// The same fix as data, in order: what `env` (and later `config`, `fix`)
	// act on.  {NoChange} when nothing can be stated as a change.
	std::vector<Remedy> remedies;
};

// ---- verdicts -------------------------------------------------------------

// Whose access a node is judged for: uid, name and groups (ids and names;
// a captured tree's manifest names groups only).
struct Subject {
	std::optional<unsigned> uid;
	std::string user;
	std::vector<unsigned> gids;
	std::vector<std::string> groups;
};
Subject subject_of(const Access &access);

// Can the subject open a device node read-write, and why (not)?
struct NodeAccess {
	bool can_open = false;
	bool unknown = false;      // the node could not be examined (stat_error): neither yes nor no
	std::string verdict;       // one line: why / why not
	std::string missing_group; // the group the subject would need ("" if none helps)
};
// By the node's mode, owner and group (pure), then the kernel's own answer
// when the snapshot has one.
NodeAccess judge_node(const DevNode &node, const Subject &who);

// One HSA_OVERRIDE_GFX_VERSION* variable judged for one device it applies to.
struct OverrideJudgement {
	std::string device; // BDF
	std::string native; // the device's own gfx target ("" unknown)
	rules::OverrideVerdict verdict = rules::OverrideVerdict::unknown;
	std::string reason;
};
// The devices an override variable applies to (ROCr: the _<N> form for KFD
// node N, which takes precedence over the plain form) and the verdict for each.
std::vector<OverrideJudgement> judge_override(const OverrideVar &o, const Snapshot &snap);

// One set variable judged with the variables table (judge_vars.cpp).
enum class VarVerdict {
	in_effect,       // a program reads it and the value is one it acts on
	slow,            // a debug switch at a value that slows every run
	value_ignored,   // a program reads it, but not this value (accepts)
	value_rejected,  // its reader stops on this value (a PyTorch allocator configuration: RDNA-ENV-016)
	no_effect,       // read by CUDA or another framework only
	build_time_only, // read when code is compiled
	not_real,        // no program reads it (made up)
	deprecated,      // old releases only, or replaced
	unverified,      // the table has it, no reader was found for its claim
	misspelt,        // not read under this spelling (a near miss, a node id no GPU has)
	unknown,         // looks relevant (its prefix) but the table lacks it
};
struct VarJudgement {
	std::string name, value;
	const core::VarEntry *entry = nullptr; // the row (in snap.environment.table); nullptr: none
	VarVerdict verdict = VarVerdict::unknown;
	std::string near; // misspelt: the name meant ("" when it names no table row)
};
std::vector<VarJudgement> judge_variables(const machine::Environment &env);

// Every verdict, index-aligned with the snapshot's vectors.
struct Assessment {
	std::vector<rules::DeviceNoretry> noretry;             // per snap.devices
	std::vector<NodeAccess> nodes;                         // per snap.access.nodes
	std::vector<std::vector<OverrideJudgement>> overrides; // per snap.environment.overrides
	std::vector<machine::Setting> settings;                // machine::configured_settings(snap)
	std::vector<VarJudgement> variables;                   // per snap.environment.vars, in name order
	// The code-object coverage scan (run_status fills it unless --no-coverage;
	// assess() leaves it empty: it reads files).
	std::optional<coverage::Report> coverage;
	// The known-bad versions table (known-bad.toml and overlays; run_status
	// fills it, assess() leaves it empty: it reads files).
	std::vector<knowledge::KnownBad> known_bad;
	// The library-load check of the software picture (run_status and run_env
	// fill it; RDNA-LIB findings).
	std::optional<software::libload::Report> libload;
};
Assessment assess(const Snapshot &snap);

// ---- findings ---------------------------------------------------------------

std::vector<Finding> evaluate(const Snapshot &snap, const Assessment &a);
std::vector<Finding> evaluate(const Snapshot &snap); // with assess(snap)

// One line of `rdnactl env`: export NAME=value, or unset NAME (value empty + unset).
struct Export {
	std::string name;
	std::string value;
	bool unset = false;
	std::string comment;  // one line: why
	std::string check_id; // the finding that asks for it
};
// The environment remedies (SetEnv, UnsetEnv) of the findings, in finding
// order, the first one per variable; never unsets a variable that is not set.
std::vector<Export> env_changes(const std::vector<Finding> &findings, const machine::Environment &env);
// env_changes(evaluate(snap), snap.environment): what `rdnactl env` prints.
std::vector<Export> recommend_env(const Snapshot &snap);

// 0 nothing to warn about, 1 a warning or error.
int exit_code_for(const std::vector<Finding> &findings);

struct Summary {
	int errors = 0, warnings = 0, info = 0;
};
Summary summarize(const std::vector<Finding> &findings);

} // namespace rdnafix::status
