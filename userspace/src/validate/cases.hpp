#pragma once
// The registry of validation cases.  Pure data.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conv_shape.hpp"

namespace rdnafix::validate {

enum class CaseKind { conv2d, stream, capacity, transfers, torch, selftest };
// Where the conv2d inputs and output live (the memory matrix).  Names match
// gpu::memkind_name().
enum class MemPlace { device, host_coherent, host_noncoherent, managed };
const char *mem_place_name(MemPlace m);

struct CaseDef {
	std::string name;
	CaseKind kind = CaseKind::conv2d;
	std::string origin;  // which network layer the shape comes from / what the case measures
	bool quick = false;  // in --quick (the default set); every non-hidden case is in --full
	bool hidden = false; // selftest cases: only by --case, not listed, for rdnactl's own tests
	// conv2d
	ConvShape shape;
	DType dtype = DType::f32;
	MemPlace mem = MemPlace::device;
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
