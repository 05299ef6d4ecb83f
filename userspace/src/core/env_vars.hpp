#pragma once
// Environment variables users copy from guides, as data: the table itself is
// text (userspace/data/knowledge/variables.toml, docs/knowledge.md, parsed by
// knowledge/parse_variables.cpp); here are its records and the pure functions
// over them: lookup by name or pattern, which names look relevant, near
// misses of the table's names, and the keys of PyTorch's allocator
// configuration.  Pure: values in, values out.
#include "core/remedy.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::core {

// What a variable does on a ROCm machine (a closed set; the data spells each
// with var_status_word()).
enum class VarStatus {
	effective,           // a ROCm/PyTorch/application reader acts on it
	debug_slow,          // effective, and a debugging switch that slows every run
	no_effect_on_rocm,   // read by CUDA or another framework only
	build_time_only,     // read when code is compiled; changes nothing in installed binaries
	not_a_real_variable, // no program reads it (made up in a guide or a script)
	deprecated,          // read by old releases only, or replaced
	unverified,          // no upstream reader was found for the claim: said so, not guessed
};
std::string_view var_status_word(VarStatus s); // "effective", "debug-slow", ...
std::optional<VarStatus> var_status_from_word(std::string_view w);
const std::vector<VarStatus> &var_statuses(); // every value, in declaration order

// One row of the table.
struct VarEntry {
	// An exact name, NAME_<N> (N a decimal node id: HSA_OVERRIDE_GFX_VERSION_<N>)
	// or a prefix ending in '*' (MIOPEN_DEBUG_*).
	std::string name;
	std::string family; // hsa, hip, rocm, miopen, rocblas, hipblaslt, pytorch, triton, ollama, llama.cpp, cuda, ...
	VarStatus status = VarStatus::effective;
	std::string does;     // what it does, one or two sentences
	std::string values;   // the valid values, as text
	std::string versions; // where it has an effect
	// Values the reader acts on, exactly; "<int>" stands for a decimal integer.
	// Empty: any value (not checked).
	std::vector<std::string> accepts;
	// debug_slow: an integer value >= slow_from is slow (AMD_LOG_LEVEL 3);
	// without it every value other than "" and "0" is.
	std::optional<long long> slow_from;
	std::string instead; // the ROCm way, as text ("" none)
	// Typed repairs (SetEnv / UnsetEnv); "{value}" in a SetEnv value stands
	// for the value that is set.
	std::vector<Remedy> repair;
	std::vector<std::string> sources; // upstream files at a version, issue URLs
	std::string origin;               // "variables.toml:12", where the row was read
};
using VarTable = std::vector<VarEntry>;

// The row for `name`: an exact name first, then a NAME_<N> pattern, then the
// longest matching prefix pattern; nullptr when none.
const VarEntry *find_var(const VarTable &t, std::string_view name);
// A name whose prefix says it belongs to ROCm, PyTorch or the applications
// (HSA_, HIP_, ROCM, ROCR_, ROC_, GPU_, CUDA_, MIOPEN_, ROCBLAS_, HIPBLASLT_,
// TENSILE_, PYTORCH_, TORCH_, AMD_, OLLAMA_, GGML_, HCC_): listed even when
// the table lacks it.
bool looks_relevant(std::string_view name);
// Whether `value` of a debug_slow row slows the process down.
bool is_slow(const VarEntry &e, std::string_view value);
// Whether the row's reader acts on `value` (true when accepts is empty).
bool value_accepted(const VarEntry &e, std::string_view value);
// `text` with every "{value}" replaced by `value`.
std::string with_value(std::string_view text, std::string_view value);

// The table name `name` is probably a misspelling of: the same letters in
// another case, or an edit distance (insert, delete, substitute, swap of two
// neighbours) of 1 for names under 12 characters and 2 from 12 on.  nullopt
// for names in the table (and their patterns), HSA_OVERRIDE_GFX_VERSION_<N>,
// and names with no close table name.  Only exact rows whose variable some
// program reads are candidates.
std::optional<std::string> near_miss(std::string_view name, const VarTable &t);
// HSA_OVERRIDE_GFX_VERSION_<suffix> whose suffix is no node id the runtime
// can spell with "%d" ("-1", "+1", "99999999999", "gfx1", ""): the reason,
// naming the suffix and what is valid; nullopt for any other name, for a
// valid node name and for leading zeros ("_01": near_miss names "_1").
std::optional<std::string> invalid_override_node(std::string_view name, const VarTable &t);
// Optimal-string-alignment distance (exposed for tests).
unsigned edit_distance(std::string_view a, std::string_view b);

// PyTorch's caching-allocator configuration keys
// (PYTORCH_ALLOC_CONF / PYTORCH_CUDA_ALLOC_CONF / PYTORCH_HIP_ALLOC_CONF).
enum class AllocValue { boolean, number, divisions, backend, text };
struct AllocKey {
	std::string_view key;
	AllocValue value;
};
const std::vector<AllocKey> &alloc_conf_keys();
const AllocKey *alloc_conf_key(std::string_view key);
// Where the key list comes from (printed with findings).
extern const std::string_view kAllocConfSource;

} // namespace rdnafix::core
