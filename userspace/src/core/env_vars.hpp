#pragma once
// Environment variables users copy from guides: which ones ROCm, HIP, HSA,
// PyTorch and MIOpen really read, which ones do nothing there (with the
// upstream source of each claim), near misses of the real names, and the keys
// of PyTorch's allocator configuration.  Pure tables and string functions.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::core {

// A variable that does nothing in a ROCm PyTorch process.
enum class CopiedKind {
	cuda_only,       // read by CUDA / PyTorch's CUDA build only; the HIP runtime ignores it
	other_framework, // read by another framework (TensorFlow), never by PyTorch or ROCm
	build_only,      // read when building code; changes nothing in installed binaries
};
struct CopiedVar {
	std::string_view name;
	CopiedKind kind;
	std::string_view effect;  // what it does (and where), one clause
	std::string_view instead; // the ROCm way, "" when there is none
	std::string_view source;  // upstream file/version or issue URL
};
// The table (one row per variable).
const std::vector<CopiedVar> &copied_vars();
const CopiedVar *copied_var(std::string_view name);
std::string_view to_string(CopiedKind k); // "CUDA only", "another framework", "build time only"

// A name ROCm / HIP / HSA / PyTorch / MIOpen read, with where.
struct KnownVar {
	std::string_view name;
	std::string_view source;
};
const std::vector<KnownVar> &known_vars();
const KnownVar *known_var(std::string_view name);

// The known name `name` is probably a misspelling of: the same letters in
// another case, or an edit distance (insert, delete, substitute, swap of two
// neighbours) of 1 for names under 12 characters and 2 from 12 on.  nullopt
// for known names, HSA_OVERRIDE_GFX_VERSION_<N>, names in copied_vars() and
// names with no close known name.
std::optional<std::string> near_miss(std::string_view name);
// HSA_OVERRIDE_GFX_VERSION_<suffix> whose suffix is no node id the runtime
// can spell with "%d" ("-1", "+1", "99999999999", "gfx1", ""): the reason,
// naming the suffix and what is valid; nullopt for any other name, for a
// valid node name and for leading zeros ("_01": near_miss names "_1").
std::optional<std::string> invalid_override_node(std::string_view name);
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
