#pragma once
// The registry of validation cases: every case's definition, gathered from
// the kinds in cases/ (one file per kind: its definitions, its host half and
// its judge; cases/kinds.hpp).  Pure data.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model.hpp"

namespace rdnafix::validate {

enum class CaseKind { conv2d, stream, capacity, transfers, torch, selftest };
// conv2d, stream, capacity and transfers run on the GPU (the run probes the runtime first).
bool needs_gpu(CaseKind k);

struct CaseDef {
	std::string name;
	CaseKind kind = CaseKind::conv2d;
	std::string origin;  // which network layer the shape comes from / what the case measures
	bool quick = false;  // in --quick (the default set); every non-hidden case is in --full
	bool hidden = false; // selftest cases: only by --case, not listed, for rdnactl's own tests
	// conv2d
	ConvShape shape;
	DType dtype = DType::f32;
	MemKind mem = MemKind::device; // where x, w and y live (the memory matrix)
	// transfers
	bool pinned = false;
};

const std::vector<CaseDef> &all_cases();
const CaseDef *find_case(std::string_view name);

enum class Selection { quick, full };
std::vector<const CaseDef *> select_cases(Selection s);
// Throws std::invalid_argument naming the unknown case and how to list the valid ones.
std::vector<const CaseDef *> select_named(const std::vector<std::string> &names);

// Transfer sizes of the transfers cases: 4 KiB .. 1 GiB (x4 steps); quick stops at 64 MiB.
std::vector<std::size_t> transfer_sizes(bool full);

} // namespace rdnafix::validate
