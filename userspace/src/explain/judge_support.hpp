#pragma once
// What the judge needs to know about THIS machine, computed once from the
// snapshot (and the coverage report): the AMD GPUs with their targets,
// override verdicts and effective noretry.  Pure; shared by judge.cpp and
// judge_kernel.cpp.
#include "explain/model.hpp"

#include "machine/snapshot.hpp"

#include "core/rules.hpp"

#include <optional>
#include <string>
#include <vector>

namespace rdnafix::explain::detail {

struct OverrideHere {
	std::string name, value;
	std::optional<rules::OverrideAssessment> verdict; // nullopt: invalid value or native unknown
	std::string error;                                // invalid value
};

struct Gpu {
	const machine::Device *dev = nullptr;
	std::string bdf, gfx; // gfx "" unknown
	std::string label;    // "0000:03:00.0 (gfx1031, RDNA2)"
	std::optional<core::GfxTarget> target;
	std::vector<OverrideHere> overrides; // the override variables that apply to this GPU
	std::optional<int> noretry;
	std::string noretry_rule;
};

struct Machine {
	const machine::Snapshot *snap = nullptr;
	const coverage::Report *coverage = nullptr;
	std::vector<Gpu> gpus; // AMD GPUs only
};

Machine machine_facts(const machine::Snapshot &s, const coverage::Report *coverage);
// "gfx1031" -> {10,3,1}; "gfx90a" -> {9,0,10}; nullopt when not a gfx name.
std::optional<core::GfxTarget> parse_gfx(std::string_view name);
// The GPU with this PCI address / KFD node, nullptr when none.
const Gpu *gpu_by_bdf(const Machine &m, std::string_view bdf);
const Gpu *gpu_by_node(const Machine &m, unsigned node);
// Lines about the override verdicts of `g` (unsafe ones with an UnsetEnv remedy).
void judge_overrides(const Gpu &g, Explanation *e, bool unsafe_only);
// "coverage: <library> (<install>): <verdict> ..." lines for GPU target `gfx`
// (or a note that no scan was run).
void coverage_lines(const Machine &m, const std::string &gfx, Explanation *e);

// One GPU target's code fix, kept until every GPU is judged: two GPUs with
// the same override get one export line naming both (flush_code_fixes).
struct CodeFix {
	std::string gfx;
	std::string safe_dotted, safe_name, generic; // the export; empty safe_dotted: none offered
	bool offered = false;                        // an export was offered for this target
	bool here = true;                            // a GPU of this machine (else one of the log's)
};
// The pending fixes as lines into e->fix, then cleared: the exports (one
// per value, naming every target it serves), then the builds to install
// (one line per kind: with an export or not, this machine's GPUs or the
// log's), never mixing this machine's targets with the log's (code_fix.cpp).
void flush_code_fixes(std::vector<CodeFix> &pending, Explanation *e);

// Per-signature judges of kernel-side matches (judge_kernel.cpp).
void judge_vm_fault(const Machine &m, Explanation *e);
void judge_kernel_event(const Machine &m, Explanation *e);
// What a memory fault on this machine's RDNA1/RDNA2 GPU points at, for the
// causes with `when = "gfx10"` (the MTYPE line): an unsafe override, missing
// code objects, else a bug shown by the decoded fault (conditions.cpp).
// `decoded`: the match is the kernel's fault block itself (its decoded lines follow).
std::string gfx10_evidence(const Machine &m, bool decoded);
// Whether a condition of the knowledge base holds on this machine (conditions.cpp).
bool holds(const Machine &m, knowledge::Condition c);
// An allocation that failed: its figures (tried, total, free, allocated,
// reserved_unallocated) against the GPU's memory and, on an APU, the TTM limit.
void judge_oom(const Machine &m, Explanation *e);
// No GPU visible / refused: device nodes, groups, visibility variables, driver.
void judge_access(const Machine &m, Explanation *e);

} // namespace rdnafix::explain::detail
